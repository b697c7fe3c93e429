import "server-only";
import { inArray, sql, type SQL } from "drizzle-orm";
import type { Database } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { tenants } from "@/db/schema";
import type { Minor } from "@/lib/money";
import { poolSizesOverlapping } from "@/lib/quota/pool-sizes";
import { loadRates } from "@/lib/quota/store";
import { chargeBackPeriod } from "./chargeback";
import { allocatedByDay, daysOf, idleChargeback } from "./chargeback-query";
import { idleFocusRows, mergeIdleRows, type IdleDay, type IdleProject } from "./focus-idle";
import { capacityCost } from "./idle";
import { hourStart } from "./units";
import type { CommandContext } from "@/lib/auth/context";
import { config } from "@/lib/config";
import { csvLine, csvLines } from "@/lib/csv";
import { focusCsvColumns, focusRows, type FocusRow, type FocusSourceRow } from "./focus";
import { lineCostSql, moneyDigits, moneyFromSql } from "./money-sql";
import { pricingDivisorSql } from "./rollup";
import type { SpendScope } from "./spend";
import { spendScopeFor, type SpendTarget } from "./report";
import type { ResolvedWindow } from "./window";

/**
 * What feeds the FOCUS export: usage per charge period × project × resource
 * with the names of both and the tenant's cost centre. Day and month periods
 * come from the daily rollup (usage_daily); hours from the hourly table,
 * priced in SQL at the rate in force at each hour (as spend.ts does). A
 * month period is clipped to the window, so two exports of adjacent windows
 * never both claim the same days.
 *
 * The export functions decide access through the policy, like the spend
 * reports (report.ts): a scope the actor may not see is not_found.
 *
 * Money follows lib/money.ts: a rollup row (project, resource, day) or, for
 * hourly exports, a project's hour of a resource is one line rounded to the
 * minor unit; a row of the export adds those rounded lines. So the export's
 * rows add up to the spend page's totals for the same window and granularity.
 */

export type FocusExportScope = SpendTarget;

export interface FocusExport {
  currency: string;
  window: ResolvedWindow;
  rows: FocusRow[];
  /** "allot-focus-<scope>-<first day>-to-<last day>-<granularity>.csv" */
  filename: string;
}

type Raw = {
  period: string | Date;
  tenant_id: string;
  tenant_slug: string;
  tenant_name: string;
  cost_centre: string;
  project_id: string;
  project_slug: string;
  project_name: string;
  resource: string;
  quantity: string;
  cost: string;
  unpriced: string;
};

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);

function whereScope(scope: SpendScope, alias: SQL): SQL {
  if ("projectId" in scope) return sql`${alias}.project_id = ${scope.projectId}`;
  if ("tenantId" in scope) return sql`${alias}.tenant_id = ${scope.tenantId}`;
  return sql`true`;
}

/**
 * Source rows of a scope and window, ordered by period, tenant, project and resource. `part`
 * narrows what is read to a stretch of the window made of whole periods (a streamed export
 * reads it part by part); periods are still those of the whole window (a month clipped to it).
 */
export async function focusSourceRows(db: Database, scope: SpendScope, window: ResolvedWindow, part: { from: Date; to: Date } = window): Promise<FocusSourceRow[]> {
  const names = sql`t.id as tenant_id, t.slug as tenant_slug, t.name as tenant_name, t.cost_centre, p.id as project_id, p.slug as project_slug, p.name as project_name`;
  const digits = moneyDigits();
  let rows: Raw[];
  if (window.granularity === "hour") {
    // A project's hour of a resource is one charge line, rounded once (as the hourly spend series rounds it).
    rows = await rowsOf<Raw>(
      db,
      sql`
        select u.hour as period, ${names}, u.resource,
          sum(u.quantity::numeric)::text as quantity,
          ${lineCostSql(sql`coalesce(sum(u.quantity::numeric * r.unit_price / ${pricingDivisorSql(sql`u.resource`)}), 0)`, digits)}::text as cost,
          sum(case when r.unit_price is null then u.quantity::numeric else 0 end)::text as unpriced
        from usage_hourly u
        join projects p on p.id = u.project_id
        join tenants t on t.id = p.tenant_id
        left join lateral (
          select unit_price from rates where rates.resource = u.resource and rates.effective_from <= u.hour
          order by rates.effective_from desc limit 1
        ) r on true
        where ${whereScope(scope, sql`u`)} and u.hour >= ${part.from.toISOString()}::timestamptz and u.hour < ${part.to.toISOString()}::timestamptz
        group by u.hour, t.id, t.slug, t.name, t.cost_centre, p.id, p.slug, p.name, u.resource
        order by u.hour, t.slug, p.slug, p.id, u.resource`,
    );
  } else {
    const period = window.granularity === "month" ? sql`to_char(date_trunc('month', d.day), 'YYYY-MM-DD')` : sql`to_char(d.day, 'YYYY-MM-DD')`;
    rows = await rowsOf<Raw>(
      db,
      sql`
        select ${period} as period, ${names}, d.resource,
          sum(d.quantity)::text as quantity, sum(${lineCostSql(sql`d.cost`, digits)})::text as cost, sum(d.unpriced_quantity)::text as unpriced
        from usage_daily d
        join projects p on p.id = d.project_id
        join tenants t on t.id = p.tenant_id
        where ${whereScope(scope, sql`d`)} and d.day >= ${dayOf(part.from)}::date and d.day < ${dayOf(part.to)}::date
        group by 1, t.id, t.slug, t.name, t.cost_centre, p.id, p.slug, p.name, d.resource
        order by 1, t.slug, p.slug, p.id, d.resource`,
    );
  }
  return rows.map((r) => {
    const [start, end] = periodBounds(r.period, window);
    return {
      periodStart: start,
      periodEnd: end,
      tenantId: r.tenant_id,
      tenantSlug: r.tenant_slug,
      tenantName: r.tenant_name,
      costCentre: r.cost_centre,
      projectId: r.project_id,
      projectSlug: r.project_slug,
      projectName: r.project_name,
      resource: r.resource,
      quantity: Number(r.quantity),
      cost: moneyFromSql(r.cost, digits),
      unpricedQuantity: Number(r.unpriced),
    };
  });
}

/** [start, end) of a period: an hour, a UTC day, or a calendar month clipped to the window. */
function periodBounds(period: string | Date, window: ResolvedWindow): [Date, Date] {
  if (window.granularity === "hour") {
    const start = new Date(period);
    return [start, new Date(start.getTime() + HOUR_MS)];
  }
  const day = new Date(`${typeof period === "string" ? period : dayOf(period)}T00:00:00Z`);
  if (window.granularity === "day") return [day, new Date(day.getTime() + DAY_MS)];
  const monthEnd = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 1));
  return [new Date(Math.max(day.getTime(), window.from.getTime())), new Date(Math.min(monthEnd.getTime(), window.to.getTime()))];
}

function filenameOf(scopeLabel: string, window: ResolvedWindow): string {
  return `allot-focus-${scopeLabel}-${dayOf(window.from)}-to-${window.lastDay}-${window.granularity}.csv`;
}

/**
 * Each UTC day of the window with its idle and what of it was charged back
 * (chargeback-query.ts decides the split; days under "apart" charge nothing).
 * A day's capacity is the difference of the window's capacity up to its end
 * and up to its start, each rounded once as clusterCost rounds the window's,
 * so the days add up to the platform page's capacity line exactly and the
 * export's idle lines to its idle; a day that is charged back in full can
 * then leave a cent either side of zero apart, which the platform line shows.
 */
export async function idleDays(db: Database, window: ResolvedWindow, now: Date): Promise<{ days: IdleDay[]; projects: Map<string, IdleProject> }> {
  const digits = moneyDigits();
  const capped = new Date(Math.max(window.from.getTime(), Math.min(window.to.getTime(), hourStart(now).getTime())));
  const [spans, rates, allocated, idle] = await Promise.all([
    poolSizesOverlapping(db, window.from, capped),
    loadRates(db),
    allocatedByDay(db, window.from, window.to, digits),
    idleChargeback(db, window, now),
  ]);
  const chargedByDay = new Map(idle.periods.map((p) => [p.period, chargeBackPeriod(p.idle, p.weights)]));
  const capacityTo = (at: Date): Minor => capacityCost(spans, rates, window.from, new Date(Math.min(at.getTime(), capped.getTime())), digits);
  const days: IdleDay[] = daysOf(window.from, window.to).map((d) => ({
    from: d.from,
    to: d.to,
    idle: capacityTo(d.to) - capacityTo(d.from) - (allocated.get(d.day) ?? 0),
    charged: chargedByDay.get(d.day) ?? new Map<string, Minor>(),
  }));
  const tenantIds = [...new Set([...idle.projects.values()].map((p) => p.tenantId))];
  const centres = tenantIds.length ? await db.select({ id: tenants.id, costCentre: tenants.costCentre }).from(tenants).where(inArray(tenants.id, tenantIds)) : [];
  const centreOf = new Map(centres.map((t) => [t.id, t.costCentre]));
  const projects = new Map([...idle.projects].map(([projectId, p]) => [projectId, { projectId, ...p, costCentre: centreOf.get(p.tenantId) ?? "" }]));
  return { days, projects };
}

/**
 * The FOCUS rows of a project, a tenant or the platform over a window, for
 * the actor: access is spendScopeFor's, the same as the spend reports'. Use
 * rows, then the idle lines (focus-idle.ts): a project's and a tenant's
 * export carry the idle charged back to them, the platform's all of it and
 * the idle left apart, so its rows add up to the cluster's cost.
 */
export async function focusExport(ctx: CommandContext, scope: FocusExportScope, window: ResolvedWindow): Promise<FocusExport> {
  const { scope: resolved, query: spendScope } = await spendScopeFor(ctx, scope);
  const label = exportLabel(resolved);
  const currency = config().currency;
  const digits = moneyDigits();
  const [source, idle] = await Promise.all([focusSourceRows(ctx.db, spendScope, window), idleDays(ctx.db, window, ctx.now)]);
  const rows = mergeIdleRows(focusRows(source, currency, digits), idleFocusRows(idle.days, idle.projects, spendScope, window.granularity, window, currency, digits));
  return { currency, window, rows, filename: filenameOf(label, window) };
}

/**
 * The stretches a streamed export reads one at a time: each UTC day of the window (hours and
 * days), or each calendar month clipped to it (months). Rows are ordered by period first, so
 * the parts' rows one after the other are the whole export's, in its order.
 */
export function exportParts(window: Pick<ResolvedWindow, "from" | "to" | "granularity">): { from: Date; to: Date }[] {
  if (window.granularity !== "month") return daysOf(window.from, window.to).map((d) => ({ from: d.from, to: d.to }));
  const parts: { from: Date; to: Date }[] = [];
  for (let at = window.from; at < window.to; ) {
    const next = new Date(Math.min(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1), window.to.getTime()));
    parts.push({ from: at, to: next });
    at = next;
  }
  return parts;
}

/**
 * The export as a CSV file (the spend API's ?format=csv and the portal's downloads), streamed:
 * access is decided and the idle lines (one per day at most) computed before the first byte,
 * then the usage rows are read and written one part of the window at a time (exportParts), so
 * a year of a platform's rows is never held in memory at once. The bytes are those of focusCsv
 * over focusExport's rows (focus-stream.int.test.ts). A part that fails to read ends the
 * download with an error, never with a file that looks complete.
 */
export async function focusCsvFile(ctx: CommandContext, scope: FocusExportScope, window: ResolvedWindow): Promise<{ csv: ReadableStream<Uint8Array>; filename: string }> {
  const { scope: resolved, query: spendScope } = await spendScopeFor(ctx, scope);
  const currency = config().currency;
  const digits = moneyDigits();
  const idle = await idleDays(ctx.db, window, ctx.now);
  const idleRows = idleFocusRows(idle.days, idle.projects, spendScope, window.granularity, window, currency, digits);
  const columns = focusCsvColumns(digits);
  const parts = exportParts(window);
  const encoder = new TextEncoder();
  let next = 0;
  let idleAt = 0;
  const csv = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csvLine(columns.map((c) => c.header))));
    },
    async pull(controller) {
      // Parts with no rows write nothing: read on until one does, or the window ends.
      while (next < parts.length) {
        const part = parts[next++]!;
        const source = await focusSourceRows(ctx.db, spendScope, window, part);
        const idleOfPart: FocusRow[] = [];
        while (idleAt < idleRows.length && Date.parse(idleRows[idleAt]!.ChargePeriodStart) < part.to.getTime()) idleOfPart.push(idleRows[idleAt++]!);
        const rows = mergeIdleRows(focusRows(source, currency, digits), idleOfPart);
        if (rows.length > 0) {
          controller.enqueue(encoder.encode(csvLines(rows, columns)));
          return;
        }
      }
      if (idleAt < idleRows.length) controller.enqueue(encoder.encode(csvLines(idleRows.slice(idleAt), columns)));
      controller.close();
    },
  });
  return { csv, filename: filenameOf(exportLabel(resolved), window) };
}

function exportLabel(resolved: Awaited<ReturnType<typeof spendScopeFor>>["scope"]): string {
  return resolved.kind === "project" ? `${resolved.tenantSlug}-${resolved.projectSlug}` : resolved.kind === "tenant" ? resolved.tenantSlug : "platform";
}

/** A portal download's answer to a window it cannot read: 400 with the problems by field, as text. */
export function badWindowResponse(errors: Record<string, string[]>): Response {
  const text = Object.entries(errors)
    .map(([field, messages]) => `${field}: ${messages.join("; ")}`)
    .join("\n");
  return new Response(`Invalid window.\n${text}\n`, { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}
