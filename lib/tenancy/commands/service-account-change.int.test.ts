import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Database } from "@/db/client";
import { principals, serviceAccounts } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { enqueueGrantedProjectChanges } from "@/lib/cluster/outbox";
import { databaseLabel } from "@/test/database";
import { appErrorOf, auditLog, contextOf } from "@/test/fixtures";
import { fingerprint, seededDatabase, unique } from "@/test/tenancy";
import { grantProjectRole } from "./project-access";
import { changeServiceAccount, createServiceAccount } from "./service-accounts";

/**
 * The API's service account PATCH is one command: description and disabled
 * change in one transaction, so a failure in the second part (here, queueing
 * the cluster change that disabling needs) leaves nothing written; and the
 * rule that something must be sent is the command's, not the route's.
 */

// Passes through to the real outbox unless a test makes it fail.
vi.mock("@/lib/cluster/outbox", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/cluster/outbox")>();
  return { ...actual, enqueueGrantedProjectChanges: vi.fn(actual.enqueueGrantedProjectChanges) };
});

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const seeded = seededDatabase(SEEDED_AT);
let db: Database;
beforeAll(() => {
  ({ db } = seeded);
});

async function account() {
  const alex = await contextOf(db, "vision-admin", NOW);
  const name = unique("patch-bot");
  const created = await executeCommand(createServiceAccount, alex, { tenant: "vision-lab", name, description: "before" });
  await executeCommand(grantProjectRole, alex, { tenant: "vision-lab", project: "detector-training", principalId: created.principalId, role: "member" });
  return { alex, name, principalId: created.principalId };
}

async function stateOf(principalId: string) {
  const [row] = await db
    .select({ description: serviceAccounts.description, disabledAt: principals.disabledAt })
    .from(serviceAccounts)
    .innerJoin(principals, eq(principals.id, serviceAccounts.principalId))
    .where(eq(serviceAccounts.principalId, principalId));
  return row!;
}

describe(`changing a service account in one command (${databaseLabel()})`, () => {
  it("writes description and disabled together, each audited", async () => {
    const { alex, name, principalId } = await account();
    const before = (await auditLog(db)).length;
    const result = await executeCommand(changeServiceAccount, alex, { tenant: "vision-lab", serviceAccount: name, description: "  after  ", disabled: true });
    expect(result).toEqual({ name, description: "after", disabled: true });
    expect(await stateOf(principalId)).toEqual({ description: "after", disabledAt: NOW });
    expect((await auditLog(db)).slice(before).map((e) => e.action)).toEqual(["service_account.updated", "service_account.disabled"]);
  });

  it("changes only what is sent", async () => {
    const { alex, name, principalId } = await account();
    expect(await executeCommand(changeServiceAccount, alex, { tenant: "vision-lab", serviceAccount: name, disabled: true })).toEqual({ name, description: "before", disabled: true });
    expect(await executeCommand(changeServiceAccount, alex, { tenant: "vision-lab", serviceAccount: name, description: "" })).toEqual({ name, description: "", disabled: null });
    expect(await stateOf(principalId)).toEqual({ description: "", disabledAt: NOW });
  });

  it("refuses a change that sends neither, and writes nothing", async () => {
    const { alex, name } = await account();
    const prints = await fingerprint(db);
    const error = await appErrorOf(executeCommand(changeServiceAccount, alex, { tenant: "vision-lab", serviceAccount: name }));
    expect(error.code).toBe("validation");
    expect(error.fields).toEqual({ _form: ["Send description and/or disabled."] });
    expect(await fingerprint(db)).toEqual(prints);
  });

  it("leaves nothing written when the second part fails", async () => {
    const { alex, name, principalId } = await account();
    const prints = await fingerprint(db);
    vi.mocked(enqueueGrantedProjectChanges).mockRejectedValueOnce(new Error("outbox unavailable"));
    await expect(executeCommand(changeServiceAccount, alex, { tenant: "vision-lab", serviceAccount: name, description: "after", disabled: true })).rejects.toThrow("outbox unavailable");
    expect(await stateOf(principalId)).toEqual({ description: "before", disabledAt: null });
    expect(await fingerprint(db)).toEqual(prints);
  });
});
