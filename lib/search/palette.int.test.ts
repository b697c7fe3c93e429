import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import type { Database } from "@/db/client";
import { principals, quotaRequests, serviceAccounts } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import type { CommandContext } from "@/lib/auth/context";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { contextOf, type PersonaKey } from "@/test/fixtures";
import { projectIdOf, tenantIdsBySlug } from "@/test/tenancy";
import { searchPalette, type PaletteItem } from "./palette";

/**
 * The palette finds only what the person may open: another tenant's projects,
 * people, service accounts and requests stay out of it, whatever is typed.
 */
const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
/** After Cleo's 60-day grant on Chat evaluation has ended. */
const AFTER_CLEO = new Date(SEEDED_AT.getTime() + 61 * 86_400_000);

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;

async function addServiceAccount(tenantId: string, name: string) {
  const [p] = await db.insert(principals).values({ kind: "service_account", displayName: name }).returning({ id: principals.id });
  await db.insert(serviceAccounts).values({ principalId: p!.id, tenantId, name, description: "nightly batch" });
}

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  await seedDemoData(db, SEEDED_AT);
  const ids = await tenantIdsBySlug(db);
  await addServiceAccount(ids["vision-lab"]!, "vision-ci");
  await addServiceAccount(ids["language-models"]!, "language-ci");
  // One pending request per project, as a member would send it.
  for (const [tenant, project, why] of [
    ["vision-lab", "detector-training", "camera datasets for detector runs"],
    ["vision-lab", "segmentation-research", "segmentation sweeps"],
    ["language-models", "pretraining", "long pretraining runs"],
    ["language-models", "chat-eval", "evaluation harness"],
  ] as const) {
    await db.insert(quotaRequests).values({ tenantId: ids[tenant]!, projectId: await projectIdOf(db, tenant, project), gpuCount: 0, cpuCores: 4, memoryBytes: 0, storageBytes: 0, justification: why, status: "pending", createdAt: SEEDED_AT });
  }
});
afterAll(async () => {
  await handle?.close();
});

const as = (key: PersonaKey, now: Date = NOW): Promise<CommandContext> => contextOf(db, key, now);
/** An answer as "kind label" lines, sorted, so a whole answer is compared at once. */
const lines = (items: PaletteItem[]) => items.map((i) => `${i.kind} ${i.label}`).sort();
const find = async (key: PersonaKey, q: string, now?: Date) => searchPalette(await as(key, now), q);

describe(`the command palette's search (${databaseLabel()})`, () => {
  it("finds, for a member of Vision Lab, only Vision Lab and the project granted to her", async () => {
    const found = await find("data-scientist", "i");
    expect(lines(found.filter((i) => i.kind === "tenant" || i.kind === "project"))).toEqual(["project Detector training", "tenant Vision Lab"]);
    expect(found.every((i) => !i.href.includes("language-models"))).toBe(true);
    expect(lines(found.filter((i) => i.kind === "service_account"))).toEqual(["service_account vision-ci"]);
    // A service account opens its own page.
    expect(found.filter((i) => i.kind === "service_account").map((i) => i.href)).toEqual(["/tenants/vision-lab/service-accounts/vision-ci"]);
    expect(found.filter((i) => i.kind === "request").map((i) => i.label)).toEqual(["Quota request for Detector training (pending)"]);
  });

  it("finds nothing of Language Models for Vision Lab's admin, by name, email, slug or justification", async () => {
    for (const q of ["Language", "language-models", "Bo Larsen", "bo@", "Pretraining", "chat-eval", "language-ci", "pretraining runs", "harness"]) {
      expect(await find("vision-admin", q), q).toEqual([]);
    }
  });

  it("finds Language Models' people, service accounts and requests for its admin", async () => {
    expect(lines(await find("language-admin", "Larsen"))).toEqual(["person Bo Larsen"]);
    expect(lines(await find("language-admin", "language-ci"))).toEqual(["service_account language-ci"]);
    const requests = (await find("language-admin", "pretraining runs")).filter((i) => i.kind === "request");
    expect(requests).toHaveLength(1);
    expect(requests[0]!.href).toMatch(/^\/tenants\/language-models\/projects\/pretraining\/quota\/requests\/[0-9a-f-]{36}$/);
  });

  it("finds for an external collaborator the one project, without its tenant or its people", async () => {
    const found = await find("collaborator", "a");
    expect(found.filter((i) => i.kind === "project").map((i) => i.label)).toEqual(["Chat evaluation"]);
    expect(found.filter((i) => i.kind === "tenant" || i.kind === "person" || i.kind === "service_account")).toEqual([]);
    expect(found.filter((i) => i.kind === "request").map((i) => i.href)).toEqual([expect.stringMatching(/^\/tenants\/language-models\/projects\/chat-eval\/quota\/requests\//)]);
  });

  it("finds nothing once a collaborator's grant has ended", async () => {
    expect(await find("collaborator", "a", AFTER_CLEO)).toEqual([]);
  });

  it("finds every tenant's items for a platform admin", async () => {
    expect(lines(await find("platform-admin", "-ci"))).toEqual(["service_account language-ci", "service_account vision-ci"]);
    expect(lines((await find("platform-admin", "Robotics")).filter((i) => i.kind === "tenant"))).toEqual(["tenant Robotics"]);
  });

  it("takes the typed text literally: % and _ are not wildcards", async () => {
    expect(await find("platform-admin", "%")).toEqual([]);
    expect(await find("platform-admin", "_")).toEqual([]);
  });

  it("refuses an empty or overlong query with a sentence", async () => {
    const ctx = await as("data-scientist");
    await expect(searchPalette(ctx, "   ")).rejects.toThrow(ZodError);
    await expect(searchPalette(ctx, "x".repeat(101))).rejects.toThrow("Search for at most 100 characters.");
  });
});
