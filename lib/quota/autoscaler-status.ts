import { parse } from "yaml";

/**
 * A pool's autoscaling bounds as the Kubernetes Cluster Autoscaler states
 * them: its status ConfigMap (kube-system/cluster-autoscaler-status) lists
 * every node group it manages with minSize and maxSize. Nodes do not carry
 * their bounds, so this is where a pool import in live mode reads them.
 *
 * Two formats exist: YAML (Cluster Autoscaler 1.30 and later: nodeGroups[].name,
 * .health.minSize, .health.maxSize) and the older text ("Name: <group>" then
 * "Health: ... (minSize=1, maxSize=5)"). Both are read.
 *
 * A node group's name is the cloud's, not the Kubernetes node pool label's:
 * GKE names the managed instance group (…/instanceGroups/gke-<cluster>-<pool>-<hash>-grp),
 * EKS the Auto Scaling group (eks-<nodegroup>-<uuid>), AKS the scale set
 * (aks-<pool>-<id>-vmss). A pool takes a group's bounds only when exactly one
 * group is named so; otherwise its bounds stay as stored (or for the admin to
 * enter), and the import says why.
 */

export const AUTOSCALER_STATUS = { namespace: "kube-system", name: "cluster-autoscaler-status" } as const;

export interface NodeGroupBounds {
  name: string;
  minSize: number;
  maxSize: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const size = (v: unknown): number | null => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null);

/** Node groups and their bounds from the ConfigMap's `status` text; empty when it names none. */
export function nodeGroupBounds(status: string): NodeGroupBounds[] {
  let doc: unknown = null;
  try {
    doc = parse(status);
  } catch {
    // Not YAML: the older text format (its "Key: value (a=1, b=2)" lines are not valid YAML either).
  }
  if (isRecord(doc) && Array.isArray(doc.nodeGroups)) {
    return doc.nodeGroups.flatMap((g): NodeGroupBounds[] => {
      if (!isRecord(g) || typeof g.name !== "string" || !isRecord(g.health)) return [];
      const minSize = size(g.health.minSize);
      const maxSize = size(g.health.maxSize);
      return minSize !== null && maxSize !== null && minSize <= maxSize ? [{ name: g.name, minSize, maxSize }] : [];
    });
  }
  const groups: NodeGroupBounds[] = [];
  let current: string | null = null;
  for (const line of status.split("\n")) {
    const name = /^\s*Name:\s*(\S+)\s*$/.exec(line);
    if (name) current = name[1]!;
    const bounds = /minSize=(\d+),\s*maxSize=(\d+)/.exec(line);
    if (current && /^\s*Health:/.test(line) && bounds) {
      const [minSize, maxSize] = [Number(bounds[1]), Number(bounds[2])];
      if (minSize <= maxSize) groups.push({ name: current, minSize, maxSize });
      current = null;
    }
  }
  return groups;
}

export type PoolBounds = { kind: "found"; group: string; minSize: number; maxSize: number } | { kind: "none" } | { kind: "ambiguous"; groups: string[] };

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Whether a node group is the pool: its name (or its URL's last segment) is
 * the pool's, or it is the cloud's name for that pool: GKE's instance group
 * gke-<cluster>-<pool>-<8 hex>-grp, EKS's Auto Scaling group
 * eks-<node group>-<UUID>, AKS's scale set aks-<pool>-<digits>-vmss.
 */
function isGroupOf(pool: string, group: string): boolean {
  const last = group.slice(group.lastIndexOf("/") + 1);
  if (group === pool || last === pool) return true;
  const p = escape(pool);
  return [new RegExp(`^gke-.+-${p}-[0-9a-f]{8}-grp$`), new RegExp(`^eks-${p}-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$`), new RegExp(`^aks-${p}-\\d+-vmss$`)].some((pattern) => pattern.test(last));
}

/** The one node group that is the pool; none, or several that could be (then nothing is guessed). */
export function boundsForPool(pool: string, groups: readonly NodeGroupBounds[]): PoolBounds {
  const matches = groups.filter((g) => isGroupOf(pool, g.name));
  if (matches.length === 0) return { kind: "none" };
  if (matches.length > 1) return { kind: "ambiguous", groups: matches.map((g) => g.name) };
  return { kind: "found", group: matches[0]!.name, minSize: matches[0]!.minSize, maxSize: matches[0]!.maxSize };
}
