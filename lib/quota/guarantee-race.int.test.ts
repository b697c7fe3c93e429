import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { eq } from "drizzle-orm";
import { instanceSettings, nodePools } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { seededDatabase } from "@/test/tenancy";
import { seedDemoUsage } from "@/lib/demo/usage";
import { approveQuotaRequest, createQuotaRequest } from "./commands/requests";
import { createNodePool, deleteNodePool } from "./commands/capacity";
import { DEFAULT_QUOTA_POLICY } from "./policy";
import { sharingArithmetic } from "./sharing-arithmetic";
import { tenantLineHoldings } from "./envelope-store";
import { loadPools, loadQuotaPolicy, QUOTA_POLICY_KEY } from "./store";

/**
 * Two approvals in two tenants at the same moment, each of which fits the
 * pools at their minimum alone but not together. They lock different
 * tenants' rows, so only the advisory lock on the guarantee sum
 * (lockGuaranteeSum) makes the second one see the first: on PostgreSQL each
 * runs on its own connection; PGlite has one and takes them in turn.
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
let db: Database;

beforeAll(async () => {
  db = seeded.db;
  // The demo's grants, H100 guarantees among them, come with its usage story.
  expect(await seedDemoUsage(db, NOW)).toBe(true);
  const policy = { ...DEFAULT_QUOTA_POLICY, secondApprovalAboveMonthlyCost: null };
  await db.insert(instanceSettings).values({ key: QUOTA_POLICY_KEY, value: policy, updatedAt: NOW }).onConflictDoUpdate({ target: instanceSettings.key, set: { value: policy } });
});

async function h100Guaranteed() {
  const [pools, policy, holdings] = await Promise.all([loadPools(db), loadQuotaPolicy(db), tenantLineHoldings(db, NOW)]);
  const line = sharingArithmetic(pools, policy.overcommit, holdings).find((l) => l.key === "gpu:H100")!;
  return { guaranteed: line.guaranteed, atMin: line.capacity.atMin };
}

describe(`concurrent approvals against the pools' minimum (${databaseLabel()})`, () => {
  it("lets exactly one of two approvals through when both together would guarantee more than the pools hold at their minimum", async () => {
    const before = await h100Guaranteed();
    // The demo guarantees 24 of 32 H100 GPUs: 5 fits, 5 + 5 does not.
    expect(before).toEqual({ guaranteed: 24, atMin: 32 });
    const asks = await Promise.all(
      [
        ["vision-lab", "detector-training", "vision-admin"],
        ["language-models", "pretraining", "language-admin"],
      ].map(async ([tenant, project, asker]) =>
        (await executeCommand(createQuotaRequest, await contextOf(db, asker as "vision-admin", NOW), { tenant, project, gpuModel: "H100", gpuCount: "5", justification: "Training runs for the next milestone." })).request,
      ),
    );
    const admin = await contextOf(db, "platform-admin", NOW);
    const outcomes = await Promise.allSettled(asks.map((r) => executeCommand(approveQuotaRequest, admin, { requestId: r.id, version: r.version })));
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: "validation", fields: { gpuCount: [expect.stringMatching(/more than the pools hold at their autoscaler minimum \(32\)/)] } });
    expect(await h100Guaranteed()).toEqual({ guaranteed: 29, atMin: 32 });
  });

  it("refuses to delete a pool the guarantees depend on, naming the pool, the line and who holds the guarantees; one of a delete and an approval racing goes through", async () => {
    const admin = await contextOf(db, "platform-admin", NOW);
    const [h100] = await db.select().from(nodePools).where(eq(nodePools.name, "h100-pool"));
    // The only H100 pool: deleting it would leave no H100 at all for the 29 guaranteed.
    const refused = await executeCommand(deleteNodePool, admin, { id: h100!.id }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "conflict" });
    expect((refused as Error).message).toMatch(/^Node pool h100-pool cannot be deleted: deleting it would leave the pools holding 0 H100 GPUs at their autoscaler minimum, fewer than the 29 guaranteed across all tenants \(29 short; guaranteed to .+ \d+, .+ \d+\)/);
    expect(await db.select({ id: nodePools.id }).from(nodePools).where(eq(nodePools.id, h100!.id))).toHaveLength(1);

    // A second H100 pool of 16 at its minimum: 48 in all. Deleting it alone (32 left for 29) or approving 8 more alone (37 of 48) fits; both do not.
    const extra = await executeCommand(createNodePool, admin, { name: "h100-extra", gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: "8", nodeCount: "2", minNodes: "2", maxNodes: "4", cpuPerNode: "208", memoryPerNode: "1843" });
    expect(await h100Guaranteed()).toEqual({ guaranteed: 29, atMin: 48 });
    const { request } = await executeCommand(createQuotaRequest, await contextOf(db, "vision-admin", NOW), { tenant: "vision-lab", project: "detector-training", gpuModel: "H100", gpuCount: "8", justification: "A second training line." });
    const outcomes = await Promise.allSettled([executeCommand(deleteNodePool, admin, { id: extra.id }), executeCommand(approveQuotaRequest, admin, { requestId: request.id, version: request.version })]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    const after = await h100Guaranteed();
    expect(after.guaranteed).toBeLessThanOrEqual(after.atMin);
    expect([after, outcomes[0].status]).toEqual(outcomes[0].status === "fulfilled" ? [{ guaranteed: 29, atMin: 32 }, "fulfilled"] : [{ guaranteed: 37, atMin: 48 }, "rejected"]);
  });
});
