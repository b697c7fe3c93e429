import type { DesiredProject, DesiredTenant, FlavorQuota, PoolFlavor, RenderConfig, Taint, Toleration } from "./desired-state";
import type { ClusterQueue, Cohort, FlavorQuotas, LocalQueue, ResourceFlavor, ResourceQuotaLine, WorkloadPriorityClass } from "./kueue";
import { dnsLabel, ownerLabels, projectMeta } from "./meta";
import { bytesQuantity, countQuantity, cpuQuantity } from "./quantity";

export type TenantObject = WorkloadPriorityClass | ResourceFlavor | Cohort | ClusterQueue;

const kueueApiVersion = (config: RenderConfig) => `kueue.x-k8s.io/${config.kueue.apiVersion}` as const;

/** The tenant's Kueue cohort: its projects' queues lend and borrow there first, then under the platform cohort. */
export const tenantCohortName = (tenant: Pick<DesiredTenant, "slug">) => `tenant-${tenant.slug}`;

/**
 * A project's two ClusterQueues. The guaranteed one holds its guarantee and
 * never borrows (non-preemptible work fits inside it; LocalQueue "default");
 * the burst one holds nothing and borrows up to the burst limit, for
 * preemptible work only (LocalQueue "preemptible"). Namespaces are unique and
 * hold no dots, so neither name can meet another project's.
 */
export const guaranteedQueueName = (project: Pick<DesiredProject, "namespace">) => project.namespace;
export const burstQueueName = (project: Pick<DesiredProject, "namespace">) => `${project.namespace}.burst`;
/** The LocalQueues in a project namespace that workloads name (`kueue.x-k8s.io/queue-name`). */
export const GUARANTEED_LOCAL_QUEUE = "default";
export const BURST_LOCAL_QUEUE = "preemptible";

/**
 * Workload tiers as Kueue priorities (`kueue.x-k8s.io/priority-class:
 * <tenant>-<tier>` on a job). Serving outranks training inside a guarantee;
 * preemptible work is what borrowing preempts first and reclaiming takes
 * back. Named per tenant so each tenant owns its classes and they go with it.
 */
export const TIER_PRIORITIES = { serving: 1000, training: 500, preemptible: 100 } as const;
export type Tier = keyof typeof TIER_PRIORITIES;
export const priorityClassName = (tenant: Pick<DesiredTenant, "slug">, tier: Tier) => `${tenant.slug}-${tier}`;
const TIER_DESCRIPTIONS: Record<Tier, string> = {
  serving: "Serving (low latency): inside the project's guarantee, ahead of training",
  training: "Training (checkpointable): inside the project's guarantee",
  preemptible: "Preemptible: may run on borrowed capacity and is reclaimed first",
};

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

/** The project's quota lines per flavour; projects rendered before lines (tests, old fixtures) get them from their sums. */
export function flavorLinesOf(project: DesiredProject, config: RenderConfig): FlavorQuota[] {
  if (project.quota.flavors) return project.quota.flavors;
  const q = project.quota;
  const lines: FlavorQuota[] = [
    { flavor: "default", resource: "cpu", guarantee: q.cpuCores, burst: q.burst?.cpuCores ?? 0, lendLimit: null },
    { flavor: "default", resource: "memory", guarantee: q.memoryBytes, burst: q.burst?.memoryBytes ?? 0, lendLimit: null },
  ];
  for (const [resource, n] of Object.entries(q.gpus)) {
    const burst = q.burst?.gpus[resource] ?? 0;
    if (n > 0 || burst > 0) lines.push({ flavor: config.gpuModels?.[resource]?.flavor ?? resource, resource, guarantee: n, burst, lendLimit: null });
  }
  return lines;
}

/** Flavours are named per tenant, so each is owned by exactly one tenant and deleted with it. */
export function resourceFlavorName(tenant: Pick<DesiredTenant, "slug">, flavorKey: string): string {
  return `${tenant.slug}-${dnsLabel(flavorKey, 63 - tenant.slug.length - 1) || "gpu"}`;
}

const quantityOf = (resource: string, n: number) => (resource === "cpu" ? cpuQuantity(n) : resource === "memory" ? bytesQuantity(n) : countQuantity(n));

interface FlavorUse {
  key: string;
  resource: string;
  pool: PoolFlavor | undefined;
}

/**
 * Per tenant, when Kueue is on:
 * - WorkloadPriorityClasses for the tiers;
 * - a ResourceFlavor per flavour its projects hold (the default one for CPU and
 *   memory, one per GPU model, MIG profile or time-sliced GPU) with its pools'
 *   node labels and taints and tolerations for them, which Kueue injects into
 *   admitted workloads; a dedicated tenant's flavours also pin its node pool;
 * - its Cohort under the platform cohort (where Kueue serves Cohort objects);
 * - per project, a guaranteed ClusterQueue (nominalQuota the guarantee,
 *   borrowingLimit 0, lendingLimit the lend limit) and, when it has burst, a
 *   burst ClusterQueue (nominalQuota 0, borrowingLimit the burst, only the
 *   flavours whose pools admit the preemptible tier), both with the project's
 *   fair-share weight.
 */
export function renderTenantObjects(tenant: DesiredTenant, allProjects: DesiredProject[], config: RenderConfig): TenantObject[] {
  if (!config.kueue.enabled) return [];
  // A closed project (archived, or its tenant disabled) has no queue: the worker deletes the one it had.
  const projects = allProjects.filter((p) => !p.closed);
  const apiVersion = kueueApiVersion(config);
  const meta = (name: string) => ({ name, labels: ownerLabels(config, tenant) });
  const dedicated = tenant.isolationTier === "dedicated" ? tenant.nodePool : undefined;
  const poolOf = (key: string) => config.flavors?.find((f) => f.key === key);

  const priorityClasses: WorkloadPriorityClass[] = (Object.keys(TIER_PRIORITIES) as Tier[]).map((tier) => ({
    apiVersion,
    kind: "WorkloadPriorityClass",
    metadata: meta(priorityClassName(tenant, tier)),
    value: TIER_PRIORITIES[tier],
    description: TIER_DESCRIPTIONS[tier],
  }));

  // Every flavour any project holds, the default one always (CPU and memory of GPU pods are assigned there).
  const uses = new Map<string, FlavorUse>([["default", { key: "default", resource: "cpu", pool: poolOf("default") }]]);
  const linesByProject = new Map(projects.map((p) => [p, flavorLinesOf(p, config)]));
  for (const lines of linesByProject.values()) for (const l of lines) if (!uses.has(l.flavor)) uses.set(l.flavor, { key: l.flavor, resource: l.resource, pool: poolOf(l.flavor) });

  const flavorObject = (use: FlavorUse): ResourceFlavor => {
    const modelLabels = use.pool?.nodeLabels ?? (use.key === "default" ? {} : (config.gpuModels?.[use.resource]?.nodeLabels ?? {}));
    const nodeLabels = selectingLabels({ ...modelLabels, ...dedicated?.nodeSelector });
    const nodeTaints = use.pool?.nodeTaints ?? [];
    const tolerations = [...(dedicated?.tolerations ?? []), ...nodeTaints.map(toleration)];
    const spec: ResourceFlavor["spec"] = {};
    if (Object.keys(nodeLabels).length > 0) spec.nodeLabels = nodeLabels;
    if (nodeTaints.length > 0) spec.nodeTaints = nodeTaints.map((t) => ({ ...t }));
    if (tolerations.length > 0) spec.tolerations = tolerations.map((t) => ({ ...t }));
    return { apiVersion, kind: "ResourceFlavor", metadata: meta(resourceFlavorName(tenant, use.key)), spec };
  };
  const flavors = [...uses.values()].sort((a, b) => (a.key === "default" ? -1 : b.key === "default" ? 1 : a.key < b.key ? -1 : 1)).map(flavorObject);

  const cohortObjects = config.kueue.cohortObjects !== false;
  const cohortName = cohortObjects ? tenantCohortName(tenant) : config.kueue.cohort;
  const cohorts: Cohort[] = cohortObjects
    ? [{ apiVersion, kind: "Cohort", metadata: meta(cohortName), spec: { parentName: config.kueue.cohort, fairSharing: { weight: "1" } } }]
    : [];
  const cohortField = config.kueue.apiVersion === "v1beta1" ? { cohort: cohortName } : { cohortName };

  const queues: ClusterQueue[] = [];
  for (const project of [...projects].sort((a, b) => (a.namespace < b.namespace ? -1 : 1))) {
    const lines = linesByProject.get(project)!;
    const weight = String(project.fairShareWeight ?? 1);
    const namespaceSelector = { matchLabels: { "kubernetes.io/metadata.name": project.namespace } };
    const guaranteed = resourceGroups(tenant, lines, (l) => ({
      name: l.resource,
      nominalQuota: quantityOf(l.resource, l.guarantee),
      borrowingLimit: "0",
      ...(l.lendLimit !== null ? { lendingLimit: quantityOf(l.resource, Math.min(l.lendLimit, l.guarantee)) } : {}),
    }));
    queues.push({
      apiVersion,
      kind: "ClusterQueue",
      metadata: meta(guaranteedQueueName(project)),
      spec: {
        ...cohortField,
        namespaceSelector,
        resourceGroups: guaranteed,
        fairSharing: { weight },
        // Takes back what it lent from any borrower; inside it, serving preempts training.
        preemption: { reclaimWithinCohort: "Any", withinClusterQueue: "LowerPriority" },
        queueingStrategy: "BestEffortFIFO",
      },
    });
    const bursting = lines.filter((l) => l.burst > 0 && admitsPreemptible(poolOf(l.flavor)));
    if (bursting.length === 0) continue;
    // CPU and memory go with GPU pods: a burst queue holds its project's CPU and memory burst, or none.
    const burstLines = withComputeLines(bursting);
    queues.push({
      apiVersion,
      kind: "ClusterQueue",
      metadata: meta(burstQueueName(project)),
      spec: {
        ...cohortField,
        namespaceSelector,
        resourceGroups: resourceGroups(tenant, burstLines, (l) => ({ name: l.resource, nominalQuota: "0", borrowingLimit: quantityOf(l.resource, l.burst) })),
        fairSharing: { weight },
        // Borrowing may preempt only lower-priority borrowed work, never above the preemptible tier.
        preemption: {
          reclaimWithinCohort: "LowerPriority",
          borrowWithinCohort: { policy: "LowerPriority", maxPriorityThreshold: TIER_PRIORITIES.preemptible },
          withinClusterQueue: "LowerPriority",
        },
        queueingStrategy: "BestEffortFIFO",
      },
    });
  }
  return [...priorityClasses, ...flavors, ...cohorts, ...queues];
}

const admitsPreemptible = (pool: PoolFlavor | undefined) => !pool?.tiers || pool.tiers.includes("preemptible");

/** Burst lines with a CPU and memory line of the default flavour (0 when the project has no CPU or memory burst). */
function withComputeLines(lines: FlavorQuota[]): FlavorQuota[] {
  const out = [...lines];
  for (const resource of ["cpu", "memory"]) if (!out.some((l) => l.flavor === "default" && l.resource === resource)) out.push({ flavor: "default", resource, guarantee: 0, burst: 0, lendLimit: null });
  return out;
}

/**
 * Kueue resource groups from lines: CPU and memory together in the default
 * flavour, then one group per GPU resource listing every flavour that offers
 * it (two pools' models may share nvidia.com/gpu; Kueue tries them in order).
 */
function resourceGroups(tenant: DesiredTenant, lines: FlavorQuota[], quota: (l: FlavorQuota) => ResourceQuotaLine): ClusterQueue["spec"]["resourceGroups"] {
  const cpu = lines.find((l) => l.flavor === "default" && l.resource === "cpu") ?? { flavor: "default", resource: "cpu", guarantee: 0, burst: 0, lendLimit: null };
  const memory = lines.find((l) => l.flavor === "default" && l.resource === "memory") ?? { flavor: "default", resource: "memory", guarantee: 0, burst: 0, lendLimit: null };
  const groups: ClusterQueue["spec"]["resourceGroups"] = [{ coveredResources: ["cpu", "memory"], flavors: [{ name: resourceFlavorName(tenant, "default"), resources: [quota(cpu), quota(memory)] }] }];
  const gpuLines = lines.filter((l) => l.resource !== "cpu" && l.resource !== "memory");
  const byResource = new Map<string, FlavorQuota[]>();
  for (const l of gpuLines) byResource.set(l.resource, [...(byResource.get(l.resource) ?? []), l]);
  for (const [resource, ls] of [...byResource].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const flavors: FlavorQuotas[] = ls.sort((a, b) => (a.flavor < b.flavor ? -1 : 1)).map((l) => ({ name: resourceFlavorName(tenant, l.flavor), resources: [quota(l)] }));
    groups.push({ coveredResources: [resource], flavors });
  }
  return groups;
}

/** The queues workloads in a project name: `default` (its guarantee) and, with burst, `preemptible`. */
export function renderLocalQueues(tenant: DesiredTenant, project: DesiredProject, config: RenderConfig): LocalQueue[] {
  const local = (name: string, clusterQueue: string): LocalQueue => ({
    apiVersion: kueueApiVersion(config),
    kind: "LocalQueue",
    metadata: projectMeta(config, tenant, project, name),
    spec: { clusterQueue },
  });
  const queues = [local(GUARANTEED_LOCAL_QUEUE, guaranteedQueueName(project))];
  const poolOf = (key: string) => config.flavors?.find((f) => f.key === key);
  if (flavorLinesOf(project, config).some((l) => l.burst > 0 && admitsPreemptible(poolOf(l.flavor)))) queues.push(local(BURST_LOCAL_QUEUE, burstQueueName(project)));
  return queues;
}
