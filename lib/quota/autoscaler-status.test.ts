import { describe, expect, it } from "vitest";
import { boundsForPool, nodeGroupBounds } from "./autoscaler-status";

/** The YAML status Cluster Autoscaler 1.30+ writes (fields it does not matter to us trimmed). */
const YAML_STATUS = `time: 2026-12-02 11:59:00.123 +0000 UTC
autoscalerStatus: Running
clusterWide:
  health:
    status: Healthy
nodeGroups:
- name: https://www.googleapis.com/compute/v1/projects/ml/zones/us-central1-a/instanceGroups/gke-ml-h100-pool-1a2b3c4d-grp
  health:
    status: Healthy
    nodeCounts:
      registered:
        total: 3
        ready: 3
    cloudProviderTarget: 3
    minSize: 3
    maxSize: 8
- name: eks-l4-inference-7ec5a1d2-0f1b-4c6a-9d3e-2b8a1f0c9e77
  health:
    status: Healthy
    cloudProviderTarget: 1
    minSize: 0
    maxSize: 4
- name: broken
  health:
    minSize: 5
    maxSize: 2
`;

/** The text status of older releases. */
const TEXT_STATUS = `Cluster-autoscaler status at 2018-07-25 22:59:22.661669494 +0000 UTC:
Cluster-wide:
  Health:      Healthy (ready=1 unready=0 notStarted=0 longNotStarted=0 registered=1 longUnregistered=0)
NodeGroups:
  Name:        aks-gpupool-12345678-vmss
  Health:      Healthy (ready=1 unready=0 notStarted=0 longNotStarted=0 registered=1 longUnregistered=0 cloudProviderTarget=1 (minSize=1, maxSize=5))
               LastProbeTime:      2018-07-25 22:59:22.067828801 +0000 UTC
  ScaleUp:     NoActivity (ready=1 cloudProviderTarget=1)
  Name:        nodepool1
  Health:      Healthy (ready=2 unready=0 cloudProviderTarget=2 (minSize=2, maxSize=2))
`;

describe("the Cluster Autoscaler's status", () => {
  it("reads each node group's bounds from the YAML format, leaving out bounds that contradict themselves", () => {
    expect(nodeGroupBounds(YAML_STATUS)).toEqual([
      { name: "https://www.googleapis.com/compute/v1/projects/ml/zones/us-central1-a/instanceGroups/gke-ml-h100-pool-1a2b3c4d-grp", minSize: 3, maxSize: 8 },
      { name: "eks-l4-inference-7ec5a1d2-0f1b-4c6a-9d3e-2b8a1f0c9e77", minSize: 0, maxSize: 4 },
    ]);
  });

  it("reads the older text format", () => {
    expect(nodeGroupBounds(TEXT_STATUS)).toEqual([
      { name: "aks-gpupool-12345678-vmss", minSize: 1, maxSize: 5 },
      { name: "nodepool1", minSize: 2, maxSize: 2 },
    ]);
    expect(nodeGroupBounds("")).toEqual([]);
    expect(nodeGroupBounds("nodeGroups: not a list")).toEqual([]);
  });

  it("gives a pool the bounds of the one group whose cloud name carries the pool's name (GKE, EKS, AKS), exact names first", () => {
    const groups = [...nodeGroupBounds(YAML_STATUS), ...nodeGroupBounds(TEXT_STATUS)];
    expect(boundsForPool("h100-pool", groups)).toMatchObject({ kind: "found", minSize: 3, maxSize: 8 });
    expect(boundsForPool("l4-inference", groups)).toMatchObject({ kind: "found", minSize: 0, maxSize: 4 });
    expect(boundsForPool("gpupool", groups)).toMatchObject({ kind: "found", group: "aks-gpupool-12345678-vmss", minSize: 1, maxSize: 5 });
    expect(boundsForPool("nodepool1", groups)).toMatchObject({ kind: "found", minSize: 2, maxSize: 2 });
    // Part of a pool's name, or a pool whose name is inside another's, is not that pool.
    // (GKE's name cannot tell cluster from pool where both have hyphens: a pool "pool" would match cluster "ml-h100" here.)
    expect(boundsForPool("h100-poo", groups)).toEqual({ kind: "none" });
    expect(boundsForPool("inference", groups)).toEqual({ kind: "none" });
    expect(boundsForPool("h100", groups)).toEqual({ kind: "none" });
  });

  it("refuses to guess between two groups that could both be the pool (the same pool in two zones)", () => {
    const groups = [
      { name: "projects/ml/zones/us-central1-a/instanceGroups/gke-ml-gpu-aaaaaaaa-grp", minSize: 1, maxSize: 2 },
      { name: "projects/ml/zones/us-central1-b/instanceGroups/gke-ml-gpu-bbbbbbbb-grp", minSize: 1, maxSize: 4 },
    ];
    expect(boundsForPool("gpu", groups)).toEqual({ kind: "ambiguous", groups: groups.map((g) => g.name) });
  });
});
