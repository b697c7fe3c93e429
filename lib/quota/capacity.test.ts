import { describe, expect, it } from "vitest";
import { capacityAtMinNowMax, capacityImpact, clusterCapacity, minNodesOf, type PoolCapacityInput } from "./capacity";

const GiB = 2 ** 30;
const ONE = { cpu: 1, memory: 1, gpu: 1 };

const h100: PoolCapacityInput = { name: "h100", gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 4, minNodes: 2, maxNodes: 6, cpuPerNode: 208, memoryBytesPerNode: 1800 * GiB };
const l4Shared: PoolCapacityInput = {
  name: "l4-shared",
  gpuModel: "L4 shared x4",
  gpuResource: "nvidia.com/gpu",
  gpusPerNode: 2,
  gpuSharing: "time_sliced",
  gpuSlices: 4,
  nodeCount: 3,
  minNodes: null,
  maxNodes: 5,
  cpuPerNode: 16,
  memoryBytesPerNode: 64 * GiB,
};
const mig: PoolCapacityInput = { name: "a100-mig", gpuModel: "A100 1g.10gb", gpuResource: "nvidia.com/mig-1g.10gb", gpusPerNode: 56, gpuSharing: "mig", nodeCount: 2, maxNodes: null, cpuPerNode: 96, memoryBytesPerNode: 1000 * GiB };
const cpu: PoolCapacityInput = { name: "cpu", gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 20, minNodes: 5, maxNodes: 30, cpuPerNode: 64, memoryBytesPerNode: 256 * GiB };

describe("what a pool offers of its GPU model", () => {
  it("counts a time-sliced pool's slices (GPUs × replicas) and a MIG pool's instances", () => {
    const cap = clusterCapacity([h100, l4Shared, mig], ONE);
    expect(cap.get("gpu:L4 shared x4")).toBe(3 * 2 * 4);
    expect(cap.get("gpu:A100 1g.10gb")).toBe(2 * 56);
    expect(cap.get("gpu:H100")).toBe(32);
    expect(clusterCapacity([l4Shared], ONE, true).get("gpu:L4 shared x4")).toBe(5 * 8);
  });

  it("checks a request for slices against the slices (so 20 of 24 fit now)", () => {
    const lines = capacityImpact([l4Shared], ONE, { cpuCores: 0, memoryBytes: 0, gpusByModel: {} }, { cpuCores: 0, memoryBytes: 0, gpusByModel: { "L4 shared x4": 20 } });
    expect(lines.find((l) => l.resource === "gpu:L4 shared x4")).toMatchObject({ capacity: 24, capacityAtMax: 40, after: 20, exceeds: false, fit: { kind: "fits" } });
  });
});

describe("capacityAtMinNowMax", () => {
  it("says per flavour what the pools hold at their minimum, now and at their maximum, with each pool's part", () => {
    const ranges = capacityAtMinNowMax([l4Shared, h100, cpu, mig], ONE);
    expect(ranges.map((r) => r.resource)).toEqual(["cpu", "memory", "gpu:A100 1g.10gb", "gpu:H100", "gpu:L4 shared x4"]);
    const byKey = Object.fromEntries(ranges.map((r) => [r.resource, r]));
    expect(byKey["gpu:H100"]).toEqual({
      resource: "gpu:H100",
      label: "H100 GPUs",
      atMin: 16,
      now: 32,
      atMax: 48,
      pools: [{ pool: "h100", nodes: { atMin: 2, now: 4, atMax: 6 }, atMin: 16, now: 32, atMax: 48 }],
    });
    // No minimum: the nodes present; no maximum: the nodes present.
    expect(byKey["gpu:L4 shared x4"]).toMatchObject({ atMin: 24, now: 24, atMax: 40 });
    expect(byKey["gpu:A100 1g.10gb"]).toMatchObject({ atMin: 112, now: 112, atMax: 112 });
    // CPU from every pool: at the minimum 2 × 208 + 3 × 16 + 2 × 96 + 5 × 64.
    expect(byKey.cpu).toMatchObject({ atMin: 416 + 48 + 192 + 320, now: 832 + 48 + 192 + 1280, atMax: 1248 + 80 + 192 + 1920 });
    expect(byKey.cpu!.pools.map((p) => p.pool)).toEqual(["a100-mig", "cpu", "h100", "l4-shared"]);
  });

  it("applies the overcommit, rounding GPUs down per pool", () => {
    const [range] = capacityAtMinNowMax([{ ...l4Shared, gpuModel: "L4", cpuPerNode: 0, memoryBytesPerNode: 0 }, { ...l4Shared, name: "l4-b", gpuModel: "L4", nodeCount: 1, maxNodes: 1, cpuPerNode: 0, memoryBytesPerNode: 0 }], {
      cpu: 2,
      memory: 1,
      gpu: 1.1,
    }).filter((r) => r.resource === "gpu:L4");
    // 24 slices × 1.1 = 26.4 -> 26, and 8 × 1.1 = 8.8 -> 8.
    expect(range).toMatchObject({ now: 26 + 8, atMax: 44 + 8 });
    expect(capacityAtMinNowMax([cpu], { cpu: 2, memory: 1.5, gpu: 1 }).map((r) => [r.resource, r.atMin, r.now])).toEqual([
      ["cpu", 5 * 64 * 2, 20 * 64 * 2],
      ["memory", 5 * 256 * GiB * 1.5, 20 * 256 * GiB * 1.5],
    ]);
  });

  it("never counts a minimum above the nodes present, and says nothing for no pools", () => {
    expect(minNodesOf({ nodeCount: 2, minNodes: 5 })).toBe(2);
    expect(minNodesOf({ nodeCount: 2 })).toBe(2);
    expect(capacityAtMinNowMax([], ONE)).toEqual([]);
  });
});
