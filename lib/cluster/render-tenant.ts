import type { DesiredProject, DesiredTenant, FlavorQuota, PoolFlavor, RenderConfig } from "./desired-state";
import type { ClusterQueue, Cohort, FlavorQuotas, LocalQueue, ResourceQuotaLine, WorkloadPriorityClass } from "./kueue";
import { dnsLabel, ownerLabels, projectMeta } from "./meta";
import { bytesQuantity, countQuantity, cpuQuantity } from "./quantity";

export type TenantObject = WorkloadPriorityClass | Cohort | ClusterQueue;

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

/** Whose flavours a tenant's queues name: the platform's shared ones, or a dedicated tenant's own pool's. */
export type FlavorScope = Pick<DesiredTenant, "isolationTier" | "nodePool">;

/**
 * The Kueue ResourceFlavor of a pool flavour, one for the whole platform
 * (render-platform.ts renders it), named from the flavour alone so every
 * tenant's ClusterQueues name the same one: Kueue lends and borrows only
 * within one flavour, so this is what lets the platform cohort move idle
 * capacity between tenants. A dedicated tenant's nodes are a pool of their
 * own, so its flavours are its pool's (`<pool>-<flavour>`), pinned there.
 */
export function resourceFlavorName(scope: FlavorScope | null, flavorKey: string): string {
  const pool = scope?.isolationTier === "dedicated" ? scope.nodePool : undefined;
  if (!pool) return dnsLabel(flavorKey, 63) || "gpu";
  const prefix = dnsLabel(pool.name, 40) || "dedicated";
  return `${prefix}-${dnsLabel(flavorKey, 63 - prefix.length - 1) || "gpu"}`;
}

/**
 * The pool flavours the platform renders a ResourceFlavor for
 * (render-platform.ts): the pools' (RenderConfig.flavors, read from the
 * database), else the configured GPU models; "default" (CPU and memory) always.
 */
export function platformPoolFlavors(config: RenderConfig): PoolFlavor[] {
  const configured: PoolFlavor[] =
    config.flavors ??
    Object.entries(config.gpuModels ?? {}).map(([resource, m]) => ({ key: m.flavor, resource, sharing: "exclusive" as const, nodeLabels: { ...m.nodeLabels }, nodeTaints: [] }));
  const rest = configured.filter((f) => f.key !== "default");
  const own = configured.find((f) => f.key === "default") ?? { key: "default", resource: null, sharing: "exclusive" as const, nodeLabels: {}, nodeTaints: [] };
  return [own, ...rest.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))];
}

/**
 * The lines a project's queues hold: those of flavours the platform renders.
 * A line of a flavour no pool offers (a pool deleted under a burst limit) has
 * no nodes, and a queue never names a ResourceFlavor that is not there.
 */
function queueLinesOf(project: DesiredProject, config: RenderConfig): FlavorQuota[] {
  const offered = new Set(platformPoolFlavors(config).map((f) => f.key));
  return flavorLinesOf(project, config).filter((l) => offered.has(l.flavor));
}

const quantityOf = (resource: string, n: number) => (resource === "cpu" ? cpuQuantity(n) : resource === "memory" ? bytesQuantity(n) : countQuantity(n));

/**
 * Per tenant, when Kueue is on:
 * - WorkloadPriorityClasses for the tiers;
 * - its Cohort under the platform cohort (where Kueue serves Cohort objects);
 * - per project, a guaranteed ClusterQueue (nominalQuota the guarantee,
 *   borrowingLimit 0, lendingLimit the lend limit) and, when it has burst, a
 *   burst ClusterQueue (nominalQuota 0, borrowingLimit the burst, only the
 *   flavours whose pools admit the preemptible tier), both with the project's
 *   fair-share weight.
 * The queues name the platform's ResourceFlavors (resourceFlavorName), which
 * the tenant does not own: render-platform.ts renders them once for all.
 */
export function renderTenantObjects(tenant: DesiredTenant, allProjects: DesiredProject[], config: RenderConfig): TenantObject[] {
  if (!config.kueue.enabled) return [];
  // A closed project (archived, or its tenant disabled) has no queue: the worker deletes the one it had.
  const projects = allProjects.filter((p) => !p.closed);
  const apiVersion = kueueApiVersion(config);
  const meta = (name: string) => ({ name, labels: ownerLabels(config, tenant) });
  const poolOf = (key: string) => config.flavors?.find((f) => f.key === key);

  const priorityClasses: WorkloadPriorityClass[] = (Object.keys(TIER_PRIORITIES) as Tier[]).map((tier) => ({
    apiVersion,
    kind: "WorkloadPriorityClass",
    metadata: meta(priorityClassName(tenant, tier)),
    value: TIER_PRIORITIES[tier],
    description: TIER_DESCRIPTIONS[tier],
  }));

  const linesByProject = new Map(projects.map((p) => [p, queueLinesOf(p, config)]));

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
  return [...priorityClasses, ...cohorts, ...queues];
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
function resourceGroups(tenant: FlavorScope, lines: FlavorQuota[], quota: (l: FlavorQuota) => ResourceQuotaLine): ClusterQueue["spec"]["resourceGroups"] {
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
  if (queueLinesOf(project, config).some((l) => l.burst > 0 && admitsPreemptible(poolOf(l.flavor)))) queues.push(local(BURST_LOCAL_QUEUE, burstQueueName(project)));
  return queues;
}
