import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { recordAudit } from "@/lib/audit/record";
import { config } from "@/lib/config";
import type { PeriodicJob } from "@/lib/jobs/periodic";
import { metrics } from "@/lib/observability/metrics";
import { ensureUsagePartitions, listUsagePartitions, USAGE_PARTITION_LOCK_KEY, utcMonthsLater, type UsagePartition } from "./partitions";

/**
 * Usage retention (ALLOT_USAGE_RETENTION_MONTHS = N): the current UTC month and
 * the N whole months before it are kept; every older month is dropped whole,
 * its hourly partition and its rollup partition together, never part of a
 * month. Dropping a partition is instant where a DELETE of a month's rows is
 * not, and leaves no dead rows behind. Unset, nothing is dropped.
 */

const SYSTEM = "system:usage-retention";
/** How long a drop waits for its lock on the parent tables before trying again at the next run (it would queue every reader behind it meanwhile). */
const DROP_LOCK_TIMEOUT = "5s";
/** Partitions kept ahead of the current month, so ingest at a month's turn never has to create one. */
export const MONTHS_AHEAD = 2;

/** The first instant that is kept with `months` of retention at `now`: figures before it are gone. null keeps everything. */
export function usageRetainedFrom(months: number | null, now: Date): Date | null {
  return months === null ? null : utcMonthsLater(now, -months);
}

export interface DroppedMonth {
  /** The first day of the month, YYYY-MM-DD. */
  month: string;
  hourlyRows: number;
  dailyRows: number;
  /** The month's cost as the rollup held it, exact decimal text, so the audit says what went. */
  cost: string;
}

/**
 * Drop the months older than the retention, oldest first, each in its own
 * transaction with its audit event (usage.month_dropped). Safe to run
 * concurrently: a month another run dropped meanwhile is skipped.
 */
export async function applyUsageRetention(db: Database, months: number | null, now: Date): Promise<{ retainedFrom: Date | null; dropped: DroppedMonth[] }> {
  const retainedFrom = usageRetainedFrom(months, now);
  if (retainedFrom === null) return { retainedFrom, dropped: [] };
  const horizon = retainedFrom.toISOString().slice(0, 10);
  const byMonth = new Map<string, UsagePartition[]>();
  for (const p of await listUsagePartitions(db)) {
    if (p.month < horizon) byMonth.set(p.month, [...(byMonth.get(p.month) ?? []), p]);
  }
  const dropped: DroppedMonth[] = [];
  for (const [month, partitions] of [...byMonth].sort(([a], [b]) => a.localeCompare(b))) {
    const done = await db.transaction(async (tx) => {
      await tx.execute(sql.raw(`set local lock_timeout = '${DROP_LOCK_TIMEOUT}'`));
      // Under the partition-creation lock, so an ingest creating partitions cannot interleave.
      await tx.execute(sql`select pg_advisory_xact_lock(${USAGE_PARTITION_LOCK_KEY})`);
      const present = await rowsOf<{ name: string }>(
        tx,
        sql`select relname as name from pg_class where relispartition and relname in (${sql.join(
          partitions.map((p) => sql`${p.name}`),
          sql`, `,
        )})`,
      );
      if (present.length === 0) return null;
      const names = new Set(present.map((r) => r.name));
      const hourly = partitions.find((p) => p.table === "usage_hourly" && names.has(p.name));
      const daily = partitions.find((p) => p.table === "usage_daily" && names.has(p.name));
      const [counts] = await rowsOf<{ hourly: number; daily: number; cost: string }>(
        tx,
        sql`select ${hourly ? sql`(select count(*) from ${sql.identifier(hourly.name)})::int` : sql`0`} as hourly,
                   ${daily ? sql`(select count(*) from ${sql.identifier(daily.name)})::int` : sql`0`} as daily,
                   ${daily ? sql`(select coalesce(sum(cost), 0) from ${sql.identifier(daily.name)})::text` : sql`'0'`} as cost`,
      );
      for (const name of names) await tx.execute(sql`drop table ${sql.identifier(name)}`);
      const result: DroppedMonth = { month, hourlyRows: counts!.hourly, dailyRows: counts!.daily, cost: counts!.cost };
      await recordAudit(tx, {
        actor: { principalId: null, label: SYSTEM },
        at: now,
        tenantId: null,
        action: "usage.month_dropped",
        target: { type: "usage_month", id: month.slice(0, 7) },
        before: { hourlyRows: result.hourlyRows, dailyRows: result.dailyRows, cost: result.cost },
        after: { retentionMonths: months, retainedFrom: horizon, partitions: [...names].sort() },
      });
      return result;
    });
    if (done) {
      metrics().usageMonthsDropped.inc();
      dropped.push(done);
    }
  }
  return { retainedFrom, dropped };
}

/**
 * The leader's job: this month's and the next MONTHS_AHEAD months' partitions
 * made ahead of the rows, then retention applied. Hourly is often enough for
 * both (a month turns once; a drop waits for a quiet moment at most a run).
 */
export function usagePartitionsJob(db: Database, retentionMonths: () => number | null = () => config().usageRetentionMonths): PeriodicJob {
  return {
    name: "usage partitions",
    everyMs: 60 * 60_000,
    phase: "after-reconcile",
    async run(now) {
      const created = await ensureUsagePartitions(db, now, utcMonthsLater(now, MONTHS_AHEAD));
      const { retainedFrom, dropped } = await applyUsageRetention(db, retentionMonths(), now);
      const said: string[] = [];
      if (created > 0) said.push(`${created} partitions created ahead`);
      if (dropped.length > 0) {
        said.push(
          `dropped ${dropped.map((d) => `${d.month.slice(0, 7)} (${d.hourlyRows} hourly rows, ${d.dailyRows} daily rows, cost ${d.cost})`).join(", ")}: ` +
            `usage is kept from ${retainedFrom!.toISOString().slice(0, 10)} (ALLOT_USAGE_RETENTION_MONTHS=${retentionMonths()})`,
        );
      }
      return said.length > 0 ? said.join("; ") : null;
    },
  };
}
