import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { rowsOf } from "@/db/rows";

/**
 * usage_hourly and usage_daily are partitioned by UTC month (migration
 * 0027_usage_partitions): every row needs its month's partition to exist
 * before it is written, and there is no DEFAULT partition to catch one that
 * does not. The SQL function usage_ensure_partitions (in that migration)
 * creates the missing months of both tables, race-safe between senders and
 * replicas; this module is how the code calls it and reads what exists.
 */

/** The advisory lock usage_ensure_partitions takes before creating (the same constant in migration 0027); retention's drops take it too. */
export const USAGE_PARTITION_LOCK_KEY = 7_418_071;

/** The two partitioned usage tables; a month has a partition of each or of neither. */
export const PARTITIONED_USAGE_TABLES = ["usage_hourly", "usage_daily"] as const;

/** The name of the partition of `parent` for the UTC month holding `at`: usage_partition_name in migration 0027, in TypeScript. */
export function usagePartitionName(parent: (typeof PARTITIONED_USAGE_TABLES)[number], at: Date): string {
  return `${parent}_y${String(at.getUTCFullYear()).padStart(4, "0")}m${String(at.getUTCMonth() + 1).padStart(2, "0")}`;
}

/** The first instant of the UTC month holding `at`. */
export function utcMonthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** The first instant of the UTC month `months` after the one holding `at` (negative: before). */
export function utcMonthsLater(at: Date, months: number): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + months, 1));
}

/**
 * Make sure both tables have a partition for every UTC month from the one
 * holding `from` to the one holding `to`; returns how many partitions were
 * created (0 when all existed: one catalog read, no lock). Called outside the
 * transaction that then writes the rows, so the short lock that creating a
 * partition takes ends at once instead of with the writer's transaction. A
 * caller already inside a transaction (demo seeding) creates in it.
 */
export async function ensureUsagePartitions(db: Database, from: Date, to: Date): Promise<number> {
  const [row] = await rowsOf<{ created: number }>(db, sql`select usage_ensure_partitions(${from.toISOString()}::timestamptz, ${to.toISOString()}::timestamptz) as created`);
  return Number(row?.created ?? 0);
}

/** The first and last hour of `instants`, or null for none: the span ensureUsagePartitions needs for a batch. */
export function spanOf(instants: Iterable<Date>): { from: Date; to: Date } | null {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const d of instants) {
    const t = d.getTime();
    if (t < from) from = t;
    if (t > to) to = t;
  }
  return from === Number.POSITIVE_INFINITY ? null : { from: new Date(from), to: new Date(to) };
}

export interface UsagePartition {
  table: (typeof PARTITIONED_USAGE_TABLES)[number];
  /** The partition's own name, e.g. usage_hourly_y2026m05. */
  name: string;
  /** The first day of its UTC month, YYYY-MM-DD. */
  month: string;
}

/** Every monthly partition of the two usage tables, oldest month first. */
export async function listUsagePartitions(db: Database): Promise<UsagePartition[]> {
  const rows = await rowsOf<{ parent: string; name: string }>(
    db,
    sql`select p.relname as parent, c.relname as name
        from pg_inherits i
        join pg_class c on c.oid = i.inhrelid
        join pg_class p on p.oid = i.inhparent
        where p.oid in (to_regclass('usage_hourly'), to_regclass('usage_daily'))
        order by c.relname`,
  );
  const partitions: UsagePartition[] = [];
  for (const r of rows) {
    const m = /_y(\d{4})m(\d{2})$/.exec(r.name);
    // Only the migration's and the function's names: a partition attached by hand under another name is left alone.
    if (!m || (r.parent !== "usage_hourly" && r.parent !== "usage_daily")) continue;
    partitions.push({ table: r.parent, name: r.name, month: `${m[1]}-${m[2]}-01` });
  }
  return partitions.sort((a, b) => a.month.localeCompare(b.month) || a.table.localeCompare(b.table));
}
