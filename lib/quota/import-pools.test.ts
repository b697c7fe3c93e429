import { describe, expect, it } from "vitest";
import { compareWithExisting, gpuModelName, nodeFactsOf, proposePools, UNGROUPED, type ExistingPool, type NodeFacts } from "./import-pools";

const GiB = 2 ** 30;

function node(name: string, labels: Record<string, string>, allocatable: Record<string, string>): NodeFacts {
  return { name, labels, allocatable };
}

const H100_LABELS = { "cloud.google.com/gke-nodepool": "h100-pool", "node.kubernetes.io/instance-type": "a3-highgpu-8g", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" };
const gkeH100 = (name: string, extra: Record<string, string> = {}) => node(name, H100_LABELS, { cpu: "207600m", memory: "1870000Mi", "nvidia.com/gpu": "8", pods: "110", ...extra });

describe("gpuModelName", () => {
  it("drops the vendor prefix and reads hyphens as spaces", () => {
    expect(gpuModelName("NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu")).toBe("H100 80GB HBM3");
    expect(gpuModelName("NVIDIA-L4", "nvidia.com/gpu")).toBe("L4");
    expect(gpuModelName("Tesla-T4", "nvidia.com/gpu")).toBe("Tesla T4");
  });

  it("appends the MIG profile, from the label (single strategy) or the resource (mixed strategy)", () => {
    expect(gpuModelName("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", "nvidia.com/gpu")).toBe("A100 SXM4 40GB 1g.5gb");
    expect(gpuModelName("NVIDIA-A100-SXM4-80GB", "nvidia.com/mig-1g.10gb")).toBe("A100 SXM4 80GB 1g.10gb");
  });

  it("names a time-sliced GPU as a model of its own, without the device plugin's -SHARED suffix", () => {
    expect(gpuModelName("NVIDIA-L4-SHARED", "nvidia.com/gpu", 4)).toBe("L4 shared x4");
    expect(gpuModelName("NVIDIA-L4", "nvidia.com/gpu.shared", 8)).toBe("L4 shared x8");
    expect(gpuModelName("Tesla-T4-SHARED", "nvidia.com/gpu", 1)).toBe("Tesla T4");
  });
});

describe("nodeFactsOf", () => {
  it("reads name, labels and allocatable from a Node as the API returns it, ignoring non-string values", () => {
    const facts = nodeFactsOf({
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "n1", labels: { a: "b", weird: 3 } },
      status: { allocatable: { cpu: "4", memory: "16Gi" }, capacity: { cpu: "8" } },
    });
    expect(facts).toEqual({ name: "n1", labels: { a: "b" }, allocatable: { cpu: "4", memory: "16Gi" }, taints: [] });
  });

  it("gives null for something that is not a named object, and empty maps for a node without status", () => {
    expect(nodeFactsOf(null)).toBeNull();
    expect(nodeFactsOf({ metadata: {} })).toBeNull();
    expect(nodeFactsOf({ metadata: { name: "bare" } })).toEqual({ name: "bare", labels: {}, allocatable: {}, taints: [] });
  });

  it("reads spec.taints, dropping entries without a key or a known effect, and empty values", () => {
    const facts = nodeFactsOf({
      metadata: { name: "t" },
      spec: {
        taints: [
          { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" },
          { key: "dedicated", value: "", effect: "NoExecute", timeAdded: "2026-01-01T00:00:00Z" },
          { key: "odd", effect: "Sometimes" },
          { effect: "NoSchedule" },
          "junk",
        ],
      },
    });
    expect(facts!.taints).toEqual([
      { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" },
      { key: "dedicated", effect: "NoExecute" },
    ]);
  });
});

describe("proposePools", () => {
  it("groups GPU nodes by their GKE pool label with model, resource and per-node allocatable", () => {
    const { pools, skipped } = proposePools([gkeH100("gke-h100-b"), gkeH100("gke-h100-a")]);
    expect(skipped).toEqual([]);
    expect(pools).toEqual([
      {
        name: "h100-pool",
        groupedBy: "cloud.google.com/gke-nodepool",
        nodeNames: ["gke-h100-a", "gke-h100-b"],
        nodeCount: 2,
        gpuModel: "H100 80GB HBM3",
        gpuResource: "nvidia.com/gpu",
        gpusPerNode: 8,
        gpuSharing: "exclusive",
        gpuSlices: 1,
        cpuPerNode: 207.6,
        memoryBytesPerNode: 1870000 * 2 ** 20,
        nodeLabels: H100_LABELS,
        nodeTaints: [],
        offeredGpuResources: [{ resource: "nvidia.com/gpu", perNode: 8 }],
        gpuProfiles: [],
        warnings: [],
      },
    ]);
  });

  it("tries the pool labels in order: GKE, EKS, AKS, Karpenter, then the instance type", () => {
    const cpu = { cpu: "4", memory: "16Gi" };
    const { pools } = proposePools([
      node("eks-1", { "eks.amazonaws.com/nodegroup": "general", "karpenter.sh/nodepool": "ignored", "node.kubernetes.io/instance-type": "m6i.xlarge" }, cpu),
      node("aks-1", { "kubernetes.azure.com/agentpool": "userpool", "node.kubernetes.io/instance-type": "Standard_D4s_v5" }, cpu),
      node("karp-1", { "karpenter.sh/nodepool": "spot", "node.kubernetes.io/instance-type": "m6i.xlarge" }, cpu),
      node("bare-1", { "node.kubernetes.io/instance-type": "m6i.xlarge" }, cpu),
    ]);
    expect(pools.map((p) => [p.name, p.groupedBy, p.nodeNames])).toEqual([
      ["general", "eks.amazonaws.com/nodegroup", ["eks-1"]],
      ["m6i.xlarge", "node.kubernetes.io/instance-type", ["bare-1"]],
      ["spot", "karpenter.sh/nodepool", ["karp-1"]],
      ["userpool", "kubernetes.azure.com/agentpool", ["aks-1"]],
    ]);
    expect(pools.every((p) => p.gpuModel === null && p.gpuResource === null && p.gpusPerNode === 0)).toBe(true);
  });

  it("reads MIG pools (mixed strategy) from the nvidia.com/mig-* resource, requestable first in the most plentiful profile, proposing each other profile every node offers as requestable and recording every profile", () => {
    const labels = { "eks.amazonaws.com/nodegroup": "a100-mig", "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/mig.strategy": "mixed" };
    const { pools } = proposePools([
      node("mig-1", labels, { cpu: "95", memory: "1100Gi", "nvidia.com/mig-1g.10gb": "48", "nvidia.com/mig-3g.40gb": "2" }),
      // Another node of the pool with a different layout: each profile is recorded with the fewest a node offers, and one only this node has is recorded too.
      node("mig-2", labels, { cpu: "95", memory: "1100Gi", "nvidia.com/mig-1g.10gb": "48", "nvidia.com/mig-3g.40gb": "1", "nvidia.com/mig-7g.80gb": "1" }),
    ]);
    expect(pools[0]).toMatchObject({ name: "a100-mig", gpuModel: "A100 SXM4 80GB 1g.10gb", gpuResource: "nvidia.com/mig-1g.10gb", gpusPerNode: 48, cpuPerNode: 95, memoryBytesPerNode: 1100 * GiB });
    expect(pools[0]!.offeredGpuResources).toEqual([
      { resource: "nvidia.com/mig-1g.10gb", perNode: 48 },
      { resource: "nvidia.com/mig-3g.40gb", perNode: 1 },
      { resource: "nvidia.com/mig-7g.80gb", perNode: 1 },
    ]);
    // 3g.40gb is on every node (the fewest, 1, counts); 7g.80gb on one node only stays capped at 0.
    expect(pools[0]!.gpuProfiles).toEqual([{ model: "A100 SXM4 80GB 3g.40gb", resource: "nvidia.com/mig-3g.40gb", perNode: 1 }]);
    expect(pools[0]!.warnings).toEqual([
      "also offers nvidia.com/mig-3g.40gb ×1 on every node: proposed as further requestable profiles (A100 SXM4 80GB 3g.40gb), each a model of its own",
      "also offers nvidia.com/mig-7g.80gb ×1: recorded as the pool's hardware and capped at 0 in every namespace's quota; not every node offers it, so it is not requestable",
    ]);
  });

  it("proposes no further profile beside whole GPUs: a node offering nvidia.com/gpu and a MIG profile is requestable in nvidia.com/gpu only", () => {
    const labels = { "eks.amazonaws.com/nodegroup": "h100-mixed", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" };
    const { pools } = proposePools([node("h-1", labels, { cpu: "95", memory: "1100Gi", "nvidia.com/gpu": "4", "nvidia.com/mig-1g.10gb": "7" })]);
    expect(pools[0]).toMatchObject({ gpuResource: "nvidia.com/gpu", gpuSharing: "exclusive", gpuProfiles: [] });
    expect(pools[0]!.warnings).toEqual(["also offers nvidia.com/mig-1g.10gb ×7: recorded as the pool's hardware and capped at 0 in every namespace's quota; only nvidia.com/gpu is requestable beside GPUs that are not MIG-partitioned"]);
  });

  it("records time-sliced GPUs renamed to nvidia.com/gpu.shared as offered, and a plain GPU pool's one resource", () => {
    const shared = proposePools([node("s", { "karpenter.sh/nodepool": "l4", "nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.replicas": "4" }, { cpu: "8", memory: "30Gi", "nvidia.com/gpu.shared": "4" })]);
    expect(shared.pools[0]!.offeredGpuResources).toEqual([{ resource: "nvidia.com/gpu.shared", perNode: 4 }]);
    expect(proposePools([gkeH100("a")]).pools[0]!.offeredGpuResources).toEqual([{ resource: "nvidia.com/gpu", perNode: 8 }]);
  });

  it("prefers nvidia.com/gpu over MIG resources on the same node, and ignores zero counts", () => {
    const { pools } = proposePools([node("n", { "karpenter.sh/nodepool": "gpu", "nvidia.com/gpu.product": "NVIDIA-L4" }, { cpu: "8", memory: "30Gi", "nvidia.com/gpu": "1", "nvidia.com/mig-1g.5gb": "0" })]);
    expect(pools[0]).toMatchObject({ gpuModel: "L4", gpuResource: "nvidia.com/gpu", gpusPerNode: 1, warnings: [] });
  });

  it("uses the most common per-node amounts when nodes differ, and says so", () => {
    const { pools } = proposePools([gkeH100("a"), gkeH100("b"), gkeH100("c", { "nvidia.com/gpu": "0", cpu: "207" })]);
    const pool = pools[0]!;
    expect(pool).toMatchObject({ nodeCount: 3, gpusPerNode: 8, gpuResource: "nvidia.com/gpu", cpuPerNode: 207.6 });
    expect(pool.warnings).toEqual([
      "nodes differ in GPUs (8 × nvidia.com/gpu (H100 80GB HBM3); no GPUs); the most common, 8 × nvidia.com/gpu (H100 80GB HBM3), is used",
      "nodes differ in allocatable CPU (207.6 cores; 207 cores); the most common, 207.6 cores, is used",
    ]);
  });

  it("breaks a tie towards the smaller amount", () => {
    const { pools } = proposePools([
      node("a", { "karpenter.sh/nodepool": "mixed" }, { cpu: "16", memory: "64Gi" }),
      node("b", { "karpenter.sh/nodepool": "mixed" }, { cpu: "8", memory: "32Gi" }),
    ]);
    expect(pools[0]).toMatchObject({ cpuPerNode: 8, memoryBytesPerNode: 32 * GiB });
  });

  it("skips control-plane nodes and groups nodes without any pool label apart", () => {
    const { pools, skipped } = proposePools([
      node("cp-1", { "node-role.kubernetes.io/control-plane": "" }, { cpu: "4", memory: "8Gi" }),
      node("odd-1", {}, { cpu: "2", memory: "4Gi" }),
    ]);
    expect(skipped).toEqual([{ name: "cp-1", reason: "control-plane node" }]);
    expect(pools).toHaveLength(1);
    expect(pools[0]).toMatchObject({ name: UNGROUPED, groupedBy: null, nodeCount: 1, cpuPerNode: 2, memoryBytesPerNode: 4 * GiB });
    expect(pools[0]!.warnings[0]).toMatch(/carry none of the pool labels/);
  });

  it("names a GPU without a product label so that the admin renames it, and reports missing allocatable", () => {
    const { pools } = proposePools([node("g", { "karpenter.sh/nodepool": "gpu" }, { "nvidia.com/gpu": "2" })]);
    expect(pools[0]).toMatchObject({ gpuModel: "unknown GPU", gpuResource: "nvidia.com/gpu", gpusPerNode: 2, cpuPerNode: 0, memoryBytesPerNode: 0 });
    expect(pools[0]!.warnings).toEqual([
      "no nvidia.com/gpu.product label: the GPU model is called “unknown GPU”; rename it after importing",
      "no allocatable CPU reported",
      "no allocatable memory reported",
    ]);
  });

  it("reads time-slicing from the labels GPU feature discovery sets: physical GPUs, replicas, -SHARED product", () => {
    const labels = {
      "cloud.google.com/gke-nodepool": "l4-shared",
      "nvidia.com/gpu.product": "NVIDIA-L4-SHARED",
      "nvidia.com/gpu.count": "2",
      "nvidia.com/gpu.replicas": "4",
      "nvidia.com/gpu.sharing-strategy": "time-slicing",
      "nvidia.com/gpu.memory": "23034",
    };
    const { pools } = proposePools([node("l4-a", labels, { cpu: "16", memory: "60Gi", "nvidia.com/gpu": "8" }), node("l4-b", labels, { cpu: "16", memory: "60Gi", "nvidia.com/gpu": "8" })]);
    expect(pools[0]).toMatchObject({ gpuModel: "L4 shared x4", gpuResource: "nvidia.com/gpu", gpusPerNode: 2, gpuSharing: "time_sliced", gpuSlices: 4, warnings: [] });
    // The pool label and the hardware labels, not the memory (not an identifying label).
    expect(pools[0]!.nodeLabels).toEqual({
      "cloud.google.com/gke-nodepool": "l4-shared",
      "nvidia.com/gpu.count": "2",
      "nvidia.com/gpu.product": "NVIDIA-L4-SHARED",
      "nvidia.com/gpu.replicas": "4",
      "nvidia.com/gpu.sharing-strategy": "time-slicing",
    });
  });

  it("reads time-slicing renamed to nvidia.com/gpu.shared, and says when the count does not add up", () => {
    const labels = { "karpenter.sh/nodepool": "t4", "nvidia.com/gpu.product": "Tesla-T4", "nvidia.com/gpu.replicas": "4", "nvidia.com/gpu.count": "1" };
    const { pools } = proposePools([node("t4-a", labels, { cpu: "8", memory: "30Gi", "nvidia.com/gpu.shared": "4" })]);
    expect(pools[0]).toMatchObject({ gpuModel: "Tesla T4 shared x4", gpuResource: "nvidia.com/gpu.shared", gpusPerNode: 1, gpuSharing: "time_sliced", gpuSlices: 4, warnings: [] });
    const odd = proposePools([node("t4-b", labels, { cpu: "8", memory: "30Gi", "nvidia.com/gpu.shared": "6" })]).pools[0]!;
    expect(odd.warnings).toEqual(["advertises 6 × nvidia.com/gpu.shared, not 1 GPUs × 4 replicas: 4 are counted"]);
  });

  it("reads MIG single strategy from the product label, counting MIG instances", () => {
    const labels = { "eks.amazonaws.com/nodegroup": "a100-single", "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", "nvidia.com/mig.strategy": "single", "nvidia.com/mig.config": "all-1g.5gb", "nvidia.com/gpu.count": "8" };
    const { pools } = proposePools([node("a", labels, { cpu: "90", memory: "1000Gi", "nvidia.com/gpu": "56" })]);
    expect(pools[0]).toMatchObject({ gpuModel: "A100 SXM4 40GB 1g.5gb", gpuResource: "nvidia.com/gpu", gpusPerNode: 56, gpuSharing: "mig", gpuSlices: 1 });
    expect(pools[0]!.nodeLabels).toMatchObject({ "nvidia.com/mig.strategy": "single", "nvidia.com/mig.config": "all-1g.5gb", "nvidia.com/gpu.count": "8" });
  });

  it("records the taints every node carries, not the control plane's, and names those on some nodes only", () => {
    const gpuTaint = { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" as const };
    const { pools } = proposePools([
      { ...gkeH100("a"), taints: [gpuTaint, { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" }] },
      { ...gkeH100("b"), taints: [{ key: "spot", effect: "NoExecute" }, gpuTaint] },
    ]);
    expect(pools[0]!.nodeTaints).toEqual([gpuTaint]);
    expect(pools[0]!.warnings).toEqual(["only some nodes carry the taint spot:NoExecute: not recorded"]);
  });

  it("records only the labels every node carries alike", () => {
    const { pools } = proposePools([gkeH100("a"), node("b", { ...H100_LABELS, "node.kubernetes.io/instance-type": "a3-megagpu-8g" }, { cpu: "207600m", memory: "1870000Mi", "nvidia.com/gpu": "8" })]);
    expect(pools[0]!.nodeLabels).toEqual({ "cloud.google.com/gke-nodepool": "h100-pool", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" });
  });

  it("proposes nothing for an empty cluster", () => {
    expect(proposePools([])).toEqual({ pools: [], skipped: [] });
  });
});

describe("compareWithExisting", () => {
  const stored: ExistingPool = {
    name: "h100-pool",
    gpuModel: "H100",
    gpuResource: "nvidia.com/gpu",
    gpusPerNode: 8,
    nodeCount: 4,
    minNodes: 2,
    maxNodes: 6,
    cpuPerNode: 207.6,
    memoryBytesPerNode: 1870000 * 2 ** 20,
    nodeLabels: H100_LABELS,
    nodeTaints: [],
    gpuSharing: "exclusive",
    gpuSlices: 1,
    offeredGpuResources: [{ resource: "nvidia.com/gpu", perNode: 8 }],
    gpuProfiles: [],
    tiers: ["training"],
    version: 3,
  };

  it("marks pools new, changed or unchanged, keeping the admin's model name and autoscaling bounds", () => {
    const { pools } = proposePools([
      gkeH100("a"),
      gkeH100("b"),
      gkeH100("c"),
      gkeH100("d"),
      node("cpu-1", { "cloud.google.com/gke-nodepool": "cpu" }, { cpu: "64", memory: "256Gi" }),
    ]);
    const items = compareWithExisting(pools, [stored]);
    expect(items.map((i) => [i.pool.name, i.status])).toEqual([
      ["cpu", "new"],
      ["h100-pool", "unchanged"],
    ]);
    expect(items[1]!.pool).toEqual({ ...stored, version: 3 });
    expect(items[0]!.pool).toMatchObject({ version: null, minNodes: null, maxNodes: null });
  });

  it("lists what changes, and widens the autoscaling bounds to take in the node count found", () => {
    const nodes = Array.from({ length: 7 }, (_, i) => gkeH100(`n${i}`));
    const [item] = compareWithExisting(proposePools(nodes).pools, [stored]);
    expect(item!.status).toBe("changed");
    expect(item!.changes).toEqual([
      { field: "nodeCount", from: 4, to: 7 },
      { field: "maxNodes", from: 6, to: 7 },
    ]);
    expect(item!.pool).toMatchObject({ gpuModel: "H100", minNodes: 2, maxNodes: 7, version: 3 });
  });

  it("keeps the admin's name of a further profile whose resource the nodes still offer, and lists a new profile as a change", () => {
    const labels = { "cloud.google.com/gke-nodepool": "a100-mig", "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB" };
    const mixed = (name: string) => node(name, labels, { cpu: "96", memory: "1152Gi", "nvidia.com/mig-1g.10gb": "28", "nvidia.com/mig-3g.40gb": "2", "nvidia.com/mig-2g.20gb": "1" });
    const mig: ExistingPool = {
      ...stored,
      name: "a100-mig",
      gpuModel: "A100 1g.10gb",
      gpuResource: "nvidia.com/mig-1g.10gb",
      gpusPerNode: 28,
      nodeCount: 2,
      minNodes: null,
      maxNodes: null,
      gpuSharing: "mig",
      gpuProfiles: [{ model: "A100 3g.40gb", resource: "nvidia.com/mig-3g.40gb", perNode: 2 }],
    };
    const [item] = compareWithExisting(proposePools([mixed("m-0"), mixed("m-1")]).pools, [mig]);
    expect(item!.pool.gpuModel).toBe("A100 1g.10gb");
    expect(item!.pool.gpuProfiles).toEqual([
      { model: "A100 SXM4 80GB 2g.20gb", resource: "nvidia.com/mig-2g.20gb", perNode: 1 },
      { model: "A100 3g.40gb", resource: "nvidia.com/mig-3g.40gb", perNode: 2 },
    ]);
    expect(item!.changes.find((c) => c.field === "gpuProfiles")).toEqual({
      field: "gpuProfiles",
      from: "A100 3g.40gb (nvidia.com/mig-3g.40gb ×2 per node)",
      to: "A100 SXM4 80GB 2g.20gb (nvidia.com/mig-2g.20gb ×1 per node), A100 3g.40gb (nvidia.com/mig-3g.40gb ×2 per node)",
    });
  });

  it("takes the cluster's model name when the GPU resource changed", () => {
    const migNodes = [node("m", { "cloud.google.com/gke-nodepool": "h100-pool", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" }, { cpu: "207600m", memory: "1870000Mi", "nvidia.com/mig-1g.10gb": "56" })];
    const [item] = compareWithExisting(proposePools(migNodes).pools, [stored]);
    expect(item!.pool).toMatchObject({ gpuModel: "H100 80GB HBM3 1g.10gb", gpuResource: "nvidia.com/mig-1g.10gb", gpusPerNode: 56 });
    expect(item!.changes.map((c) => c.field)).toEqual(["gpuModel", "gpuResource", "gpusPerNode", "gpuSharing", "nodeCount", "minNodes", "nodeLabels", "offeredGpuResources"]);
    expect(item!.changes.at(-1)).toEqual({ field: "offeredGpuResources", from: "nvidia.com/gpu ×8", to: "nvidia.com/mig-1g.10gb ×56" });
    expect(item!.changes.find((c) => c.field === "nodeLabels")).toEqual({
      field: "nodeLabels",
      from: "cloud.google.com/gke-nodepool=h100-pool, node.kubernetes.io/instance-type=a3-highgpu-8g, nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3",
      to: "cloud.google.com/gke-nodepool=h100-pool, nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3",
    });
    // The tiers are the admin's: the cluster does not say.
    expect(item!.pool.tiers).toEqual(["training"]);
  });

  it("takes the cluster's model name when the pool turns time-sliced, and shows taints as lines", () => {
    const shared = { ...H100_LABELS, "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-SHARED", "nvidia.com/gpu.replicas": "2", "nvidia.com/gpu.count": "8" };
    const nodes = Array.from({ length: 4 }, (_, i) => ({ ...node(`s${i}`, shared, { cpu: "207600m", memory: "1870000Mi", "nvidia.com/gpu": "16" }), taints: [{ key: "gpu", effect: "NoSchedule" as const }] }));
    const [item] = compareWithExisting(proposePools(nodes).pools, [stored]);
    expect(item!.pool).toMatchObject({ gpuModel: "H100 80GB HBM3 shared x2", gpusPerNode: 8, gpuSharing: "time_sliced", gpuSlices: 2 });
    expect(item!.changes.find((c) => c.field === "nodeTaints")).toEqual({ field: "nodeTaints", from: "none", to: "gpu:NoSchedule" });
    expect(item!.changes.find((c) => c.field === "gpuSlices")).toEqual({ field: "gpuSlices", from: 1, to: 2 });
  });
});
