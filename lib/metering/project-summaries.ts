import { and, inArray, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { usageDaily } from "@/db/schema";
import { budgetStatusOf, budgetsOf, budgetWindow, totalsOf, type BudgetStatus } from "./report";
import { moneyDigits, moneyFromSql } from "./money-sql";
import { dailyCostSql, dayOf, inDays, mostExpensiveFirst, resourceTotalOf, type ResourceTotal } from "./spend";
import { resolveWindow, spendQueryInput } from "./window";

/**
 * A project's use and spend in brief, for many projects in a few queries (the
 * approval queue shows one per entry): this month against the budget with
 * its forecast (as budgetStatus computes it), the last 30 days' cost per
 * resource (as spendByResource sums it), and the GPUs' measured utilisation.
 * The same figures as the spend pages, grouped by project in SQL instead of
 * one query per project. No access decision here: callers check
 * "project.spend.view" first.
 */
export interface ProjectUsageSummary {
  projectId: string;
  /** The last UTC day with recorded usage; null when the project has none yet (its figures are then all zero and not worth showing). */
  lastUsageDay: string | null;
  /** This month so far, its forecast, and the monthly budget (null when none is set). */
  budget: BudgetStatus;
  /** The last 30 days, today included, as the spend pages' "30d" range. */
  last30Days: {
    from: string;
    lastDay: string;
    totalCost: number;
    /** Most expensive first. */
    byResource: ResourceTotal[];
    /** Resources used with no price on the rate card (their cost is missing from totalCost). */
    unpricedResources: string[];
  };
  /** Busy share of the GPU-hours that carry a utilisation figure over the 30 days; null when none was measured. */
  gpuUtilization: number | null;
  /** True when some of the 30 days' figures come from generated demo data. */
  demo: boolean;
}

/** The last 30 days, today included: the spend pages' "30d" range. */
export function last30DaysWindow(now: Date) {
  const resolved = resolveWindow(spendQueryInput.parse({ range: "30d", granularity: "day" }), now);
  if (!("window" in resolved)) throw new Error("the 30-day window is always valid");
  return resolved.window;
}

/** Summaries of the given projects at `now`, one per id (projects with no usage get an empty one). */
export async function projectUsageSummaries(db: Database, projectIds: readonly string[], now: Date): Promise<Map<string, ProjectUsageSummary>> {
  const ids = [...new Set(projectIds)];
  const out = new Map<string, ProjectUsageSummary>();
  if (ids.length === 0) return out;
  const month = budgetWindow(now);
  const recent = last30DaysWindow(now);
  const inProjects = inArray(usageDaily.projectId, ids);
  const day = sql<string>`to_char(${usageDaily.day}, 'YYYY-MM-DD')`;
  const digits = moneyDigits();

  const [lastDays, daily, byResource, budgets] = await Promise.all([
    db
      .select({ projectId: usageDaily.projectId, lastDay: sql<string>`to_char(max(${usageDaily.day}), 'YYYY-MM-DD')` })
      .from(usageDaily)
      .where(inProjects)
      .groupBy(usageDaily.projectId),
    db
      .select({ projectId: usageDaily.projectId, day, cost: dailyCostSql(digits) })
      .from(usageDaily)
      .where(and(inProjects, inDays(month)))
      .groupBy(usageDaily.projectId, day)
      .orderBy(usageDaily.projectId, day),
    db
      .select({
        projectId: usageDaily.projectId,
        resource: usageDaily.resource,
        quantity: sql<string>`sum(${usageDaily.quantity})`,
        cost: dailyCostSql(digits),
        unpriced: sql<string>`sum(${usageDaily.unpricedQuantity})`,
        measured: sql<string>`sum(${usageDaily.gpuMeasuredHours})`,
        busy: sql<string>`sum(${usageDaily.gpuBusyHours})`,
        demo: sql<boolean>`coalesce(bool_or(${usageDaily.hasDemo}), false)`,
      })
      .from(usageDaily)
      .where(and(inProjects, inDays(recent)))
      .groupBy(usageDaily.projectId, usageDaily.resource),
    budgetsOf(db, ids),
  ]);

  const lastDayOf = new Map(lastDays.map((r) => [r.projectId, r.lastDay]));
  const dailyOf = new Map<string, { day: string; cost: number }[]>();
  for (const r of daily) {
    const list = dailyOf.get(r.projectId) ?? [];
    list.push({ day: r.day, cost: moneyFromSql(r.cost, digits) });
    dailyOf.set(r.projectId, list);
  }
  const resourcesOf = new Map<string, { totals: ResourceTotal[]; measured: number; busy: number; demo: boolean }>();
  for (const r of byResource) {
    const entry = resourcesOf.get(r.projectId) ?? { totals: [], measured: 0, busy: 0, demo: false };
    entry.totals.push(resourceTotalOf(r, digits));
    if (r.resource.startsWith("gpu:")) {
      entry.measured += Number(r.measured);
      entry.busy += Number(r.busy);
    }
    entry.demo ||= r.demo === true;
    resourcesOf.set(r.projectId, entry);
  }

  for (const id of ids) {
    const resources = resourcesOf.get(id) ?? { totals: [], measured: 0, busy: 0, demo: false };
    const totals = resources.totals.sort(mostExpensiveFirst);
    out.set(id, {
      projectId: id,
      lastUsageDay: lastDayOf.get(id) ?? null,
      budget: budgetStatusOf(dailyOf.get(id) ?? [], budgets.get(id) ?? null, now, digits),
      last30Days: { from: dayOf(recent.from), lastDay: recent.lastDay, byResource: totals, ...totalsOf(totals, digits) },
      gpuUtilization: resources.measured > 0 ? resources.busy / resources.measured : null,
      demo: resources.demo,
    });
  }
  return out;
}
