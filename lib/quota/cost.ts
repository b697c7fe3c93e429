import { GiB, type QuotaAmounts } from "./amounts";

/** A month as the rate card prices reservations: 730 hours (365 × 24 / 12). */
export const HOURS_PER_MONTH = 730;

export type RateKey = `gpu:${string}` | "cpu" | "memory" | "storage" | "inference";

export const RATE_UNITS: Record<"gpu" | "cpu" | "memory" | "storage" | "inference", string> = {
  gpu: "GPU-hour",
  cpu: "core-hour",
  memory: "GiB-hour",
  storage: "GiB-month",
  inference: "1,000 requests",
};

export const gpuRateKey = (model: string): RateKey => `gpu:${model}`;

export interface RateRow {
  resource: string;
  unitPrice: number;
  effectiveFrom: Date;
}

/** The price of each resource in force at `at`: the newest row that started at or before it. */
export function ratesInForce(rows: readonly RateRow[], at: Date): Map<string, number> {
  const best = new Map<string, RateRow>();
  for (const r of rows) {
    if (r.effectiveFrom.getTime() > at.getTime()) continue;
    const seen = best.get(r.resource);
    if (!seen || r.effectiveFrom > seen.effectiveFrom) best.set(r.resource, r);
  }
  return new Map([...best].map(([k, r]) => [k, r.unitPrice]));
}

export interface CostEstimate {
  /** Per month, in the configured currency. */
  monthly: number;
  lines: { resource: string; quantity: number; unit: string; unitPrice: number; monthly: number }[];
  /** Resources asked for that have no price on the rate card: the estimate leaves them out. */
  unpriced: string[];
}

/** What holding these amounts for a month costs at the given prices (guarantees only: burst is charged as used). */
export function monthlyCost(amounts: QuotaAmounts, prices: ReadonlyMap<string, number>): CostEstimate {
  const lines: CostEstimate["lines"] = [];
  const unpriced: string[] = [];
  const add = (resource: string, quantity: number, unit: string, hoursPerMonth: number) => {
    if (quantity === 0) return;
    const unitPrice = prices.get(resource);
    if (unitPrice === undefined) {
      unpriced.push(resource);
      return;
    }
    lines.push({ resource, quantity, unit, unitPrice, monthly: round2(quantity * unitPrice * hoursPerMonth) });
  };
  // Each GPU model at its own rate: an H100-hour and an L4-hour are priced apart on the rate card.
  for (const g of amounts.gpus) add(gpuRateKey(g.model), g.count, RATE_UNITS.gpu, HOURS_PER_MONTH);
  add("cpu", amounts.cpuCores, RATE_UNITS.cpu, HOURS_PER_MONTH);
  add("memory", amounts.memoryBytes / GiB, RATE_UNITS.memory, HOURS_PER_MONTH);
  add("storage", amounts.storageBytes / GiB, RATE_UNITS.storage, 1);
  return { monthly: round2(lines.reduce((s, l) => s + l.monthly, 0)), lines, unpriced };
}

export const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * What a time-bound grant costs over its period: its monthly figure prorated
 * by hours (every rate prorates linearly: hourly rates by the hour, storage's
 * monthly rate by the fraction of a 730-hour month). Null for a permanent
 * grant or a period already over.
 */
export function costOverPeriod(monthly: number, from: Date, endsAt: Date | null): { cost: number; hours: number } | null {
  if (!endsAt) return null;
  const hours = (endsAt.getTime() - from.getTime()) / 3_600_000;
  if (hours <= 0) return null;
  return { cost: round2((monthly * hours) / HOURS_PER_MONTH), hours };
}

/** A period's length as people say it: "36 hours", "14 days", "13.5 days". */
export function describePeriod(hours: number): string {
  if (hours < 48) {
    const h = Math.max(1, Math.round(hours));
    return `${h} hour${h === 1 ? "" : "s"}`;
  }
  const days = Math.round((hours / 24) * 10) / 10;
  return `${Number.isInteger(days) ? days : days.toFixed(1)} days`;
}
