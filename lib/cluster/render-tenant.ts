import type { DesiredProject, DesiredTenant, GpuResourceName, RenderConfig } from "./desired-state";
import type { ClusterQueue, FlavorQuotas, LocalQueue, ResourceFlavor } from "./kueue";
import { dnsLabel, ownerLabels, projectMeta } from "./meta";
import { bytesQuantity, countQuantity, cpuQuantity, sortedEntries } from "./quantity";

export type TenantObject = ResourceFlavor | ClusterQueue;

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

/** Before per-project queues, each tenant had one ClusterQueue of this name; kept for the record of what it replaced. */
export const clusterQueueName = (tenant: DesiredTenant) => `tenant-${tenant.slug}`;

/** Flavours are named per tenant, so each is owned by exactly one tenant and deleted with it. */
function gpuFlavorName(tenant: DesiredTenant, resource: GpuResourceName, config: RenderConfig): string {
  const model = config.gpuModels?.[resource]?.flavor ?? resource;
  return `${tenant.slug}-${dnsLabel(model, 63 - tenant.slug.length - 1)}`;
}

/**
 * Per tenant, when Kueue is on: a ResourceFlavor for CPU and memory and one per
 * GPU resource (model or MIG profile), and a ClusterQueue whose nominal quota is
 * the sum of the tenant's projects, in a shared cohort so idle quota can be
 * borrowed. A dedicated tenant's flavours carry its node pool's labels and
 * tolerations, which Kueue injects into admitted workloads.
 */
export function renderTenantObjects(tenant: DesiredTenant, projects: DesiredProject[], config: RenderConfig): TenantObject[] {
  if (!config.kueue.enabled) return [];
  const apiVersion = kueueApiVersion(config);
  const meta = (name: string) => ({ name, labels: ownerLabels(config, tenant) });
  const pool = tenant.isolationTier === "dedicated" ? tenant.nodePool : undefined;
  const flavor = (name: string, modelLabels: Record<string, string> = {}): ResourceFlavor => {
    const nodeLabels = { ...modelLabels, ...pool?.nodeSelector };
    const spec: ResourceFlavor["spec"] = {};
    if (Object.keys(nodeLabels).length > 0) spec.nodeLabels = Object.fromEntries(sortedEntries(nodeLabels));
    if (pool && pool.tolerations.length > 0) spec.tolerations = pool.tolerations.map((t) => ({ ...t }));
    return { apiVersion, kind: "ResourceFlavor", metadata: meta(name), spec };
  };

  const gpuTotals = new Map<string, number>();
  let cpu = 0;
  let memory = 0;
  for (const p of projects) {
    cpu += p.quota.cpuCores;
    memory += p.quota.memoryBytes;
    for (const [name, n] of Object.entries(p.quota.gpus)) gpuTotals.set(name, (gpuTotals.get(name) ?? 0) + n);
  }

  const baseFlavor = flavor(`${tenant.slug}-default`);
  const flavors: ResourceFlavor[] = [baseFlavor];
  const groups: ClusterQueue["spec"]["resourceGroups"] = [
    {
      coveredResources: ["cpu", "memory"],
      flavors: [{ name: baseFlavor.metadata.name!, resources: [{ name: "cpu", nominalQuota: cpuQuantity(cpu) }, { name: "memory", nominalQuota: bytesQuantity(memory) }] }],
    },
  ];
  for (const [resource, total] of sortedEntries(Object.fromEntries(gpuTotals))) {
    const f = flavor(gpuFlavorName(tenant, resource, config), config.gpuModels?.[resource]?.nodeLabels);
    flavors.push(f);
    const quotas: FlavorQuotas = { name: f.metadata.name!, resources: [{ name: resource, nominalQuota: countQuantity(total) }] };
    groups.push({ coveredResources: [resource], flavors: [quotas] });
  }

  const cohortField = config.kueue.apiVersion === "v1beta1" ? { cohort: config.kueue.cohort } : { cohortName: config.kueue.cohort };
  const queue: ClusterQueue = {
    apiVersion,
    kind: "ClusterQueue",
    metadata: meta(clusterQueueName(tenant)),
    spec: {
      ...cohortField,
      namespaceSelector: { matchLabels: { [`${config.labelPrefix}/tenant`]: tenant.slug, "app.kubernetes.io/managed-by": config.managedBy } },
      resourceGroups: groups,
    },
  };
  return [...flavors, queue];
}

/** The queue workloads in a project name by default (`kueue.x-k8s.io/queue-name: default`). */
export function renderLocalQueue(tenant: DesiredTenant, project: DesiredProject, config: RenderConfig): LocalQueue {
  return {
    apiVersion: kueueApiVersion(config),
    kind: "LocalQueue",
    metadata: projectMeta(config, tenant, project, "default"),
    spec: { clusterQueue: clusterQueueName(tenant) },
  };
}
