import { GiB } from "./amounts";

export interface PoolCapacityInput {
  name: string;
  gpuModel: string | null;
  gpuResource: string | null;
  gpusPerNode: number;
  nodeCount: number;
  maxNodes: number | null;
  cpuPerNode: number;
  memoryBytesPerNode: number;
}

export interface Overcommit {
  cpu: number;
  memory: number;
  gpu: number;
}

/** Resource keys of the capacity table: "cpu", "memory" (bytes), "gpu:<model>". */
export type CapacityKey = string;

/**
 * What the cluster can hold, per resource: nodes (autoscaling pools at their
 * maximum) × per-node amount × the overcommit ratio. GPUs count per model:
 * an H100 request is held by H100 pools only.
 */
export function clusterCapacity(pools: readonly PoolCapacityInput[], overcommit: Overcommit): Map<CapacityKey, number> {
  const cap = new Map<CapacityKey, number>();
  const add = (k: string, v: number) => cap.set(k, (cap.get(k) ?? 0) + v);
  for (const p of pools) {
    const nodes = p.maxNodes ?? p.nodeCount;
    add("cpu", nodes * p.cpuPerNode * overcommit.cpu);
    add("memory", nodes * p.memoryBytesPerNode * overcommit.memory);
    if (p.gpuModel && p.gpusPerNode > 0) add(`gpu:${p.gpuModel}`, Math.floor(nodes * p.gpusPerNode * overcommit.gpu));
  }
  return cap;
}

export interface Allocation {
  cpuCores: number;
  memoryBytes: number;
  gpusByModel: Record<string, number>;
}

export function allocationMap(a: Allocation): Map<CapacityKey, number> {
  const m = new Map<CapacityKey, number>([
    ["cpu", a.cpuCores],
    ["memory", a.memoryBytes],
  ]);
  for (const [model, n] of Object.entries(a.gpusByModel)) m.set(`gpu:${model}`, n);
  return m;
}

export function addAllocations(...all: Allocation[]): Allocation {
  const out: Allocation = { cpuCores: 0, memoryBytes: 0, gpusByModel: {} };
  for (const a of all) {
    out.cpuCores += a.cpuCores;
    out.memoryBytes += a.memoryBytes;
    for (const [m, n] of Object.entries(a.gpusByModel)) out.gpusByModel[m] = (out.gpusByModel[m] ?? 0) + n;
  }
  return out;
}

export interface CapacityLine {
  resource: CapacityKey;
  label: string;
  capacity: number;
  before: number;
  after: number;
  /** after > capacity: the request does not fit. */
  exceeds: boolean;
}

export const capacityLabel = (k: CapacityKey) => (k === "cpu" ? "CPU cores" : k === "memory" ? "Memory (GiB)" : `${k.slice(4)} GPUs`);
const display = (k: CapacityKey, v: number) => (k === "memory" ? Math.round((v / GiB) * 10) / 10 : Math.round(v * 1000) / 1000);

/** Allocated / capacity per resource, before and after adding `extra`: the capacity impact of a request. */
export function capacityImpact(capacity: Map<CapacityKey, number>, allocated: Allocation, extra: Allocation): CapacityLine[] {
  const before = allocationMap(allocated);
  const after = allocationMap(addAllocations(allocated, extra));
  const keys = new Set([...capacity.keys(), ...after.keys()]);
  return [...keys]
    .sort((a, b) => (a === b ? 0 : a === "cpu" ? -1 : b === "cpu" ? 1 : a === "memory" ? -1 : b === "memory" ? 1 : a < b ? -1 : 1))
    .map((k) => {
      const cap = capacity.get(k) ?? 0;
      const a = after.get(k) ?? 0;
      return { resource: k, label: capacityLabel(k), capacity: display(k, cap), before: display(k, before.get(k) ?? 0), after: display(k, a), exceeds: a > cap + 1e-9 };
    });
}

/** Each tenant's share of capacity per resource (0..1, can exceed 1 with overcommit off and over-granting). */
export function tenantShares(capacity: Map<CapacityKey, number>, byTenant: ReadonlyMap<string, Allocation>): { tenant: string; shares: Record<CapacityKey, number> }[] {
  return [...byTenant].map(([tenant, a]) => {
    const shares: Record<CapacityKey, number> = {};
    for (const [k, v] of allocationMap(a)) {
      const cap = capacity.get(k) ?? 0;
      shares[k] = cap > 0 ? v / cap : v > 0 ? Infinity : 0;
    }
    return { tenant, shares };
  });
}
