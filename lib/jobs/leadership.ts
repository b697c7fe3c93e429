import { and, eq, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { leaderLeases } from "@/db/schema";

/** How long a leader's turn lasts without renewal. */
export const LEADER_LEASE_MS = 15_000;

/**
 * How often a replica asks for the lease: the leader renews it with two
 * thirds of it still to run, so one slow or failed renewal does not lose it,
 * and the others ask as often. A dead leader is replaced within
 * LEADER_LEASE_MS + LEADER_RENEW_MS (20 s); one that stops releases the lease
 * and is replaced within LEADER_RENEW_MS (5 s). Asking on every 1 s
 * reconcile pass instead was a database write per second per replica.
 * With ALLOT_LEADER_LEASE_SECONDS set, a third of that lease.
 */
export const LEADER_RENEW_MS = LEADER_LEASE_MS / 3;

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

/**
 * A replica's view of one leadership: asks for the lease at most every
 * renewMs and believes it leads only until the lease it last won ends, so a
 * leader whose renewals fail (the database is away) stops leading when
 * another may take over, not later.
 */
export function leadershipHolder(db: Database, name: string, holder: string, options: { renewMs?: number; leaseMs?: number } = {}) {
  const leaseMs = options.leaseMs ?? LEADER_LEASE_MS;
  const renewMs = options.renewMs ?? leaseMs / 3;
  let askedAt: number | null = null;
  let leadsUntil = 0;
  return {
    /** Whether this replica leads at `now`, asking the database when renewMs has passed since it last asked. */
    async leads(now: Date): Promise<boolean> {
      const t = now.getTime();
      // A clock set back (the test clock) counts as time to ask again, never as "asked in the future".
      if (askedAt === null || t - askedAt >= renewMs || t < askedAt) {
        askedAt = t;
        leadsUntil = 0;
        leadsUntil = (await holdLeadership(db, name, holder, now, leaseMs)) ? t + leaseMs : 0;
      }
      return t < leadsUntil;
    },
    /** Give the lease up if held (a stopping replica). */
    async release(): Promise<void> {
      if (leadsUntil === 0) return;
      leadsUntil = 0;
      await releaseLeadership(db, name, holder);
    },
  };
}
