import { and, asc, desc, eq, gt, isNull, lt, or } from "drizzle-orm";
import type { Database } from "@/db/client";
import { nodePoolSizes } from "@/db/schema";
import { schedulableGpusPerNode, type GpuSharingFacts } from "./pool-hardware";

/**
 * The pool size history (node_pool_sizes): what each pool held from when to
 * when, so idle and capacity cost are priced on the pools that existed each
 * hour. Every writer of a pool's facts calls recordPoolSize (or, on delete,
 * endPoolSize) inside its own transaction, at the instant it writes the pool.
 */

/**
 * The facts of a pool that decide its capacity, and so its cost. In the
 * history, gpusPerNode counts what a node offers of the GPU model, the unit
 * the rate card prices (schedulableGpusPerNode: a time-sliced pool's GPUs ×
 * slices), so a span prices without knowing how the pool shared its GPUs.
 */
export interface PoolSizeFacts {
  gpuModel: string | null;
  gpusPerNode: number;
  /** The pool's further requestable profiles (instances per node), each priced on its own. */
  gpuProfiles: { model: string; perNode: number }[];
  nodeCount: number;
  cpuPerNode: number;
  memoryBytesPerNode: number;
}

/** One span of a pool's history: its facts over [validFrom, validTo), validTo null while they still hold. */
export interface PoolSizeSpan extends PoolSizeFacts {
  poolId: string;
  poolName: string;
  validFrom: Date;
  validTo: Date | null;
}

const profilesKey = (p: Pick<PoolSizeFacts, "gpuProfiles">) => JSON.stringify(p.gpuProfiles.map((x) => [x.model, x.perNode]));

const sameFacts = (a: PoolSizeFacts, b: PoolSizeFacts) =>
  a.gpuModel === b.gpuModel && a.gpusPerNode === b.gpusPerNode && profilesKey(a) === profilesKey(b) && a.nodeCount === b.nodeCount && a.cpuPerNode === b.cpuPerNode && a.memoryBytesPerNode === b.memoryBytesPerNode;

const factsOf = (p: PoolSizeFacts): PoolSizeFacts => ({
  gpuModel: p.gpuModel,
  gpusPerNode: p.gpusPerNode,
  gpuProfiles: p.gpuProfiles.map((x) => ({ model: x.model, perNode: x.perNode })),
  nodeCount: p.nodeCount,
  cpuPerNode: p.cpuPerNode,
  memoryBytesPerNode: p.memoryBytesPerNode,
});

/**
 * The pool holds `pool`'s facts from `at` on: the open span is closed at `at`
 * and a new one opened, unless the facts did not change (a rename or a new
 * dedicated tenant only renames the open span). A second change at the same
 * instant (or, with a clock that went back, before the open span began)
 * replaces the open span's facts instead of leaving a span of no length.
 */
export async function recordPoolSize(tx: Database, row: Omit<PoolSizeFacts, "gpuProfiles"> & GpuSharingFacts & { id: string; name: string; gpuProfiles?: readonly { model: string; perNode: number }[] }, at: Date): Promise<void> {
  const pool = { ...row, gpusPerNode: schedulableGpusPerNode(row), gpuProfiles: row.gpuModel ? (row.gpuProfiles ?? []).map((x) => ({ model: x.model, perNode: x.perNode })) : [] };
  const [open] = await tx
    .select()
    .from(nodePoolSizes)
    .where(and(eq(nodePoolSizes.poolId, pool.id), isNull(nodePoolSizes.validTo)))
    .for("update");
  if (open && sameFacts(open, pool)) {
    if (open.poolName !== pool.name) await tx.update(nodePoolSizes).set({ poolName: pool.name }).where(eq(nodePoolSizes.id, open.id));
    return;
  }
  if (open && open.validFrom.getTime() >= at.getTime()) {
    await tx
      .update(nodePoolSizes)
      .set({ poolName: pool.name, ...factsOf(pool) })
      .where(eq(nodePoolSizes.id, open.id));
    return;
  }
  if (open) await tx.update(nodePoolSizes).set({ validTo: at }).where(eq(nodePoolSizes.id, open.id));
  await tx.insert(nodePoolSizes).values({ poolId: pool.id, poolName: pool.name, ...factsOf(pool), validFrom: at, validTo: null });
}

/** The pool is gone from `at` on: its open span ends there (a span that had not begun yet is dropped). Its history stays. */
export async function endPoolSize(tx: Database, poolId: string, at: Date): Promise<void> {
  const [open] = await tx
    .select()
    .from(nodePoolSizes)
    .where(and(eq(nodePoolSizes.poolId, poolId), isNull(nodePoolSizes.validTo)))
    .for("update");
  if (!open) return;
  if (open.validFrom.getTime() >= at.getTime()) await tx.delete(nodePoolSizes).where(eq(nodePoolSizes.id, open.id));
  else await tx.update(nodePoolSizes).set({ validTo: at }).where(eq(nodePoolSizes.id, open.id));
}

/** The spans that overlap [from, to), oldest first: the pools as they were over a window. */
export async function poolSizesOverlapping(db: Database, from: Date, to: Date): Promise<PoolSizeSpan[]> {
  if (to.getTime() <= from.getTime()) return [];
  const rows = await db
    .select()
    .from(nodePoolSizes)
    .where(and(lt(nodePoolSizes.validFrom, to), or(isNull(nodePoolSizes.validTo), gt(nodePoolSizes.validTo, from))))
    .orderBy(asc(nodePoolSizes.validFrom), asc(nodePoolSizes.poolName));
  return rows.map((r) => ({
    poolId: r.poolId,
    poolName: r.poolName,
    ...factsOf(r),
    validFrom: r.validFrom,
    validTo: r.validTo,
  }));
}

/** The latest `limit` spans of every pool (deleted ones too), newest first: the capacity page's size history. */
export async function recentPoolSizes(db: Database, limit: number): Promise<PoolSizeSpan[]> {
  const rows = await db.select().from(nodePoolSizes).orderBy(desc(nodePoolSizes.validFrom), asc(nodePoolSizes.poolName)).limit(limit);
  return rows.map((r) => ({ poolId: r.poolId, poolName: r.poolName, ...factsOf(r), validFrom: r.validFrom, validTo: r.validTo }));
}
