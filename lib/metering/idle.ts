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
 * The cost of the pools' capacity over [from, to), hour by hour at the price
 * in force: the window is cut where a price changes, each piece priced at its
 * own rate. A resource with no price in force costs nothing (like its usage).
 */
export function capacityCost(pools: readonly PoolForCost[], rates: readonly RateRow[], from: Date, to: Date): number {
  if (to <= from) return 0;
  let total = 0;
  for (const [resource, perHour] of capacityPerHour(pools)) {
    const history = rates.filter((r) => r.resource === resource).sort((a, b) => a.effectiveFrom.getTime() - b.effectiveFrom.getTime());
    for (let i = 0; i < history.length; i++) {
      const start = Math.max(history[i]!.effectiveFrom.getTime(), from.getTime());
      const end = Math.min(i + 1 < history.length ? history[i + 1]!.effectiveFrom.getTime() : Infinity, to.getTime());
      if (end > start) total += ((end - start) / HOUR_MS) * perHour * history[i]!.unitPrice;
    }
  }
  return total;
}
