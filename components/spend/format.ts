import { QUANTITY_UNIT, resourceKind, resourceLabel, type ResourceKind } from "@/lib/metering/units";
import { formatMoney, minorDigits, shareOf, subtractMoney } from "@/lib/money";

/** How the spend pages write money, quantities, shares and periods (en-GB, UTC, like lib/format.ts). */

const formatters = new Map<string, Intl.NumberFormat>();
function cached(key: string, make: () => Intl.NumberFormat): Intl.NumberFormat {
  let f = formatters.get(key);
  if (!f) formatters.set(key, (f = make()));
  return f;
}

/** An amount in the report's currency, to its minor unit: "$1,234.56" (lib/money.ts: the one rule for every figure). */
export const money = (amount: number, currency: string): string => formatMoney(amount, currency);

/** Short, for chart axes: "$1.2K", "$350". */
export function compactMoney(amount: number, currency: string): string {
  return cached(`c:${currency}`, () => new Intl.NumberFormat("en-GB", { style: "currency", currency, currencyDisplay: "narrowSymbol", notation: "compact", maximumFractionDigits: 2 })).format(amount);
}

export function percent(ratio: number): string {
  return cached(`p:${ratio < 0.1 ? 1 : 0}`, () => new Intl.NumberFormat("en-GB", { style: "percent", maximumFractionDigits: ratio < 0.1 ? 1 : 0 })).format(ratio);
}

/**
 * A figure against the same figure of the period before, to the cent: "+$120.00 (+12%)",
 * "−$3.50 (−1%)", "no change", or "+$40.00 (new)" when there was nothing before. `delta` is the
 * signed difference of the two rounded amounts (what the tile and the table colour by).
 */
export function changeAgainst(now: number, before: number, currency: string): { delta: number; text: string } {
  const digits = minorDigits(currency);
  const delta = subtractMoney(now, before, digits);
  if (delta === 0) return { delta, text: "no change" };
  const sign = delta > 0 ? "+" : "−";
  const share = shareOf(Math.abs(delta), before, digits);
  return { delta, text: `${sign}${money(Math.abs(delta), currency)} (${share === null ? "new" : `${sign}${percent(share)}`})` };
}

/** A consumed quantity with its unit: "1,234.5 GPU-hours" (units.ts: one spelling on every page). */
export function quantity(amount: number, resource: string): string {
  const digits = amount >= 100 ? 0 : amount >= 1 ? 1 : 3;
  return `${cached(`q:${digits}`, () => new Intl.NumberFormat("en-GB", { maximumFractionDigits: digits })).format(amount)} ${QUANTITY_UNIT[resourceKind(resource)]}`;
}

export { resourceLabel };

const KIND_RANK: Record<ResourceKind, number> = { gpu: 0, cpu: 1, memory: 2, storage: 3, inference: 4, custom: 5 };

/** Resources in a stable order (GPUs by model, CPU, memory, storage, inference, meters), so legends read the same on every page. */
export function orderResources(keys: Iterable<string>): string[] {
  return [...new Set(keys)].sort((a, b) => KIND_RANK[resourceKind(a)] - KIND_RANK[resourceKind(b)] || a.localeCompare(b));
}

export { resourceColour, resourceColours } from "./palette";

export type Granularity = "hour" | "day" | "month";

const DAY_MS = 86_400_000;

/** Every period start a window holds, as the report names them (YYYY-MM-DD for days and months, ISO instants for hours). */
export function periodsOf(from: string, to: string, granularity: Granularity): string[] {
  const start = Date.parse(from);
  const end = Date.parse(to);
  const out: string[] = [];
  if (granularity === "hour") {
    for (let t = start; t < end && out.length < 2000; t += 3_600_000) out.push(new Date(t).toISOString());
  } else if (granularity === "day") {
    for (let t = start; t < end && out.length < 2000; t += DAY_MS) out.push(new Date(t).toISOString().slice(0, 10));
  } else {
    const d = new Date(start);
    for (let m = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1); m < end && out.length < 200; ) {
      out.push(new Date(m).toISOString().slice(0, 10));
      const n = new Date(m);
      m = Date.UTC(n.getUTCFullYear(), n.getUTCMonth() + 1, 1);
    }
  }
  return out;
}

const instantOf = (period: string) => new Date(period.length === 10 ? `${period}T00:00:00Z` : period);

/** A period for an axis tick: "3 Nov", "Nov 2026", "3 Nov 14:00". */
export function periodTick(period: string, granularity: Granularity): string {
  const d = instantOf(period);
  if (granularity === "month") return d.toLocaleDateString("en-GB", { month: "short", year: "numeric", timeZone: "UTC" });
  const day = d.toLocaleDateString("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });
  return granularity === "hour" ? `${day} ${d.toISOString().slice(11, 16)}` : day;
}

/** A period in full, for tooltips and tables: "Mon 3 Nov 2026", "November 2026", "3 Nov 2026, 14:00 UTC". */
export function periodLong(period: string, granularity: Granularity): string {
  const d = instantOf(period);
  if (granularity === "month") return d.toLocaleDateString("en-GB", { month: "long", year: "numeric", timeZone: "UTC" });
  if (granularity === "hour") return `${d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" })}, ${d.toISOString().slice(11, 16)} UTC`;
  return d.toLocaleDateString("en-GB", { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
}

/** A day (YYYY-MM-DD) as the portal writes dates: "3 Nov 2026". */
export function dayLong(day: string): string {
  return instantOf(day).toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
}
