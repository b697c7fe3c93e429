import { describe, expect, it } from "vitest";
import { GiB } from "./amounts";
import { clusterCapacity, type PoolCapacityInput } from "./capacity";
import { DEFAULT_QUOTA_POLICY } from "./policy";
import { describeAmounts, formatBytes, formatMoney, parseAmountInputs, previewRequest, type PreviewBasis } from "./view-helpers";

const pools: PoolCapacityInput[] = [
  { name: "h100", gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 4, maxNodes: 6, cpuPerNode: 208, memoryBytesPerNode: 1800 * GiB },
  { name: "cpu", gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 20, maxNodes: null, cpuPerNode: 64, memoryBytesPerNode: 256 * GiB },
];

const basis: PreviewBasis = {
  current: { quota: { cpuCores: 4, memoryBytes: 16 * GiB, storageBytes: 100 * GiB, pvcCount: 10, gpus: { "nvidia.com/gpu": 2 } }, gpusByModel: { H100: 2 } },
  gpuResources: { H100: "nvidia.com/gpu" },
  prices: [
    ["gpu:H100", 4.1],
    ["cpu", 0.031],
  ],
  capacity: [...clusterCapacity(pools, DEFAULT_QUOTA_POLICY.overcommit)],
  allocated: { cpuCores: 100, memoryBytes: 400 * GiB, gpusByModel: { H100: 40 } },
  policy: DEFAULT_QUOTA_POLICY,
};

const inputs = { gpuModel: "", gpuCount: "", cpuCores: "", memory: "", storage: "" };

describe("the request form's live preview", () => {
  it("reads the fields as the command does, naming each field that does not parse", () => {
    expect(parseAmountInputs({ ...inputs, gpuModel: "H100", gpuCount: "4", cpuCores: "500m", memory: "64Gi", storage: "2" })).toEqual({
      amounts: { gpuModel: "H100", gpuCount: 4, cpuCores: 0.5, memoryBytes: 64 * GiB, storageBytes: 2 * GiB },
      problems: {},
    });
    const bad = parseAmountInputs({ ...inputs, gpuCount: "2", cpuCores: "-1", memory: "1e400" });
    expect(bad.amounts).toEqual({ gpuModel: null, gpuCount: 2, cpuCores: 0, memoryBytes: 0, storageBytes: 0 });
    expect(Object.keys(bad.problems).sort()).toEqual(["cpuCores", "gpuModel", "memory"]);
  });

  it("adds the request to the quota, prices it, and flags what the pools cannot hold", () => {
    const p = previewRequest(basis, { gpuModel: "H100", gpuCount: 4, cpuCores: 2, memoryBytes: 0, storageBytes: 0 });
    expect(p.after.quota.gpus).toEqual({ "nvidia.com/gpu": 6 });
    expect(p.after.gpusByModel).toEqual({ H100: 6 });
    expect(p.after.quota.cpuCores).toBe(6);
    expect(p.estimate.monthly).toBe(11972 + 45.26);
    expect(p.capacity.map((l) => [l.resource, l.before, l.after, l.exceeds])).toEqual([
      ["cpu", 100, 102, false],
      ["gpu:H100", 40, 44, false],
    ]);
    expect(p.auto.auto).toBe(false);

    const big = previewRequest(basis, { gpuModel: "H100", gpuCount: 9, cpuCores: 0, memoryBytes: 0, storageBytes: 0 });
    expect(big.capacity).toEqual([expect.objectContaining({ resource: "gpu:H100", capacity: 48, after: 49, exceeds: true })]);
    expect(big.auto).toEqual({ auto: false, reason: "it would exceed the capacity of the cluster" });
  });

  it("says when the automatic rules approve, and leaves unpriced resources out of the estimate", () => {
    const small = previewRequest(basis, { gpuModel: null, gpuCount: 0, cpuCores: 2, memoryBytes: 8 * GiB, storageBytes: 0 });
    expect(small.auto.auto).toBe(true);
    expect(small.estimate.unpriced).toEqual(["memory"]);
  });

  it("formats amounts as people read them", () => {
    expect(describeAmounts({ gpuModel: "H100", gpuCount: 4, cpuCores: 0.5, memoryBytes: 64 * GiB, storageBytes: 2048 * GiB })).toBe("4 × H100, 0.5 cores, 64 GiB memory, 2 TiB storage");
    expect(describeAmounts({ gpuModel: null, gpuCount: 0, cpuCores: 0, memoryBytes: 0, storageBytes: 0 })).toBe("nothing");
    expect(formatBytes(1.5 * GiB)).toBe("1.5 GiB");
    expect(formatMoney(11972, "USD")).toBe("$11,972.00");
  });
});
