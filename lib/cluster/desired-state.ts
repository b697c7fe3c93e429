/**
 * The desired state of one tenant as the cluster should see it: what the
 * portal's database says, already resolved (effective quotas computed, expired
 * grants and disabled tenants left out). Rendering turns it into Kubernetes
 * objects without reading anything else, so the same input always gives the
 * same objects.
 */

/** Extended resource names such as "nvidia.com/gpu" or a MIG profile "nvidia.com/mig-1g.10gb". */
export type GpuResourceName = string;

export interface Toleration {
  key: string;
  operator: "Equal" | "Exists";
  value?: string;
  effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}

export interface Taint {
  key: string;
  value?: string;
  effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}

/** A flavour the pools offer, as the cluster should know it. */
export interface PoolFlavor {
  /** The key quota lines use: "default" or the GPU model ("H100", "A100 1g.10gb", "L4 shared"). */
  key: string;
  /** GPU extended resource the flavour's nodes advertise; null for "default". */
  resource: string | null;
  sharing: "exclusive" | "mig" | "time_sliced";
  /** Labels that pick the flavour's nodes (e.g. nvidia.com/gpu.product); empty for "default". */
  nodeLabels: Record<string, string>;
  nodeTaints: Taint[];
  /** Workload tiers the platform lets onto this flavour; absent: all. */
  tiers?: string[];
}

export interface NodePool {
  name: string;
  nodeSelector: Record<string, string>;
  tolerations: Toleration[];
}

export interface DesiredTenant {
  slug: string;
  name: string;
  costCentre: string;
  isolationTier: "shared" | "dedicated";
  /** Required for the dedicated tier: the node pool its pods are pinned to. */
  nodePool?: NodePool;
  /** A sandboxing RuntimeClass (e.g. gVisor) the tenant's pods should use. */
  runtimeClass?: string;
  /**
   * Workload identity annotations put on every service account, with
   * placeholders {tenant}, {project}, {namespace} and {serviceAccount}, e.g.
   * { "eks.amazonaws.com/role-arn": "arn:aws:iam::123:role/{tenant}-{serviceAccount}" }.
   */
  workloadIdentityTemplate?: Record<string, string>;
}

/**
 * One line of a project's quota as the cluster sees it, per flavour and
 * resource (lib/quota/lines.ts sums a project's grants into these). The
 * flavour is the key the lines use: "default" for CPU and memory, else the GPU
 * model as the node pools name it; RenderConfig.flavors maps it to a Kueue
 * ResourceFlavor.
 */
export interface FlavorQuota {
  flavor: string;
  /** "cpu" (cores), "memory" (bytes) or a GPU extended resource name (devices). */
  resource: string;
  /** What the project can always get (Kueue nominalQuota). */
  guarantee: number;
  /** How much it may borrow beyond the guarantee, preemptible work only (Kueue borrowingLimit); 0: nothing. */
  burst: number;
  /** How much of the guarantee others may borrow (Kueue lendingLimit); null: all of it. */
  lendLimit: number | null;
}

export interface EffectiveQuota {
  /** Guarantees, summed over flavours: what the project can always get. */
  cpuCores: number;
  memoryBytes: number;
  gpus: Record<GpuResourceName, number>;
  storageBytes: number;
  pvcCount: number;
  /** Overrides of the object counts in RenderConfig.objectCounts. */
  objectCounts?: Record<string, number>;
  /**
   * Burst above the guarantees, summed over flavours (absent: none). The
   * namespace ResourceQuota is the hard cap, guarantee plus burst, for pods
   * that bypass Kueue.
   */
  burst?: { cpuCores: number; memoryBytes: number; gpus: Record<GpuResourceName, number> };
  /** The same quota per flavour, for Kueue (absent: one line per resource of the "default" flavour for CPU and memory, and per GPU resource, no burst). */
  flavors?: FlavorQuota[];
}

/**
 * Roles as they reach a project (lib/auth/policy.ts): a plain tenant_member
 * membership gives nothing on a project, so it renders no binding.
 */
export type BindingRole = "tenant_admin" | "tenant_member" | "tenant_viewer" | "project_member" | "project_viewer";

export interface DesiredBinding {
  principalKind: "user" | "group" | "service_account";
  /**
   * The user name as the API server's authenticator reports it (OIDC subject or
   * email), the IdP group name as its groups claim carries it, or the service
   * account name.
   */
  subject: string;
  role: BindingRole;
}

export interface DesiredServiceAccount {
  name: string;
}

export interface DesiredProject {
  slug: string;
  /** Stored on the project row (lib/tenancy/slugs.ts namespaceFor), so renames never move it. */
  namespace: string;
  quota: EffectiveQuota;
  /** PriorityClass names this project may use; high ones need a grant. */
  allowedPriorityClasses?: string[];
  /** Weight against the other projects of its cohort when capacity is scarce (Kueue fairSharing.weight); absent: 1. */
  fairShareWeight?: number;
  /**
   * Archived, or its tenant disabled: the namespace stays with a quota of 0,
   * and it has no Kueue queues (no ClusterQueue in its tenant's cohort, no
   * LocalQueue), as the cohort views leave it out.
   */
  closed?: boolean;
  bindings: DesiredBinding[];
  serviceAccounts: DesiredServiceAccount[];
}

export interface RenderConfig {
  labelPrefix: string;
  /** Pinned so a cluster upgrade does not tighten the policy under running workloads. */
  podSecurityVersion: string;
  /** Platform-owned label on shared-service namespaces (model registry...); never empty. */
  sharedServicesSelector?: Record<string, string>;
  gatewayNamespace?: string;
  monitoringNamespace?: string;
  kubeDnsSelector: Record<string, string>;
  highPriorityClasses: string[];
  /**
   * cohort: the platform cohort every tenant's cohort sits under. cohortObjects:
   * whether the served Kueue has Cohort objects (0.13+; absent: yes); without
   * them each project queue joins the platform cohort directly.
   */
  kueue: { enabled: boolean; apiVersion: "v1beta1" | "v1beta2"; cohort: string; cohortObjects?: boolean };
  /** Human-friendly flavour names and node labels per GPU resource name (the GPU model of its node pool). */
  gpuModels?: Record<GpuResourceName, { flavor: string; nodeLabels: Record<string, string> }>;
  /**
   * The flavours the node pools offer (lib/quota reads them from the pools):
   * one per GPU model (whole GPUs, a MIG profile or time-sliced GPUs) and the
   * "default" flavour of CPU and memory. Each becomes a shared Kueue
   * ResourceFlavor with the pool's node labels and taints.
   */
  flavors?: PoolFlavor[];
  managedBy: string;
  objectCounts: Record<string, number>;
  containerDefaults: { request: { cpu: string; memory: string }; limit: { cpu: string; memory: string } };
}

export const DEFAULT_RENDER_CONFIG: RenderConfig = {
  labelPrefix: "allot.dev",
  podSecurityVersion: "v1.30",
  kubeDnsSelector: { "k8s-app": "kube-dns" },
  highPriorityClasses: [],
  kueue: { enabled: false, apiVersion: "v1beta2", cohort: "allot" },
  managedBy: "allot",
  // LoadBalancer and NodePort services would publish a tenant outside the network policies.
  objectCounts: { pods: 200, services: 20, configmaps: 100, secrets: 100, "services.loadbalancers": 0, "services.nodeports": 0 },
  containerDefaults: { request: { cpu: "100m", memory: "128Mi" }, limit: { cpu: "1", memory: "1Gi" } },
};

export function renderConfig(overrides: Partial<RenderConfig> = {}): RenderConfig {
  return { ...DEFAULT_RENDER_CONFIG, ...overrides };
}
