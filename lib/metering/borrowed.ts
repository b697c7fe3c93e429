import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { grantInForceSql } from "./guarantees-sql";
import { lineCostSql, moneyDigits, moneyFromSql } from "./money-sql";
import type { SpendScope, SpendWindow } from "./spend";

/**
 * GPU use beyond the guarantee: in each hour, what a project used of a GPU
 * model above what its grants in force guaranteed it then (borrowed from its
 * cohort), priced at the rate in force that hour. Money follows the report's
 * rule (lib/metering/spend.ts): the line is one project, resource and UTC day,
 * rounded once; the borrowed part of a line is rounded on its own, and the
 * part within the guarantee is the line less it, so the two add up to the
 * cost shown to the cent.
 */
export interface BorrowedUse {
  /** GPU-hours used beyond the guarantee. */
  quantity: number;
  cost: number;
}

export async function borrowedByResource(db: Database, scope: SpendScope, window: SpendWindow): Promise<Map<string, BorrowedUse>> {
  const digits = moneyDigits();
  const usageScope = "projectId" in scope ? sql`u.project_id = ${scope.projectId}` : "tenantId" in scope ? sql`u.tenant_id = ${scope.tenantId}` : sql`true`;
  const rows = await rowsOf<{ resource: string; quantity: string; cost: string }>(
    db,
    sql`
      with used as (
        select u.project_id, u.resource, u.hour, sum(u.quantity::numeric) as quantity
        from usage_hourly u
        where ${usageScope} and u.resource like 'gpu:%'
          and u.hour >= ${window.from.toISOString()}::timestamptz and u.hour < ${window.to.toISOString()}::timestamptz
        group by u.project_id, u.resource, u.hour
      ),
      beyond as (
        select used.project_id, used.resource, used.hour,
          greatest(used.quantity - greatest(coalesce((
            select sum(l.guarantee) from quota_grants g join quota_grant_lines l on l.grant_id = g.id
            where g.project_id = used.project_id and 'gpu:' || l.flavor = used.resource
              and ${grantInForceSql(sql`used.hour`)}
          ), 0), 0), 0) as quantity,
          (select r.unit_price from rates r where r.resource = used.resource and r.effective_from <= used.hour order by r.effective_from desc limit 1) as price
        from used
      ),
      line as (
        select project_id, resource, (hour at time zone 'UTC')::date as day, sum(quantity) as quantity, sum(quantity * coalesce(price, 0)) as cost
        from beyond
        group by project_id, resource, (hour at time zone 'UTC')::date
      )
      select resource, sum(quantity)::text as quantity, sum(${lineCostSql(sql`cost`, digits)})::text as cost
      from line
      group by resource
      having sum(quantity) > 0`,
  );
  return new Map(rows.map((r) => [r.resource, { quantity: Number(r.quantity), cost: moneyFromSql(r.cost, digits) }]));
}
