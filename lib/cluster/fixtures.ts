import { renderConfig, type DesiredProject, type DesiredTenant, type PoolFlavor, type RenderConfig } from "./desired-state";

/** Tenant shapes the rendering tests cover; not used outside tests. */
const GiB = 2 ** 30;

export const sharedTenant: DesiredTenant = { slug: "acme", name: "Acme Research", costCentre: "CC 4711 / R&D", isolationTier: "shared" };

export const dedicatedTenant: DesiredTenant = {
  slug: "vision",
  name: "Vision Lab",
  costCentre: "cc-0042",
  isolationTier: "dedicated",
  nodePool: {
    name: "vision-a100",
    nodeSelector: { "allot.dev/pool": "vision-a100" },
    tolerations: [{ key: "allot.dev/tenant", operator: "Equal", value: "vision", effect: "NoSchedule" }],
  },
  runtimeClass: "gvisor",
  workloadIdentityTemplate: { "eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/allot-{tenant}-{project}-{serviceAccount}" },
};

export function project(overrides: Partial<DesiredProject> & { slug: string; namespace: string }): DesiredProject {
  return {
    quota: { cpuCores: 8, memoryBytes: 32 * GiB, gpus: {}, storageBytes: 100 * GiB, pvcCount: 10 },
    bindings: [],
    serviceAccounts: [],
    ...overrides,
  };
}

export const noGpuProject = project({
  slug: "etl",
  namespace: "acme--etl",
  quota: { cpuCores: 2.5, memoryBytes: 8 * GiB, gpus: {}, storageBytes: 20 * GiB, pvcCount: 4 },
  bindings: [
    { principalKind: "user", subject: "alice@acme.example", role: "tenant_admin" },
    { principalKind: "user", subject: "bob@acme.example", role: "project_viewer" },
    { principalKind: "user", subject: "carol@acme.example", role: "tenant_member" },
  ],
});

export const migProject = project({
  slug: "training",
  namespace: "vision--training",
  quota: { cpuCores: 64, memoryBytes: 512 * GiB, gpus: { "nvidia.com/gpu": 4, "nvidia.com/mig-1g.10gb": 2 }, storageBytes: 2048 * GiB, pvcCount: 20 },
  allowedPriorityClasses: ["serving-high"],
  bindings: [
    { principalKind: "user", subject: "oidc|8f3c2a", role: "project_member" },
    { principalKind: "service_account", subject: "trainer", role: "project_member" },
    { principalKind: "group", subject: "oidc:Vision Trainers", role: "project_member" },
  ],
  serviceAccounts: [{ name: "trainer" }],
});

export const fullConfig: RenderConfig = renderConfig({
  sharedServicesSelector: { "allot.dev/shared-service": "true" },
  gatewayNamespace: "gateway",
  monitoringNamespace: "monitoring",
  highPriorityClasses: ["serving-high", "system-critical-ml"],
  kueue: { enabled: true, apiVersion: "v1beta2", cohort: "allot" },
  gpuModels: { "nvidia.com/gpu": { flavor: "a100-80gb", nodeLabels: { "nvidia.com/gpu.product": "A100-SXM4-80GB" } } },
});

export const GPU_TAINT = { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" as const };

/** The pools of a platform with every kind of GPU sharing: whole H100s for training and preemptible work, MIG slices for serving, time-sliced L4s. */
export const POOL_FLAVORS: PoolFlavor[] = [
  { key: "default", resource: null, sharing: "exclusive", nodeLabels: {}, nodeTaints: [] },
  { key: "A100 1g.10gb", resource: "nvidia.com/mig-1g.10gb", sharing: "mig", nodeLabels: { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/mig.config": "all-1g.10gb" }, nodeTaints: [GPU_TAINT], tiers: ["serving"] },
  { key: "H100", resource: "nvidia.com/gpu", sharing: "exclusive", nodeLabels: { "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" }, nodeTaints: [GPU_TAINT], tiers: ["preemptible", "training"] },
  { key: "L4", resource: "nvidia.com/gpu", sharing: "exclusive", nodeLabels: { "nvidia.com/gpu.product": "NVIDIA-L4" }, nodeTaints: [] },
  { key: "L4 shared x4", resource: "nvidia.com/gpu.shared", sharing: "time_sliced", nodeLabels: { "nvidia.com/gpu.product": "NVIDIA-L4-SHARED", "nvidia.com/gpu.replicas": "4" }, nodeTaints: [GPU_TAINT] },
];
