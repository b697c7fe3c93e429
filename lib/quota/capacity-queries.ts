import { AUTOSCALER_STATUS, boundsForPool, nodeGroupBounds, type PoolBounds } from "./autoscaler-status";
import "server-only";
import { asc, desc, eq, inArray, sql } from "drizzle-orm";
import { nodePools, principals, rates, tenants, usageDaily } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import type { ClusterClient } from "@/lib/cluster/kube-client";
import type { ClusterSettings } from "@/lib/config";
import { fieldErrorsOf } from "@/lib/auth/command";
import { allocationMap, capacityLabel, clusterCapacity, maxNodesOf, type CapacityKey } from "./capacity";
import { RATE_UNITS } from "./cost";
import { importPoolInput } from "./commands/capacity";
import { compareWithExisting, nodeFactsOf, proposePools, type ImportItem, type NodeFacts } from "./import-pools";
import type { QuotaPolicy } from "./policy";
import { physicalGpusPerNode, schedulableGpusPerNode } from "./pool-hardware";
import { gpuResourcesByModel } from "./pool-profiles";
import { recentPoolSizes, type PoolSizeSpan } from "./pool-sizes";
import { tenantLineHoldings } from "./envelope-store";
import { sharingArithmetic, type LineArithmetic } from "./sharing-arithmetic";
import { clusterAllocation, loadQuotaPolicy } from "./store";
import { parseInput } from "@/lib/input/messages";

/**
 * What the capacity page shows: the node pools, what the cluster can hold per
 * resource against what is allocated, each tenant's share, the rate card
 * with its history, and the rules for quota requests.
 */

type PoolRow = typeof nodePools.$inferSelect;

/** How many spans of the pool size history the capacity page lists (newest first). */
export const SIZE_HISTORY_ROWS = 50;

export interface PoolView extends PoolRow {
  dedicatedTenant: { slug: string; name: string } | null;
  /** Nodes counted for capacity, approvals, overcommit and idle cost: the nodes present (nodeCount). */
  capacityNodes: number;
  /** What the pool holds at capacityNodes, before overcommit. */
  totals: PoolTotals;
  /** The most nodes the autoscaler may run (maxNodes, never below nodeCount), and what the pool would hold then. */
  atMax: { nodes: number; totals: PoolTotals };
}

export interface PoolTotals {
  /** Schedulable units of the GPU model (slices of a time-sliced pool, MIG instances): what capacity counts. */
  gpus: number;
  /** Physical GPUs; null for a MIG pool without a GPU count label. */
  physicalGpus: number | null;
  cpuCores: number;
  memoryBytes: number;
  /** A mixed MIG pool's further requestable profiles: the instances of each model the pool holds. */
  profiles: { model: string; gpus: number }[];
}

type TotalsFacts = Pick<PoolRow, "gpuModel" | "gpusPerNode" | "cpuPerNode" | "memoryBytesPerNode"> &
  Partial<Pick<PoolRow, "gpuSharing" | "gpuSlices" | "nodeLabels">> & { gpuProfiles?: readonly { model: string; perNode: number }[] };

/**
 * What a pool holds at `nodes` nodes, before overcommit. A span of the size
 * history has no sharing facts: its gpusPerNode already counts schedulable
 * units (recordPoolSize), so its physical GPUs read as those units.
 */
export const poolTotalsAt = (p: TotalsFacts, nodes: number): PoolTotals => {
  const physical = physicalGpusPerNode(p);
  return {
    gpus: p.gpuModel ? nodes * schedulableGpusPerNode(p) : 0,
    physicalGpus: !p.gpuModel ? 0 : physical === null ? null : nodes * physical,
    cpuCores: Math.round(nodes * p.cpuPerNode * 1000) / 1000,
    memoryBytes: nodes * p.memoryBytesPerNode,
    profiles: p.gpuModel ? (p.gpuProfiles ?? []).map((x) => ({ model: x.model, gpus: nodes * x.perNode })) : [],
  };
};

export interface ResourceCapacity {
  key: CapacityKey;
  label: string;
  /** "cores", "GiB" or "GPUs". */
  unit: string;
  /** Capacity before overcommit (cores, bytes, GPUs). */
  physical: number;
  overcommit: number;
  /** physical × overcommit (GPUs rounded down): what quota may add up to on the nodes present. */
  capacity: number;
  /** The same with every pool at its autoscaler maximum: what quota could add up to once the autoscaler has grown the pools. */
  capacityAtMax: number;
  allocated: number;
  /** allocated / capacity; null when there is no capacity at all. */
  utilisation: number | null;
  /** Allocated beyond capacity. */
  over: boolean;
}

export interface TenantShare {
  slug: string;
  name: string;
  /** Per resource key: what the tenant's open projects hold, and its share of capacity (null without capacity). */
  resources: Record<CapacityKey, { allocated: number; share: number | null }>;
}

export interface RateRowView {
  id: string;
  resource: string;
  /** Exact decimal text as stored ("4.100000"). */
  unitPrice: string;
  /** A custom meter's unit; null for built-in resources (their unit is rateUnit's). */
  unit: string | null;
  effectiveFrom: Date;
  createdAt: Date;
  createdBy: string | null;
  /** "current": the price in force now; "scheduled": starts later; "past": replaced. */
  state: "current" | "scheduled" | "past";
}

export interface RateCardLine {
  resource: string;
  label: string;
  /** "GPU-hour", "core-hour", ... */
  unit: string;
  current: RateRowView | null;
  /** The next price already set to start later, if any. */
  next: RateRowView | null;
  /** A GPU model offered by a pool (or a standard resource) with no price in force: estimates leave it out. */
  missing: boolean;
}

export interface CapacityOverview {
  pools: PoolView[];
  resources: ResourceCapacity[];
  /** Empty unless the reader may manage capacity (platform admins). */
  tenantShares: TenantShare[];
  rateCard: RateCardLine[];
  /** Every price ever set, newest effective-from first. */
  rateHistory: RateRowView[];
  /** The pools' size history (what idle cost is priced on), newest span first, at most SIZE_HISTORY_ROWS. */
  sizeHistory: PoolSizeSpan[];
  policy: QuotaPolicy;
  /** Per GPU line: guarantees against the pools at minimum / now / maximum, bursts, and each tenant's part. Empty unless the reader may manage capacity. */
  sharing: LineArithmetic[];
  /** Tenants a pool can be dedicated to. */
  tenants: { slug: string; name: string; isolationTier: string }[];
}

const STANDARD_RATES = ["cpu", "memory", "storage", "inference"] as const;
const RATE_LABELS: Record<string, string> = { cpu: "CPU", memory: "Memory", storage: "Storage", inference: "Inference requests" };

export const rateLabel = (resource: string) => (resource.startsWith("gpu:") ? `${resource.slice(4)} GPU` : (RATE_LABELS[resource] ?? resource));
export const rateUnit = (resource: string) => (resource.startsWith("gpu:") ? RATE_UNITS.gpu : (RATE_UNITS[resource as keyof typeof RATE_UNITS] ?? "unit"));
const unitOf = (key: CapacityKey) => (key === "cpu" ? "cores" : key === "memory" ? "GiB" : "GPUs");

/** Resource keys in the order people read them: CPU, memory, then GPUs by model. */
const byResourceOrder = (a: string, b: string) => {
  const rank = (k: string) => (k === "cpu" ? 0 : k === "memory" ? 1 : 2);
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
};
const byRateOrder = (a: string, b: string) => {
  const rank = (k: string) => (k.startsWith("gpu:") ? 0 : 1 + STANDARD_RATES.indexOf(k as (typeof STANDARD_RATES)[number]));
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
};

/** The capacity page's data, or null when the reader may not see capacity. */
export async function capacityOverview(ctx: CommandContext, settings: ClusterSettings): Promise<CapacityOverview | null> {
  if (!can(ctx.actor, "capacity.view", { kind: "platform" }, ctx.now)) return null;
  const manager = can(ctx.actor, "capacity.manage", { kind: "platform" }, ctx.now);
  const [poolRows, tenantRows, rateRows, policy, allocation, meteredCustom, sizeHistory, holdings] = await Promise.all([
    ctx.db.select().from(nodePools).orderBy(asc(nodePools.name)),
    ctx.db.select({ id: tenants.id, slug: tenants.slug, name: tenants.name, isolationTier: tenants.isolationTier }).from(tenants).orderBy(asc(tenants.name)),
    ctx.db
      .select({ rate: rates, createdBy: principals.displayName })
      .from(rates)
      .leftJoin(principals, eq(principals.id, rates.createdBy))
      .orderBy(desc(rates.effectiveFrom), asc(rates.resource)),
    loadQuotaPolicy(ctx.db),
    clusterAllocation(ctx.db, settings, ctx.now),
    // Custom meters with pushed usage: each is a rate card line, priced or shown as missing.
    ctx.db.selectDistinct({ resource: usageDaily.resource }).from(usageDaily).where(sql`${usageDaily.resource} not like 'gpu:%' and ${usageDaily.resource} not in ('cpu', 'memory', 'storage', 'inference')`),
    recentPoolSizes(ctx.db, SIZE_HISTORY_ROWS),
    manager ? tenantLineHoldings(ctx.db, ctx.now) : [],
  ]);

  const tenantById = new Map(tenantRows.map((t) => [t.id, t]));
  const pools: PoolView[] = poolRows.map((p) => {
    const t = p.dedicatedTenantId ? tenantById.get(p.dedicatedTenantId) : undefined;
    return {
      ...p,
      dedicatedTenant: t ? { slug: t.slug, name: t.name } : null,
      capacityNodes: p.nodeCount,
      totals: poolTotalsAt(p, p.nodeCount),
      atMax: { nodes: maxNodesOf(p), totals: poolTotalsAt(p, maxNodesOf(p)) },
    };
  });

  const physical = clusterCapacity(poolRows, { cpu: 1, memory: 1, gpu: 1 });
  const capacity = clusterCapacity(poolRows, policy.overcommit);
  const capacityAtMax = clusterCapacity(poolRows, policy.overcommit, true);
  const allocated = allocationMap(allocation.total);
  const keys = [...new Set([...capacity.keys(), ...[...allocated].filter(([, v]) => v > 0).map(([k]) => k)])].sort(byResourceOrder);
  const ratioOf = (k: CapacityKey) => (k === "cpu" ? policy.overcommit.cpu : k === "memory" ? policy.overcommit.memory : policy.overcommit.gpu);
  const resources: ResourceCapacity[] = keys.map((key) => {
    const cap = capacity.get(key) ?? 0;
    const used = allocated.get(key) ?? 0;
    return {
      key,
      label: capacityLabel(key),
      unit: unitOf(key),
      physical: physical.get(key) ?? 0,
      overcommit: ratioOf(key),
      capacity: cap,
      capacityAtMax: capacityAtMax.get(key) ?? 0,
      allocated: used,
      utilisation: cap > 0 ? used / cap : null,
      over: used > cap + 1e-9,
    };
  });

  const tenantShares: TenantShare[] = manager
    ? tenantRows
        .filter((t) => allocation.byTenant.has(t.slug))
        .map((t) => {
          const held = allocationMap(allocation.byTenant.get(t.slug)!);
          const shares: TenantShare["resources"] = {};
          for (const key of keys) {
            const a = held.get(key) ?? 0;
            const cap = capacity.get(key) ?? 0;
            shares[key] = { allocated: a, share: cap > 0 ? a / cap : null };
          }
          return { slug: t.slug, name: t.name, resources: shares };
        })
    : [];

  const now = ctx.now.getTime();
  const rowsByResource = new Map<string, (typeof rateRows)[number]["rate"][]>();
  for (const { rate } of rateRows) rowsByResource.set(rate.resource, [...(rowsByResource.get(rate.resource) ?? []), rate]);
  // rateRows come newest first: the first row at or before now is in force; the last one after now is the next to start.
  const currentIds = new Set<string>();
  const nextByResource = new Map<string, string>();
  for (const [resource, list] of rowsByResource) {
    const current = list.find((r) => r.effectiveFrom.getTime() <= now);
    if (current) currentIds.add(current.id);
    const upcoming = list.filter((r) => r.effectiveFrom.getTime() > now);
    if (upcoming.length > 0) nextByResource.set(resource, upcoming[upcoming.length - 1]!.id);
  }
  const rateHistory: RateRowView[] = rateRows.map(({ rate, createdBy }) => ({
    id: rate.id,
    resource: rate.resource,
    unitPrice: rate.unitPrice,
    unit: rate.unit,
    effectiveFrom: rate.effectiveFrom,
    createdAt: rate.createdAt,
    createdBy,
    state: currentIds.has(rate.id) ? "current" : rate.effectiveFrom.getTime() > now ? "scheduled" : "past",
  }));
  const viewById = new Map(rateHistory.map((r) => [r.id, r]));
  // Each requestable profile is priced on its own (a mixed MIG pool's further profiles too).
  const offeredModels = [...gpuResourcesByModel(poolRows).keys()].map((m) => `gpu:${m}`);
  const rateKeys = [...new Set([...offeredModels, ...STANDARD_RATES, ...rowsByResource.keys(), ...meteredCustom.map((m) => m.resource)])].sort(byRateOrder);
  const rateCard: RateCardLine[] = rateKeys.map((resource) => {
    const current = rateHistory.find((r) => r.resource === resource && r.state === "current") ?? null;
    const nextId = nextByResource.get(resource);
    const unit = rowsByResource.get(resource)?.find((r) => r.unit)?.unit ?? rateUnit(resource);
    return { resource, label: rateLabel(resource), unit, current, next: nextId ? viewById.get(nextId)! : null, missing: current === null };
  });

  const sharing = manager ? sharingArithmetic(poolRows, policy.overcommit, holdings) : [];
  return { pools, resources, tenantShares, rateCard, rateHistory, sizeHistory, policy, sharing, tenants: tenantRows.map(({ slug, name, isolationTier }) => ({ slug, name, isolationTier })) };
}

export interface ImportProposal {
  /** Nodes read from the cluster (control-plane nodes included). */
  nodesRead: number;
  items: (ImportItem & { dedicatedTenant: string | null; problem: string | null })[];
  skipped: { name: string; reason: string }[];
  /** Stored pools no node belongs to: importing leaves them as they are. */
  notOnCluster: string[];
  /** What the Cluster Autoscaler's status said of the pools' bounds, in a sentence. */
  autoscaler: string;
}

/** Each proposed pool's bounds from the Cluster Autoscaler's status ConfigMap, and a sentence saying what was found. */
async function autoscalerBounds(client: ClusterClient, pools: readonly string[]): Promise<{ bounds: Map<string, PoolBounds>; note: string }> {
  let configMap;
  try {
    configMap = await client.read({ apiVersion: "v1", kind: "ConfigMap", ...AUTOSCALER_STATUS });
  } catch (err) {
    return { bounds: new Map(), note: `The Cluster Autoscaler's status could not be read (${err instanceof Error ? err.message : String(err)}): autoscaling bounds are kept as set.` };
  }
  const status = (configMap?.data as Record<string, unknown> | undefined)?.status;
  if (typeof status !== "string") return { bounds: new Map(), note: "No Cluster Autoscaler status on the cluster (kube-system/cluster-autoscaler-status): autoscaling bounds are kept as set." };
  const groups = nodeGroupBounds(status);
  const bounds = new Map(pools.map((pool) => [pool, boundsForPool(pool, groups)]));
  const found = [...bounds].filter(([, b]) => b.kind === "found").map(([pool]) => pool);
  const ambiguous = [...bounds].filter(([, b]) => b.kind === "ambiguous").map(([pool, b]) => `${pool} (${b.kind === "ambiguous" ? b.groups.join(", ") : ""})`);
  const parts = [`The Cluster Autoscaler manages ${groups.length} node group${groups.length === 1 ? "" : "s"}`];
  parts.push(found.length > 0 ? `its minimum and maximum size are used for ${found.join(", ")}` : "none of them names a pool found here");
  if (ambiguous.length > 0) parts.push(`more than one group could be ${ambiguous.join("; ")}, so those bounds are kept as set`);
  return { bounds, note: `${parts.join("; ")}.` };
}

/**
 * Read the cluster's nodes and propose pools from them, compared with the
 * stored pools; nothing is written. A proposal the import command would
 * refuse carries the reason in `problem`. Null when the reader may not manage capacity.
 */
export async function nodePoolImportProposal(ctx: CommandContext, client: ClusterClient): Promise<ImportProposal | null> {
  if (!can(ctx.actor, "capacity.manage", { kind: "platform" }, ctx.now)) return null;
  const nodes = await client.list("v1", "Node", { labelSelector: "" });
  const facts = nodes.map(nodeFactsOf).filter((n): n is NodeFacts => n !== null);
  const { pools, skipped } = proposePools(facts);
  const autoscaler = await autoscalerBounds(client, pools.map((p) => p.name));
  const stored = await ctx.db.select().from(nodePools).orderBy(asc(nodePools.name));
  const dedicatedIds = stored.flatMap((p) => (p.dedicatedTenantId ? [p.dedicatedTenantId] : []));
  const dedicated = dedicatedIds.length > 0 ? await ctx.db.select({ id: tenants.id, slug: tenants.slug }).from(tenants).where(inArray(tenants.id, dedicatedIds)) : [];
  const items = compareWithExisting(pools, stored, autoscaler.bounds).map((item) => {
    const row = stored.find((p) => p.name === item.pool.name);
    const parsed = parseInput(importPoolInput, item.pool);
    const problem = parsed.success
      ? null
      : Object.entries(fieldErrorsOf(parsed.error))
          .map(([field, messages]) => `${field}: ${messages.join(" ")}`)
          .join(" ");
    return { ...item, dedicatedTenant: dedicated.find((t) => t.id === row?.dedicatedTenantId)?.slug ?? null, problem };
  });
  const proposed = new Set(pools.map((p) => p.name));
  return { nodesRead: nodes.length, items, skipped, notOnCluster: stored.filter((p) => !proposed.has(p.name)).map((p) => p.name), autoscaler: autoscaler.note };
}
