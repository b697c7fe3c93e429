import { sql, type SQL } from "drizzle-orm";
import type { Database } from "@/db/client";

/** Consumed quantity ÷ this = pricing quantity, in SQL (the same rule as pricingDivisor in units.ts). */
export const pricingDivisorSql = (resource: SQL): SQL => sql`(case when ${resource} = 'storage' then 730 when ${resource} = 'inference' then 1000 else 1 end)`;

/**
 * Recompute the daily rollup from the hourly table for the days and resources
 * given: after a price is added (its history changes the cost of every hour
 * from its start on), or to repair. Ingest keeps the rollup current on its
 * own; this is the slow, certain path.
 */
export async function recomputeDailyRollup(db: Database, scope: { resource?: string; fromDay?: string; toDay?: string; projectId?: string } = {}): Promise<void> {
  const conditions: SQL[] = [sql`true`];
  if (scope.resource !== undefined) conditions.push(sql`resource = ${scope.resource}`);
  if (scope.projectId !== undefined) conditions.push(sql`project_id = ${scope.projectId}`);
  if (scope.fromDay !== undefined) conditions.push(sql`day >= ${scope.fromDay}::date`);
  if (scope.toDay !== undefined) conditions.push(sql`day < ${scope.toDay}::date`);
  const dailyWhere = sql.join(conditions, sql` and `);
  const hourly: SQL[] = [sql`true`];
  if (scope.resource !== undefined) hourly.push(sql`u.resource = ${scope.resource}`);
  if (scope.projectId !== undefined) hourly.push(sql`u.project_id = ${scope.projectId}`);
  if (scope.fromDay !== undefined) hourly.push(sql`u.hour >= ${scope.fromDay}::date::timestamp at time zone 'UTC'`);
  if (scope.toDay !== undefined) hourly.push(sql`u.hour < ${scope.toDay}::date::timestamp at time zone 'UTC'`);
  const hourlyWhere = sql.join(hourly, sql` and `);
  await db.transaction(async (tx) => {
    await tx.execute(sql`delete from usage_daily where ${dailyWhere}`);
    await tx.execute(sql`
      insert into usage_daily (project_id, tenant_id, resource, day, quantity, cost, unpriced_quantity, gpu_measured_hours, gpu_busy_hours, has_demo)
      select u.project_id, u.tenant_id, u.resource, (u.hour at time zone 'UTC')::date,
        sum(u.quantity::numeric),
        coalesce(sum(u.quantity::numeric * p.unit_price / ${pricingDivisorSql(sql`u.resource`)}), 0),
        sum(case when p.unit_price is null then u.quantity::numeric else 0 end),
        sum(case when u.gpu_utilization is null then 0 else u.quantity::numeric end),
        sum((coalesce(u.gpu_utilization, 0) * u.quantity)::numeric),
        bool_or(u.source = 'demo')
      from usage_hourly u
      left join lateral (
        select r.unit_price from rates r where r.resource = u.resource and r.effective_from <= u.hour
        order by r.effective_from desc limit 1
      ) p on true
      where ${hourlyWhere}
      group by u.project_id, u.tenant_id, u.resource, (u.hour at time zone 'UTC')::date
    `);
  });
}
