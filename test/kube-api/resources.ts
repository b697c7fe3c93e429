/**
 * The resource types the stand-in API server serves: the kinds the portal
 * renders (lib/cluster) and reads (Node), with the names a real API server's discovery reports
 * for them, and the discovery documents built from that table.
 */

export interface ResourceType {
  /** "" for the core group. */
  group: string;
  version: string;
  kind: string;
  /** The URL segment, e.g. "resourcequotas". */
  plural: string;
  singular: string;
  namespaced: boolean;
}

const VERBS = ["create", "delete", "get", "list", "patch", "update"];

export type KueueVersion = "v1beta1" | "v1beta2";

function core(kind: string, plural: string, namespaced: boolean): ResourceType {
  return { group: "", version: "v1", kind, plural, singular: kind.toLowerCase(), namespaced };
}

/** The table for one server; `kueueVersions: []` is a cluster without Kueue. */
export function resourceTypes(kueueVersions: readonly KueueVersion[]): ResourceType[] {
  const types: ResourceType[] = [
    core("Namespace", "namespaces", false),
    core("ResourceQuota", "resourcequotas", true),
    core("LimitRange", "limitranges", true),
    core("ServiceAccount", "serviceaccounts", true),
    // Not rendered by the portal: read to propose node pools (lib/quota/import-pools.ts).
    core("Node", "nodes", false),
    // Not rendered either: the Cluster Autoscaler's status, read for pools' autoscaling bounds.
    core("ConfigMap", "configmaps", true),
    { group: "networking.k8s.io", version: "v1", kind: "NetworkPolicy", plural: "networkpolicies", singular: "networkpolicy", namespaced: true },
    { group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding", plural: "rolebindings", singular: "rolebinding", namespaced: true },
    { group: "rbac.authorization.k8s.io", version: "v1", kind: "Role", plural: "roles", singular: "role", namespaced: true },
    { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", singular: "clusterrolebinding", namespaced: false },
  ];
  for (const version of kueueVersions) {
    types.push(
      { group: "kueue.x-k8s.io", version, kind: "WorkloadPriorityClass", plural: "workloadpriorityclasses", singular: "workloadpriorityclass", namespaced: false },
      { group: "kueue.x-k8s.io", version, kind: "ResourceFlavor", plural: "resourceflavors", singular: "resourceflavor", namespaced: false },
      { group: "kueue.x-k8s.io", version, kind: "Cohort", plural: "cohorts", singular: "cohort", namespaced: false },
      { group: "kueue.x-k8s.io", version, kind: "ClusterQueue", plural: "clusterqueues", singular: "clusterqueue", namespaced: false },
      { group: "kueue.x-k8s.io", version, kind: "LocalQueue", plural: "localqueues", singular: "localqueue", namespaced: true },
      // Not rendered by the portal: Kueue creates one per job; read for "Share now" (lib/cluster/queue-status.ts).
      { group: "kueue.x-k8s.io", version, kind: "Workload", plural: "workloads", singular: "workload", namespaced: true },
    );
  }
  return types;
}

export const apiVersionOf = (t: { group: string; version: string }) => (t.group ? `${t.group}/${t.version}` : t.version);

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** GET /api */
export function coreVersions(): object {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1:6443" }] };
}

/**
 * The versions of Kueue's visibility API (aggregated, so not in the resource
 * table): v1beta1 wherever Kueue serves a version, v1beta2 beside Kueue's v1beta2.
 */
export function visibilityVersions(kueueVersions: readonly KueueVersion[]): KueueVersion[] {
  return kueueVersions.length === 0 ? [] : kueueVersions.includes("v1beta2") ? ["v1beta1", "v1beta2"] : ["v1beta1"];
}

/** GET /apis: every named group with its versions; the last listed version is the preferred one. */
export function groupList(types: readonly ResourceType[], extra: readonly { group: string; versions: readonly string[] }[] = []): object {
  const versions = new Map<string, string[]>();
  for (const e of extra) if (e.versions.length > 0) versions.set(e.group, [...e.versions]);
  for (const t of types) {
    if (!t.group) continue;
    const list = versions.get(t.group) ?? [];
    if (!list.includes(t.version)) list.push(t.version);
    versions.set(t.group, list);
  }
  const groups = [...versions].map(([name, vs]) => {
    const preferred = vs[vs.length - 1]!;
    return {
      name,
      versions: vs.map((version) => ({ groupVersion: `${name}/${version}`, version })),
      preferredVersion: { groupVersion: `${name}/${preferred}`, version: preferred },
    };
  });
  return { kind: "APIGroupList", apiVersion: "v1", groups };
}

/** GET /api/v1 or /apis/<group>/<version>; undefined when that group version is not served. */
export function resourceList(types: readonly ResourceType[], group: string, version: string): object | undefined {
  const served = types.filter((t) => t.group === group && t.version === version);
  if (served.length === 0) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources: served.map((t) => ({ name: t.plural, singularName: t.singular, namespaced: t.namespaced, kind: t.kind, verbs: VERBS })),
  };
}
