import { describe, expect, it } from "vitest";
import { GiB } from "./amounts";
import { parseAmountInputs } from "./amount-inputs";
import { type PoolCapacityInput } from "./capacity";
import { DEFAULT_QUOTA_POLICY } from "./policy";
import {
  budgetBasisOf,
  checkBudget,
  computeBurstHint,
  describeAmounts,
  formatBytes,
  formatMoney,
  formatPercent,
  formatUsageQuantity,
  previewRequest,
  type PreviewBasis,
} from "./view-helpers";

const pools: PoolCapacityInput[] = [
  { name: "h100", gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 4, maxNodes: 6, cpuPerNode: 208, memoryBytesPerNode: 1800 * GiB },
  { name: "cpu", gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 20, maxNodes: null, cpuPerNode: 64, memoryBytesPerNode: 256 * GiB },
];

const basis: PreviewBasis = {
  current: { quota: { cpuCores: 4, memoryBytes: 16 * GiB, storageBytes: 100 * GiB, pvcCount: 10, gpus: { "nvidia.com/gpu": 2 } }, gpusByModel: { H100: 2 } },
  currency: "USD",
  gpuResources: { H100: "nvidia.com/gpu" },
  prices: [
    ["gpu:H100", 4.1],
    ["cpu", 0.031],
  ],
  pools,
  allocated: { cpuCores: 100, memoryBytes: 400 * GiB, gpusByModel: { H100: 28 } },
  policy: DEFAULT_QUOTA_POLICY,
};

const inputs = { gpus: [{ model: "", count: "" }], cpuCores: "", memory: "", storage: "" };
const H100 = (count: number, burst = 0) => ({ model: "H100", count, burst });

describe("a request of several GPU models in the preview", () => {
  const withL4: PreviewBasis = {
    ...basis,
    gpuResources: { H100: "nvidia.com/gpu", L4: "nvidia.com/gpu.l4" },
    prices: [...basis.prices, ["gpu:L4", 0.8]],
    pools: [...pools, { name: "l4", gpuModel: "L4", gpuResource: "nvidia.com/gpu.l4", gpusPerNode: 4, nodeCount: 2, maxNodes: 4, cpuPerNode: 48, memoryBytesPerNode: 192 * GiB }],
  };
  const two = { gpus: [H100(2, 2), { model: "L4", count: 4, burst: 0 }], cpuCores: 0, memoryBytes: 0, storageBytes: 0 };

  it("adds each model on its own resource, prices each at its rate and shows each model's capacity", () => {
    const p = previewRequest(withL4, two);
    expect(p.after.quota.gpus).toEqual({ "nvidia.com/gpu": 4, "nvidia.com/gpu.l4": 4 });
    expect(p.after.gpusByModel).toEqual({ H100: 4, L4: 4 });
    expect(p.after.burstByModel).toEqual({ H100: 2 });
    expect(p.after.quota.burst!.gpus).toEqual({ "nvidia.com/gpu": 2 });
    expect(p.estimate.lines.map((l) => [l.resource, l.quantity])).toEqual([
      ["gpu:H100", 2],
      ["gpu:L4", 4],
    ]);
    expect(p.capacity.map((l) => l.resource)).toEqual(["gpu:H100", "gpu:L4"]);
  });

  it("suggests CPU and memory burst for the borrowed GPUs of every model with burst", () => {
    const both = { ...two, gpus: [H100(0, 4), { model: "L4", count: 0, burst: 2 }] };
    expect(computeBurstHint(withL4, both, previewRequest(withL4, both).after.quota)).toEqual({
      missing: ["cpuBurst", "memoryBurst"],
      gpus: 6,
      gpuModel: "H100 and L4",
      suggested: { pool: "h100 and l4", cores: 104 + 24, memoryBytes: 900 * GiB + 96 * GiB },
    });
  });
});

describe("the request form's live preview", () => {
  it("reads the fields as the command does, naming each field that does not parse", () => {
    expect(parseAmountInputs({ ...inputs, gpus: [{ model: "H100", count: "4" }], cpuCores: "500m", memory: "64Gi", storage: "2" })).toEqual({
      amounts: { gpus: [H100(4)], cpuCores: 0.5, memoryBytes: 64 * GiB, storageBytes: 2 * GiB },
      problems: {},
    });
    const bad = parseAmountInputs({ ...inputs, gpus: [{ model: "", count: "2" }, { model: "L4", count: "x" }], cpuCores: "-1", memory: "1e400" });
    expect(bad.amounts).toEqual({ gpus: [], cpuCores: 0, memoryBytes: 0, storageBytes: 0 });
    expect(Object.keys(bad.problems).sort()).toEqual(["cpuCores", "gpus.0.model", "gpus.1.count", "memory"]);
    const twice = parseAmountInputs({ ...inputs, gpus: [{ model: "H100", count: "2" }, { model: "H100", count: "1" }] });
    expect(twice.problems["gpus.1.model"]).toMatch(/^GPU model 2: H100 is already asked for as GPU model 1/);
  });

  it("reads the burst fields when the form shows them, naming the one that does not parse", () => {
    expect(parseAmountInputs({ ...inputs, gpus: [{ model: "H100", count: "", burst: "4" }], cpuBurst: "32", memoryBurst: "256Gi" }).amounts).toEqual({
      gpus: [H100(0, 4)],
      cpuCores: 0,
      cpuBurst: 32,
      memoryBytes: 0,
      memoryBurstBytes: 256 * GiB,
      storageBytes: 0,
    });
    const bad = parseAmountInputs({ ...inputs, cpuBurst: "lots", memoryBurst: "-1" });
    expect(bad.problems).toEqual({ cpuBurst: "Enter a number of cores such as 16 or 500m.", memoryBurst: "Enter a number of GiB such as 128, or a quantity such as 128Gi." });
  });

  it("adds CPU and memory burst to the hard cap after approval, neither priced nor counted against capacity", () => {
    const p = previewRequest(basis, { gpus: [H100(0, 4)], cpuCores: 0, cpuBurst: 32, memoryBytes: 0, memoryBurstBytes: 256 * GiB, storageBytes: 0 });
    expect(p.after.quota.burst).toEqual({ cpuCores: 32, memoryBytes: 256 * GiB, gpus: { "nvidia.com/gpu": 4 } });
    expect(p.after.quota.cpuCores).toBe(4);
    expect(p.after.burstByModel).toEqual({ H100: 4 });
    expect(p.estimate.monthly).toBe(0);
    expect(p.capacity).toEqual([]);
    expect(p.auto).toEqual({ auto: false, reason: "it asks for burst GPUs, CPU and memory, which a platform admin decides" });
    const cpuOnly = previewRequest({ ...basis, current: { ...basis.current, quota: { ...basis.current.quota, burst: { cpuCores: 8, memoryBytes: 0, gpus: { "nvidia.com/gpu": 2 } } } } }, { gpus: [], cpuCores: 0, cpuBurst: 0.5, memoryBytes: 0, storageBytes: 0 });
    expect(cpuOnly.after.quota.burst).toEqual({ cpuCores: 8.5, memoryBytes: 0, gpus: { "nvidia.com/gpu": 2 } });
    expect(describeAmounts({ gpus: [], cpuCores: 4, cpuBurst: 0.5, memoryBytes: 0, memoryBurstBytes: 64 * GiB, storageBytes: 0 })).toBe("4 cores, burst up to 0.5 more cores, burst up to 64 GiB more memory");
  });

  it("says when GPUs could be borrowed without CPU or memory to run them, and what the GPU pool's nodes give per GPU", () => {
    const gpuOnly = { gpus: [H100(0, 4)], cpuCores: 0, memoryBytes: 0, storageBytes: 0 };
    const after = (a: typeof gpuOnly & { cpuBurst?: number; memoryBurstBytes?: number }) => previewRequest(basis, a).after.quota;
    // 208 cores and 1,800 GiB for 8 H100: 104 cores and 900 GiB for 4.
    expect(computeBurstHint(basis, gpuOnly, after(gpuOnly))).toEqual({ missing: ["cpuBurst", "memoryBurst"], gpus: 4, gpuModel: "H100", suggested: { pool: "h100", cores: 104, memoryBytes: 900 * GiB } });
    const withCpu = { ...gpuOnly, cpuBurst: 16 };
    expect(computeBurstHint(basis, withCpu, after(withCpu))?.missing).toEqual(["memoryBurst"]);
    const both = { ...withCpu, memoryBurstBytes: 64 * GiB };
    expect(computeBurstHint(basis, both, after(both))).toBeNull();
    // Burst the project already holds counts: it borrows CPU and memory already.
    const held = { ...basis.current.quota, burst: { cpuCores: 8, memoryBytes: 32 * GiB, gpus: {} } };
    expect(computeBurstHint(basis, gpuOnly, { ...held, burst: { ...held.burst, gpus: { "nvidia.com/gpu": 4 } } })).toBeNull();
    expect(computeBurstHint({ pools: [] }, gpuOnly, after(gpuOnly))).toMatchObject({ suggested: null });
    expect(computeBurstHint(basis, { ...gpuOnly, gpus: [H100(4)] }, after(gpuOnly))).toBeNull();
  });

  it("adds the request to the quota, prices it, and flags what the pools cannot hold", () => {
    const p = previewRequest(basis, { gpus: [H100(4)], cpuCores: 2, memoryBytes: 0, storageBytes: 0 });
    expect(p.after.quota.gpus).toEqual({ "nvidia.com/gpu": 6 });
    expect(p.after.gpusByModel).toEqual({ H100: 6 });
    expect(p.after.quota.cpuCores).toBe(6);
    expect(p.estimate.monthly).toBe(11972 + 45.26);
    expect(p.capacity.map((l) => [l.resource, l.before, l.after, l.exceeds])).toEqual([
      ["cpu", 100, 102, false],
      ["gpu:H100", 28, 32, false],
    ]);
    expect(p.auto.auto).toBe(false);

    // 4 H100 nodes are present (32 GPUs); the autoscaler may grow the pool to 6 (48).
    const grows = previewRequest(basis, { gpus: [H100(9)], cpuCores: 0, memoryBytes: 0, storageBytes: 0 });
    expect(grows.capacity).toEqual([
      expect.objectContaining({ resource: "gpu:H100", capacity: 32, capacityAtMax: 48, after: 37, exceeds: true, fit: { kind: "grows", pools: [{ pool: "h100", nodes: 4, to: 5, max: 6 }] } }),
    ]);
    expect(grows.auto).toEqual({ auto: false, reason: "it fits only when the autoscaler adds nodes" });

    const big = previewRequest(basis, { gpus: [H100(21)], cpuCores: 0, memoryBytes: 0, storageBytes: 0 });
    expect(big.capacity).toEqual([expect.objectContaining({ resource: "gpu:H100", capacity: 32, capacityAtMax: 48, after: 49, exceeds: true, fit: { kind: "does_not_fit", autoscales: true } })]);
    expect(big.auto).toEqual({ auto: false, reason: "it would exceed the capacity of the cluster" });
  });

  it("says when the automatic rules approve, and leaves unpriced resources out of the estimate", () => {
    const small = previewRequest(basis, { gpus: [], cpuCores: 2, memoryBytes: 8 * GiB, storageBytes: 0 });
    expect(small.auto.auto).toBe(true);
    expect(small.estimate.unpriced).toEqual(["memory"]);
  });

  it("counts what the project holds by automatic approval, as the server does (cumulative cap)", () => {
    const small = { gpus: [], cpuCores: 2, memoryBytes: 8 * GiB, storageBytes: 0 };
    const said = (b: PreviewBasis) => {
      const d = previewRequest(b, small).auto;
      return d.auto ? `approved: ${d.rule}` : `to a person: ${d.reason}`;
    };
    expect(said({ ...basis, autoApproved: { grants: 3, cpuCores: 22, memoryBytes: 0, storageBytes: 0, monthly: 0 } })).toMatch(/^approved: .*24 of 24 cores/);
    expect(said({ ...basis, autoApproved: { grants: 3, cpuCores: 22.5, memoryBytes: 0, storageBytes: 0, monthly: 0 } })).toMatch(
      /^to a person: the project's 3 automatically approved grants in force and this request would hold 24\.5 cores/,
    );
  });

  describe("the budget warning", () => {
    const fourH100 = { gpus: [H100(4)], cpuCores: 0, memoryBytes: 0, storageBytes: 0 };

    it("warns with the figures when this month's forecast plus the request's monthly estimate goes over the budget", () => {
      const p = previewRequest({ ...basis, budget: { monthlyAmount: 15_000, monthToDate: 1234.5, forecast: 4000 } }, fourH100);
      expect(p.budget).toEqual({ kind: "over", budget: 15_000, monthToDate: 1234.5, forecast: 4000, added: 11_972, total: 15_972, left: -972, forecastAlreadyOver: false, usageRecorded: true });
      // Live: fewer GPUs fit.
      const two = previewRequest({ ...basis, budget: { monthlyAmount: 15_000, monthToDate: 1234.5, forecast: 4000 } }, { ...fourH100, gpus: [H100(2)] });
      expect(two.budget).toMatchObject({ kind: "within", added: 5986, total: 9986, left: 5014 });
    });

    it("is exact at the boundary: a total equal to the budget is within it", () => {
      expect(checkBudget({ monthlyAmount: 1000, monthToDate: 0, forecast: 400 }, 600)).toMatchObject({ kind: "within", left: 0 });
      expect(checkBudget({ monthlyAmount: 1000, monthToDate: 0, forecast: 400.01 }, 600)).toMatchObject({ kind: "over", left: -0.01 });
    });

    it("says when the forecast alone is already over the budget", () => {
      expect(checkBudget({ monthlyAmount: 1000, monthToDate: 900, forecast: 1500 }, 0)).toMatchObject({ kind: "over", forecastAlreadyOver: true, left: -500 });
    });

    it("says plainly that no budget is set, and says nothing when the basis has no budget status (spend not visible)", () => {
      expect(previewRequest({ ...basis, budget: { monthlyAmount: null, monthToDate: 10, forecast: 55.555 } }, fourH100).budget).toEqual({ kind: "no_budget", monthToDate: 10, forecast: 55.56, added: 11_972, usageRecorded: true });
      expect(previewRequest(basis, fourH100).budget).toBeNull();
      expect(previewRequest({ ...basis, budget: null }, fourH100).budget).toBeNull();
    });

    it("reads the budget status of lib/metering", () => {
      expect(budgetBasisOf({ monthlyAmount: 2500, month: { monthToDate: 100, forecast: 900 } })).toEqual({ monthlyAmount: 2500, monthToDate: 100, forecast: 900, usageRecorded: true });
      expect(checkBudget(budgetBasisOf({ monthlyAmount: null, month: { monthToDate: 0, forecast: 0 } }, false), 10)).toMatchObject({ kind: "no_budget", usageRecorded: false });
    });
  });

  it("formats metered quantities and shares", () => {
    expect(formatUsageQuantity("gpu:H100", 620.4)).toBe("620 GPU-hours");
    expect(formatUsageQuantity("cpu", 12.34)).toBe("12.3 core-hours");
    expect(formatUsageQuantity("memory", 12_000)).toBe("12,000 GiB-hours");
    expect(formatUsageQuantity("inference", 5000)).toBe("5,000 requests");
    expect(formatUsageQuantity("tokens", 3)).toBe("3 units");
    expect(formatPercent(0.634)).toBe("63%");
    expect(formatPercent(0.045)).toBe("4.5%");
  });

  it("formats amounts as people read them", () => {
    expect(describeAmounts({ gpus: [H100(4)], cpuCores: 0.5, memoryBytes: 64 * GiB, storageBytes: 2048 * GiB })).toBe("4 × H100, 0.5 cores, 64 GiB memory, 2 TiB storage");
    expect(describeAmounts({ gpus: [H100(2, 2), { model: "L4", count: 4, burst: 0 }], cpuCores: 0, memoryBytes: 0, storageBytes: 0 })).toBe("2 × H100, burst up to 2 more H100, 4 × L4");
    expect(describeAmounts({ gpus: [], cpuCores: 0, memoryBytes: 0, storageBytes: 0 })).toBe("nothing");
    expect(formatBytes(1.5 * GiB)).toBe("1.5 GiB");
    expect(formatMoney(11972, "USD")).toBe("$11,972.00");
  });
});
