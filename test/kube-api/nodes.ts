/**
 * Node objects as a real cluster serves them to the pool import: the pool
 * label of the cloud, the labels GPU feature discovery and the NVIDIA device
 * plugin set (product, count, replicas and sharing strategy for time-slicing,
 * MIG strategy and config), spec.taints, and status.allocatable with the
 * extended resources the device plugin advertises. Put them into the stand-in
 * API server with `api.put(node(...))`.
 */

export type Taint = { key: string; value?: string; effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute" };

export interface NodeSpec {
  name: string;
  labels?: Record<string, string>;
  taints?: Taint[];
  allocatable: Record<string, string>;
}

export function node({ name, labels = {}, taints = [], allocatable }: NodeSpec) {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", ...labels } },
    spec: taints.length > 0 ? { taints } : {},
    status: { allocatable, capacity: allocatable },
  };
}

/** The labels of GPU feature discovery on a node with `count` GPUs of `product`, shared as `replicas` time-slicing replicas. */
export function timeSlicedLabels(product: string, count: number, replicas: number): Record<string, string> {
  return {
    "nvidia.com/gpu.present": "true",
    "nvidia.com/gpu.product": `${product}-SHARED`,
    "nvidia.com/gpu.count": String(count),
    "nvidia.com/gpu.replicas": String(replicas),
    "nvidia.com/gpu.sharing-strategy": "time-slicing",
  };
}

/** The labels on a node whose GPUs are all split into one MIG profile under the mixed strategy. */
export function migMixedLabels(product: string, count: number, config: string): Record<string, string> {
  return {
    "nvidia.com/gpu.present": "true",
    "nvidia.com/gpu.product": product,
    "nvidia.com/gpu.count": String(count),
    "nvidia.com/mig.capable": "true",
    "nvidia.com/mig.strategy": "mixed",
    "nvidia.com/mig.config": config,
    "nvidia.com/gpu.replicas": "1",
    "nvidia.com/gpu.sharing-strategy": "none",
  };
}
