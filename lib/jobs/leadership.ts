import { and, eq, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { leaderLeases } from "@/db/schema";

/** How long a leader's turn lasts without renewal: a dead leader is replaced within this. */
export const LEADER_LEASE_MS = 15_000;

/**
 * Take or keep the lease on a job's leadership: true when this holder leads
 * until now + leaseMs. One statement, so two replicas asking at once cannot
 * both win: the row is taken only when it is free, ours, or its lease ended.
 */
export async function holdLeadership(db: Database, name: string, holder: string, now: Date, leaseMs = LEADER_LEASE_MS): Promise<boolean> {
  const until = new Date(now.getTime() + leaseMs);
  const rows = await db
    .insert(leaderLeases)
    .values({ name, holder, leaseUntil: until })
    .onConflictDoUpdate({
      target: leaderLeases.name,
      set: { holder, leaseUntil: until },
      // postgres.js takes no Date inside a raw fragment: an ISO string with a cast.
      setWhere: sql`${leaderLeases.holder} = ${holder} or ${leaderLeases.leaseUntil} < ${now.toISOString()}::timestamptz`,
    })
    .returning({ holder: leaderLeases.holder });
  return rows.length === 1;
}

/** Give the leadership up at once (a stopping replica), so another takes it at its next pass, not a lease later. */
export async function releaseLeadership(db: Database, name: string, holder: string): Promise<void> {
  await db.delete(leaderLeases).where(and(eq(leaderLeases.name, name), eq(leaderLeases.holder, holder)));
}
