import type { EffectiveQuota, FlavorQuota } from "@/lib/cluster/desired-state";
import { gpuAmountsOf, type GpuAmount, type QuotaAmounts } from "./amounts";

/**
 * The quota model: a project's quota is a set of lines, one per (flavour,
 * resource), each with a guarantee (what it can always get), a burst (what it
 * may borrow beyond that, preemptible work only) and a lend limit (how much of
 * its guarantee others may borrow; null: all). Grants and requests are lines;
 * a project's quota at an instant is the sum of the lines of its grants in
 * force, on top of the platform's starting quota. Pure: no I/O.
 */

/** CPU, memory and storage are not tied to a pool's hardware: one flavour for them. */
export const DEFAULT_FLAVOR = "default";

/** Resources of the default flavour; every other resource of a line is a GPU extended resource (devices). */
export type BaseResource = "cpu" | "memory" | "storage";
export const BASE_RESOURCES: readonly BaseResource[] = ["cpu", "memory", "storage"];

export interface QuotaLine {
  /** "default", or the GPU model as the node pools name it ("H100", "A100 1g.10gb", "L4 shared x4"). */
  flavor: string;
  /** "cpu" (cores), "memory" / "storage" (bytes), or a GPU extended resource name (devices). */
  resource: string;
  guarantee: number;
  burst: number;
  /** null: all of the guarantee may be lent. */
  lendLimit: number | null;
}

export const isGpuLine = (l: { resource: string }) => !(BASE_RESOURCES as readonly string[]).includes(l.resource);

const lineKey = (l: { flavor: string; resource: string }) => `${l.flavor}\u0000${l.resource}`;

/** Cores are kept to millicores, as Kubernetes counts them; sums of fractions drift in binary floating point. */
const tidy = (resource: string, n: number) => (resource === "cpu" ? Math.round(n * 1000) / 1000 : n);

/**
 * Lines that add up: guarantees and bursts sum per (flavour, resource).
 * Ordered by flavour then resource, "default" first, so the same lines always
 * render the same objects. A sum lends all it holds (lendLimit null) until
 * the project's own lend limits are applied (withLendLimits).
 */
export function sumLines(lines: readonly QuotaLine[]): QuotaLine[] {
  const sums = new Map<string, QuotaLine>();
  for (const l of lines) {
    const key = lineKey(l);
    const s = sums.get(key) ?? { flavor: l.flavor, resource: l.resource, guarantee: 0, burst: 0, lendLimit: null };
    s.guarantee = tidy(l.resource, s.guarantee + l.guarantee);
    s.burst = tidy(l.resource, s.burst + l.burst);
    sums.set(key, s);
  }
  return [...sums.values()].sort(compareLines);
}

/** A project's lend limit of one line: how much of its guarantee others may borrow. */
export interface LendLimit {
  flavor: string;
  resource: string;
  lendLimit: number;
}

/** The project's lend limits on its summed lines: at most the guarantee; lines without a limit lend all they hold. */
export function withLendLimits(summed: readonly QuotaLine[], limits: readonly LendLimit[]): QuotaLine[] {
  return summed.map((l) => {
    const limit = limits.find((x) => x.flavor === l.flavor && x.resource === l.resource);
    return limit ? { ...l, lendLimit: Math.max(0, Math.min(limit.lendLimit, l.guarantee)) } : l;
  });
}

export function compareLines(a: { flavor: string; resource: string }, b: { flavor: string; resource: string }): number {
  if (a.flavor !== b.flavor) {
    if (a.flavor === DEFAULT_FLAVOR) return -1;
    if (b.flavor === DEFAULT_FLAVOR) return 1;
    return a.flavor < b.flavor ? -1 : 1;
  }
  const order = (r: string) => {
    const i = (BASE_RESOURCES as readonly string[]).indexOf(r);
    return i === -1 ? BASE_RESOURCES.length : i;
  };
  return order(a.resource) - order(b.resource) || (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0);
}

/**
 * The lines of a request or grant as the form asks: a line per GPU model with
 * its guarantee and burst (on the extended resource the pools serve that
 * model as, `gpuResources`), CPU and memory with a guarantee and a burst
 * each, and a storage guarantee (Kueue does not hold storage, so it has no
 * burst). Lines whose guarantee and burst are both 0 are left out, and so is
 * a GPU model no pool serves (the commands refuse it first: assessRequest).
 */
export function linesOfAmounts(amounts: QuotaAmounts, gpuResources: Readonly<Record<string, string>>): QuotaLine[] {
  const lines: QuotaLine[] = [];
  const base = (resource: BaseResource, guarantee: number, burst = 0) => {
    if (guarantee !== 0 || burst !== 0) lines.push({ flavor: DEFAULT_FLAVOR, resource, guarantee, burst, lendLimit: null });
  };
  base("cpu", amounts.cpuCores, amounts.cpuBurst ?? 0);
  base("memory", amounts.memoryBytes, amounts.memoryBurstBytes ?? 0);
  base("storage", amounts.storageBytes);
  for (const g of amounts.gpus) {
    const resource = gpuResources[g.model];
    if (resource && (g.count !== 0 || g.burst !== 0)) lines.push({ flavor: g.model, resource, guarantee: g.count, burst: g.burst, lendLimit: null });
  }
  return lines.sort(compareLines);
}

/** The GPU entries of lines: one per model (flavour), guarantees and bursts summed, sorted by model. */
export function gpuAmountsOfLines(lines: readonly QuotaLine[]): GpuAmount[] {
  return gpuAmountsOf(lines.filter(isGpuLine).map((l) => ({ model: l.flavor, count: l.guarantee, burst: l.burst })));
}

/**
 * The one GPU model the fixed columns of a grant or request row (gpu_model,
 * gpu_count, and a grant's gpu_resource) still hold for the previous release
 * during a rolling upgrade: the model with the largest guarantee (the first
 * by name on a tie), and its guarantee. Several models cannot fit one column;
 * the lines keep all of them and are the truth. Why the largest and not the
 * total with no model: the row stays what the previous release (and the
 * columns' check, a count needs a model) can read, its count is GPUs of one
 * model as the column always meant, and it is what a grant of several models
 * already kept there. None when no model has a guarantee.
 */
export function columnGpuOfLines(lines: readonly QuotaLine[]): { gpuModel: string | null; gpuResource: string | null; gpuCount: number } {
  const gpu = lines
    .filter((l) => isGpuLine(l) && l.guarantee !== 0)
    .sort((a, b) => b.guarantee - a.guarantee || (a.flavor < b.flavor ? -1 : a.flavor > b.flavor ? 1 : 0))[0];
  return { gpuModel: gpu?.flavor ?? null, gpuResource: gpu?.resource ?? null, gpuCount: gpu?.guarantee ?? 0 };
}

/**
 * The fixed columns a grant row still carries for the previous release
 * (expand, then contract): guarantees only, and the GPUs of one model
 * (columnGpuOfLines); `gpus` gives every model, as the lines hold them.
 */
export function amountsOfLines(lines: readonly QuotaLine[]): QuotaAmounts & { gpuModel: string | null; gpuResource: string | null; gpuCount: number } {
  const sum = (resource: BaseResource) => lines.filter((l) => l.flavor === DEFAULT_FLAVOR && l.resource === resource).reduce((s, l) => s + l.guarantee, 0);
  return {
    ...columnGpuOfLines(lines),
    gpus: gpuAmountsOfLines(lines),
    cpuCores: tidy("cpu", sum("cpu")),
    memoryBytes: sum("memory"),
    storageBytes: sum("storage"),
  };
}

export interface BaseQuota {
  cpuCores: number;
  memoryBytes: number;
  storageBytes: number;
  pvcCount: number;
}

/** The platform's starting quota as lines of the default flavour (guarantees, no burst). */
export function baseLines(base: BaseQuota): QuotaLine[] {
  return linesOfAmounts({ gpus: [], cpuCores: base.cpuCores, memoryBytes: base.memoryBytes, storageBytes: base.storageBytes }, {});
}

/**
 * The quota the cluster is told, from summed lines: guarantees and bursts per
 * resource (GPUs per extended resource, as the ResourceQuota counts them) and
 * the lines per flavour for Kueue (storage is not Kueue's). Every GPU
 * resource the cluster has is listed, at 0 when not held: a ResourceQuota
 * that does not name a resource does not limit it at all.
 */
export function quotaOfLines(summed: readonly QuotaLine[], pvcCount: number, knownGpuResources: readonly string[] = []): EffectiveQuota {
  const zeroGpus = () => Object.fromEntries(knownGpuResources.map((r) => [r, 0])) as Record<string, number>;
  const quota: EffectiveQuota = { cpuCores: 0, memoryBytes: 0, storageBytes: 0, pvcCount, gpus: zeroGpus(), burst: { cpuCores: 0, memoryBytes: 0, gpus: zeroGpus() }, flavors: [] };
  for (const l of summed) {
    // A negative sum can only come from moves larger than what a project held; the cluster cannot be told less than nothing.
    const guarantee = Math.max(0, l.guarantee);
    const burst = Math.max(0, l.burst);
    if (l.resource === "cpu") {
      quota.cpuCores = tidy("cpu", quota.cpuCores + guarantee);
      quota.burst!.cpuCores = tidy("cpu", quota.burst!.cpuCores + burst);
    } else if (l.resource === "memory") {
      quota.memoryBytes += guarantee;
      quota.burst!.memoryBytes += burst;
    } else if (l.resource === "storage") {
      quota.storageBytes += guarantee;
      continue;
    } else {
      quota.gpus[l.resource] = (quota.gpus[l.resource] ?? 0) + guarantee;
      quota.burst!.gpus[l.resource] = (quota.burst!.gpus[l.resource] ?? 0) + burst;
    }
    if (guarantee === 0 && burst === 0) continue;
    const flavor: FlavorQuota = { flavor: l.flavor, resource: l.resource, guarantee, burst, lendLimit: l.lendLimit === null ? null : Math.min(l.lendLimit, guarantee) };
    quota.flavors!.push(flavor);
  }
  return quota;
}

/** Guarantees per GPU model (what people ask in), for display, capacity and cost. */
export function gpusByModelOfLines(summed: readonly QuotaLine[], field: "guarantee" | "burst" = "guarantee"): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of summed) if (isGpuLine(l) && l[field] > 0) out[l.flavor] = (out[l.flavor] ?? 0) + l[field];
  return out;
}
