import type { PoolBounds } from "./autoscaler-status";
import { parseQuantity } from "@/lib/cluster/quantity";
import { formatNodeLabels, formatNodeTaints, TAINT_EFFECTS, type GpuSharing, type NodeTaint } from "./pool-hardware";
import { profileLabel, type GpuProfile } from "./pool-profiles";

/**
 * Proposing node pools from a cluster's Node objects (pure: the caller lists
 * the nodes). Nodes are grouped by the first pool label they carry, the GPU
 * model comes from the GPU feature discovery label, and per-node amounts from
 * `status.allocatable` (what pods can actually be given, not raw capacity).
 * How the GPUs are shared is read from what GPU feature discovery and the
 * NVIDIA device plugin publish: MIG mixed strategy advertises
 * nvidia.com/mig-<profile>; MIG single strategy advertises nvidia.com/gpu with
 * a product label ending in -MIG-<profile>; time-slicing advertises
 * nvidia.com/gpu (or nvidia.com/gpu.shared with renameByDefault) as GPUs ×
 * replicas, with nvidia.com/gpu.replicas, nvidia.com/gpu.count (physical
 * GPUs), nvidia.com/gpu.sharing-strategy=time-slicing and, unless renamed, a
 * product label ending in -SHARED. Autoscaler bounds are not on Nodes (no
 * documented label or annotation carries them): importing keeps the stored ones.
 */

/** Labels naming a node's pool, most specific first; the instance type is the last resort. */
export const POOL_LABELS = [
  "cloud.google.com/gke-nodepool",
  "eks.amazonaws.com/nodegroup",
  "kubernetes.azure.com/agentpool",
  "karpenter.sh/nodepool",
  "node.kubernetes.io/instance-type",
] as const;

export const GPU_PRODUCT_LABEL = "nvidia.com/gpu.product";
export const GPU_COUNT_LABEL = "nvidia.com/gpu.count";
export const GPU_REPLICAS_LABEL = "nvidia.com/gpu.replicas";
export const GPU_SHARING_STRATEGY_LABEL = "nvidia.com/gpu.sharing-strategy";
export const MIG_STRATEGY_LABEL = "nvidia.com/mig.strategy";

/**
 * Labels that identify a node's hardware, recorded on the pool when every node
 * carries the same value (with the pool label itself): what a Kueue
 * ResourceFlavor can select the pool's nodes by.
 */
export const HARDWARE_LABELS = [
  GPU_PRODUCT_LABEL,
  GPU_COUNT_LABEL,
  MIG_STRATEGY_LABEL,
  "nvidia.com/mig.config",
  GPU_REPLICAS_LABEL,
  GPU_SHARING_STRATEGY_LABEL,
  "node.kubernetes.io/instance-type",
] as const;

/** Taints the control plane and autoscalers put on and take off nodes: not facts of the pool. */
const TRANSIENT_TAINT = /^(node\.kubernetes\.io\/|node\.cloudprovider\.kubernetes\.io\/|ToBeDeletedByClusterAutoscaler$|DeletionCandidateOfClusterAutoscaler$)/;
const CONTROL_PLANE_LABELS = ["node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master"];
/** Name of the group of nodes that carry none of POOL_LABELS. */
export const UNGROUPED = "ungrouped";

/** What the mapping needs of a Node. */
export interface NodeFacts {
  name: string;
  labels: Record<string, string>;
  allocatable: Record<string, string>;
  /** spec.taints (absent in facts built by hand: none). */
  taints?: NodeTaint[];
}

/** The facts of a Node as the API server returns it (plain JSON); null when it is not a Node with a name. */
export function nodeFactsOf(object: unknown): NodeFacts | null {
  if (!isRecord(object) || !isRecord(object.metadata) || typeof object.metadata.name !== "string") return null;
  const status = isRecord(object.status) ? object.status : {};
  const spec = isRecord(object.spec) ? object.spec : {};
  return { name: object.metadata.name, labels: stringRecord(object.metadata.labels), allocatable: stringRecord(status.allocatable), taints: taintsOf(spec.taints) };
}

function taintsOf(v: unknown): NodeTaint[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((t): NodeTaint[] => {
    if (!isRecord(t) || typeof t.key !== "string" || !(TAINT_EFFECTS as readonly unknown[]).includes(t.effect)) return [];
    return [{ key: t.key, ...(typeof t.value === "string" && t.value !== "" ? { value: t.value } : {}), effect: t.effect as NodeTaint["effect"] }];
  });
}

export interface PoolProposal {
  name: string;
  /** The label the nodes were grouped by; null for nodes without any pool label. */
  groupedBy: string | null;
  nodeNames: string[];
  nodeCount: number;
  gpuModel: string | null;
  gpuResource: string | null;
  /** Physical GPUs for exclusive and time-sliced pools; MIG instances for MIG pools. */
  gpusPerNode: number;
  gpuSharing: GpuSharing;
  /** Time-slicing replicas per GPU (1 unless time-sliced). */
  gpuSlices: number;
  cpuPerNode: number;
  memoryBytesPerNode: number;
  /** The pool label and the hardware labels (HARDWARE_LABELS) every node carries alike. */
  nodeLabels: Record<string, string>;
  /** The taints every node carries alike (not the transient ones of the control plane and autoscalers). */
  nodeTaints: NodeTaint[];
  /**
   * Every GPU extended resource the nodes advertise (a MIG mixed-strategy node
   * offers several profiles), each with the fewest a node of the pool offers:
   * the pool's hardware. gpuResource is the first one quota is requested in.
   */
  offeredGpuResources: OfferedGpuResource[];
  /**
   * A MIG pool's further MIG profiles that every node offers, proposed as
   * requestable, each under a model name of its own with the fewest a node
   * offers. Resources only some nodes offer stay capped at 0.
   */
  gpuProfiles: GpuProfile[];
  /** What the admin should know before importing: nodes that differ, GPU resources not requestable, missing labels. */
  warnings: string[];
}

export interface PoolProposals {
  pools: PoolProposal[];
  /** Nodes not counted, with why (control-plane nodes). */
  skipped: { name: string; reason: string }[];
}

/** One GPU extended resource a pool's nodes advertise, and how many a node offers. */
export interface OfferedGpuResource {
  resource: string;
  perNode: number;
}

interface NodeShape {
  name: string;
  offered: OfferedGpuResource[];
  gpuModel: string | null;
  gpuResource: string | null;
  gpusPerNode: number;
  gpuSharing: GpuSharing;
  gpuSlices: number;
  cpuPerNode: number;
  memoryBytesPerNode: number;
  notes: string[];
}

const MIG_RESOURCE = /^nvidia\.com\/mig-(.+)$/;

const SHARED_RESOURCE = "nvidia.com/gpu.shared";
const rank = (resource: string) => (resource === "nvidia.com/gpu" ? 0 : resource === SHARED_RESOURCE ? 1 : 2);

/** Whether an extended resource is one the NVIDIA device plugin advertises for GPUs: whole, time-sliced (renamed) or a MIG profile. */
export const isGpuExtendedResource = (name: string) => name === "nvidia.com/gpu" || name === SHARED_RESOURCE || MIG_RESOURCE.test(name);

/** Every GPU resource a node advertises (more than 0), by name. */
function offeredOf(allocatable: Record<string, string>): OfferedGpuResource[] {
  return Object.entries(allocatable)
    .filter(([k]) => isGpuExtendedResource(k))
    .map(([k, v]) => ({ resource: k, perNode: Math.floor(parseQuantity(v) ?? 0) }))
    .filter((g) => g.perNode > 0)
    .sort((a, b) => (a.resource < b.resource ? -1 : 1));
}

/** The GPU resource quota is requested in: nvidia.com/gpu, else nvidia.com/gpu.shared (time-slicing renamed), else the most plentiful MIG profile. */
function gpuOf(offered: readonly OfferedGpuResource[]): { resource: string; count: number; others: string[] } | null {
  const ranked = [...offered].sort((a, b) => rank(a.resource) - rank(b.resource) || b.perNode - a.perNode || (a.resource < b.resource ? -1 : 1));
  const [first, ...rest] = ranked;
  return first ? { resource: first.resource, count: first.perNode, others: rest.map((g) => `${g.resource} ×${g.perNode}`) } : null;
}

/**
 * A model name people can ask for, from the product label: "NVIDIA-H100-80GB-HBM3"
 * -> "H100 80GB HBM3"; a MIG profile is appended ("A100 SXM4 40GB 1g.5gb"),
 * from the label (single strategy: "...-MIG-1g.5gb") or the resource name
 * (mixed strategy: nvidia.com/mig-1g.5gb). A time-sliced GPU is a model of
 * its own, "L4 shared x4" (the -SHARED suffix device plugin adds is dropped):
 * quota and the rate card count its slices, not whole L4s.
 */
export function gpuModelName(product: string, resource: string, slices = 1): string {
  let base = product
    .trim()
    .replace(/^NVIDIA[- ]/i, "")
    .replace(/-SHARED$/i, "");
  let profile: string | null = null;
  const single = /^(.*?)-MIG-(.+)$/i.exec(base);
  if (single) {
    base = single[1]!;
    profile = single[2]!;
  }
  const mixed = MIG_RESOURCE.exec(resource);
  if (!profile && mixed) profile = mixed[1]!;
  const name = base.replace(/[-_]+/g, " ").trim();
  if (profile) return `${name} ${profile}`;
  return slices > 1 || resource === SHARED_RESOURCE ? `${name} shared x${slices}` : name;
}

const wholeLabel = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : null);

/**
 * How a node shares the GPU resource it offers, and how many physical GPUs
 * (or MIG instances) stand behind the count advertised.
 */
function sharingOf(labels: Record<string, string>, gpu: { resource: string; count: number }, notes: string[]): { sharing: GpuSharing; slices: number; perNode: number } {
  const product = labels[GPU_PRODUCT_LABEL] ?? "";
  if (MIG_RESOURCE.test(gpu.resource) || (labels[MIG_STRATEGY_LABEL] === "single" && /-MIG-/i.test(product))) return { sharing: "mig", slices: 1, perNode: gpu.count };
  const strategy = labels[GPU_SHARING_STRATEGY_LABEL];
  const replicas = wholeLabel(labels[GPU_REPLICAS_LABEL]);
  const shared = gpu.resource === SHARED_RESOURCE || strategy === "time-slicing" || strategy === "mps" || (replicas !== null && replicas > 1) || /-SHARED$/i.test(product);
  if (!shared) return { sharing: "exclusive", slices: 1, perNode: gpu.count };
  if (strategy === "mps") notes.push("shares its GPUs through MPS: counted as time-sliced replicas");
  const physical = wholeLabel(labels[GPU_COUNT_LABEL]);
  const slices = replicas ?? (physical ? gpu.count / physical : null);
  if (slices === null || !Number.isInteger(slices) || slices < 1) {
    notes.push(`time-sliced GPUs without a ${GPU_REPLICAS_LABEL} label: each advertised GPU is counted as one slice of its own GPU`);
    return { sharing: "time_sliced", slices: 1, perNode: gpu.count };
  }
  const perNode = physical ?? Math.floor(gpu.count / slices);
  if (perNode * slices !== gpu.count) notes.push(`advertises ${gpu.count} × ${gpu.resource}, not ${perNode} GPUs × ${slices} replicas: ${perNode * slices} are counted`);
  return { sharing: "time_sliced", slices, perNode };
}

function shapeOf(node: NodeFacts): NodeShape {
  const notes: string[] = [];
  const offered = offeredOf(node.allocatable);
  const gpu = gpuOf(offered);
  let gpuModel: string | null = null;
  const sharing = gpu ? sharingOf(node.labels, gpu, notes) : { sharing: "exclusive" as const, slices: 1, perNode: 0 };
  if (gpu) {
    const product = node.labels[GPU_PRODUCT_LABEL];
    if (product) gpuModel = gpuModelName(product, gpu.resource, sharing.slices);
    else {
      gpuModel = gpu.resource === "nvidia.com/gpu" && sharing.slices === 1 ? "unknown GPU" : gpuModelName("unknown GPU", gpu.resource, sharing.slices);
      notes.push(`no ${GPU_PRODUCT_LABEL} label: the GPU model is called “${gpuModel}”; rename it after importing`);
    }
  }
  const cpu = parseQuantity(node.allocatable.cpu ?? "");
  const memory = parseQuantity(node.allocatable.memory ?? "");
  if (cpu === null) notes.push("no allocatable CPU reported");
  if (memory === null) notes.push("no allocatable memory reported");
  return {
    name: node.name,
    offered,
    gpuModel,
    gpuResource: gpu?.resource ?? null,
    gpusPerNode: sharing.perNode,
    gpuSharing: sharing.sharing,
    gpuSlices: sharing.slices,
    // Millicores, as the cluster counts them.
    cpuPerNode: Math.round((cpu ?? 0) * 1000) / 1000,
    memoryBytesPerNode: Math.round(memory ?? 0),
    notes,
  };
}

/** The most common value; a tie goes to the smaller (or first) one, the cautious reading of capacity. */
function mostCommon<T>(values: readonly T[], key: (v: T) => string, smaller: (a: T, b: T) => boolean): T {
  const counts = new Map<string, { value: T; n: number }>();
  for (const v of values) {
    const k = key(v);
    const seen = counts.get(k);
    counts.set(k, { value: v, n: (seen?.n ?? 0) + 1 });
  }
  let best: { value: T; n: number } | undefined;
  for (const c of counts.values()) if (!best || c.n > best.n || (c.n === best.n && smaller(c.value, best.value))) best = c;
  return best!.value;
}

const GiB = 2 ** 30;
const fmt = {
  cpu: (v: number) => `${v} cores`,
  memory: (v: number) => `${Math.round((v / GiB) * 10) / 10} GiB`,
  gpu: (v: { gpuModel: string | null; gpuResource: string | null; gpusPerNode: number; gpuSlices: number }) =>
    v.gpuResource ? `${v.gpusPerNode}${v.gpuSlices > 1 ? ` × ${v.gpuSlices} replicas` : ""} × ${v.gpuResource} (${v.gpuModel})` : "no GPUs",
};

/** Every GPU resource any of the nodes offers, each with the fewest a node offering it has (the cautious reading). */
function offeredByPool(shapes: readonly NodeShape[]): OfferedGpuResource[] {
  const fewest = new Map<string, number>();
  for (const { resource, perNode } of shapes.flatMap((s) => s.offered)) fewest.set(resource, Math.min(perNode, fewest.get(resource) ?? perNode));
  return [...fewest].map(([resource, perNode]) => ({ resource, perNode })).sort((a, b) => (a.resource < b.resource ? -1 : 1));
}

/**
 * The further requestable profiles of a MIG pool: each other MIG profile
 * every node offers (the fewest a node has), named from the product as the
 * first is ("A100 SXM4 80GB 3g.40gb"). What stays capped at 0 (offered by
 * some nodes only, or beside whole or time-sliced GPUs) is said in a warning.
 */
function furtherProfiles(first: NodeShape, shapes: readonly NodeShape[], members: readonly NodeFacts[], warnings: string[]): GpuProfile[] {
  const others = offeredByPool(shapes).filter((o) => o.resource !== first.gpuResource);
  if (!first.gpuResource || others.length === 0) return [];
  const everywhere = (r: string) => shapes.every((s) => s.offered.some((o) => o.resource === r));
  const product = members.every((m) => m.labels[GPU_PRODUCT_LABEL] === members[0]?.labels[GPU_PRODUCT_LABEL]) ? members[0]?.labels[GPU_PRODUCT_LABEL] : undefined;
  const requestable = first.gpuSharing === "mig" ? others.filter((o) => MIG_RESOURCE.test(o.resource) && everywhere(o.resource)) : [];
  const profiles = requestable.map((o) => ({
    model: gpuModelName(product ?? "unknown GPU", o.resource),
    resource: o.resource,
    perNode: Math.min(...shapes.map((s) => s.offered.find((x) => x.resource === o.resource)!.perNode)),
  }));
  if (profiles.length > 0) warnings.push(`also offers ${profiles.map((x) => `${x.resource} ×${x.perNode}`).join(", ")} on every node: proposed as further requestable profiles (${profiles.map((x) => x.model).join(", ")}), each a model of its own`);
  const capped = others.filter((o) => !requestable.includes(o));
  if (capped.length > 0) {
    const why = first.gpuSharing !== "mig" ? `only ${first.gpuResource} is requestable beside GPUs that are not MIG-partitioned` : "not every node offers it, so it is not requestable";
    warnings.push(`also offers ${capped.map((o) => `${o.resource} ×${o.perNode}`).join(", ")}: recorded as the pool's hardware and capped at 0 in every namespace's quota; ${why}`);
  }
  return profiles;
}

/** The labels worth recording (the pool label and HARDWARE_LABELS) that every node carries with the same value. */
function commonLabels(nodes: readonly NodeFacts[], groupedBy: string | null): Record<string, string> {
  const keys = [...new Set([...(groupedBy ? [groupedBy] : []), ...HARDWARE_LABELS])].sort();
  const out: Record<string, string> = {};
  for (const key of keys) {
    const value = nodes[0]?.labels[key];
    if (value !== undefined && nodes.every((n) => n.labels[key] === value)) out[key] = value;
  }
  return out;
}

const taintId = (t: NodeTaint) => `${t.key}=${t.value ?? ""}:${t.effect}`;

/** The taints every node carries alike; those on some nodes only are named in a warning. */
function commonTaints(nodes: readonly NodeFacts[], warnings: string[]): NodeTaint[] {
  const lasting = nodes.map((n) => (n.taints ?? []).filter((t) => !TRANSIENT_TAINT.test(t.key)));
  const all = new Map(lasting.flat().map((t) => [taintId(t), t]));
  const common = [...all.values()].filter((t) => lasting.every((ts) => ts.some((x) => taintId(x) === taintId(t))));
  const some = [...all.values()].filter((t) => !common.includes(t));
  if (some.length > 0) warnings.push(`only some nodes carry the taint${some.length > 1 ? "s" : ""} ${formatNodeTaints(some).replace(/\n/g, ", ")}: not recorded`);
  return common.sort((a, b) => (taintId(a) < taintId(b) ? -1 : 1));
}

/** Group the nodes into pools. Per-node amounts are the most common among the pool's nodes; differences are reported. */
export function proposePools(nodes: readonly NodeFacts[]): PoolProposals {
  const skipped: PoolProposals["skipped"] = [];
  const groups = new Map<string, { groupedBy: string | null; shapes: NodeShape[]; nodes: NodeFacts[] }>();
  for (const node of [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (CONTROL_PLANE_LABELS.some((l) => l in node.labels)) {
      skipped.push({ name: node.name, reason: "control-plane node" });
      continue;
    }
    const groupedBy = POOL_LABELS.find((l) => node.labels[l]) ?? null;
    const name = groupedBy ? node.labels[groupedBy]! : UNGROUPED;
    const group = groups.get(name) ?? { groupedBy, shapes: [], nodes: [] };
    group.shapes.push(shapeOf(node));
    group.nodes.push(node);
    groups.set(name, group);
  }

  const pools = [...groups]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, { groupedBy, shapes, nodes: members }]): PoolProposal => {
      const warnings: string[] = [];
      const gpu = mostCommon(
        shapes,
        (s) => `${s.gpuResource ?? ""}|${s.gpuModel ?? ""}|${s.gpusPerNode}|${s.gpuSharing}|${s.gpuSlices}`,
        (a, b) => a.gpusPerNode < b.gpusPerNode,
      );
      const cpu = mostCommon(
        shapes.map((s) => s.cpuPerNode),
        String,
        (a, b) => a < b,
      );
      const memory = mostCommon(
        shapes.map((s) => s.memoryBytesPerNode),
        String,
        (a, b) => a < b,
      );
      const differ = <T>(what: string, values: T[], show: (v: T) => string, chosen: T) => {
        const distinct = [...new Set(values.map(show))];
        if (distinct.length > 1) warnings.push(`nodes differ in ${what} (${distinct.join("; ")}); the most common, ${show(chosen)}, is used`);
      };
      differ("GPUs", shapes, fmt.gpu, gpu);
      differ(
        "allocatable CPU",
        shapes.map((s) => s.cpuPerNode),
        fmt.cpu,
        cpu,
      );
      differ(
        "allocatable memory",
        shapes.map((s) => s.memoryBytesPerNode),
        fmt.memory,
        memory,
      );
      if (!groupedBy) warnings.push(`these nodes carry none of the pool labels (${POOL_LABELS.join(", ")})`);
      for (const note of new Set(shapes.flatMap((s) => s.notes))) warnings.push(note);
      const nodeTaints = commonTaints(members, warnings);
      const gpuProfiles = furtherProfiles(gpu, shapes, members, warnings);
      return {
        name,
        groupedBy,
        nodeNames: shapes.map((s) => s.name),
        nodeCount: shapes.length,
        gpuModel: gpu.gpuModel,
        gpuResource: gpu.gpuResource,
        gpusPerNode: gpu.gpusPerNode,
        gpuSharing: gpu.gpuSharing,
        gpuSlices: gpu.gpuSlices,
        cpuPerNode: cpu,
        memoryBytesPerNode: memory,
        nodeLabels: commonLabels(members, groupedBy),
        nodeTaints,
        offeredGpuResources: offeredByPool(shapes),
        gpuProfiles,
        warnings,
      };
    });
  return { pools, skipped };
}

/** A pool as stored, as far as importing compares it. */
export interface ExistingPool {
  name: string;
  gpuModel: string | null;
  gpuResource: string | null;
  gpusPerNode: number;
  nodeCount: number;
  minNodes: number | null;
  maxNodes: number | null;
  cpuPerNode: number;
  memoryBytesPerNode: number;
  nodeLabels: Record<string, string>;
  nodeTaints: NodeTaint[];
  gpuSharing: GpuSharing;
  gpuSlices: number;
  /** Every GPU resource the nodes advertise (empty for a pool added by hand). */
  offeredGpuResources: OfferedGpuResource[];
  /** Further requestable MIG profiles beside gpuModel. */
  gpuProfiles: GpuProfile[];
  /** The admin's choice (WorkloadTier names); the cluster does not tell, importing keeps it. */
  tiers: string[] | null;
  version: number;
}

/** What importing writes for one pool: the importNodePools command's input item. */
export type ImportPool = Omit<ExistingPool, "version"> & {
  /** The version of the stored pool this was compared with; null for a new pool. */
  version: number | null;
};

export type PoolField =
  | "gpuModel"
  | "gpuResource"
  | "gpusPerNode"
  | "gpuSharing"
  | "gpuSlices"
  | "nodeCount"
  | "minNodes"
  | "maxNodes"
  | "cpuPerNode"
  | "memoryBytesPerNode"
  | "nodeLabels"
  | "nodeTaints"
  | "offeredGpuResources"
  | "gpuProfiles";

export interface ImportItem {
  proposal: PoolProposal;
  status: "new" | "changed" | "unchanged";
  changes: { field: PoolField; from: string | number | null; to: string | number | null }[];
  pool: ImportPool;
}

const COMPARED: PoolField[] = [
  "gpuModel",
  "gpuResource",
  "gpusPerNode",
  "gpuSharing",
  "gpuSlices",
  "nodeCount",
  "minNodes",
  "maxNodes",
  "cpuPerNode",
  "memoryBytesPerNode",
  "nodeLabels",
  "nodeTaints",
  "offeredGpuResources",
  "gpuProfiles",
];

/** "nvidia.com/mig-1g.10gb ×4, nvidia.com/mig-3g.40gb ×1": what a pool's nodes offer, as pages show it. */
export const formatOfferedGpuResources = (offered: readonly OfferedGpuResource[]) => offered.map((o) => `${o.resource} ×${o.perNode}`).join(", ");

/** A field's value as the import page shows a change: labels and taints as their lines joined by ", " ("none" when empty). */
function shown(pool: Omit<ImportPool, "version">, field: PoolField): string | number | null {
  if (field === "nodeLabels") return formatNodeLabels(pool.nodeLabels).replace(/\n/g, ", ") || "none";
  if (field === "nodeTaints") return formatNodeTaints(pool.nodeTaints).replace(/\n/g, ", ") || "none";
  if (field === "offeredGpuResources") return formatOfferedGpuResources(pool.offeredGpuResources) || "none";
  if (field === "gpuProfiles") return pool.gpuProfiles.map(profileLabel).join(", ") || "none";
  return pool[field];
}

/**
 * Each proposal against the stored pool of the same name. What the admin
 * chose and the cluster cannot say is kept: the GPU model's name while the
 * GPU resource and sharing are the same (rates and requests use it), the
 * autoscaling bounds unless the Cluster Autoscaler states them (`autoscaler`,
 * per pool), widened only to include the node count found, and the workload tiers.
 */
export function compareWithExisting(proposals: readonly PoolProposal[], existing: readonly ExistingPool[], autoscaler: ReadonlyMap<string, PoolBounds> = new Map()): ImportItem[] {
  const byName = new Map(existing.map((p) => [p.name, p]));
  return proposals.map((proposal) => {
    const stored = byName.get(proposal.name);
    // The autoscaler's bounds where one node group is this pool's; else what the admin set.
    const bounds = autoscaler.get(proposal.name);
    const [min, max] = bounds?.kind === "found" ? [bounds.minSize, bounds.maxSize] : [stored?.minNodes ?? null, stored?.maxNodes ?? null];
    const keepModel =
      stored &&
      stored.gpuModel !== null &&
      stored.gpuResource === proposal.gpuResource &&
      proposal.gpuResource !== null &&
      stored.gpuSharing === proposal.gpuSharing &&
      stored.gpuSlices === proposal.gpuSlices;
    const pool: ImportPool = {
      name: proposal.name,
      gpuModel: keepModel ? stored.gpuModel : proposal.gpuModel,
      gpuResource: proposal.gpuResource,
      gpusPerNode: proposal.gpusPerNode,
      nodeCount: proposal.nodeCount,
      minNodes: min === null ? null : Math.min(min, proposal.nodeCount),
      maxNodes: max === null ? null : Math.max(max, proposal.nodeCount),
      cpuPerNode: proposal.cpuPerNode,
      memoryBytesPerNode: proposal.memoryBytesPerNode,
      nodeLabels: proposal.nodeLabels,
      nodeTaints: proposal.nodeTaints,
      gpuSharing: proposal.gpuSharing,
      gpuSlices: proposal.gpuSlices,
      offeredGpuResources: proposal.offeredGpuResources,
      // A profile's name is the admin's (rates and requests use it) while its resource stays requestable on the pool.
      gpuProfiles: proposal.gpuProfiles.map((x) => ({ ...x, model: stored?.gpuProfiles.find((y) => y.resource === x.resource)?.model ?? x.model })),
      tiers: stored?.tiers ?? null,
      version: stored?.version ?? null,
    };
    if (!stored) return { proposal, status: "new", changes: [], pool };
    const changes = COMPARED.filter((f) => shown(stored, f) !== shown(pool, f)).map((field) => ({ field, from: shown(stored, field), to: shown(pool, field) }));
    return { proposal, status: changes.length > 0 ? "changed" : "unchanged", changes, pool };
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function stringRecord(v: unknown): Record<string, string> {
  if (!isRecord(v)) return {};
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"));
}
