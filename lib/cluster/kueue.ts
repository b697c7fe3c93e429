import type { ObjectMeta } from "./meta";
import type { Toleration } from "./desired-state";

/**
 * Kueue objects are CRDs that kubernetes-models does not ship, so their shape
 * is typed here (the fields we set, for v1beta1 and v1beta2) and checked by
 * `kueueProblems` instead of a schema.
 */
type KueueApiVersion = "kueue.x-k8s.io/v1beta1" | "kueue.x-k8s.io/v1beta2";

export interface ResourceFlavor {
  apiVersion: KueueApiVersion;
  kind: "ResourceFlavor";
  metadata: ObjectMeta;
  spec: { nodeLabels?: Record<string, string>; tolerations?: Toleration[] };
}

export interface FlavorQuotas {
  name: string;
  resources: { name: string; nominalQuota: string }[];
}

export interface ClusterQueue {
  apiVersion: KueueApiVersion;
  kind: "ClusterQueue";
  metadata: ObjectMeta;
  spec: {
    /** v1beta1 */
    cohort?: string;
    /** v1beta2 renamed `cohort` to `cohortName`. */
    cohortName?: string;
    namespaceSelector: { matchLabels: Record<string, string> };
    resourceGroups: { coveredResources: string[]; flavors: FlavorQuotas[] }[];
  };
}

export interface LocalQueue {
  apiVersion: KueueApiVersion;
  kind: "LocalQueue";
  metadata: ObjectMeta;
  spec: { clusterQueue: string };
}

export type KueueObject = ResourceFlavor | ClusterQueue | LocalQueue;

export const isKueueObject = (o: { apiVersion: string }): o is KueueObject => o.apiVersion.startsWith("kueue.x-k8s.io/");

/** What is wrong with a Kueue object's shape, empty when nothing is. */
export function kueueProblems(o: KueueObject): string[] {
  const problems: string[] = [];
  if (o.apiVersion !== "kueue.x-k8s.io/v1beta1" && o.apiVersion !== "kueue.x-k8s.io/v1beta2") problems.push(`unsupported apiVersion ${String(o.apiVersion)}`);
  if (!o.metadata?.name) problems.push("metadata.name is required");
  switch (o.kind) {
    case "LocalQueue":
      if (!o.metadata?.namespace) problems.push("metadata.namespace is required");
      if (!o.spec?.clusterQueue) problems.push("spec.clusterQueue is required");
      break;
    case "ResourceFlavor":
      if (!o.spec) problems.push("spec is required");
      break;
    case "ClusterQueue": {
      if (o.apiVersion.endsWith("v1beta1") && o.spec?.cohortName !== undefined) problems.push("spec.cohortName is v1beta2; v1beta1 uses spec.cohort");
      if (o.apiVersion.endsWith("v1beta2") && o.spec?.cohort !== undefined) problems.push("spec.cohort is v1beta1; v1beta2 uses spec.cohortName");
      if (!o.spec?.namespaceSelector || Object.keys(o.spec.namespaceSelector.matchLabels ?? {}).length === 0)
        problems.push("spec.namespaceSelector must select the tenant's namespaces, not all");
      const seen = new Set<string>();
      (o.spec?.resourceGroups ?? []).forEach((g, i) => {
        if (g.coveredResources.length === 0) problems.push(`spec.resourceGroups[${i}].coveredResources is empty`);
        if (g.flavors.length === 0) problems.push(`spec.resourceGroups[${i}].flavors is empty`);
        for (const r of g.coveredResources) {
          if (seen.has(r)) problems.push(`resource ${r} is covered by more than one resource group`);
          seen.add(r);
        }
        for (const f of g.flavors) {
          const names = f.resources.map((r) => r.name);
          if (names.join() !== g.coveredResources.join()) problems.push(`flavor ${f.name} must list ${g.coveredResources.join(", ")} in that order`);
        }
      });
      break;
    }
    default:
      problems.push(`unknown Kueue kind ${(o as { kind: string }).kind}`);
  }
  return problems;
}
