import type { Database } from "@/db/client";
import type { nodePools } from "@/db/schema";
import { recordPoolSize } from "@/lib/quota/pool-sizes";
import { DEMO_USAGE_DAYS } from "./usage";

const DAY_MS = 86_400_000;

/**
 * The demo pools' size history, so the idle line of the demo's past is priced
 * on what the demo cluster held then: every pool has stood since the start of
 * the demo usage window (lib/demo/usage.ts, 90 days before seeding), and the
 * H100 pool ran 3 nodes (24 GPUs, exactly the 16 + 8 the pretraining and
 * detector-training guarantees hold) until the platform raised its autoscaler
 * minimum to four nodes three weeks before seeding, for headroom to guarantee. Demo usage never needs more than 24
 * H100, so it fits the pool in every hour (lib/demo/story.int.test.ts).
 */
export const DEMO_H100_POOL = "h100-pool";
export const DEMO_H100_NODES_BEFORE_GROWTH = 3;
export const DEMO_H100_GROWTH_DAYS_BEFORE_SEEDING = 21;

type PoolRow = typeof nodePools.$inferSelect;

export async function seedDemoPoolHistory(tx: Database, pools: readonly PoolRow[], now: Date): Promise<void> {
  const since = new Date(now.getTime() - DEMO_USAGE_DAYS * DAY_MS);
  const grewAt = new Date(now.getTime() - DEMO_H100_GROWTH_DAYS_BEFORE_SEEDING * DAY_MS);
  for (const pool of pools) {
    if (pool.name === DEMO_H100_POOL) {
      await recordPoolSize(tx, { ...pool, nodeCount: DEMO_H100_NODES_BEFORE_GROWTH }, since);
      await recordPoolSize(tx, pool, grewAt);
    } else {
      await recordPoolSize(tx, pool, since);
    }
  }
}
