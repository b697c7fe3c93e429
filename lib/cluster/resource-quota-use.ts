import { toClusterApiError, type ClusterClient } from "./kube-client";
import { parseQuantity } from "./quantity";
import { PROJECT_QUOTA_NAME } from "./render-quota";

/**
 * A project's namespace ResourceQuota (the hard cap, `project-quota`) as
 * figures: the plan's spec.hard, or what the API server reports in its status
 * (status.hard and status.used, which the quota controller keeps). Only the
 * compute, GPU and storage lines people ask about; object counts are left out.
 */

export interface QuotaUseLine {
  /** The ResourceQuota key: requests.cpu, requests.memory, requests.nvidia.com/gpu, requests.storage, persistentvolumeclaims. */
  resource: string;
  hard: number;
  /** Null in a plan: nothing has been used where nothing was applied. */
  used: number | null;
}

const SHOWN = (key: string) => (key.startsWith("requests.") && !key.startsWith("requests.ephemeral")) || key === "persistentvolumeclaims";
/** CPU, memory, GPUs (any extended resource), storage, then PVCs. */
const rank = (key: string) => (key === "requests.cpu" ? 0 : key === "requests.memory" ? 1 : key === "requests.storage" ? 3 : key === "persistentvolumeclaims" ? 4 : 2);

/** The shown lines of a ResourceQuota's hard map, with their use when there is one (pure). */
export function quotaUseLinesOf(hard: Record<string, string> | undefined, used?: Record<string, string>): QuotaUseLine[] {
  return Object.entries(hard ?? {})
    .filter(([key]) => SHOWN(key))
    .map(([resource, text]) => ({ resource, hard: parseQuantity(text) ?? 0, used: used ? (parseQuantity(used[resource] ?? "0") ?? 0) : null }))
    .sort((a, b) => rank(a.resource) - rank(b.resource) || (a.resource < b.resource ? -1 : 1));
}

export type LiveQuotaRead = { found: true; lines: QuotaUseLine[] } | { found: false } | { error: string };

/** The live ResourceQuota of a namespace: its status, or that it is not there yet, or why it could not be read. Never throws. */
export async function readProjectQuotaUse(client: ClusterClient, namespace: string): Promise<LiveQuotaRead> {
  try {
    const object = await client.read({ apiVersion: "v1", kind: "ResourceQuota", namespace, name: PROJECT_QUOTA_NAME });
    if (!object) return { found: false };
    const status = (object.status ?? {}) as { hard?: Record<string, string>; used?: Record<string, string> };
    const spec = (object.spec ?? {}) as { hard?: Record<string, string> };
    return { found: true, lines: quotaUseLinesOf(status.hard ?? spec.hard, status.used ?? {}) };
  } catch (err) {
    return { error: toClusterApiError(err, { server: client.server }).message };
  }
}
