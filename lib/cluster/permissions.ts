import { CLUSTER_ROLE_FOR } from "./render-access";

/**
 * Every call the portal makes to the Kubernetes API, as RBAC rules: the one
 * list from which the ClusterRole in deploy/ is generated (`npm run
 * deploy:rbac`) and against which the stand-in API server checks the
 * worker's requests in tests. A kind the worker starts to render, list or
 * read without a line here fails permissions.test.ts; a line here that the
 * generated ClusterRole lacks fails it too.
 */

export type ApiVerb = "get" | "list" | "create" | "patch" | "delete" | "bind";

export interface ClusterPermission {
  /** "" is the core group. */
  apiGroup: string;
  /** The plural resource name RBAC matches. */
  resource: string;
  /** The kind it serves, so tests can match it with what the portal renders and reads. */
  kind: string;
  verbs: readonly ApiVerb[];
  /** Only these objects (by name). */
  resourceNames?: readonly string[];
  /** Written above the rule in the generated ClusterRole. */
  why: string;
}

/**
 * Server-side apply is a PATCH; for an object that does not exist yet the API
 * server also checks `create`. The drift check reads each applied object back (`get`).
 */
const APPLIED = ["get", "create", "patch"] as const satisfies readonly ApiVerb[];
/** Owned kinds are also pruned: listed by the portal's labels per target, and deleted when no longer desired. */
const OWNED = [...APPLIED, "list", "delete"] as const satisfies readonly ApiVerb[];

const KUEUE = "kueue.x-k8s.io";
const KUEUE_VISIBILITY = "visibility.kueue.x-k8s.io";
const RBAC = "rbac.authorization.k8s.io";

/**
 * The ClusterRoles the portal's RoleBindings reference (render-access.ts). To
 * create a RoleBinding to a role, the API server requires the creator to hold
 * every permission of that role, or `bind` on it: without `bind`, the portal
 * could only hand out what it holds itself, which would be far more than it needs.
 */
export const BOUND_CLUSTER_ROLES: readonly string[] = [...new Set(Object.values(CLUSTER_ROLE_FOR).filter((r): r is NonNullable<typeof r> => r !== null))].sort();

export const CLUSTER_PERMISSIONS: readonly ClusterPermission[] = [
  { apiGroup: "", resource: "namespaces", kind: "Namespace", verbs: APPLIED, why: "project namespaces: applied and read back, never listed or deleted (deleting one would delete its workloads)" },
  { apiGroup: "", resource: "resourcequotas", kind: "ResourceQuota", verbs: OWNED, why: "each project's quota and its PriorityClass-scoped quotas" },
  { apiGroup: "", resource: "limitranges", kind: "LimitRange", verbs: OWNED, why: "each project's default requests and limits" },
  { apiGroup: "", resource: "serviceaccounts", kind: "ServiceAccount", verbs: OWNED, why: "one per portal service account with a grant on the project" },
  { apiGroup: "networking.k8s.io", resource: "networkpolicies", kind: "NetworkPolicy", verbs: OWNED, why: "each project's default-deny fence and its allowances" },
  { apiGroup: RBAC, resource: "rolebindings", kind: "RoleBinding", verbs: OWNED, why: "one per role grant, always namespaced (the portal never creates a ClusterRoleBinding)" },
  {
    apiGroup: RBAC,
    resource: "clusterroles",
    kind: "ClusterRole",
    verbs: ["bind"],
    resourceNames: BOUND_CLUSTER_ROLES,
    why: "the RoleBindings above reference these built-in ClusterRoles; Kubernetes refuses a binding to a role whose permissions the creator lacks unless it may `bind` that role",
  },
  { apiGroup: KUEUE, resource: "resourceflavors", kind: "ResourceFlavor", verbs: OWNED, why: "Kueue (ALLOT_KUEUE=1): each tenant's flavours" },
  { apiGroup: KUEUE, resource: "workloadpriorityclasses", kind: "WorkloadPriorityClass", verbs: OWNED, why: "Kueue (ALLOT_KUEUE=1): each tenant's workload tiers (serving, training, preemptible)" },
  { apiGroup: KUEUE, resource: "cohorts", kind: "Cohort", verbs: OWNED, why: "Kueue (ALLOT_KUEUE=1): each tenant's cohort under the platform cohort (Kueue 0.13+)" },
  { apiGroup: KUEUE, resource: "clusterqueues", kind: "ClusterQueue", verbs: OWNED, why: "Kueue (ALLOT_KUEUE=1): each project's guaranteed and burst ClusterQueues" },
  { apiGroup: KUEUE, resource: "localqueues", kind: "LocalQueue", verbs: OWNED, why: "Kueue (ALLOT_KUEUE=1): each project's LocalQueues default and preemptible" },
  { apiGroup: "", resource: "nodes", kind: "Node", verbs: ["list"], why: "Admin > Capacity > Import reads the nodes to propose node pools" },
  {
    apiGroup: "",
    resource: "configmaps",
    kind: "ConfigMap",
    verbs: ["get"],
    resourceNames: ["cluster-autoscaler-status"],
    why: "Admin > Capacity > Import reads the Cluster Autoscaler's status (kube-system) for each node group's minimum and maximum size; no other ConfigMap",
  },
  { apiGroup: KUEUE, resource: "workloads", kind: "Workload", verbs: ["get", "list"], why: "Kueue (ALLOT_KUEUE=1): \"Share now\" reads each project's workloads, their tier and why they wait (never written)" },
  {
    apiGroup: KUEUE_VISIBILITY,
    resource: "localqueues/pendingworkloads",
    kind: "PendingWorkloadsSummary",
    verbs: ["get"],
    why: "Kueue (ALLOT_KUEUE=1): \"Share now\" reads the position of each pending workload in its queues (Kueue's visibility API)",
  },
];

export interface ApiRequestAttributes {
  apiGroup: string;
  resource: string;
  verb: string;
  /** The object's name; absent for collection requests (list, create by POST). */
  name?: string;
}

/** Whether the rules allow one request, as RBAC decides it: a rule with resourceNames allows only requests naming one of them. */
export function permits(rules: readonly ClusterPermission[], request: ApiRequestAttributes): boolean {
  return rules.some(
    (r) =>
      r.apiGroup === request.apiGroup &&
      r.resource === request.resource &&
      (r.verbs as readonly string[]).includes(request.verb) &&
      (r.resourceNames === undefined || (request.name !== undefined && r.resourceNames.includes(request.name))),
  );
}
