import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { arrayLiteral, copyRows, type BulkValue } from "@/db/copy";
import { rowsOf } from "@/db/rows";
import { pricingDivisorSql } from "./rollup";

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

/** The columns of usage_hourly that ingest writes, in the order of copyRows' rows. */
const HOURLY_COLUMNS = ["project_id", "tenant_id", "resource", "hour", "source", "quantity", "requested", "used", "gpu_utilization", "ingested_at"] as const;

/**
 * Store a batch of hourly samples from one source and keep the daily rollup
 * current, in one transaction. A sample replaces the source's earlier figure
 * for the same (project, resource, hour), so a retried batch never counts
 * twice: the rollup is moved by the difference between the new and the old
 * figure, priced at the rate in force at that hour.
 *
 * Two statements after the locks: one set-based merge over the batch as
 * arrays (it finds the source's rows the batch already has, replaces those
 * whose figures changed, and moves the rollup by every difference), then the
 * samples new to the hourly table COPYed straight into it, which is what COPY
 * is fastest at (bench/metering.ts measures both against a plain COPY).
 * The transaction's commit is the one place a successful ingest commits.
 *
 * Samples must already be valid (inputs.ts); a batch naming the same key
 * twice is refused because which of the two counts would be arbitrary.
 */
export async function ingestUsage(db: Database, source: string, samples: readonly UsageSample[], now: Date): Promise<{ stored: number }> {
  if (samples.length === 0) return { stored: 0 };
  const duplicate = firstDuplicate(samples);
  if (duplicate) throw new Error(`samples ${duplicate[0]} and ${duplicate[1]} name the same project, resource and hour`);
  const column = (value: (s: UsageSample) => BulkValue) => arrayLiteral(samples.map(value));
  const hours = samples.map((s) => s.hour.toISOString());
  const projectIds = [...new Set(samples.map((s) => s.projectId))].sort();
  const ingestedAt = now.toISOString();
  return db.transaction(async (tx) => {
    // Shared with other batches, exclusive to a price being added (which reprices the days it changes).
    await tx.execute(sql`select pg_advisory_xact_lock_shared(${RATE_CHANGE_LOCK_KEY})`);
    // Two batches touching the same project take turns, so each reads the
    // other's committed figure as "old" and the rollup moves by the true difference
    // (and no other batch inserts a key between the merge below and the COPY).
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('usage:' || p, 0)) from unnest(${arrayLiteral(projectIds)}::text::text[]) as p order by p`);
    const existing = await rowsOf<{ n: number }>(
      tx,
      sql`
      with s as (
        select * from unnest(
          ${column((s) => s.projectId)}::text::uuid[], ${column((s) => s.tenantId)}::text::uuid[], ${column((s) => s.resource)}::text::text[],
          ${arrayLiteral(hours)}::text::timestamptz[], ${column((s) => s.quantity)}::text::float8[], ${column((s) => s.requested)}::text::float8[],
          ${column((s) => s.used)}::text::float8[], ${column((s) => s.gpuUtilization)}::text::float8[]
        ) with ordinality as s(project_id, tenant_id, resource, hour, quantity, requested, used, gpu_utilization, n)
      ),
      -- The source's rows the batch already has (a retry, or a correction).
      old as materialized (
        select s.n, o.quantity, o.requested, o.used, o.gpu_utilization
        from s join usage_hourly o on o.project_id = s.project_id and o.hour = s.hour and o.resource = s.resource and o.source = ${source}
      ),
      -- A resent figure that did not change writes nothing (and moves the rollup by nothing).
      replaced as (
        update usage_hourly h set quantity = s.quantity, requested = s.requested, used = s.used, gpu_utilization = s.gpu_utilization, ingested_at = ${ingestedAt}::timestamptz
        from s join old on old.n = s.n
        where h.project_id = s.project_id and h.hour = s.hour and h.resource = s.resource and h.source = ${source}
          and (old.quantity, old.requested, old.used, old.gpu_utilization) is distinct from (s.quantity, s.requested, s.used, s.gpu_utilization)
        returning s.project_id, s.tenant_id, s.resource, s.hour, s.quantity, s.gpu_utilization, old.quantity as old_quantity, old.gpu_utilization as old_utilization
      ),
      -- Every change to the hourly table: the new rows (COPYed after this statement) and the replaced ones.
      changes as (
        select s.project_id, s.tenant_id, s.resource, s.hour, s.quantity, s.gpu_utilization, 0::float8 as old_quantity, null::float8 as old_utilization
        from s where not exists (select from old where old.n = s.n)
        union all
        select * from replaced
      ),
      -- A batch usually holds few distinct (resource, hour) pairs: look each price up once, not per sample.
      prices as materialized (
        select k.resource, k.hour, p.unit_price
        from (select distinct resource, hour from changes) k
        left join lateral (
          select r.unit_price from rates r where r.resource = k.resource and r.effective_from <= k.hour
          order by r.effective_from desc limit 1
        ) p on true
      ),
      delta as (
        select c.project_id, c.tenant_id, c.resource, (c.hour at time zone 'UTC')::date as day, p.unit_price,
          c.quantity::numeric - c.old_quantity::numeric as dq,
          (case when c.gpu_utilization is null then 0 else c.quantity end)::numeric
            - (case when c.old_utilization is null then 0 else c.old_quantity end)::numeric as dmeasured,
          (coalesce(c.gpu_utilization, 0) * c.quantity)::numeric - (coalesce(c.old_utilization, 0) * c.old_quantity)::numeric as dbusy
        from changes c join prices p on p.resource = c.resource and p.hour = c.hour
      ),
      rollup as (
        insert into usage_daily as ud (project_id, tenant_id, resource, day, quantity, cost, unpriced_quantity, gpu_measured_hours, gpu_busy_hours, has_demo)
        select project_id, tenant_id, resource, day,
          sum(dq),
          coalesce(sum(dq * unit_price / ${pricingDivisorSql(sql.raw("resource"))}), 0),
          sum(case when unit_price is null then dq else 0 end),
          sum(dmeasured), sum(dbusy), ${source === DEMO_SOURCE}
        from delta
        group by project_id, tenant_id, resource, day
        on conflict (project_id, day, resource) do update set
          quantity = ud.quantity + excluded.quantity,
          cost = ud.cost + excluded.cost,
          unpriced_quantity = ud.unpriced_quantity + excluded.unpriced_quantity,
          gpu_measured_hours = ud.gpu_measured_hours + excluded.gpu_measured_hours,
          gpu_busy_hours = ud.gpu_busy_hours + excluded.gpu_busy_hours,
          has_demo = ud.has_demo or excluded.has_demo
      )
      select n::int as n from old
    `,
    );
    const known = new Set(existing.map((r) => Number(r.n) - 1));
    const fresh: BulkValue[][] = [];
    samples.forEach((s, i) => {
      if (!known.has(i)) fresh.push([s.projectId, s.tenantId, s.resource, hours[i], source, s.quantity, s.requested, s.used, s.gpuUtilization, ingestedAt]);
    });
    await copyRows(tx, "usage_hourly", HOURLY_COLUMNS, fresh);
    return { stored: samples.length };
  });
}
