import { and, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { Database } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { projects, tenants, usageDaily } from "@/db/schema";
import { poolSizesOverlapping } from "@/lib/quota/pool-sizes";
import { loadRates } from "@/lib/quota/store";
import { sumMoney, toMajor, toMinor } from "@/lib/money";
import { capacityCost } from "./idle";
import { lineCostSql, moneyDigits, moneyFromSql } from "./money-sql";
import { pricingDivisorSql } from "./rollup";
import { hourStart, isPoolResource } from "./units";

/**
 * Spend read from usage: cost = quantity × the rate in force at each hour.
 * Day and month figures come from the daily rollup (usage_daily), hour
 * figures from the hourly table priced in SQL. A window is [from, to): whole
 * UTC days for day and month granularity, whole hours for hour.
 *
 * Money follows lib/money.ts: the charge line is one rollup row (project,
 * resource, UTC day), or one project, resource and hour in hourly series,
 * rounded to the minor unit (lineCostSql); every figure here is a sum of
 * rounded lines, so any split of the window (by resource, project, tenant,
 * period) adds up to the same total to the cent.
 */
export type Granularity = "hour" | "day" | "month";

export interface SpendWindow {
  from: Date;
  to: Date;
}

export interface SpendPoint {
  /** The start of the period: an ISO instant for hours, YYYY-MM-DD for days and months (the 1st). */
  period: string;
  resource: string;
  /** In consumed units (GPU-hours, core-hours, GiB-hours, requests). */
  quantity: number;
  cost: number;
  /** Quantity that had no price on the rate card: its cost is missing from `cost`. */
  unpricedQuantity: number;
}

export type SpendScope = { projectId: string } | { tenantId: string } | { platform: true };

export const dayOf = (d: Date) => d.toISOString().slice(0, 10);

function dailyScope(scope: SpendScope): SQL | undefined {
  if ("projectId" in scope) return eq(usageDaily.projectId, scope.projectId);
  if ("tenantId" in scope) return eq(usageDaily.tenantId, scope.tenantId);
  return undefined;
}

/** The rollup's days inside a window. */
export const inDays = (window: SpendWindow) => and(gte(usageDaily.day, dayOf(window.from)), lt(usageDaily.day, dayOf(window.to)));

/** The sum of the rollup's rounded lines (optionally of some of them): exact decimal text. */
export const dailyCostSql = (digits: number, filter?: SQL) =>
  filter ? sql<string>`coalesce(sum(${lineCostSql(usageDaily.cost, digits)}) filter (where ${filter}), 0)` : sql<string>`coalesce(sum(${lineCostSql(usageDaily.cost, digits)}), 0)`;

/** Cost and quantity per period and resource. */
export async function spendSeries(db: Database, scope: SpendScope, window: SpendWindow, granularity: Granularity): Promise<SpendPoint[]> {
  const digits = moneyDigits();
  if (granularity === "hour") return hourlySeries(db, scope, window, digits);
  const period = granularity === "month" ? sql<string>`to_char(date_trunc('month', ${usageDaily.day}), 'YYYY-MM-DD')` : sql<string>`to_char(${usageDaily.day}, 'YYYY-MM-DD')`;
  const rows = await db
    .select({
      period,
      resource: usageDaily.resource,
      quantity: sql<string>`sum(${usageDaily.quantity})`,
      cost: dailyCostSql(digits),
      unpriced: sql<string>`sum(${usageDaily.unpricedQuantity})`,
    })
    .from(usageDaily)
    .where(and(dailyScope(scope), inDays(window)))
    .groupBy(period, usageDaily.resource)
    .orderBy(period, usageDaily.resource);
  return rows.map((r) => ({ period: r.period, resource: r.resource, quantity: Number(r.quantity), cost: moneyFromSql(r.cost, digits), unpricedQuantity: Number(r.unpriced) }));
}

/** Hours from the hourly table: each project's hour of a resource is one line, rounded, then added up per hour and resource. */
async function hourlySeries(db: Database, scope: SpendScope, window: SpendWindow, digits: number): Promise<SpendPoint[]> {
  const where =
    "projectId" in scope ? sql`u.project_id = ${scope.projectId}` : "tenantId" in scope ? sql`u.tenant_id = ${scope.tenantId}` : sql`true`;
  const rows = await rowsOf<{ period: Date | string; resource: string; quantity: string; cost: string; unpriced: string }>(
    db,
    sql`
      select period, resource, sum(quantity)::text as quantity, sum(${lineCostSql(sql`cost`, digits)})::text as cost, sum(unpriced)::text as unpriced
      from (
        select u.hour as period, u.project_id, u.resource,
          sum(u.quantity::numeric) as quantity,
          coalesce(sum(u.quantity::numeric * p.unit_price / ${pricingDivisorSql(sql`u.resource`)}), 0) as cost,
          sum(case when p.unit_price is null then u.quantity::numeric else 0 end) as unpriced
        from usage_hourly u
        left join lateral (
          select r.unit_price from rates r where r.resource = u.resource and r.effective_from <= u.hour
          order by r.effective_from desc limit 1
        ) p on true
        where ${where} and u.hour >= ${window.from.toISOString()}::timestamptz and u.hour < ${window.to.toISOString()}::timestamptz
        group by u.hour, u.project_id, u.resource
      ) line
      group by period, resource
      order by period, resource`,
  );
  return rows.map((r) => ({
    period: new Date(r.period).toISOString(),
    resource: r.resource,
    quantity: Number(r.quantity),
    cost: moneyFromSql(r.cost, digits),
    unpricedQuantity: Number(r.unpriced),
  }));
}

export interface ResourceTotal {
  resource: string;
  quantity: number;
  cost: number;
  unpricedQuantity: number;
  /** GPU rows only: the share of the allocated GPU-hours the GPUs were busy, where measured (DCGM). */
  gpuUtilization: number | null;
  /** GPU rows only: the part used beyond the guarantee, borrowed from the cohort (lib/metering/borrowed.ts); the rest of cost is within it. */
  borrowed?: { quantity: number; cost: number };
}

/** Totals per resource over a window, most expensive first: a project's cost drivers. */
export async function spendByResource(db: Database, scope: SpendScope, window: SpendWindow): Promise<ResourceTotal[]> {
  const digits = moneyDigits();
  const rows = await db
    .select({
      resource: usageDaily.resource,
      quantity: sql<string>`sum(${usageDaily.quantity})`,
      cost: dailyCostSql(digits),
      unpriced: sql<string>`sum(${usageDaily.unpricedQuantity})`,
      measured: sql<string>`sum(${usageDaily.gpuMeasuredHours})`,
      busy: sql<string>`sum(${usageDaily.gpuBusyHours})`,
    })
    .from(usageDaily)
    .where(and(dailyScope(scope), inDays(window)))
    .groupBy(usageDaily.resource);
  return rows.map((r) => resourceTotalOf(r, digits)).sort(mostExpensiveFirst);
}

/** A rollup sum per resource as a ResourceTotal (numeric columns arrive as text; cost is a sum of rounded lines, dailyCostSql). */
export function resourceTotalOf(r: { resource: string; quantity: string; cost: string; unpriced: string; measured: string; busy: string }, digits: number): ResourceTotal {
  return {
    resource: r.resource,
    quantity: Number(r.quantity),
    cost: moneyFromSql(r.cost, digits),
    unpricedQuantity: Number(r.unpriced),
    gpuUtilization: Number(r.measured) > 0 ? Number(r.busy) / Number(r.measured) : null,
  };
}

/** Cost drivers' order: most expensive first, then by name. */
export const mostExpensiveFirst = (a: ResourceTotal, b: ResourceTotal) => b.cost - a.cost || a.resource.localeCompare(b.resource);

export interface ProjectSpend {
  projectId: string;
  slug: string;
  name: string;
  tenantId: string;
  tenantSlug: string;
  cost: number;
  gpuCost: number;
  /** GPU-hours × (1 − utilisation) priced: what the measured idle share of the allocated GPUs cost. */
  gpuIdleCost: number;
  gpuUtilization: number | null;
  /** Where idle is charged back: the idle cost charged to the project over the window (not in cost, which is use). */
  idleChargedBack?: number;
}

/** Spend per project (a tenant's, or all), most expensive first. Projects with no usage in the window are left out. */
export async function spendByProject(db: Database, scope: { tenantId: string } | { platform: true }, window: SpendWindow): Promise<ProjectSpend[]> {
  const digits = moneyDigits();
  const gpu = sql`${usageDaily.resource} like 'gpu:%'`;
  // A line's idle part is its own rounded line: cost × the measured idle share of its GPU-hours.
  const idleLine = lineCostSql(sql`(${usageDaily.cost} * (${usageDaily.gpuMeasuredHours} - ${usageDaily.gpuBusyHours}) / ${usageDaily.quantity})`, digits);
  const rows = await db
    .select({
      projectId: usageDaily.projectId,
      slug: projects.slug,
      name: projects.name,
      tenantId: usageDaily.tenantId,
      tenantSlug: tenants.slug,
      cost: dailyCostSql(digits),
      gpuCost: dailyCostSql(digits, gpu),
      gpuIdleCost: sql<string>`coalesce(sum(case when ${usageDaily.gpuMeasuredHours} > 0 then ${idleLine} else 0 end) filter (where ${gpu} and ${usageDaily.quantity} > 0), 0)`,
      measured: sql<string>`coalesce(sum(${usageDaily.gpuMeasuredHours}) filter (where ${gpu}), 0)`,
      busy: sql<string>`coalesce(sum(${usageDaily.gpuBusyHours}) filter (where ${gpu}), 0)`,
    })
    .from(usageDaily)
    .innerJoin(projects, eq(projects.id, usageDaily.projectId))
    .innerJoin(tenants, eq(tenants.id, usageDaily.tenantId))
    .where(and(dailyScope(scope), inDays(window)))
    .groupBy(usageDaily.projectId, projects.slug, projects.name, usageDaily.tenantId, tenants.slug);
  return rows
    .map((r) => ({
      projectId: r.projectId,
      slug: r.slug,
      name: r.name,
      tenantId: r.tenantId,
      tenantSlug: r.tenantSlug,
      cost: moneyFromSql(r.cost, digits),
      gpuCost: moneyFromSql(r.gpuCost, digits),
      gpuIdleCost: moneyFromSql(r.gpuIdleCost, digits),
      gpuUtilization: Number(r.measured) > 0 ? Number(r.busy) / Number(r.measured) : null,
    }))
    .sort((a, b) => b.cost - a.cost || a.slug.localeCompare(b.slug));
}

export interface TenantSpend {
  tenantId: string;
  slug: string;
  name: string;
  cost: number;
  /** Where idle is charged back: the idle cost charged to the tenant over the window (not in cost, which is use). */
  idleChargedBack?: number;
}

/** Spend per tenant over a window, most expensive first. */
export async function spendByTenant(db: Database, window: SpendWindow): Promise<TenantSpend[]> {
  const digits = moneyDigits();
  const rows = await db
    .select({ tenantId: usageDaily.tenantId, slug: tenants.slug, name: tenants.name, cost: dailyCostSql(digits) })
    .from(usageDaily)
    .innerJoin(tenants, eq(tenants.id, usageDaily.tenantId))
    .where(inDays(window))
    .groupBy(usageDaily.tenantId, tenants.slug, tenants.name);
  return rows.map((r) => ({ ...r, cost: moneyFromSql(r.cost, digits) })).sort((a, b) => b.cost - a.cost || a.slug.localeCompare(b.slug));
}

export interface ClusterCost {
  /** What the node pools' capacity costs at the rate card over the window. */
  capacityCost: number;
  /** What projects used of that capacity (GPU, CPU, memory). */
  allocatedCost: number;
  /** Capacity nobody used: capacityCost − allocatedCost. Negative when use exceeded capacity (overcommit). */
  idleCost: number;
  /** Storage, inference and custom meters: spend that is not node-pool capacity. */
  otherCost: number;
  /** capacityCost + otherCost = the sum over projects + idle. */
  totalCost: number;
  /** idleCost ÷ totalCost (null without a positive cluster cost): the idle line's share, wherever a page shows it. */
  idleShare: number | null;
}

/**
 * The cluster's cost over a window and its idle part. Capacity is the node
 * pools as they were each hour (their size history, lib/quota/pool-sizes.ts),
 * priced at the rates in force then, and only over the hours that have ended
 * by `now`: a window that ends at midnight tonight (today's, this month's)
 * would otherwise count the hours still to come as idle capacity, beside
 * usage that has not happened yet. Whole hours, as usage is counted, so the
 * figure holds still within an hour and two pages show the same one.
 */
export async function clusterCost(db: Database, window: SpendWindow, now: Date, platformByResource?: readonly ResourceTotal[]): Promise<ClusterCost> {
  const digits = moneyDigits();
  const to = new Date(Math.max(window.from.getTime(), Math.min(window.to.getTime(), hourStart(now).getTime())));
  // The platform's cost per resource over the window, when the caller has it already (the platform report).
  const [spans, rateRows, byResource] = await Promise.all([
    poolSizesOverlapping(db, window.from, to),
    loadRates(db),
    platformByResource ?? spendByResource(db, { platform: true }, window),
  ]);
  return clusterCostOf(capacityCost(spans, rateRows, window.from, to, digits), byResource, digits);
}

/** The cluster's lines from the capacity line (minor units) and the window's cost per resource, added in minor units. */
export function clusterCostOf(capacityMinor: number, byResource: readonly ResourceTotal[], digits: number): ClusterCost {
  const allocated = toMinor(sumMoney(byResource.filter((r) => isPoolResource(r.resource)).map((r) => r.cost), digits), digits);
  const other = toMinor(sumMoney(byResource.filter((r) => !isPoolResource(r.resource)).map((r) => r.cost), digits), digits);
  const idle = capacityMinor - allocated;
  const total = capacityMinor + other;
  return {
    capacityCost: toMajor(capacityMinor, digits),
    allocatedCost: toMajor(allocated, digits),
    idleCost: toMajor(idle, digits),
    otherCost: toMajor(other, digits),
    totalCost: toMajor(total, digits),
    idleShare: total > 0 ? idle / total : null,
  };
}

/** Daily cost totals (all resources) for a scope: the input of the month-end forecast. */
export async function dailyCosts(db: Database, scope: SpendScope, window: SpendWindow): Promise<{ day: string; cost: number }[]> {
  const digits = moneyDigits();
  const day = sql<string>`to_char(${usageDaily.day}, 'YYYY-MM-DD')`;
  const rows = await db
    .select({ day, cost: dailyCostSql(digits) })
    .from(usageDaily)
    .where(and(dailyScope(scope), inDays(window)))
    .groupBy(day)
    .orderBy(day);
  return rows.map((r) => ({ day: r.day, cost: moneyFromSql(r.cost, digits) }));
}

/** Whether any usage in the window is generated demo data (pages say so). */
export async function windowHasDemoData(db: Database, scope: SpendScope, window: SpendWindow): Promise<boolean> {
  const [row] = await db
    .select({ demo: sql<boolean>`coalesce(bool_or(${usageDaily.hasDemo}), false)` })
    .from(usageDaily)
    .where(and(dailyScope(scope), inDays(window)));
  return row?.demo === true;
}
