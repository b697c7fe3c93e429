import { divideRounded, scaleDecimal, type Minor } from "@/lib/money";
import { GiB } from "@/lib/quota/amounts";
import { gpuRateKey, type RateRow } from "@/lib/quota/cost";

const HOUR_MS = 3_600_000;

export interface PoolForCost {
  gpuModel: string | null;
  gpusPerNode: number;
  nodeCount: number;
  cpuPerNode: number;
  memoryBytesPerNode: number;
}

/** What each pool offers per hour, by rate-card resource: GPU-hours, core-hours, GiB-hours. */
export function capacityPerHour(pools: readonly PoolForCost[]): Map<string, number> {
  const perHour = new Map<string, number>();
  const add = (key: string, q: number) => q > 0 && perHour.set(key, (perHour.get(key) ?? 0) + q);
  for (const p of pools) {
    if (p.gpuModel) add(gpuRateKey(p.gpuModel), p.gpusPerNode * p.nodeCount);
    add("cpu", p.cpuPerNode * p.nodeCount);
    add("memory", (p.memoryBytesPerNode / GiB) * p.nodeCount);
  }
  return perHour;
}

/**
 * Capacity per hour as exact integers over one denominator, so the cost is
 * computed without floats: GPUs and cores to the thousandth (millicores),
 * memory in bytes. units / UNIT_DEN = GPU-hours, core-hours or GiB-hours per hour.
 */
const UNIT_DEN = 1000n * BigInt(GiB);
function exactPerHour(pools: readonly PoolForCost[]): Map<string, bigint> {
  const perHour = new Map<string, bigint>();
  const add = (key: string, units: bigint) => units > 0n && perHour.set(key, (perHour.get(key) ?? 0n) + units);
  for (const p of pools) {
    const nodes = BigInt(p.nodeCount);
    if (p.gpuModel) add(gpuRateKey(p.gpuModel), scaleDecimal(String(p.gpusPerNode), 3) * BigInt(GiB) * nodes);
    add("cpu", scaleDecimal(String(p.cpuPerNode), 3) * BigInt(GiB) * nodes);
    add("memory", BigInt(Math.round(p.memoryBytesPerNode)) * 1000n * nodes);
  }
  return perHour;
}

/** Prices are numeric(18, 6) on the rate card: exact as micro-units. */
const PRICE_DEN = 1_000_000n;

/**
 * The cost of the pools' capacity over [from, to), in minor units: hour by
 * hour at the price in force, the window cut where a price changes and each
 * piece priced at its own rate, all exact, then rounded once (it is one line
 * on the spend page). A resource with no price in force costs nothing (like
 * its usage).
 */
export function capacityCost(pools: readonly PoolForCost[], rates: readonly RateRow[], from: Date, to: Date, digits: number): Minor {
  if (to <= from) return 0;
  let numerator = 0n; // in ms × units × micro-price
  for (const [resource, units] of exactPerHour(pools)) {
    const history = rates.filter((r) => r.resource === resource).sort((a, b) => a.effectiveFrom.getTime() - b.effectiveFrom.getTime());
    for (let i = 0; i < history.length; i++) {
      const start = Math.max(history[i]!.effectiveFrom.getTime(), from.getTime());
      const end = Math.min(i + 1 < history.length ? history[i + 1]!.effectiveFrom.getTime() : Infinity, to.getTime());
      if (end > start) numerator += BigInt(end - start) * units * scaleDecimal(String(history[i]!.unitPrice), 6);
    }
  }
  return Number(divideRounded(numerator * 10n ** BigInt(digits), BigInt(HOUR_MS) * UNIT_DEN * PRICE_DEN));
}
