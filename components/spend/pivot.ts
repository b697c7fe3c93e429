import type { SpendData } from "@/lib/server/spend-json";
import { orderResources, periodsOf, type Granularity } from "./format";

/**
 * The report's series (one point per period and resource) as a table: one
 * row per period of the window, zero where nothing was used, one column per
 * resource. The chart and its table view read the same rows.
 */
export interface SeriesTable {
  granularity: Granularity;
  resources: string[];
  rows: { period: string; values: number[]; total: number }[];
}

export function pivotSeries(data: SpendData): SeriesTable {
  const granularity = data.window.granularity;
  const resources = orderResources(data.series.map((p) => p.resource));
  const column = new Map(resources.map((r, i) => [r, i]));
  const byPeriod = new Map<string, number[]>();
  for (const period of periodsOf(data.window.from, data.window.to, granularity)) byPeriod.set(period, resources.map(() => 0));
  for (const p of data.series) {
    let values = byPeriod.get(p.period);
    if (!values) byPeriod.set(p.period, (values = resources.map(() => 0)));
    values[column.get(p.resource)!]! += p.cost;
  }
  const rows = [...byPeriod.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([period, values]) => ({ period, values, total: values.reduce((s, v) => s + v, 0) }));
  return { granularity, resources, rows };
}

/** True when the window holds no usage at all (priced or not). */
export const hasNoUsage = (data: SpendData) => data.series.length === 0 && data.byResource.every((r) => r.quantity === 0);
