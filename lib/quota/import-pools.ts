import { parseQuantity } from "@/lib/cluster/quantity";

/**
 * Proposing node pools from a cluster's Node objects (pure: the caller lists
 * the nodes). Nodes are grouped by the first pool label they carry, the GPU
 * model comes from the GPU feature discovery label, and per-node amounts from
 * `status.allocatable` (what pods can actually be given, not raw capacity).
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
const CONTROL_PLANE_LABELS = ["node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master"];
/** Name of the group of nodes that carry none of POOL_LABELS. */
export const UNGROUPED = "ungrouped";

/** What the mapping needs of a Node. */
export interface NodeFacts {
  name: string;
  labels: Record<string, string>;
  allocatable: Record<string, string>;
}

/** The facts of a Node as the API server returns it (plain JSON); null when it is not a Node with a name. */
export function nodeFactsOf(object: unknown): NodeFacts | null {
  if (!isRecord(object) || !isRecord(object.metadata) || typeof object.metadata.name !== "string") return null;
  const status = isRecord(object.status) ? object.status : {};
  return { name: object.metadata.name, labels: stringRecord(object.metadata.labels), allocatable: stringRecord(status.allocatable) };
}

export interface PoolProposal {
  name: string;
  /** The label the nodes were grouped by; null for nodes without any pool label. */
  groupedBy: string | null;
  nodeNames: string[];
  nodeCount: number;
  gpuModel: string | null;
  gpuResource: string | null;
  gpusPerNode: number;
  cpuPerNode: number;
  memoryBytesPerNode: number;
  /** What the admin should know before importing: nodes that differ, GPU resources left out, missing labels. */
  warnings: string[];
}

export interface PoolProposals {
  pools: PoolProposal[];
  /** Nodes not counted, with why (control-plane nodes). */
  skipped: { name: string; reason: string }[];
}

interface NodeShape {
  name: string;
  gpuModel: string | null;
  gpuResource: string | null;
  gpusPerNode: number;
  cpuPerNode: number;
  memoryBytesPerNode: number;
  notes: string[];
}

const MIG_RESOURCE = /^nvidia\.com\/mig-(.+)$/;

/** The GPU resource a node offers: nvidia.com/gpu, else its most plentiful MIG profile. */
function gpuOf(allocatable: Record<string, string>): { resource: string; count: number; others: string[] } | null {
  const offered = Object.entries(allocatable)
    .filter(([k]) => k === "nvidia.com/gpu" || MIG_RESOURCE.test(k))
    .map(([k, v]) => ({ resource: k, count: Math.floor(parseQuantity(v) ?? 0) }))
    .filter((g) => g.count > 0)
    .sort((a, b) => (a.resource === "nvidia.com/gpu" ? -1 : b.resource === "nvidia.com/gpu" ? 1 : b.count - a.count || (a.resource < b.resource ? -1 : 1)));
  const [first, ...rest] = offered;
  return first ? { resource: first.resource, count: first.count, others: rest.map((g) => `${g.resource} ×${g.count}`) } : null;
}

/**
 * A model name people can ask for, from the product label: "NVIDIA-H100-80GB-HBM3"
 * -> "H100 80GB HBM3"; a MIG profile is appended ("A100 SXM4 40GB 1g.5gb"),
 * from the label (single strategy: "...-MIG-1g.5gb") or the resource name
 * (mixed strategy: nvidia.com/mig-1g.5gb).
 */
export function gpuModelName(product: string, resource: string): string {
  let base = product.trim().replace(/^NVIDIA[- ]/i, "");
  let profile: string | null = null;
  const single = /^(.*?)-MIG-(.+)$/i.exec(base);
  if (single) {
    base = single[1]!;
    profile = single[2]!;
  }
  const mixed = MIG_RESOURCE.exec(resource);
  if (!profile && mixed) profile = mixed[1]!;
  const name = base.replace(/[-_]+/g, " ").trim();
  return profile ? `${name} ${profile}` : name;
}

function shapeOf(node: NodeFacts): NodeShape {
  const notes: string[] = [];
  const gpu = gpuOf(node.allocatable);
  let gpuModel: string | null = null;
  if (gpu) {
    const product = node.labels[GPU_PRODUCT_LABEL];
    if (product) gpuModel = gpuModelName(product, gpu.resource);
    else {
      gpuModel = gpu.resource === "nvidia.com/gpu" ? "unknown GPU" : gpuModelName("unknown GPU", gpu.resource);
      notes.push(`no ${GPU_PRODUCT_LABEL} label: the GPU model is called “${gpuModel}”; rename it after importing`);
    }
    if (gpu.others.length > 0) notes.push(`also offers ${gpu.others.join(", ")}, not counted: a pool holds one GPU resource`);
  }
  const cpu = parseQuantity(node.allocatable.cpu ?? "");
  const memory = parseQuantity(node.allocatable.memory ?? "");
  if (cpu === null) notes.push("no allocatable CPU reported");
  if (memory === null) notes.push("no allocatable memory reported");
  return {
    name: node.name,
    gpuModel,
    gpuResource: gpu?.resource ?? null,
    gpusPerNode: gpu?.count ?? 0,
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
  gpu: (v: { gpuModel: string | null; gpuResource: string | null; gpusPerNode: number }) => (v.gpuResource ? `${v.gpusPerNode} × ${v.gpuResource} (${v.gpuModel})` : "no GPUs"),
};

/** Group the nodes into pools. Per-node amounts are the most common among the pool's nodes; differences are reported. */
export function proposePools(nodes: readonly NodeFacts[]): PoolProposals {
  const skipped: PoolProposals["skipped"] = [];
  const groups = new Map<string, { groupedBy: string | null; shapes: NodeShape[] }>();
  for (const node of [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (CONTROL_PLANE_LABELS.some((l) => l in node.labels)) {
      skipped.push({ name: node.name, reason: "control-plane node" });
      continue;
    }
    const groupedBy = POOL_LABELS.find((l) => node.labels[l]) ?? null;
    const name = groupedBy ? node.labels[groupedBy]! : UNGROUPED;
    const group = groups.get(name) ?? { groupedBy, shapes: [] };
    group.shapes.push(shapeOf(node));
    groups.set(name, group);
  }

  const pools = [...groups]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, { groupedBy, shapes }]): PoolProposal => {
      const warnings: string[] = [];
      const gpu = mostCommon(
        shapes,
        (s) => `${s.gpuResource ?? ""}|${s.gpuModel ?? ""}|${s.gpusPerNode}`,
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
      return {
        name,
        groupedBy,
        nodeNames: shapes.map((s) => s.name),
        nodeCount: shapes.length,
        gpuModel: gpu.gpuModel,
        gpuResource: gpu.gpuResource,
        gpusPerNode: gpu.gpusPerNode,
        cpuPerNode: cpu,
        memoryBytesPerNode: memory,
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
  version: number;
}

/** What importing writes for one pool: the importNodePools command's input item. */
export type ImportPool = Omit<ExistingPool, "version"> & {
  /** The version of the stored pool this was compared with; null for a new pool. */
  version: number | null;
};

export type PoolField = "gpuModel" | "gpuResource" | "gpusPerNode" | "nodeCount" | "minNodes" | "maxNodes" | "cpuPerNode" | "memoryBytesPerNode";

export interface ImportItem {
  proposal: PoolProposal;
  status: "new" | "changed" | "unchanged";
  changes: { field: PoolField; from: string | number | null; to: string | number | null }[];
  pool: ImportPool;
}

const COMPARED: PoolField[] = ["gpuModel", "gpuResource", "gpusPerNode", "nodeCount", "minNodes", "maxNodes", "cpuPerNode", "memoryBytesPerNode"];

/**
 * Each proposal against the stored pool of the same name. What the admin
 * chose and the cluster cannot say is kept: the GPU model's name while the
 * GPU resource is the same (rates and requests use it), and the autoscaling
 * bounds, widened only to include the node count found.
 */
export function compareWithExisting(proposals: readonly PoolProposal[], existing: readonly ExistingPool[]): ImportItem[] {
  const byName = new Map(existing.map((p) => [p.name, p]));
  return proposals.map((proposal) => {
    const stored = byName.get(proposal.name);
    const keepModel = stored && stored.gpuModel !== null && stored.gpuResource === proposal.gpuResource && proposal.gpuResource !== null;
    const pool: ImportPool = {
      name: proposal.name,
      gpuModel: keepModel ? stored.gpuModel : proposal.gpuModel,
      gpuResource: proposal.gpuResource,
      gpusPerNode: proposal.gpusPerNode,
      nodeCount: proposal.nodeCount,
      minNodes: stored?.minNodes == null ? null : Math.min(stored.minNodes, proposal.nodeCount),
      maxNodes: stored?.maxNodes == null ? null : Math.max(stored.maxNodes, proposal.nodeCount),
      cpuPerNode: proposal.cpuPerNode,
      memoryBytesPerNode: proposal.memoryBytesPerNode,
      version: stored?.version ?? null,
    };
    if (!stored) return { proposal, status: "new", changes: [], pool };
    const changes = COMPARED.filter((f) => stored[f] !== pool[f]).map((field) => ({ field, from: stored[field], to: pool[field] }));
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
