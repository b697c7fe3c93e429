import type { ObjectMeta } from "./meta";
import type { Taint, Toleration } from "./desired-state";

/**
 * Kueue objects are CRDs that kubernetes-models does not ship, so their shape
 * is typed here (the fields we set, for v1beta1 and v1beta2) and checked by
 * `kueueProblems` against the rules of Kueue's CRD schemas: the patterns and
 * the CEL validations the API server would refuse an object for.
 */
type KueueApiVersion = "kueue.x-k8s.io/v1beta1" | "kueue.x-k8s.io/v1beta2";

export interface ResourceFlavor {
  apiVersion: KueueApiVersion;
  kind: "ResourceFlavor";
  metadata: ObjectMeta;
  spec: { nodeLabels?: Record<string, string>; nodeTaints?: Taint[]; tolerations?: Toleration[] };
}

export interface ResourceQuotaLine {
  name: string;
  nominalQuota: string;
  /** Absent: may borrow without limit (with a cohort). */
  borrowingLimit?: string;
  /** Absent: all of the nominal quota may be lent. */
  lendingLimit?: string;
}

export interface FlavorQuotas {
  name: string;
  resources: ResourceQuotaLine[];
}

export type PreemptionPolicy = "Never" | "LowerPriority" | "LowerOrNewerEqualPriority" | "Any";

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
    /** Kueue's default is 1 when fair sharing is on; stated so the portal's weight is what the cluster uses. */
    fairSharing?: { weight: string };
    preemption?: {
      reclaimWithinCohort: Exclude<PreemptionPolicy, "LowerOrNewerEqualPriority">;
      borrowWithinCohort?: { policy: "Never" | "LowerPriority"; maxPriorityThreshold?: number };
      withinClusterQueue: Exclude<PreemptionPolicy, "Any">;
    };
    /** Kueue's default queueing strategy; stated so a pending big job does not hold back smaller ones that fit. */
    queueingStrategy?: "BestEffortFIFO" | "StrictFIFO";
  };
}

/** A cohort as an object (Kueue 0.13+, v1beta1 and v1beta2): a tenant's cohort under the platform's. */
export interface Cohort {
  apiVersion: KueueApiVersion;
  kind: "Cohort";
  metadata: ObjectMeta;
  spec: { parentName?: string; fairSharing?: { weight: string } };
}

export interface WorkloadPriorityClass {
  apiVersion: KueueApiVersion;
  kind: "WorkloadPriorityClass";
  metadata: ObjectMeta;
  /** Top-level, as in PriorityClass. */
  value: number;
  description?: string;
}

export interface LocalQueue {
  apiVersion: KueueApiVersion;
  kind: "LocalQueue";
  metadata: ObjectMeta;
  spec: { clusterQueue: string };
}

export type KueueObject = ResourceFlavor | ClusterQueue | Cohort | WorkloadPriorityClass | LocalQueue;

export const isKueueObject = (o: { apiVersion: string }): o is KueueObject => o.apiVersion.startsWith("kueue.x-k8s.io/");

/** Kueue's pattern for object references (cohorts, cluster queues): a DNS subdomain. */
const REFERENCE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A resource.Quantity as the CRD's pattern accepts it. */
const QUANTITY = /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;
/** Kueue's CRDs cap resource groups at 16, flavours per group at 64 and covered resources at 64. */
const MAX_GROUPS = 16;
const MAX_FLAVORS = 64;

/** Compares two quantities the renderer wrote (plain decimals or binary-suffixed bytes). */
function quantityValue(q: string): number {
  const m = /^([0-9.]+)(Ki|Mi|Gi|Ti|Pi|m)?$/.exec(q);
  if (!m) return Number.NaN;
  const scale: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, m: 1e-3 };
  return Number(m[1]) * (m[2] ? (scale[m[2]] ?? Number.NaN) : 1);
}

function referenceProblem(field: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (value.length > 253 || !REFERENCE.test(value)) return `${field} “${value}” must be a DNS subdomain of at most 253 characters`;
  return null;
}

function clusterQueueProblems(o: ClusterQueue): string[] {
  const problems: string[] = [];
  const spec = o.spec;
  if (o.apiVersion.endsWith("v1beta1") && spec?.cohortName !== undefined) problems.push("spec.cohortName is v1beta2; v1beta1 uses spec.cohort");
  if (o.apiVersion.endsWith("v1beta2") && spec?.cohort !== undefined) problems.push("spec.cohort is v1beta1; v1beta2 uses spec.cohortName");
  const cohort = spec?.cohort ?? spec?.cohortName;
  const ref = referenceProblem("the cohort", cohort);
  if (ref) problems.push(ref);
  if (!spec?.namespaceSelector || Object.keys(spec.namespaceSelector.matchLabels ?? {}).length === 0) problems.push("spec.namespaceSelector must select the project's namespace, not all");
  if (spec?.fairSharing && !QUANTITY.test(spec.fairSharing.weight)) problems.push(`spec.fairSharing.weight “${spec.fairSharing.weight}” is not a quantity`);
  if (spec?.preemption) {
    const p = spec.preemption;
    // The CRD's CEL rule: a queue that never reclaims may not preempt to borrow.
    if (p.reclaimWithinCohort === "Never" && p.borrowWithinCohort && p.borrowWithinCohort.policy !== "Never") problems.push("spec.preemption: reclaimWithinCohort=Never and borrowWithinCohort.policy!=Never");
  }
  const groups = spec?.resourceGroups ?? [];
  if (groups.length > MAX_GROUPS) problems.push(`spec.resourceGroups has ${groups.length} groups; Kueue allows ${MAX_GROUPS}`);
  const seenResources = new Set<string>();
  const seenFlavors = new Set<string>();
  groups.forEach((g, i) => {
    if (g.coveredResources.length === 0) problems.push(`spec.resourceGroups[${i}].coveredResources is empty`);
    if (g.flavors.length === 0) problems.push(`spec.resourceGroups[${i}].flavors is empty`);
    if (g.flavors.length > MAX_FLAVORS) problems.push(`spec.resourceGroups[${i}] has ${g.flavors.length} flavours; Kueue allows ${MAX_FLAVORS}`);
    for (const r of g.coveredResources) {
      if (seenResources.has(r)) problems.push(`resource ${r} is covered by more than one resource group`);
      seenResources.add(r);
    }
    for (const f of g.flavors) {
      // Kueue: a flavour may appear in one resource group only.
      if (seenFlavors.has(f.name)) problems.push(`flavor ${f.name} appears in more than one resource group`);
      seenFlavors.add(f.name);
      const names = f.resources.map((r) => r.name);
      if (names.join() !== g.coveredResources.join()) problems.push(`flavor ${f.name} must list ${g.coveredResources.join(", ")} in that order`);
      for (const r of f.resources) {
        for (const field of ["nominalQuota", "borrowingLimit", "lendingLimit"] as const) {
          const v = r[field];
          if (v !== undefined && !QUANTITY.test(v)) problems.push(`flavor ${f.name} ${r.name}.${field} “${v}” is not a quantity`);
        }
        // The CRD's CEL rules on a resource quota.
        if (r.borrowingLimit !== undefined && cohort === undefined) problems.push(`flavor ${f.name} ${r.name}: borrowingLimit must be nil when cohort is empty`);
        if (r.lendingLimit !== undefined && quantityValue(r.lendingLimit) > quantityValue(r.nominalQuota))
          problems.push(`flavor ${f.name} ${r.name}: lendingLimit ${r.lendingLimit} is more than nominalQuota ${r.nominalQuota}`);
      }
    }
  });
  return problems;
}

/** What is wrong with a Kueue object's shape, empty when nothing is. */
export function kueueProblems(o: KueueObject): string[] {
  const problems: string[] = [];
  if (o.apiVersion !== "kueue.x-k8s.io/v1beta1" && o.apiVersion !== "kueue.x-k8s.io/v1beta2") problems.push(`unsupported apiVersion ${String(o.apiVersion)}`);
  if (!o.metadata?.name) problems.push("metadata.name is required");
  switch (o.kind) {
    case "LocalQueue": {
      if (!o.metadata?.namespace) problems.push("metadata.namespace is required");
      if (!o.spec?.clusterQueue) problems.push("spec.clusterQueue is required");
      const ref = referenceProblem("spec.clusterQueue", o.spec?.clusterQueue);
      if (ref) problems.push(ref);
      break;
    }
    case "ResourceFlavor":
      if (!o.spec) problems.push("spec is required");
      // Kueue's CRD caps node labels at 8, taints and tolerations at 8 each.
      if (Object.keys(o.spec?.nodeLabels ?? {}).length > 8) problems.push("spec.nodeLabels has more than 8 labels");
      if ((o.spec?.nodeTaints ?? []).length > 8) problems.push("spec.nodeTaints has more than 8 taints");
      if ((o.spec?.tolerations ?? []).length > 8) problems.push("spec.tolerations has more than 8 tolerations");
      break;
    case "Cohort": {
      const ref = referenceProblem("spec.parentName", o.spec?.parentName);
      if (ref) problems.push(ref);
      if (o.spec?.parentName !== undefined && o.spec.parentName === o.metadata?.name) problems.push("a cohort cannot be its own parent");
      break;
    }
    case "WorkloadPriorityClass":
      if (!Number.isInteger(o.value)) problems.push("value must be an integer");
      break;
    case "ClusterQueue":
      problems.push(...clusterQueueProblems(o));
      break;
    default:
      problems.push(`unknown Kueue kind ${(o as { kind: string }).kind}`);
  }
  return problems;
}
