import type { DesiredTenant, PoolFlavor, RenderConfig, Taint, Toleration } from "./desired-state";
import type { ResourceFlavor } from "./kueue";
import { platformLabels } from "./meta";
import { InvalidObjectError } from "./validate";
import { platformPoolFlavors, resourceFlavorName, type FlavorScope } from "./render-tenant";

/** Kueue's ResourceFlavor holds at most 8 node labels: the ones that pick a GPU's nodes come first. */
const MAX_FLAVOR_LABELS = 8;
const PREFERRED_LABELS = [
  "nvidia.com/gpu.product",
  "nvidia.com/mig.config",
  "nvidia.com/gpu.sharing-strategy",
  "nvidia.com/gpu.replicas",
  "cloud.google.com/gke-accelerator",
  "cloud.google.com/gke-nodepool",
  "node.kubernetes.io/instance-type",
];

function selectingLabels(labels: Record<string, string>): Record<string, string> {
  const rank = (k: string) => (PREFERRED_LABELS.includes(k) ? PREFERRED_LABELS.indexOf(k) : PREFERRED_LABELS.length);
  const keys = Object.keys(labels).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.slice(0, MAX_FLAVOR_LABELS).sort().map((k) => [k, labels[k] ?? ""]));
}

const toleration = (t: Taint): Toleration => (t.value === undefined ? { key: t.key, operator: "Exists", effect: t.effect } : { key: t.key, operator: "Equal", value: t.value, effect: t.effect });

/** A flavour's object: its pool's node labels and taints, and tolerations for them (Kueue injects both into admitted workloads). */
function flavorObject(pool: PoolFlavor, scope: FlavorScope | null, config: RenderConfig): ResourceFlavor {
  const pin = scope?.isolationTier === "dedicated" ? scope.nodePool : undefined;
  const nodeLabels = selectingLabels({ ...pool.nodeLabels, ...pin?.nodeSelector });
  const tolerations = [...(pin?.tolerations ?? []), ...pool.nodeTaints.map(toleration)];
  const spec: ResourceFlavor["spec"] = {};
  if (Object.keys(nodeLabels).length > 0) spec.nodeLabels = nodeLabels;
  if (pool.nodeTaints.length > 0) spec.nodeTaints = pool.nodeTaints.map((t) => ({ ...t }));
  if (tolerations.length > 0) spec.tolerations = tolerations.map((t) => ({ ...t }));
  return { apiVersion: `kueue.x-k8s.io/${config.kueue.apiVersion}`, kind: "ResourceFlavor", metadata: { name: resourceFlavorName(scope, pool.key), labels: platformLabels(config) }, spec };
}

/**
 * The platform's Kueue ResourceFlavors, when Kueue is on: one per pool flavour
 * (the "default" one of CPU and memory, one per GPU model, MIG profile or
 * time-sliced GPU), named from the flavour alone, which every shared tenant's
 * ClusterQueues name, so the platform cohort can lend between tenants. Each
 * dedicated tenant's nodes are a pool of their own: it gets the same flavours
 * again under its pool's name, also pinned to its nodes. Owned by the
 * platform target (targets.ts), not by any tenant.
 */
export function renderPlatformFlavors(dedicated: readonly Pick<DesiredTenant, "slug" | "isolationTier" | "nodePool">[], config: RenderConfig): ResourceFlavor[] {
  if (!config.kueue.enabled) return [];
  const pools = platformPoolFlavors(config);
  const scopes: (FlavorScope | null)[] = [null, ...[...dedicated].filter((t) => t.isolationTier === "dedicated" && t.nodePool).sort((a, b) => (a.slug < b.slug ? -1 : 1))];
  const flavors = scopes.flatMap((scope) => pools.map((pool) => flavorObject(pool, scope, config)));
  const seen = new Map<string, string>();
  for (const [i, f] of flavors.entries()) {
    const key = pools[i % pools.length]!.key;
    const other = seen.get(f.metadata.name!);
    // Two pool flavours that differ only in case or punctuation would be one object: a configuration to fix, not to guess at.
    if (other !== undefined && other !== key) throw new InvalidObjectError("ResourceFlavor", f.metadata.name!, `pool flavours “${other}” and “${key}” would share this name; rename one GPU model`);
    seen.set(f.metadata.name!, key);
  }
  return flavors;
}
