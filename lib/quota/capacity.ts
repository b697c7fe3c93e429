import { GiB } from "./amounts";
import { perNodeOfModel, requestableProfilesOf, type ProfileFacts } from "./pool-profiles";

/** A pool's GPU facts (ProfileFacts: model, resource, per node, sharing, further profiles) and its size. */
export interface PoolCapacityInput extends ProfileFacts {
  name: string;
  /** The nodes present now: what capacity counts. */
  nodeCount: number;
  /** The autoscaler's minimum; null or absent: the nodes present. */
  minNodes?: number | null;
  /** The autoscaler's maximum; null: the pool does not autoscale. */
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

/** Only what capacity needs of a pool row (so a page hands no more of it to the browser). */
export const capacityPoolOf = (p: PoolCapacityInput): PoolCapacityInput => ({
  name: p.name,
  gpuModel: p.gpuModel,
  gpuResource: p.gpuResource,
  gpusPerNode: p.gpusPerNode,
  gpuSharing: p.gpuSharing ?? "exclusive",
  gpuSlices: p.gpuSlices ?? 1,
  gpuProfiles: (p.gpuProfiles ?? []).map((x) => ({ ...x })),
  nodeCount: p.nodeCount,
  minNodes: p.minNodes ?? null,
  maxNodes: p.maxNodes,
  cpuPerNode: p.cpuPerNode,
  memoryBytesPerNode: p.memoryBytesPerNode,
});

/** The most nodes a pool can have: its autoscaler maximum, never fewer than it has now. */
export const maxNodesOf = (p: Pick<PoolCapacityInput, "nodeCount" | "maxNodes">) => Math.max(p.maxNodes ?? p.nodeCount, p.nodeCount);

/** The fewest nodes the autoscaler may leave: its minimum, never more than the nodes present (the cautious reading). */
export const minNodesOf = (p: Pick<PoolCapacityInput, "nodeCount" | "minNodes">) => Math.min(p.minNodes ?? p.nodeCount, p.nodeCount);

/**
 * What one pool adds to a resource at `nodes` nodes, overcommit included (GPUs
 * whole, rounded down per pool and profile). GPUs count what the pool offers
 * of the model (schedulableGpusPerNode): a time-sliced pool's slices, a MIG
 * pool's instances; a mixed MIG pool offers each of its profiles as a model of
 * its own, on the same nodes.
 */
function poolAmount(p: PoolCapacityInput, key: CapacityKey, nodes: number, overcommit: Overcommit): number {
  if (key === "cpu") return nodes * p.cpuPerNode * overcommit.cpu;
  if (key === "memory") return nodes * p.memoryBytesPerNode * overcommit.memory;
  return key.startsWith("gpu:") ? Math.floor(nodes * perNodeOfModel(p, key.slice(4)) * overcommit.gpu) : 0;
}

const keysOf = (p: PoolCapacityInput): CapacityKey[] => [
  "cpu",
  "memory",
  ...requestableProfilesOf(p)
    .filter((x) => x.perNode > 0)
    .map((x) => `gpu:${x.model}`),
];

/**
 * What the cluster can hold, per resource: the nodes present × per-node
 * amount × the overcommit ratio. Nodes the autoscaler could add are not
 * counted (they do not exist yet; see fitOf for what growing would allow),
 * `atMaximum` counts every pool at its autoscaler maximum instead. GPUs
 * count per model: an H100 request is held by H100 pools only.
 */
export function clusterCapacity(pools: readonly PoolCapacityInput[], overcommit: Overcommit, atMaximum = false): Map<CapacityKey, number> {
  const cap = new Map<CapacityKey, number>();
  for (const p of pools) {
    const nodes = atMaximum ? maxNodesOf(p) : p.nodeCount;
    for (const key of keysOf(p)) cap.set(key, (cap.get(key) ?? 0) + poolAmount(p, key, nodes, overcommit));
  }
  return cap;
}

/** What one pool holds of one resource at its autoscaler minimum, now and at its maximum (overcommit included). */
export interface PoolSizeRange {
  pool: string;
  nodes: { atMin: number; now: number; atMax: number };
  atMin: number;
  now: number;
  atMax: number;
}

/** What the pools hold of one resource (a flavour: "gpu:<model>", or "cpu" / "memory") at three sizes, and each pool's part. */
export interface CapacityRange {
  resource: CapacityKey;
  label: string;
  /** Every pool at its autoscaler minimum (no minimum: the nodes present; never more than present). */
  atMin: number;
  /** The nodes present: what approvals are checked against today. */
  now: number;
  /** Every pool at its autoscaler maximum (no maximum: the nodes present). */
  atMax: number;
  /** The pools holding it, by name, with their node counts: the arithmetic behind the sums. */
  pools: PoolSizeRange[];
}

/**
 * Capacity per flavour at the pools' autoscaler minimum, now and at their
 * maximum, after the configured overcommit (QuotaPolicy.overcommit): per GPU
 * model the schedulable units (time-sliced slices, MIG instances; GPUs
 * rounded down per pool), CPU in cores and memory in bytes. `atMin` is what
 * stays however far the autoscaler shrinks the pools: guarantees across all
 * tenants should fit in it. Resources in CapacityKey order (CPU, memory, then
 * GPU models by name); pools by name.
 */
export function capacityAtMinNowMax(pools: readonly PoolCapacityInput[], overcommit: Overcommit): CapacityRange[] {
  const byKey = new Map<CapacityKey, PoolSizeRange[]>();
  for (const p of [...pools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const nodes = { atMin: minNodesOf(p), now: p.nodeCount, atMax: maxNodesOf(p) };
    for (const key of keysOf(p)) {
      const part: PoolSizeRange = {
        pool: p.name,
        nodes,
        atMin: poolAmount(p, key, nodes.atMin, overcommit),
        now: poolAmount(p, key, nodes.now, overcommit),
        atMax: poolAmount(p, key, nodes.atMax, overcommit),
      };
      byKey.set(key, [...(byKey.get(key) ?? []), part]);
    }
  }
  const sum = (parts: PoolSizeRange[], at: "atMin" | "now" | "atMax") => parts.reduce((s, x) => s + x[at], 0);
  return [...byKey.keys()].sort(byCapacityOrder).map((resource) => {
    const parts = byKey.get(resource)!;
    return { resource, label: capacityLabel(resource), atMin: sum(parts, "atMin"), now: sum(parts, "now"), atMax: sum(parts, "atMax"), pools: parts };
  });
}

/** One pool the autoscaler would have to grow for a request to fit. */
export interface PoolGrowth {
  pool: string;
  /** Nodes present now. */
  nodes: number;
  /** Nodes it must grow to. */
  to: number;
  /** The autoscaler's maximum. */
  max: number;
}

/**
 * Whether `needed` (of one resource, overcommit included) fits: on the nodes
 * present; only when the autoscaler adds nodes (which pools, to how many, within
 * their maximum); or not at all, even with every pool at its maximum.
 */
export type Fit = { kind: "fits" } | { kind: "grows"; pools: PoolGrowth[] } | { kind: "does_not_fit"; autoscales: boolean };

const EPSILON = 1e-9;

export function fitOf(pools: readonly PoolCapacityInput[], overcommit: Overcommit, key: CapacityKey, needed: number): Fit {
  const serving = pools.filter((p) => keysOf(p).includes(key));
  let total = serving.reduce((s, p) => s + poolAmount(p, key, p.nodeCount, overcommit), 0);
  if (needed <= total + EPSILON) return { kind: "fits" };
  // Pools that can grow, CPU-only pools first for CPU and memory (GPU nodes are not bought for cores), then by name.
  const growable = serving
    .filter((p) => maxNodesOf(p) > p.nodeCount && poolAmount(p, key, maxNodesOf(p), overcommit) > poolAmount(p, key, p.nodeCount, overcommit))
    .sort((a, b) => Number(a.gpusPerNode > 0) - Number(b.gpusPerNode > 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const growth: PoolGrowth[] = [];
  for (const p of growable) {
    const others = total - poolAmount(p, key, p.nodeCount, overcommit);
    const max = maxNodesOf(p);
    // The fewest nodes that make it fit (the amount grows with the nodes), or the maximum when even that is short.
    let lo = p.nodeCount + 1;
    let hi = max;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (others + poolAmount(p, key, mid, overcommit) + EPSILON >= needed) hi = mid;
      else lo = mid + 1;
    }
    growth.push({ pool: p.name, nodes: p.nodeCount, to: lo, max });
    total = others + poolAmount(p, key, lo, overcommit);
    if (needed <= total + EPSILON) return { kind: "grows", pools: growth };
  }
  return { kind: "does_not_fit", autoscales: growable.length > 0 };
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
  /** What the nodes present hold (overcommit included): what approvals are checked against. */
  capacity: number;
  /** What the pools would hold at their autoscaler maximum (equal to capacity when none autoscales). */
  capacityAtMax: number;
  before: number;
  after: number;
  /** after > capacity: the request does not fit on the nodes present. */
  exceeds: boolean;
  /** Whether `after` fits now, only once the autoscaler grows pools (and which), or not even at the maximum. */
  fit: Fit;
}

export const capacityLabel = (k: CapacityKey) => (k === "cpu" ? "CPU cores" : k === "memory" ? "Memory (GiB)" : `${k.slice(4)} GPUs`);
const display = (k: CapacityKey, v: number) => (k === "memory" ? Math.round((v / GiB) * 10) / 10 : Math.round(v * 1000) / 1000);

const byCapacityOrder = (a: CapacityKey, b: CapacityKey) => (a === b ? 0 : a === "cpu" ? -1 : b === "cpu" ? 1 : a === "memory" ? -1 : b === "memory" ? 1 : a < b ? -1 : 1);

/**
 * Allocated / capacity per resource, before and after adding `extra`: the
 * capacity impact of a request, against the nodes present, with what the
 * autoscaler would have to add when it does not fit on them.
 */
export function capacityImpact(pools: readonly PoolCapacityInput[], overcommit: Overcommit, allocated: Allocation, extra: Allocation): CapacityLine[] {
  const capacity = clusterCapacity(pools, overcommit);
  const atMax = clusterCapacity(pools, overcommit, true);
  const before = allocationMap(allocated);
  const after = allocationMap(addAllocations(allocated, extra));
  const keys = new Set([...capacity.keys(), ...after.keys()]);
  return [...keys].sort(byCapacityOrder).map((k) => {
    const cap = capacity.get(k) ?? 0;
    const a = after.get(k) ?? 0;
    return {
      resource: k,
      label: capacityLabel(k),
      capacity: display(k, cap),
      capacityAtMax: display(k, atMax.get(k) ?? 0),
      before: display(k, before.get(k) ?? 0),
      after: display(k, a),
      exceeds: a > cap + EPSILON,
      fit: fitOf(pools, overcommit, k, a),
    };
  });
}

/**
 * The queue's note on a line that does not fit on the nodes present: "fits
 * when the pool h100-pool grows to 5 nodes (max 6)", or that it does not fit
 * even at the autoscaler maximum. Null when it fits now.
 */
export function fitNote(line: Pick<CapacityLine, "fit" | "capacityAtMax" | "resource">): string | null {
  const { fit } = line;
  if (fit.kind === "fits") return null;
  if (fit.kind === "grows") {
    const [only, ...more] = fit.pools;
    if (only && more.length === 0) return `fits when the pool ${only.pool} grows to ${only.to} nodes (max ${only.max})`;
    return `fits when the pools grow: ${fit.pools.map((g) => `${g.pool} to ${g.to} nodes (max ${g.max})`).join(", ")}`;
  }
  return fit.autoscales ? `does not fit: even at their autoscaler maximum the pools hold ${displayAmount(line.resource, line.capacityAtMax)}` : "does not fit: no pool holding it can add nodes (none autoscales above its nodes now)";
}

const displayAmount = (k: CapacityKey, v: number) => (k === "cpu" ? `${v} cores` : k === "memory" ? `${v} GiB` : `${v} ${k.slice(4)} GPUs`);

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
