import { minorDigits, sumMinor, toMajor, toMinor } from "@/lib/money";
import type { SpendData } from "@/lib/server/spend-json";
import { orderResources, periodsOf, type Granularity } from "./format";

/**
 * The report's series (one point per period and resource) as a table: one
 * row per period of the window, zero where nothing was used, one column per
 * resource. The chart and its table view read the same rows. Every cell is
 * a rounded line of the report; row and column totals are their sums, added
 * in minor units (lib/money.ts), so the table adds up to the cent.
 */
export interface SeriesTable {
  granularity: Granularity;
  resources: string[];
  rows: { period: string; values: number[]; total: number }[];
  /** Per resource: the sum of its cells. */
  totals: number[];
  /** The sum of every cell. */
  grandTotal: number;
}

export function pivotSeries(data: SpendData): SeriesTable {
  const granularity = data.window.granularity;
  const digits = minorDigits(data.currency);
  const resources = orderResources(data.series.map((p) => p.resource));
  const column = new Map(resources.map((r, i) => [r, i]));
  const byPeriod = new Map<string, number[]>();
  for (const period of periodsOf(data.window.from, data.window.to, granularity)) byPeriod.set(period, resources.map(() => 0));
  for (const p of data.series) {
    let values = byPeriod.get(p.period);
    if (!values) byPeriod.set(p.period, (values = resources.map(() => 0)));
    const i = column.get(p.resource)!;
    values[i] = sumMinor([values[i]!, toMinor(p.cost, digits)]);
  }
  const minorRows = [...byPeriod.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const totals = resources.map((_, i) => sumMinor(minorRows.map(([, v]) => v[i]!)));
  const major = (m: number) => toMajor(m, digits);
  return {
    granularity,
    resources,
    rows: minorRows.map(([period, values]) => ({ period, values: values.map(major), total: major(sumMinor(values)) })),
    totals: totals.map(major),
    grandTotal: major(sumMinor(totals)),
  };
}

/** True when the window holds no usage at all (priced or not). */
export const hasNoUsage = (data: SpendData) => data.series.length === 0 && data.byResource.every((r) => r.quantity === 0);
