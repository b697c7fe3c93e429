import { schedulableGpusPerNode, type GpuSharing } from "./pool-hardware";

/**
 * A pool's requestable GPU profiles (pure). A pool's first profile is its
 * gpuModel / gpuResource / gpusPerNode (every pool of one profile is only
 * that); a MIG mixed-strategy pool may make more of the resources its nodes
 * offer requestable (gpuProfiles), each under its own model name, which is
 * its flavour, its capacity key ("gpu:<model>") and its rate card key, with
 * its MIG instances per node. Capacity, flavours, quota, pricing and idle
 * cost read a pool's profiles through here, so each profile counts
 * everywhere the single model did.
 */

/** A further requestable profile as stored (node_pools.gpu_profiles). */
export interface GpuProfile {
  model: string;
  resource: string;
  /** Instances a node offers. */
  perNode: number;
}

/** What a pool says of its GPUs. */
export interface ProfileFacts {
  gpuModel: string | null;
  gpuResource: string | null;
  gpusPerNode: number;
  gpuSharing?: GpuSharing;
  gpuSlices?: number;
  /** Absent: none (pool facts from before pools had profiles). */
  gpuProfiles?: readonly GpuProfile[];
}

/** One requestable profile of a pool, with the units a node offers of it (schedulable: a time-sliced pool's slices). */
export interface RequestableProfile {
  model: string;
  resource: string;
  perNode: number;
  sharing: GpuSharing;
  /** The pool's first profile (its gpuModel). */
  first: boolean;
}

/** Every requestable profile of a pool, its first one first; none for a pool without a GPU model. */
export function requestableProfilesOf(p: ProfileFacts): RequestableProfile[] {
  if (!p.gpuModel || !p.gpuResource) return [];
  const sharing = p.gpuSharing ?? "exclusive";
  const first: RequestableProfile = { model: p.gpuModel, resource: p.gpuResource, perNode: schedulableGpusPerNode(p), sharing, first: true };
  // Further profiles are MIG instances (the schema allows them on MIG pools only): counted as they are.
  return [first, ...(p.gpuProfiles ?? []).map((x) => ({ model: x.model, resource: x.resource, perNode: x.perNode, sharing: "mig" as const, first: false }))];
}

/** The units of `model` a node of the pool offers: 0 when the pool does not offer it. */
export function perNodeOfModel(p: ProfileFacts, model: string): number {
  return requestableProfilesOf(p).find((x) => x.model === model)?.perNode ?? 0;
}

/** Each GPU model the pools offer and its extended resource (pools in the order given; a model is one resource everywhere). */
export function gpuResourcesByModel(pools: readonly ProfileFacts[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of pools) for (const x of requestableProfilesOf(p)) if (!out.has(x.model)) out.set(x.model, x.resource);
  return out;
}

/** A pool's further profiles as the edit form shows them: one "model = resource x perNode" a line. */
export const formatGpuProfiles = (profiles: readonly GpuProfile[]) => profiles.map((x) => `${x.model} = ${x.resource} x ${x.perNode}`).join("\n");

/** How a profile reads on the pages: "A100 3g.40gb (nvidia.com/mig-3g.40gb ×2 per node)". */
export const profileLabel = (x: Pick<GpuProfile, "model" | "resource" | "perNode">) => `${x.model} (${x.resource} ×${x.perNode} per node)`;

/** A pool as the consistency check reads it. */
interface PoolOffers {
  name: string;
  profiles: readonly RequestableProfile[];
}

/**
 * One GPU model is one extended resource, shared one way, everywhere: a
 * request for "A100 3g.40gb" must turn into the same ResourceQuota key and
 * the same rate whichever pool serves it. The first clash of `pool`'s
 * profiles with another pool's, on the field to fix (its first profile's
 * gpuResource, else gpuProfiles); null when none.
 */
export function profileClash(pool: PoolOffers, others: readonly PoolOffers[]): { field: "gpuResource" | "gpuSharing" | "gpuProfiles"; message: string } | null {
  for (const x of pool.profiles) {
    for (const o of others) {
      if (o.name === pool.name) continue;
      const y = o.profiles.find((p) => p.model === x.model);
      if (!y) continue;
      if (y.resource !== x.resource) return { field: x.first ? "gpuResource" : "gpuProfiles", message: `Give ${x.model} the resource ${y.resource}: pool ${o.name} already serves ${x.model} as ${y.resource} (use another model name for a different resource).` };
      if (y.sharing !== x.sharing) return { field: x.first ? "gpuSharing" : "gpuProfiles", message: `Use another model name than ${x.model}: pool ${o.name} serves it as ${y.sharing}, this pool as ${x.sharing}.` };
    }
  }
  return null;
}
