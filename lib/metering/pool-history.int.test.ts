import { asc, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { nodePoolSizes, projects, rates } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { createNodePool, deleteNodePool, importNodePools, updateNodePool } from "@/lib/quota/commands/capacity";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { seededDatabase } from "@/test/tenancy";
import { ingestUsage } from "./ingest";
import { clusterCost } from "./spend";

/**
 * Idle and capacity cost are priced on the pool size in force each hour: a
 * pool that grows mid-window costs its old size before and its new size
 * after, and a deleted pool's past still counts. The history is written by
 * the capacity commands themselves, in their transaction.
 */
const seeded = seededDatabase(new Date("2026-04-01T00:00:00Z"));
let db: Database;

const HOUR = 3_600_000;
const T0 = Date.parse("2026-05-01T00:00:00Z");
const at = (hours: number) => new Date(T0 + hours * HOUR);
const GPU_PRICE = 2;

const pool = {
  name: "grow-pool",
  gpuModel: "B200",
  gpuResource: "nvidia.com/gpu",
  gpusPerNode: "8",
  nodeCount: "1",
  minNodes: "",
  maxNodes: "",
  cpuPerNode: "1",
  memoryPerNode: "1",
  dedicatedTenant: "",
};

const history = async (poolId: string) =>
  (await db.select().from(nodePoolSizes).where(eq(nodePoolSizes.poolId, poolId)).orderBy(asc(nodePoolSizes.validFrom))).map((r) => ({
    name: r.poolName,
    nodes: r.nodeCount,
    from: r.validFrom.toISOString(),
    to: r.validTo?.toISOString() ?? null,
  }));

const cost = (fromHour: number, toHour: number, nowHour = toHour) => clusterCost(db, { from: at(fromHour), to: at(toHour) }, at(nowHour));

beforeAll(async () => {
  db = seeded.db;
  // Only the pool under test and a price for its GPUs: CPU and memory have no price, so capacity is its GPU-hours alone.
  await db.execute(sql`delete from node_pools`);
  await db.execute(sql`delete from node_pool_sizes`);
  await db.execute(sql`delete from rates`);
  await db.insert(rates).values({ resource: "gpu:B200", unitPrice: String(GPU_PRICE), effectiveFrom: new Date("2026-01-01T00:00:00Z") });
  const [project] = await db.select({ id: projects.id, tenantId: projects.tenantId }).from(projects).limit(1);
  // 4 B200 in use every hour of three days (spend windows are whole UTC days: the rollup's).
  const samples = Array.from({ length: 72 }, (_, h) => ({ projectId: project!.id, tenantId: project!.tenantId, resource: "gpu:B200", hour: at(h), quantity: 4 }));
  await ingestUsage(db, "push:test", samples, at(0));
});

describe(`idle cost on the pool size history (${databaseLabel()})`, () => {
  it("prices each hour on the pool as it was: 1 node on the first day, 3 nodes on the second after it grew, nothing once deleted", async () => {
    const created = await executeCommand(createNodePool, await contextOf(db, "platform-admin", at(0)), pool);
    // A rename changes no capacity: no new span.
    const renamed = await executeCommand(updateNodePool, await contextOf(db, "platform-admin", at(6)), { ...pool, name: "b200-pool", id: created.id, version: created.version });
    const grown = await executeCommand(updateNodePool, await contextOf(db, "platform-admin", at(24)), { ...pool, name: "b200-pool", nodeCount: "3", id: created.id, version: renamed.version });
    expect(await history(created.id)).toEqual([
      { name: "b200-pool", nodes: 1, from: at(0).toISOString(), to: at(24).toISOString() },
      { name: "b200-pool", nodes: 3, from: at(24).toISOString(), to: null },
    ]);

    // Before the growth: 24 h × 8 GPUs × 2 = 384 of capacity; 24 h × 4 GPUs × 2 = 192 used; idle 192.
    expect(await cost(0, 24)).toMatchObject({ capacityCost: 384, allocatedCost: 192, idleCost: 192 });
    // After: 24 h × 24 GPUs × 2 = 1,152; idle 960.
    expect(await cost(24, 48)).toMatchObject({ capacityCost: 1152, allocatedCost: 192, idleCost: 960 });
    // The two days are the sum of their parts, not today's 3 nodes for 48 hours (2,304).
    expect(await cost(0, 48)).toMatchObject({ capacityCost: 1536, allocatedCost: 384, idleCost: 1152 });
    // Capacity is cut at the instant of the change, not at a day: 23:00–01:00 is one hour at each size.
    expect((await cost(23, 25)).capacityCost).toBe(8 * 2 + 24 * 2);
    // Seen at 30:40 of the second day, the hours still to come are not capacity (nor idle): the 6 hours that ended, × 24 GPUs × 2.
    expect((await cost(24, 48, 30 + 2 / 3)).capacityCost).toBe(6 * 24 * 2);
    expect((await cost(24, 48, 30)).capacityCost).toBe(6 * 24 * 2);
    expect((await cost(24, 48, 0)).capacityCost).toBe(0);

    await executeCommand(deleteNodePool, await contextOf(db, "platform-admin", at(48)), { id: created.id, version: grown.version });
    expect((await history(created.id)).at(-1)).toEqual({ name: "b200-pool", nodes: 3, from: at(24).toISOString(), to: at(48).toISOString() });
    // Deleted: the days it stood still cost what it held; the day after costs no capacity (usage beyond it is overcommit).
    expect((await cost(0, 48)).capacityCost).toBe(1536);
    expect(await cost(48, 72)).toMatchObject({ capacityCost: 0, allocatedCost: 192, idleCost: -192 });
  });

  it("an import writes the history too, and two changes in the same instant leave one span", async () => {
    const proposal = { name: "imported-pool", gpuModel: "B200", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 2, cpuPerNode: 1, memoryBytesPerNode: 2 ** 30 };
    const ctx = await contextOf(db, "platform-admin", at(72));
    await executeCommand(importNodePools, ctx, { pools: [{ ...proposal, version: null }] });
    const [row] = await db.select().from(nodePoolSizes).where(eq(nodePoolSizes.poolName, "imported-pool"));
    await executeCommand(importNodePools, ctx, { pools: [{ ...proposal, nodeCount: 5, version: 1 }] });
    expect(await history(row!.poolId)).toEqual([{ name: "imported-pool", nodes: 5, from: at(72).toISOString(), to: null }]);
    await executeCommand(importNodePools, await contextOf(db, "platform-admin", at(84)), { pools: [{ ...proposal, nodeCount: 1, version: 2 }] });
    expect((await history(row!.poolId)).map((h) => [h.nodes, h.from, h.to])).toEqual([
      [5, at(72).toISOString(), at(84).toISOString()],
      [1, at(84).toISOString(), null],
    ]);
    // The fourth day: 12 h × 40 GPUs + 12 h × 8 GPUs, × 2.
    expect((await cost(72, 96)).capacityCost).toBe((12 * 40 + 12 * 8) * GPU_PRICE);
  });

  it("prices each requestable profile of a mixed MIG pool on its own, span by span, and projects + idle = capacity to the cent", async () => {
    await db.insert(rates).values([
      { resource: "gpu:A100 1g.10gb", unitPrice: "0.5", effectiveFrom: new Date("2026-01-01T00:00:00Z") },
      { resource: "gpu:A100 3g.40gb", unitPrice: "1.75", effectiveFrom: new Date("2026-01-01T00:00:00Z") },
    ]);
    const mixed = {
      ...pool,
      name: "a100-mixed",
      gpuModel: "A100 1g.10gb",
      gpuResource: "nvidia.com/mig-1g.10gb",
      gpusPerNode: "28",
      gpuSharing: "mig",
      gpuProfiles: "A100 3g.40gb = nvidia.com/mig-3g.40gb x 2",
      nodeCount: "2",
    };
    const created = await executeCommand(createNodePool, await contextOf(db, "platform-admin", at(96)), mixed);
    await executeCommand(updateNodePool, await contextOf(db, "platform-admin", at(108)), { ...mixed, nodeCount: "3", id: created.id, version: created.version });
    const spans = await db.select().from(nodePoolSizes).where(eq(nodePoolSizes.poolId, created.id)).orderBy(asc(nodePoolSizes.validFrom));
    expect(spans.map((r) => [r.nodeCount, r.gpusPerNode, r.gpuProfiles])).toEqual([
      [2, 28, [{ model: "A100 3g.40gb", perNode: 2 }]],
      [3, 28, [{ model: "A100 3g.40gb", perNode: 2 }]],
    ]);
    const [project] = await db.select({ id: projects.id, tenantId: projects.tenantId }).from(projects).limit(1);
    // 10 of the first profile and 3 of the second in use every hour of the fifth day.
    const samples = Array.from({ length: 24 }, (_, h) => [
      { projectId: project!.id, tenantId: project!.tenantId, resource: "gpu:A100 1g.10gb", hour: at(96 + h), quantity: 10 },
      { projectId: project!.id, tenantId: project!.tenantId, resource: "gpu:A100 3g.40gb", hour: at(96 + h), quantity: 3 },
    ]).flat();
    await ingestUsage(db, "push:test", samples, at(120));
    const day = await cost(96, 120);
    // The imported B200 pool (1 node × 8 × 2 a GPU-hour), the first profile 56 then 84 instances × 0.50, the second 4 then 6 × 1.75, 12 h each.
    const capacity = 24 * 8 * GPU_PRICE + (12 * 56 + 12 * 84) * 0.5 + (12 * 4 + 12 * 6) * 1.75;
    const allocated = 24 * 10 * 0.5 + 24 * 3 * 1.75;
    expect(day).toMatchObject({ capacityCost: capacity, allocatedCost: allocated, idleCost: capacity - allocated });
    expect(Math.round((day.allocatedCost + day.idleCost) * 100)).toBe(Math.round(day.capacityCost * 100));
  });
});
