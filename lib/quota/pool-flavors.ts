import { asc } from "drizzle-orm";
import type { Database } from "@/db/client";
import { nodePools } from "@/db/schema";
import type { PoolFlavor, Taint } from "@/lib/cluster/desired-state";
import { DEFAULT_FLAVOR } from "./lines";
import { requestableProfilesOf } from "./pool-profiles";

type PoolRow = Pick<typeof nodePools.$inferSelect, "gpuModel" | "gpuResource" | "gpuSharing" | "nodeLabels" | "nodeTaints" | "tiers"> & Partial<Pick<typeof nodePools.$inferSelect, "gpusPerNode" | "gpuProfiles">>;
type Offer = { pool: PoolRow; resource: string; sharing: PoolRow["gpuSharing"] };

const taintKey = (t: Taint) => `${t.key}=${t.value ?? ""}:${t.effect}`;

/**
 * The flavours the node pools offer, as Kueue should know them (pure): the
 * "default" flavour of CPU and memory, and one per GPU model, which is the
 * key quota lines use; a mixed MIG pool's further requestable profiles are
 * models of their own, each a flavour on the same nodes (its own resource, so
 * its own resource group in a ClusterQueue). Pools of one model (two zones,
 * say) make one flavour: its node labels are those every such pool carries,
 * so the flavour selects all of their nodes; its taints are those on every
 * such pool (Kueue asks workloads to tolerate them) and its tiers those any
 * of them admits.
 */
export function poolFlavorsOf(pools: readonly PoolRow[]): PoolFlavor[] {
  const byModel = new Map<string, Offer[]>();
  for (const p of pools) {
    // Only the profiles, not their counts: a pool's flavour is there whatever it holds (gpusPerNode absent: the first profile only).
    for (const x of requestableProfilesOf({ ...p, gpusPerNode: p.gpusPerNode ?? 0 })) byModel.set(x.model, [...(byModel.get(x.model) ?? []), { pool: p, resource: x.resource, sharing: x.sharing }]);
  }
  const flavors: PoolFlavor[] = [{ key: DEFAULT_FLAVOR, resource: null, sharing: "exclusive", nodeLabels: {}, nodeTaints: [] }];
  for (const [model, offers] of [...byModel].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const [first, ...rest] = offers.map((o) => o.pool) as [PoolRow, ...PoolRow[]];
    const nodeLabels = Object.fromEntries(Object.entries(first.nodeLabels).filter(([k, v]) => rest.every((r) => r.nodeLabels[k] === v)));
    const nodeTaints = first.nodeTaints.filter((t) => rest.every((r) => r.nodeTaints.some((u) => taintKey(u) === taintKey(t))));
    const rows = [first, ...rest];
    const anyTiers = rows.some((r) => r.tiers === null);
    const tiers = anyTiers ? undefined : [...new Set(rows.flatMap((r) => r.tiers ?? []))].sort();
    flavors.push({ key: model, resource: offers[0]!.resource, sharing: offers[0]!.sharing, nodeLabels, nodeTaints: nodeTaints.map((t) => ({ ...t })), ...(tiers ? { tiers } : {}) });
  }
  return flavors;
}

/** The pools' Kueue flavours alone (one read of node_pools, as loadPoolFacts). */
export async function loadPoolFlavors(db: Database): Promise<PoolFlavor[]> {
  return (await loadPoolFacts(db)).flavors;
}

/** Every GPU resource the pools' nodes advertise (pure), what each project's quota caps: knownGpuResources' rule. */
export function gpuResourcesOf(pools: readonly Pick<typeof nodePools.$inferSelect, "gpuResource" | "gpuProfiles" | "offeredGpuResources">[]): string[] {
  // Every resource the nodes advertise, not only the requestable ones (a MIG mixed-strategy node offers several profiles), so each is capped.
  const named = pools.flatMap((x) => [x.gpuResource, ...x.gpuProfiles.map((g) => g.resource), ...x.offeredGpuResources.map((o) => o.resource)]).filter((r): r is string => Boolean(r));
  return [...new Set(["nvidia.com/gpu", ...named])].sort();
}

/** What rendering needs of the node pools: their Kueue flavours and the GPU resources quotas cap. */
export interface PoolFacts {
  flavors: PoolFlavor[];
  gpuResources: string[];
}

/** loadPoolFlavors and knownGpuResources from one read of node_pools. */
export async function loadPoolFacts(db: Database): Promise<PoolFacts> {
  const rows = await db
    .select({
      gpuModel: nodePools.gpuModel,
      gpuResource: nodePools.gpuResource,
      gpuSharing: nodePools.gpuSharing,
      gpuProfiles: nodePools.gpuProfiles,
      nodeLabels: nodePools.nodeLabels,
      nodeTaints: nodePools.nodeTaints,
      tiers: nodePools.tiers,
      offeredGpuResources: nodePools.offeredGpuResources,
    })
    .from(nodePools)
    .orderBy(asc(nodePools.name));
  return { flavors: poolFlavorsOf(rows), gpuResources: gpuResourcesOf(rows) };
}
