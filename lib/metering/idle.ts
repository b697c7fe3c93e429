import { divideRounded, scaleDecimal, type Minor } from "@/lib/money";
import { GiB } from "@/lib/quota/amounts";
import { gpuRateKey, type RateRow } from "@/lib/quota/cost";

const HOUR_MS = 3_600_000;

/**
 * A pool as cost counts it. gpusPerNode is what a node offers of the GPU
 * model, the unit its rate prices (a slice of a time-sliced model, a MIG
 * instance): the size history records it so (lib/quota/pool-sizes.ts), so a
 * time-sliced pool costs its slices × the slice's price, and projects' slices
 * plus idle slices add up to it. A mixed MIG pool's further requestable
 * profiles (gpuProfiles) are priced each at its own rate on the same nodes.
 */
export interface PoolForCost {
  gpuModel: string | null;
  gpusPerNode: number;
  /** Further requestable profiles, instances per node; absent: none. */
  gpuProfiles?: readonly { model: string; perNode: number }[];
  nodeCount: number;
  cpuPerNode: number;
  memoryBytesPerNode: number;
}

/** Every GPU model a pool offers with its units per node: its first profile, then the others. */
const gpuUnitsOf = (p: PoolForCost): { model: string; perNode: number }[] => (p.gpuModel ? [{ model: p.gpuModel, perNode: p.gpusPerNode }, ...(p.gpuProfiles ?? [])] : []);

/** What each pool offers per hour, by rate-card resource: GPU-hours, core-hours, GiB-hours. */
export function capacityPerHour(pools: readonly PoolForCost[]): Map<string, number> {
  const perHour = new Map<string, number>();
  const add = (key: string, q: number) => q > 0 && perHour.set(key, (perHour.get(key) ?? 0) + q);
  for (const p of pools) {
    for (const g of gpuUnitsOf(p)) add(gpuRateKey(g.model), g.perNode * p.nodeCount);
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
    for (const g of gpuUnitsOf(p)) add(gpuRateKey(g.model), scaleDecimal(String(g.perNode), 3) * BigInt(GiB) * nodes);
    add("cpu", scaleDecimal(String(p.cpuPerNode), 3) * BigInt(GiB) * nodes);
    add("memory", BigInt(Math.round(p.memoryBytesPerNode)) * 1000n * nodes);
  }
  return perHour;
}

/** Prices are numeric(18, 6) on the rate card: exact as micro-units. */
const PRICE_DEN = 1_000_000n;

/** A pool's facts over [validFrom, validTo) (validTo null: still so): one span of its size history. */
export interface PoolSpanForCost extends PoolForCost {
  validFrom: Date;
  validTo: Date | null;
}

/**
 * The cost of the pools' capacity over [from, to), in minor units: each span
 * of each pool's size history cut to the window and to the prices in force,
 * each piece priced at its own size and rate (so an hour before a pool grew
 * costs what the smaller pool held, and a deleted pool's past still counts),
 * all exact, then rounded once (it is one line on the spend page). A resource
 * with no price in force costs nothing (like its usage).
 */
export function capacityCost(spans: readonly PoolSpanForCost[], rates: readonly RateRow[], from: Date, to: Date, digits: number): Minor {
  if (to <= from) return 0;
  const byResource = new Map<string, RateRow[]>();
  for (const r of rates) byResource.set(r.resource, [...(byResource.get(r.resource) ?? []), r]);
  for (const history of byResource.values()) history.sort((a, b) => a.effectiveFrom.getTime() - b.effectiveFrom.getTime());
  let numerator = 0n; // in ms × units × micro-price
  for (const span of spans) {
    const spanStart = Math.max(span.validFrom.getTime(), from.getTime());
    const spanEnd = Math.min(span.validTo?.getTime() ?? Infinity, to.getTime());
    if (spanEnd <= spanStart) continue;
    for (const [resource, units] of exactPerHour([span])) {
      const history = byResource.get(resource) ?? [];
      for (let i = 0; i < history.length; i++) {
        const start = Math.max(history[i]!.effectiveFrom.getTime(), spanStart);
        const end = Math.min(i + 1 < history.length ? history[i + 1]!.effectiveFrom.getTime() : Infinity, spanEnd);
        if (end > start) numerator += BigInt(end - start) * units * scaleDecimal(String(history[i]!.unitPrice), 6);
      }
    }
  }
  return Number(divideRounded(numerator * 10n ** BigInt(digits), BigInt(HOUR_MS) * UNIT_DEN * PRICE_DEN));
}
