import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { apiTokens, projectGrants } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { authenticateToken } from "@/lib/auth/token-auth";
import { databaseLabel } from "@/test/database";
import { appErrorOf, auditLog, contextOf, errorText, rejectionOf, type PersonaKey } from "@/test/fixtures";
import { DAY, fingerprint, projectIdOf, seededDatabase, unique } from "@/test/tenancy";
import { createProject } from "./create-project";
import { mintTokenWithRole } from "./mint-token-with-role";
import { archiveProject } from "./projects";
import { createServiceAccount } from "./service-accounts";

/**
 * Minting a token for an account with no role, and giving it a project role in
 * the same step: one transaction, both written and audited, or neither.
 */

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");

const seeded = seededDatabase(SEEDED_AT);
let db: Database;

beforeAll(() => {
  ({ db } = seeded);
});

const as = (key: PersonaKey): Promise<CommandContext> => contextOf(db, key, NOW);

/** A fresh vision-lab account with no role, made by Alex. */
async function roleless() {
  const alex = await as("vision-admin");
  const name = unique("roleless");
  const account = await executeCommand(createServiceAccount, alex, { tenant: "vision-lab", name, description: "" });
  return { alex, name, principalId: account.principalId };
}

async function grantsOf(principalId: string) {
  return db.select({ projectId: projectGrants.projectId, role: projectGrants.role, expiresAt: projectGrants.expiresAt }).from(projectGrants).where(eq(projectGrants.principalId, principalId));
}
async function tokensOf(principalId: string) {
  return db.select({ prefix: apiTokens.prefix }).from(apiTokens).where(eq(apiTokens.serviceAccountId, principalId));
}

describe(`minting a token with a project role (${databaseLabel()})`, () => {
  it("sets the role and mints the token together, both audited, and the token acts with the role at once", async () => {
    const { alex, name, principalId } = await roleless();
    const before = (await auditLog(db)).length;
    const minted = await executeCommand(mintTokenWithRole, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: "30", project: "detector-training", role: "viewer" });

    expect(minted.role).toEqual({ projectSlug: "detector-training", projectName: "Detector training", role: "viewer" });
    expect(minted.expiresAt).toEqual(new Date(NOW.getTime() + 30 * DAY));
    const detector = await projectIdOf(db, "vision-lab", "detector-training");
    expect(await grantsOf(principalId)).toEqual([{ projectId: detector, role: "viewer", expiresAt: null }]);
    expect(await tokensOf(principalId)).toEqual([{ prefix: minted.prefix }]);
    const events = (await auditLog(db)).slice(before);
    expect(events.map((e) => [e.action, e.actorPrincipalId])).toEqual([
      ["project_grant.created", alex.actor.principalId],
      ["api_token.created", alex.actor.principalId],
    ]);
    expect(events[0]!.after).toMatchObject({ projectId: detector, principalId, role: "viewer" });

    const auth = await authenticateToken(db, minted.token, NOW, []);
    expect(auth.ok && auth.actor.projectGrants.map((g) => [g.projectId, g.role])).toEqual([[detector, "viewer"]]);
  });

  it("mints a plain token when no project is chosen (a form's empty choice), setting no role", async () => {
    const { alex, name, principalId } = await roleless();
    const minted = await executeCommand(mintTokenWithRole, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: "7", noExpiry: "", project: "", role: "member" });
    expect(minted.role).toBeNull();
    expect(await grantsOf(principalId)).toEqual([]);
    expect(await tokensOf(principalId)).toEqual([{ prefix: minted.prefix }]);
  });

  it("mints no token when the role cannot be set: an archived project writes nothing at all", async () => {
    const { alex, name, principalId } = await roleless();
    const slug = unique("closed");
    await executeCommand(createProject, alex, { tenant: "vision-lab", name: "Closed project", slug });
    await executeCommand(archiveProject, alex, { tenant: "vision-lab", project: slug });
    const before = await fingerprint(db);

    const error = await appErrorOf(executeCommand(mintTokenWithRole, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: "30", project: slug, role: "member" }));
    expect(error.code).toBe("conflict");
    expect(error.message).toBe("This project is archived; nothing can be changed in it.");
    expect(await fingerprint(db)).toEqual(before);
    expect(await tokensOf(principalId)).toEqual([]);
  });

  it("sets no role when the token cannot be stored: the role is rolled back with it", async () => {
    const { alex, name, principalId } = await roleless();
    // The token insert fails after the grant was written, inside the same transaction.
    await db.execute(sql.raw(`create function refuse_token() returns trigger language plpgsql as $$ begin if new.service_account_id = '${principalId}' then raise exception 'token store refused'; end if; return new; end $$`));
    await db.execute(sql`create trigger refuse_token before insert on api_tokens for each row execute function refuse_token()`);
    try {
      const before = await fingerprint(db);
      const failure = await rejectionOf(executeCommand(mintTokenWithRole, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: "30", project: "detector-training", role: "member" }));
      expect(errorText(failure)).toContain("token store refused");
      expect(await fingerprint(db)).toEqual(before);
      expect(await grantsOf(principalId)).toEqual([]);
    } finally {
      await db.execute(sql`drop trigger refuse_token on api_tokens`);
      await db.execute(sql`drop function refuse_token()`);
    }
  });

  it("names the field for bad input, and writes nothing", async () => {
    const { alex, name } = await roleless();
    const before = await fingerprint(db);
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ project: "detector-training", role: "owner" }, { role: ["Choose one of: member, viewer, meter."] }],
      [{ project: "detector-training" }, { role: ["Choose the role it gets on that project."] }],
      [{ project: "Not A Slug", role: "member" }, { project: ["Use lower-case letters, digits and hyphens, starting with a letter and ending with a letter or digit."] }],
      [{ project: "no-such-project", role: "member" }, { project: ["Choose a project of this tenant."] }],
    ];
    for (const [extra, fields] of cases) {
      const error = await appErrorOf(executeCommand(mintTokenWithRole, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: "30", ...extra }));
      expect(error.code, JSON.stringify(extra)).toBe("validation");
      expect(error.fields, JSON.stringify(extra)).toEqual(fields);
    }
    const noExpiry = await appErrorOf(executeCommand(mintTokenWithRole, alex, { tenant: "vision-lab", serviceAccount: name, project: "detector-training", role: "member" }));
    expect(noExpiry.fields).toEqual({ expiresInDays: ["Enter a number of days, or confirm a token that never expires."] });
    expect(await fingerprint(db)).toEqual(before);
  });

  it("refuses another tenant's project: its slug is looked up in the account's tenant only", async () => {
    const { alex, name, principalId } = await roleless();
    const error = await appErrorOf(executeCommand(mintTokenWithRole, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: "30", project: "chat-eval", role: "member" }));
    expect(error.fields).toEqual({ project: ["Choose a project of this tenant."] });
    expect(await tokensOf(principalId)).toEqual([]);
  });
});
