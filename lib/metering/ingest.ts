import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { ensureUsagePartitions, spanOf, usagePartitionName, utcMonthStart } from "./partitions";
import { pricingDivisorSql } from "./rollup";
import { bumpUsageGenerations } from "./spend-generations";

const RATE_CHANGE_LOCK_KEY = 7_418_061;

/** Called by a price change before it writes: waits for ingest batches in flight and holds new ones off until it commits. */
export async function lockRatesForChange(tx: Database): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${RATE_CHANGE_LOCK_KEY})`);
}

/** The source of generated demo usage: pages mark figures that include it. */
export const DEMO_SOURCE = "demo";

/** One hour of one resource's usage by one project, in consumed units (see units.ts). */
export interface UsageSample {
  projectId: string;
  tenantId: string;
  resource: string;
  /** The start of the hour, on the hour. */
  hour: Date;
  quantity: number;
  requested?: number | null;
  used?: number | null;
  gpuUtilization?: number | null;
}

/** Where a sample for the same (project, resource, hour) twice in a batch is, so callers can name it. */
export function firstDuplicate(samples: readonly Pick<UsageSample, "projectId" | "resource" | "hour">[]): [number, number] | null {
  const seen = new Map<string, number>();
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    const key = `${s.projectId}\u0000${s.resource}\u0000${s.hour.getTime()}`;
    const first = seen.get(key);
    if (first !== undefined) return [first, i];
    seen.set(key, i);
  }
  return null;
}

/**
 * Store a batch of hourly samples from one source and keep the daily rollup
 * current, in one transaction. A sample replaces the source's earlier figure
 * for the same (project, resource, hour), so a retried batch never counts
 * twice: the rollup is moved by the difference between the new and the old
 * figure, priced at the rate in force at that hour.
 *
 * Samples must already be valid (inputs.ts); a batch naming the same key
 * twice is refused because which of the two counts would be arbitrary.
 */
export async function ingestUsage(db: Database, source: string, samples: readonly UsageSample[], now: Date): Promise<{ stored: number }> {
  if (samples.length === 0) return { stored: 0 };
  const duplicate = firstDuplicate(samples);
  if (duplicate) throw new Error(`samples ${duplicate[0]} and ${duplicate[1]} name the same project, resource and hour`);
  const rows = JSON.stringify(
    samples.map((s) => ({
      project_id: s.projectId,
      tenant_id: s.tenantId,
      resource: s.resource,
      hour: s.hour.toISOString(),
      quantity: s.quantity,
      requested: s.requested ?? null,
      used: s.used ?? null,
      gpu_utilization: s.gpuUtilization ?? null,
    })),
  );
  const projectIds = [...new Set(samples.map((s) => s.projectId))].sort();
  // The months the batch touches need their partitions (partitions.ts): made, if missing, before the
  // transaction, so creating one never holds its lock for as long as the batch takes.
  const span = spanOf(samples.map((s) => s.hour))!;
  await ensureUsagePartitions(db, span.from, span.to);
  // A batch within one UTC month (the usual case: a sender pushes the last hours) reads and writes that
  // month's partitions by name, so neither the lookup nor the upserts go through the partitioned parents
  // (tuple routing per row, and planning over every month's partition and index). A batch over several
  // months goes through the parents, which route each row to its month.
  const oneMonth = utcMonthStart(span.from).getTime() === utcMonthStart(span.to).getTime();
  const hourly = sql.identifier(oneMonth ? usagePartitionName("usage_hourly", span.from) : "usage_hourly");
  const daily = sql.identifier(oneMonth ? usagePartitionName("usage_daily", span.from) : "usage_daily");
  return db.transaction(async (tx) => {
    // Both locks in one round trip, in a statement of their own: the statement below must take its
    // snapshot after they are held. The rate lock is shared with other batches, exclusive to a price being
    // added (which reprices the days it changes); it is taken before the project locks (the CTE is read, to
    // the end, below the sort that the project locks are taken above). Two batches touching the same
    // project take turns, in project order, so each reads the other's committed figure as "old" and the
    // rollup moves by the true difference.
    //
    // The same statement also makes this transaction plan each statement for its own values: every
    // statement is prepared once per connection (db/prepared-statements.ts), and after five runs
    // PostgreSQL may switch to a generic plan, which knows neither the batch's size nor its span. The
    // ingest statement's generic plan ran 2-5 s a batch instead of 0.2 s (bench:metering, two senders).
    await tx.execute(sql`
      with rate as materialized (
        select pg_advisory_xact_lock_shared(${RATE_CHANGE_LOCK_KEY}), set_config('plan_cache_mode', 'force_custom_plan', true)
      )
      select pg_advisory_xact_lock(hashtextextended('usage:' || p, 0))
      from rate, jsonb_array_elements_text(${JSON.stringify(projectIds)}::jsonb) as p order by p`);
    await tx.execute(sql`
      with s as (
        select * from json_to_recordset(${rows}::json)
          as s(project_id uuid, tenant_id uuid, resource text, hour timestamptz, quantity float8, requested float8, used float8, gpu_utilization float8)
      ),
      -- Materialized: inlined, the planner rescans the batch for every upserted row (quadratic in the batch size).
      old as materialized (
        -- One primary-key probe per sample, whatever the statistics say: joined plainly, a month's partition
        -- that was never analysed (every new month) was estimated at one row and scanned once per sample,
        -- 25 M comparisons for a batch of 5,000 (2-2.5 s where the probes take 10 ms).
        select s.project_id, s.resource, s.hour, h.quantity, h.gpu_utilization
        from s cross join lateral (
          select h.quantity, h.gpu_utilization from ${hourly} h
          where h.project_id = s.project_id and h.resource = s.resource and h.hour = s.hour and h.source = ${source}
            -- The batch's span as constants: the planner keeps only its months' partitions, instead of
            -- pruning every month again for each sample (1.5-2x the lookup on a year of partitions).
            and h.hour >= ${span.from.toISOString()}::timestamptz and h.hour <= ${span.to.toISOString()}::timestamptz
          -- At most one row (the primary key); the limit keeps the planner from flattening this into a plain join.
          limit 1
        ) h
      ),
      up as (
        insert into ${hourly} as uh (project_id, tenant_id, resource, hour, source, quantity, requested, used, gpu_utilization, ingested_at)
        select project_id, tenant_id, resource, hour, ${source}, quantity, requested, used, gpu_utilization, ${now.toISOString()}::timestamptz from s
        on conflict (project_id, resource, hour, source) do update set
          quantity = excluded.quantity, requested = excluded.requested, used = excluded.used,
          gpu_utilization = excluded.gpu_utilization, ingested_at = excluded.ingested_at
        -- A resent figure that did not change writes nothing (and moves the rollup by nothing).
        where (uh.quantity, uh.requested, uh.used, uh.gpu_utilization)
          is distinct from (excluded.quantity, excluded.requested, excluded.used, excluded.gpu_utilization)
        returning project_id, tenant_id, resource, hour, quantity, gpu_utilization
      ),
      -- Each figure is converted to numeric once, and a missing one (no old figure, no utilization) not at all:
      -- float8 to numeric is the costliest step per sample here. The values are those of converting each term.
      figures as (
        select up.project_id, up.tenant_id, up.resource, up.hour,
          up.quantity::numeric as q, up.gpu_utilization is not null as measured,
          case when up.gpu_utilization is null then 0 else (up.gpu_utilization * up.quantity)::numeric end as busy,
          old.quantity::numeric as old_q, old.gpu_utilization is not null as old_measured,
          case when old.gpu_utilization is null then 0 else (old.gpu_utilization * old.quantity)::numeric end as old_busy
        from up left join old on old.project_id = up.project_id and old.resource = up.resource and old.hour = up.hour
      ),
      delta as (
        select project_id, tenant_id, resource, hour,
          (hour at time zone 'UTC')::date as day,
          q - coalesce(old_q, 0) as dq,
          (case when measured then q else 0 end) - (case when old_measured then old_q else 0 end) as dmeasured,
          busy - old_busy as dbusy
        from figures
      ),
      -- A batch usually holds few distinct (resource, hour) pairs: look each price up once, not per sample.
      prices as (
        select k.resource, k.hour, p.unit_price
        from (select distinct resource, hour from delta) k
        left join lateral (
          select r.unit_price from rates r where r.resource = k.resource and r.effective_from <= k.hour
          order by r.effective_from desc limit 1
        ) p on true
      ),
      priced as (
        select d.*, prices.unit_price from delta d join prices on prices.resource = d.resource and prices.hour = d.hour
      )
      insert into ${daily} as ud (project_id, tenant_id, resource, day, quantity, cost, unpriced_quantity, gpu_measured_hours, gpu_busy_hours, has_demo)
      select project_id, tenant_id, resource, day,
        sum(dq),
        coalesce(sum(dq * unit_price / ${pricingDivisorSql(sql.raw("resource"))}), 0),
        sum(case when unit_price is null then dq else 0 end),
        sum(dmeasured), sum(dbusy), ${source === DEMO_SOURCE}
      from priced
      group by project_id, tenant_id, resource, day
      on conflict (project_id, day, resource) do update set
        quantity = ud.quantity + excluded.quantity,
        cost = ud.cost + excluded.cost,
        unpriced_quantity = ud.unpriced_quantity + excluded.unpriced_quantity,
        gpu_measured_hours = ud.gpu_measured_hours + excluded.gpu_measured_hours,
        gpu_busy_hours = ud.gpu_busy_hours + excluded.gpu_busy_hours,
        has_demo = ud.has_demo or excluded.has_demo
    `);
    // Cached spend figures of these projects are outdated from this commit on (report-cache.ts).
    await bumpUsageGenerations(tx, projectIds);
    return { stored: samples.length };
  });
}
