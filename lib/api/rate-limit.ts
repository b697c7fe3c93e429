import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { authFailureCounts } from "@/db/schema";

/**
 * Failed token authentications are limited per client address and per token
 * prefix, so neither guessing tokens from one place nor hammering one known
 * prefix from many places gets far. The counts live in the database, shared by
 * every replica: two replicas must not allow twice the attempts. A fixed
 * window per key, started by its first failure (as rate-limiter-flexible's
 * in-memory limiter did before: its PostgreSQL store needs node-postgres and a
 * pool of its own, and would not run on the embedded PGlite).
 */
export const WINDOW_SECONDS = 300;
export const FAILURE_LIMITS = { perAddress: 20, perPrefix: 10 } as const;

const addressKey = (address: string) => `ip:${address}`;
const prefixKey = (prefix: string) => `prefix:${prefix}`;

async function retryAfter(db: Database, key: string, limit: number, now: Date): Promise<number> {
  const [row] = await db
    .select({ windowStartedAt: authFailureCounts.windowStartedAt, failures: authFailureCounts.failures })
    .from(authFailureCounts)
    .where(sql`${authFailureCounts.key} = ${key}`);
  if (!row || row.failures < limit) return 0;
  const msLeft = row.windowStartedAt.getTime() + WINDOW_SECONDS * 1000 - now.getTime();
  return msLeft > 0 ? Math.ceil(msLeft / 1000) : 0;
}

/** Seconds until this address may try again, or 0 when not limited. */
export function addressRetryAfter(db: Database, address: string, now: Date): Promise<number> {
  return retryAfter(db, addressKey(address), FAILURE_LIMITS.perAddress, now);
}

/** Seconds until failures for this token prefix are accepted again, or 0. */
export function prefixRetryAfter(db: Database, prefix: string | null, now: Date): Promise<number> {
  return prefix ? retryAfter(db, prefixKey(prefix), FAILURE_LIMITS.perPrefix, now) : Promise.resolve(0);
}

/**
 * Counts one failure for the address and the prefix, in one statement per key
 * so concurrent replicas never lose a count: a key whose window has passed
 * starts a new window at 1. Windows that ended are removed here too, so the
 * table holds only the keys failing now.
 */
export async function recordAuthFailure(db: Database, address: string, prefix: string | null, now: Date): Promise<void> {
  // An ISO string with a cast: postgres.js takes no Date inside a raw sql fragment.
  const windowStart = sql`${new Date(now.getTime() - WINDOW_SECONDS * 1000).toISOString()}::timestamptz`;
  const keys = prefix ? [addressKey(address), prefixKey(prefix)] : [addressKey(address)];
  await db
    .insert(authFailureCounts)
    .values(keys.map((key) => ({ key, windowStartedAt: now, failures: 1 })))
    .onConflictDoUpdate({
      target: authFailureCounts.key,
      set: {
        failures: sql`case when ${authFailureCounts.windowStartedAt} <= ${windowStart} then 1 else ${authFailureCounts.failures} + 1 end`,
        windowStartedAt: sql`case when ${authFailureCounts.windowStartedAt} <= ${windowStart} then excluded.window_started_at else ${authFailureCounts.windowStartedAt} end`,
      },
    });
  // Rows another request holds are skipped, never waited on: no lock order to deadlock on.
  await db.execute(
    sql`delete from auth_failure_counts where key in (select key from auth_failure_counts where window_started_at < ${windowStart} for update skip locked)`,
  );
}

/**
 * The client address as the nearest proxy saw it: X-Real-IP, else the last
 * X-Forwarded-For entry (the one the proxy appended; earlier entries are
 * whatever the client sent), else "direct".
 */
export function clientAddress(headers: Headers): string {
  return headers.get("x-real-ip")?.trim() || headers.get("x-forwarded-for")?.split(",").at(-1)?.trim() || "direct";
}
