import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesQuantity, cpuQuantity, parseQuantity } from "@/lib/cluster/quantity";
import { amountFields, readAmounts, withGpuRows } from "./amount-inputs";
import { amountProblems, GiB, gpuAmountsOf, type QuotaAmounts } from "./amounts";
import { capacityImpact, clusterCapacity, fitNote, fitOf, tenantShares, type PoolCapacityInput } from "./capacity";
import { HOURS_PER_MONTH, monthlyCost, ratesInForce } from "./cost";
import { effectiveQuotaAt, grantInForce, type GrantSpan } from "./effective";
import {
  autoApproval,
  autoApprovedHoldings,
  DEFAULT_LARGE_REQUEST_MONTHLY_COST,
  DEFAULT_QUOTA_POLICY,
  largeRequestThreshold,
  NO_AUTO_APPROVED_HOLDINGS,
  needsSecondApproval,
  type AutoApprovedHoldings,
  type AutoDecision,
  type QuotaPolicy,
} from "./policy";
import { linesOfAmounts } from "./lines";
import { z } from "zod";

const base = { cpuCores: 4, memoryBytes: 16 * GiB, storageBytes: 100 * GiB, pvcCount: 10 };
const T0 = new Date("2026-12-01T00:00:00Z");
const at = (hours: number) => new Date(T0.getTime() + hours * 3_600_000);

const pools: PoolCapacityInput[] = [
  { name: "h100", gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 4, maxNodes: 6, cpuPerNode: 208, memoryBytesPerNode: 1800 * GiB },
  { name: "mig", gpuModel: "A100 1g.10gb", gpuResource: "nvidia.com/mig-1g.10gb", gpusPerNode: 56, nodeCount: 2, maxNodes: null, cpuPerNode: 96, memoryBytesPerNode: 1000 * GiB },
  { name: "cpu", gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 20, maxNodes: null, cpuPerNode: 64, memoryBytesPerNode: 256 * GiB },
];

describe("request amounts", () => {
  const schema = z.object(amountFields);
  const amountsOfInput = (v: z.output<typeof schema>) => readAmounts(v, { burstAllowed: true }).amounts;
  it("reads Kubernetes notation and plain numbers in the field's unit", () => {
    const v = amountsOfInput(schema.parse({ gpus: [{ model: "H100", count: "4" }], cpuCores: "500m", memory: "64Gi", storage: "2" }));
    expect(v).toEqual({ gpus: [{ model: "H100", count: 4, burst: 0 }], cpuCores: 0.5, memoryBytes: 64 * GiB, storageBytes: 2 * GiB });
    expect(amountsOfInput(schema.parse({ cpuCores: 8, memory: 32 }))).toEqual({ gpus: [], cpuCores: 8, memoryBytes: 32 * GiB, storageBytes: 0 });
    // The single-model fields of earlier releases are a shorthand for a list of one.
    expect(amountsOfInput(schema.parse({ gpuModel: "H100", gpuCount: "4", gpuBurst: "2" })).gpus).toEqual([{ model: "H100", count: 4, burst: 2 }]);
  });

  it.each([
    ["cpuCores", "-1", "Enter a number of cores such as 4 or 500m."],
    ["cpuCores", "Infinity", "Enter a number of cores such as 4 or 500m."],
    // The exponent form: "1.5e3" cores once became 1,500.
    ["cpuCores", "1.5e3", "Enter a number of cores such as 4 or 500m."],
    ["cpuCores", "0x10", "Enter a number of cores such as 4 or 500m."],
    ["cpuCores", " 4 ", "Enter a number of cores such as 4 or 500m."],
    ["cpuCores", "1000000", "Enter a smaller amount: this is more than any cluster could grant."],
    ["memory", "12 GB", "Enter a number of GiB such as 64, or a quantity such as 64Gi."],
    ["memory", "1e3Gi", "Enter a number of GiB such as 64, or a quantity such as 64Gi."],
    ["gpuCount", "1.5", "Enter a whole number from 0 to 4096."],
    ["gpuCount", "NaN", "Enter a whole number from 0 to 4096."],
    ["gpuCount", "4abc", "Enter a whole number from 0 to 4096."],
    ["gpuCount", "+4", "Enter a whole number from 0 to 4096."],
    ["storage", "1e30", "Enter a number of GiB such as 500, or a quantity such as 2Ti."],
    ["storage", "9000000000Ti", "Enter a smaller amount: this is more than any cluster could grant."],
    ["cpuBurst", "-4", "Enter a number of cores such as 16 or 500m."],
    ["cpuBurst", "1000000", "Enter a smaller amount: this is more than any cluster could grant."],
    ["memoryBurst", "128 GB", "Enter a number of GiB such as 128, or a quantity such as 128Gi."],
    ["memoryBurst", "0.3", "Enter a number of GiB such as 128, or a quantity such as 128Gi."],
  ])("refuses %s=%j naming the field", (field, value, message) => {
    const result = schema.safeParse({ [field]: value });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]).toMatchObject({ path: [field], message });
  });

  it("reads CPU and memory burst as the guarantees are read, and leaves a burst of 0 out", () => {
    expect(amountsOfInput(schema.parse({ cpuCores: "8", cpuBurst: "16", memory: "32", memoryBurst: "128Gi" }))).toEqual({
      gpus: [],
      cpuCores: 8,
      cpuBurst: 16,
      memoryBytes: 32 * GiB,
      memoryBurstBytes: 128 * GiB,
      storageBytes: 0,
    });
    expect(amountsOfInput(schema.parse({ cpuBurst: "500m", memoryBurst: "" }))).toEqual({ gpus: [], cpuCores: 0, cpuBurst: 0.5, memoryBytes: 0, storageBytes: 0 });
    expect(amountsOfInput(schema.parse({ cpuCores: 1, cpuBurst: 0 }))).not.toHaveProperty("cpuBurst");
  });

  it("refuses each burst without Kueue, naming its field and what to enter instead; burst alone is a request", () => {
    const burst = { gpus: [{ model: "H100", count: 0, burst: 4 }], cpuCores: 0, cpuBurst: 16, memoryBytes: 0, memoryBurstBytes: 64 * GiB, storageBytes: 0 };
    expect(amountProblems(burst)).toEqual({
      "gpus.0.burst": ["GPU model 1: Burst needs Kueue on the cluster, which this portal is not set up for: ask for guaranteed GPUs instead."],
      cpuBurst: ["Burst needs Kueue on the cluster, which this portal is not set up for: leave it empty and ask for guaranteed CPU cores instead."],
      memoryBurst: ["Burst needs Kueue on the cluster, which this portal is not set up for: leave it empty and ask for guaranteed memory instead."],
    });
    expect(amountProblems(burst, { burstAllowed: true })).toBeNull();
    expect(amountProblems({ gpus: [], cpuCores: 0, cpuBurst: 2, memoryBytes: 0, storageBytes: 0 }, { burstAllowed: true })).toBeNull();
  });

  it("needs a model for GPUs and at least one resource", () => {
    const none = { gpus: [], cpuCores: 0, memoryBytes: 0, storageBytes: 0 };
    expect(amountProblems(none, { burstAllowed: false, rows: [{ model: null, count: 2, burst: 0 }] })).toEqual({ "gpus.0.model": ["GPU model 1: choose a model for the GPUs."] });
    expect(amountProblems(none)).toEqual({ _form: ["Ask for at least one resource: GPUs, CPU, memory or storage."] });
  });

  it("takes any number of GPU models, one line each, sorted; a row without GPUs is no line", () => {
    const v = schema.parse({ gpus: [{ model: "L4", count: "4" }, { model: "H100", count: "2", burst: "2" }, { model: "", count: "" }], cpuCores: "8" });
    expect(readAmounts(v, { burstAllowed: true })).toMatchObject({
      amounts: { gpus: [{ model: "H100", count: 2, burst: 2 }, { model: "L4", count: 4, burst: 0 }], cpuCores: 8 },
      problems: null,
    });
  });

  it("names the row of a GPU model that is missing or given twice", () => {
    const read = (gpus: unknown[]) => readAmounts(schema.parse({ gpus }), { burstAllowed: true }).problems;
    expect(read([{ model: "H100", count: 2 }, { model: "", count: 4 }])).toEqual({ "gpus.1.model": ["GPU model 2: choose a model for the GPUs."] });
    expect(read([{ model: "H100", count: 2 }, { model: "L4", count: 1 }, { model: "H100", count: 1 }])).toEqual({
      "gpus.2.model": ["GPU model 3: H100 is already asked for as GPU model 1; change the amounts there, or choose another model."],
    });
    // The shorthand's problem names the shorthand's own field.
    expect(readAmounts(schema.parse({ gpuCount: "2" }), { burstAllowed: true }).problems).toEqual({ gpuModel: ["GPU model 1: choose a model for the GPUs."] });
  });

  it("gathers a form's flat GPU fields into the list, and refuses the list and the shorthand together, naming the shorthand field", () => {
    const command = withGpuRows(schema);
    expect(command.parse({ "gpus.1.model": "L4", "gpus.1.count": "4", "gpus.0.model": "H100", "gpus.0.count": "2", "gpus.0.burst": "1", cpuCores: "" }).gpus).toEqual([
      { model: "H100", count: 2, burst: 1 },
      { model: "L4", count: 4, burst: 0 },
    ]);
    const both = command.safeParse({ gpus: [{ model: "H100", count: 2 }], gpuCount: 2 });
    expect(both.success).toBe(false);
    expect(both.error!.issues).toEqual([expect.objectContaining({ path: ["gpuCount"], message: expect.stringMatching(/^Give the GPUs either as gpus/) as unknown })]);
    expect(command.safeParse({ gpus: [{ model: "H100", count: "2.5" }] }).error!.issues[0]).toMatchObject({ path: ["gpus", 0, "count"], message: "Enter a whole number from 0 to 4096." });
  });

  it("parses what the renderer writes, for any amount (property)", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1_000_000 }), (milli) => parseQuantity(cpuQuantity(milli / 1000)) === milli / 1000));
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (bytes) => parseQuantity(bytesQuantity(bytes)) === bytes));
  });
});

const RESOURCES: Record<string, string> = { H100: "nvidia.com/gpu", "A100 1g.10gb": "nvidia.com/mig-1g.10gb" };
const grantArb = fc.record({
  gpuModel: fc.constantFrom("H100", "A100 1g.10gb"),
  gpuCount: fc.integer({ min: 0, max: 16 }),
  cpuCores: fc.integer({ min: 0, max: 64 }),
  memoryBytes: fc.integer({ min: 0, max: 512 }).map((g) => g * GiB),
  storageBytes: fc.integer({ min: 0, max: 1000 }).map((g) => g * GiB),
  start: fc.integer({ min: 0, max: 100 }),
  length: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
});
type RawGrant = { gpuModel: string; gpuCount: number; cpuCores: number; memoryBytes: number; storageBytes: number; start: number; length: number | null };
const spanOf = (g: RawGrant): GrantSpan => {
  const amounts = { gpus: gpuAmountsOf([{ model: g.gpuModel, count: g.gpuCount, burst: 0 }]), cpuCores: g.cpuCores, memoryBytes: g.memoryBytes, storageBytes: g.storageBytes };
  return { ...amounts, startsAt: at(g.start), endsAt: g.length === null ? null : at(g.start + g.length), lines: linesOfAmounts(amounts, RESOURCES) };
};

describe("effective quota", () => {
  it("is the starting quota plus the sum of grants in force at t (property)", () => {
    fc.assert(
      fc.property(fc.array(grantArb, { maxLength: 12 }), fc.integer({ min: 0, max: 250 }), (raw, hour) => {
        const grants = raw.map(spanOf);
        const t = at(hour);
        const q = effectiveQuotaAt(base, grants, t);
        const live = grants.filter((g) => g.startsAt <= t && (g.endsAt === null || t < g.endsAt));
        expect(q.cpuCores).toBe(base.cpuCores + live.reduce((s, g) => s + g.cpuCores, 0));
        expect(q.memoryBytes).toBe(base.memoryBytes + live.reduce((s, g) => s + g.memoryBytes, 0));
        expect(q.storageBytes).toBe(base.storageBytes + live.reduce((s, g) => s + g.storageBytes, 0));
        const h100 = live.flatMap((g) => g.gpus).filter((g) => g.model === "H100").reduce((s, g) => s + g.count, 0);
        expect(q.gpus["nvidia.com/gpu"] ?? 0).toBe(h100);
      }),
    );
  });

  it("names every known GPU resource, at 0 when nothing is granted: an unnamed resource would be unlimited", () => {
    expect(effectiveQuotaAt(base, [], T0, ["nvidia.com/gpu", "nvidia.com/mig-1g.10gb"]).gpus).toEqual({ "nvidia.com/gpu": 0, "nvidia.com/mig-1g.10gb": 0 });
  });

  it("counts a grant from its start, and not at its end instant", () => {
    const g = spanOf({ gpuModel: "H100", gpuCount: 4, cpuCores: 0, memoryBytes: 0, storageBytes: 0, start: 10, length: 5 });
    expect(grantInForce(g, at(9.99))).toBe(false);
    expect(grantInForce(g, at(10))).toBe(true);
    expect(grantInForce(g, at(15))).toBe(false);
  });
});

describe("capacity", () => {
  it("counts the nodes present, GPUs per model, with overcommit; the autoscaler maximum apart", () => {
    const cap = clusterCapacity(pools, { cpu: 2, memory: 1, gpu: 1 });
    expect(cap.get("gpu:H100")).toBe(32); // 4 nodes present × 8, not the maximum of 6
    expect(cap.get("gpu:A100 1g.10gb")).toBe(112); // 2 × 56 MIG instances
    expect(cap.get("cpu")).toBe((4 * 208 + 2 * 96 + 20 * 64) * 2);
    expect(cap.get("memory")).toBe((4 * 1800 + 2 * 1000 + 20 * 256) * GiB);
    const atMax = clusterCapacity(pools, { cpu: 2, memory: 1, gpu: 1 }, true);
    expect(atMax.get("gpu:H100")).toBe(48);
    expect(atMax.get("cpu")).toBe((6 * 208 + 2 * 96 + 20 * 64) * 2);
  });

  it("shows before and after a request, and what the autoscaler must add for it to fit", () => {
    const oc = { cpu: 1, memory: 1, gpu: 1 };
    const lines = capacityImpact(pools, oc, { cpuCores: 100, memoryBytes: 0, gpusByModel: { H100: 30 } }, { cpuCores: 0, memoryBytes: 0, gpusByModel: { H100: 10 } });
    const h100 = lines.find((l) => l.resource === "gpu:H100")!;
    expect(h100).toMatchObject({ label: "H100 GPUs", capacity: 32, capacityAtMax: 48, before: 30, after: 40, exceeds: true, fit: { kind: "grows", pools: [{ pool: "h100", nodes: 4, to: 5, max: 6 }] } });
    expect(fitNote(h100)).toBe("fits when the pool h100 grows to 5 nodes (max 6)");
    expect(lines.find((l) => l.resource === "gpu:A100 1g.10gb")).toMatchObject({ after: 0, exceeds: false, fit: { kind: "fits" } });
    expect(lines[0]!.resource).toBe("cpu");

    const beyond = capacityImpact(pools, oc, { cpuCores: 0, memoryBytes: 0, gpusByModel: { H100: 40 } }, { cpuCores: 0, memoryBytes: 0, gpusByModel: { H100: 9 } }).find((l) => l.resource === "gpu:H100")!;
    expect(beyond).toMatchObject({ after: 49, exceeds: true, fit: { kind: "does_not_fit", autoscales: true } });
    expect(fitNote(beyond)).toBe("does not fit: even at their autoscaler maximum the pools hold 48 H100 GPUs");
    const mig = capacityImpact(pools, oc, { cpuCores: 0, memoryBytes: 0, gpusByModel: {} }, { cpuCores: 0, memoryBytes: 0, gpusByModel: { "A100 1g.10gb": 113 } }).find((l) => l.resource === "gpu:A100 1g.10gb")!;
    expect(mig.fit).toEqual({ kind: "does_not_fit", autoscales: false });
  });

  it("grows CPU-only pools first for cores, then GPU pools, each to the fewest nodes that make it fit", () => {
    const cpuPools: PoolCapacityInput[] = [
      { ...pools[0]!, maxNodes: 6 },
      { name: "cpu-a", gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 2, maxNodes: 3, cpuPerNode: 64, memoryBytesPerNode: 256 * GiB },
    ];
    const oc = { cpu: 1, memory: 1, gpu: 1 };
    const present = 4 * 208 + 2 * 64;
    expect(fitOf(cpuPools, oc, "cpu", present)).toEqual({ kind: "fits" });
    expect(fitOf(cpuPools, oc, "cpu", present + 1)).toEqual({ kind: "grows", pools: [{ pool: "cpu-a", nodes: 2, to: 3, max: 3 }] });
    const both = fitOf(cpuPools, oc, "cpu", present + 64 + 209);
    expect(both).toEqual({ kind: "grows", pools: [{ pool: "cpu-a", nodes: 2, to: 3, max: 3 }, { pool: "h100", nodes: 4, to: 6, max: 6 }] });
    expect(fitNote({ resource: "cpu", capacityAtMax: 0, fit: both })).toBe("fits when the pools grow: cpu-a to 3 nodes (max 3), h100 to 6 nodes (max 6)");
    expect(fitOf(cpuPools, oc, "cpu", present + 64 + 2 * 208 + 1)).toEqual({ kind: "does_not_fit", autoscales: true });
    // GPU overcommit rounds down per pool: 1.5 × 8 per node is 12, 5 nodes hold 60.
    expect(fitOf(pools, { cpu: 1, memory: 1, gpu: 1.5 }, "gpu:H100", 49)).toEqual({ kind: "grows", pools: [{ pool: "h100", nodes: 4, to: 5, max: 6 }] });
    expect(fitOf(pools, { cpu: 1, memory: 1, gpu: 1.5 }, "gpu:H100", 61)).toEqual({ kind: "grows", pools: [{ pool: "h100", nodes: 4, to: 6, max: 6 }] });
  });

  it("computes each tenant's share per resource", () => {
    const cap = clusterCapacity(pools, { cpu: 1, memory: 1, gpu: 1 });
    const [vision] = tenantShares(cap, new Map([["vision", { cpuCores: 0, memoryBytes: 0, gpusByModel: { H100: 8 } }]]));
    expect(vision!.shares["gpu:H100"]).toBe(0.25);
  });
});

describe("cost", () => {
  const rows = [
    { resource: "gpu:H100", unitPrice: 4.6, effectiveFrom: new Date("2025-06-01T00:00:00Z") },
    { resource: "gpu:H100", unitPrice: 4.1, effectiveFrom: new Date("2026-01-01T00:00:00Z") },
    { resource: "cpu", unitPrice: 0.031, effectiveFrom: new Date("2026-01-01T00:00:00Z") },
    { resource: "memory", unitPrice: 0.004, effectiveFrom: new Date("2026-01-01T00:00:00Z") },
    { resource: "storage", unitPrice: 0.08, effectiveFrom: new Date("2026-01-01T00:00:00Z") },
  ];

  it("uses the price in force at the instant, history kept", () => {
    expect(ratesInForce(rows, new Date("2025-12-31T23:59:59Z")).get("gpu:H100")).toBe(4.6);
    expect(ratesInForce(rows, new Date("2026-01-01T00:00:00Z")).get("gpu:H100")).toBe(4.1);
    expect(ratesInForce(rows, new Date("2025-01-01T00:00:00Z")).has("gpu:H100")).toBe(false);
  });

  it("estimates a month at 730 hours, storage per GiB-month, and names unpriced resources", () => {
    const prices = ratesInForce(rows, T0);
    const e = monthlyCost({ gpus: [{ model: "H100", count: 4, burst: 0 }], cpuCores: 32, memoryBytes: 256 * GiB, storageBytes: 500 * GiB }, prices);
    expect(e.lines.map((l) => [l.resource, l.monthly])).toEqual([
      ["gpu:H100", Math.round(4 * 4.1 * HOURS_PER_MONTH * 100) / 100],
      ["cpu", Math.round(32 * 0.031 * 730 * 100) / 100],
      ["memory", Math.round(256 * 0.004 * 730 * 100) / 100],
      ["storage", 40],
    ]);
    expect(e.monthly).toBe(Math.round(e.lines.reduce((s, l) => s + l.monthly, 0) * 100) / 100);
    expect(monthlyCost({ gpus: [{ model: "L4", count: 1, burst: 0 }], cpuCores: 0, memoryBytes: 0, storageBytes: 0 }, prices)).toEqual({ monthly: 0, lines: [], unpriced: ["gpu:L4"] });
  });

  it("prices each GPU model of a request at its own rate, and names the one without a price", () => {
    const prices = new Map([["gpu:H100", 4.1], ["gpu:L4", 0.8]]);
    const e = monthlyCost({ gpus: [{ model: "H100", count: 2, burst: 2 }, { model: "L4", count: 4, burst: 0 }], cpuCores: 0, memoryBytes: 0, storageBytes: 0 }, prices);
    expect(e.lines.map((l) => [l.resource, l.quantity, l.monthly])).toEqual([
      ["gpu:H100", 2, Math.round(2 * 4.1 * HOURS_PER_MONTH * 100) / 100],
      ["gpu:L4", 4, Math.round(4 * 0.8 * HOURS_PER_MONTH * 100) / 100],
    ]);
    expect(e.monthly).toBe(Math.round((2 * 4.1 + 4 * 0.8) * HOURS_PER_MONTH * 100) / 100);
    const partly = monthlyCost({ gpus: [{ model: "A10", count: 1, burst: 0 }, { model: "L4", count: 1, burst: 0 }], cpuCores: 0, memoryBytes: 0, storageBytes: 0 }, prices);
    expect(partly).toMatchObject({ unpriced: ["gpu:A10"], monthly: Math.round(0.8 * HOURS_PER_MONTH * 100) / 100 });
  });

  it("prices the guarantees only: burst is reserved for nobody, and is paid for as it runs", () => {
    const prices = ratesInForce(rows, T0);
    const asked = { gpus: [{ model: "H100", count: 4, burst: 0 }], cpuCores: 32, memoryBytes: 256 * GiB, storageBytes: 0 };
    expect(monthlyCost({ ...asked, gpus: [{ model: "H100", count: 4, burst: 8 }], cpuBurst: 64, memoryBurstBytes: 512 * GiB }, prices)).toEqual(monthlyCost(asked, prices));
    expect(monthlyCost({ gpus: [], cpuCores: 0, cpuBurst: 64, memoryBytes: 0, memoryBurstBytes: 512 * GiB, storageBytes: 0 }, prices)).toEqual({ monthly: 0, lines: [], unpriced: [] });
  });
});

describe("automatic approval", () => {
  // Each request judged alone here; the cumulative cap has its own tests below.
  const policy: QuotaPolicy = { ...DEFAULT_QUOTA_POLICY, autoApprove: { enabled: true, maxCpuCores: 8, maxMemoryGiB: 32, maxStorageGiB: 200, underMonthlyCost: 500, cumulativeFactor: null } };
  const estimate = (monthly: number, unpriced: string[] = []) => ({ monthly, lines: [], unpriced });
  const fits = [{ exceeds: false, fit: { kind: "fits" as const } }];
  const small: QuotaAmounts = { gpus: [], cpuCores: 8, memoryBytes: 32 * GiB, storageBytes: 200 * GiB };

  it("approves small CPU requests by rule, and cheap ones by cost", () => {
    expect(autoApproval(small, estimate(2000), fits, policy, "USD")).toMatchObject({ auto: true });
    expect(autoApproval({ ...small, gpus: [{ model: "L4", count: 1, burst: 0 }] }, estimate(499), fits, policy, "USD")).toMatchObject({ auto: true, rule: "monthly estimate under $500.00" });
  });

  it("never when it adds GPUs beyond the cost rule, exceeds capacity, is unpriced, or the rules are off", () => {
    expect(autoApproval({ ...small, gpus: [{ model: "H100", count: 1, burst: 0 }] }, estimate(3000), fits, policy, "USD")).toMatchObject({ auto: false });
    expect(autoApproval({ ...small, cpuCores: 8.001 }, estimate(600), fits, policy, "USD")).toMatchObject({ auto: false });
    expect(autoApproval(small, estimate(1), [{ exceeds: true, fit: { kind: "does_not_fit", autoscales: true } }], policy, "USD")).toMatchObject({ auto: false, reason: "it would exceed the capacity of the cluster" });
    expect(autoApproval(small, estimate(1), [{ exceeds: true, fit: { kind: "grows", pools: [{ pool: "cpu", nodes: 2, to: 3, max: 4 }] } }], policy, "USD")).toMatchObject({
      auto: false,
      reason: "it fits only when the autoscaler adds nodes",
    });
    expect(autoApproval({ ...small, gpus: [{ model: "X", count: 1, burst: 0 }] }, estimate(0, ["gpu:X"]), fits, policy, "USD")).toMatchObject({ auto: false });
    expect(autoApproval(small, estimate(1), fits, { ...policy, autoApprove: { ...policy.autoApprove, enabled: false } }, "USD")).toMatchObject({ auto: false });
  });

  it("judges a request of several GPU models as one: no size rule with GPUs of any model, the cost rule over every model's estimate", () => {
    const two: QuotaAmounts = { ...small, gpus: [{ model: "H100", count: 1, burst: 0 }, { model: "L4", count: 1, burst: 0 }] };
    expect(autoApproval(two, estimate(499), fits, policy, "USD")).toMatchObject({ auto: true, rule: "monthly estimate under $500.00" });
    expect(autoApproval(two, estimate(501), fits, policy, "USD")).toMatchObject({ auto: false });
    // One model without a price leaves the cost rule unjudged, whatever the others cost.
    expect(autoApproval(two, estimate(1, ["gpu:L4"]), fits, policy, "USD")).toMatchObject({ auto: false });
    expect(autoApproval({ ...two, gpus: [two.gpus[0]!, { model: "L4", count: 0, burst: 1 }] }, estimate(1), fits, policy, "USD")).toEqual({ auto: false, reason: "it asks for burst GPUs, which a platform admin decides" });
  });

  it("leaves any burst to a person, naming what is borrowed", () => {
    expect(autoApproval({ ...small, cpuBurst: 4 }, estimate(1), fits, policy, "USD")).toEqual({ auto: false, reason: "it asks for burst CPU, which a platform admin decides" });
    expect(autoApproval({ ...small, gpus: [{ model: "H100", count: 0, burst: 2 }], memoryBurstBytes: GiB }, estimate(1), fits, policy, "USD")).toEqual({ auto: false, reason: "it asks for burst GPUs and memory, which a platform admin decides" });
    expect(autoApproval({ ...small, gpus: [{ model: "H100", count: 0, burst: 2 }], cpuBurst: 1, memoryBurstBytes: GiB }, estimate(1), fits, policy, "USD")).toMatchObject({ reason: "it asks for burst GPUs, CPU and memory, which a platform admin decides" });
  });

  describe("the cumulative cap", () => {
    const capped: QuotaPolicy = { ...policy, autoApprove: { ...policy.autoApprove, cumulativeFactor: 3 } };
    const held = (cpuCores: number, memoryGiB: number, storageGiB: number, monthly = 0, grants = 2): AutoApprovedHoldings => ({ grants, cpuCores, memoryBytes: memoryGiB * GiB, storageBytes: storageGiB * GiB, monthly });
    const four: QuotaAmounts = { gpus: [], cpuCores: 4, memoryBytes: 16 * GiB, storageBytes: 0 };
    const said = (d: AutoDecision) => (d.auto ? `approved: ${d.rule}` : `to a person: ${d.reason}`);

    it("approves while the project's automatic grants in force and the request stay within N× the limits, saying so in the rule", () => {
      expect(autoApproval(four, estimate(2000), fits, capped, "USD", held(20, 80, 0))).toEqual({
        auto: true,
        rule: "no GPUs and at most 8 cores, 32 GiB memory and 200 GiB storage; automatically approved grants in force, this one included: 24 of 24 cores, 96 of 96 GiB memory, 0 of 600 GiB storage (3× the limits)",
      });
      // With no holdings (the default), the request alone counts.
      expect(said(autoApproval(four, estimate(2000), fits, capped, "USD"))).toMatch(/^approved: .*4 of 24 cores, 16 of 96 GiB memory/);
    });

    it("sends a small request to a person once the cap would be passed on any amount, naming the figures", () => {
      expect(autoApproval(four, estimate(2000), fits, capped, "USD", held(20.5, 0, 0))).toEqual({
        auto: false,
        reason:
          "the project's 2 automatically approved grants in force and this request would hold 24.5 cores, 16 GiB memory and 0 GiB storage, more than 3× the automatic limits (24 cores, 96 GiB memory, 600 GiB storage)",
      });
      expect(autoApproval(four, estimate(2000), fits, capped, "USD", held(0, 80.5, 0))).toMatchObject({ auto: false });
      expect(said(autoApproval({ ...four, storageBytes: GiB }, estimate(2000), fits, capped, "USD", held(0, 0, 600, 0, 1)))).toMatch(
        /^to a person: the project's 1 automatically approved grant in force and this request would hold 4 cores, 16 GiB memory and 601 GiB storage/,
      );
      // Judged alone (no cap), the same request passes.
      expect(autoApproval(four, estimate(2000), fits, policy, "USD", held(1000, 1000, 1000))).toMatchObject({ auto: true });
    });

    it("caps the cost rule by the monthly estimates of the automatic grants in force", () => {
      const gpu: QuotaAmounts = { gpus: [{ model: "L4", count: 1, burst: 0 }], cpuCores: 0, memoryBytes: 0, storageBytes: 0 };
      expect(autoApproval(gpu, estimate(400), fits, capped, "USD", held(0, 0, 0, 1100))).toEqual({
        auto: true,
        rule: "monthly estimate under $500.00; automatically approved grants in force, this one included: $1,500.00 of $1,500.00 a month (3× the limit)",
      });
      expect(autoApproval(gpu, estimate(400), fits, capped, "USD", held(0, 0, 0, 1100.01))).toEqual({
        auto: false,
        reason: "the project's 2 automatically approved grants in force and this request come to $1,500.01 a month, more than 3× the automatic limit ($1,500.00)",
      });
    });

    it("a small request past its cap may still pass the cost rule within that rule's cap", () => {
      expect(said(autoApproval(four, estimate(100), fits, capped, "USD", held(24, 0, 0, 200)))).toMatch(/^approved: monthly estimate under \$500\.00; .*\$300\.00 of \$1,500\.00 a month/);
      expect(said(autoApproval(four, estimate(100), fits, capped, "USD", held(24, 0, 0, 1450)))).toMatch(
        /^to a person: .*more than 3× the automatic limits \(24 cores.*; and the project's 2 automatically approved grants in force and this request come to \$1,550\.00 a month/,
      );
    });

    it("whatever the sequence of requests, what the rules approve in force never passes N× the limits (property)", () => {
      const request = fc.record({
        cpuCores: fc.integer({ min: 0, max: 10_000 }).map((m) => m / 1000),
        memoryGiB: fc.integer({ min: 0, max: 40 }),
        storageGiB: fc.integer({ min: 0, max: 250 }),
        monthly: fc.integer({ min: 0, max: 60_000 }).map((c) => c / 100),
      });
      fc.assert(
        fc.property(fc.array(request, { maxLength: 40 }), fc.integer({ min: 1, max: 5 }), (requests, n) => {
          const p: QuotaPolicy = { ...capped, autoApprove: { ...capped.autoApprove, cumulativeFactor: n } };
          let h: AutoApprovedHoldings = { ...NO_AUTO_APPROVED_HOLDINGS };
          for (const r of requests) {
            const amounts: QuotaAmounts = { gpus: [], cpuCores: r.cpuCores, memoryBytes: r.memoryGiB * GiB, storageBytes: r.storageGiB * GiB };
            const decision = autoApproval(amounts, estimate(r.monthly), fits, p, "USD", h);
            if (!decision.auto) continue;
            h = {
              grants: h.grants + 1,
              cpuCores: Math.round((h.cpuCores + r.cpuCores) * 1000) / 1000,
              memoryBytes: h.memoryBytes + amounts.memoryBytes,
              storageBytes: h.storageBytes + amounts.storageBytes,
              monthly: Math.round((h.monthly + r.monthly) * 100) / 100,
            };
            // Approved by the size rule: within N× its limits; by the cost rule: within N× the cost limit.
            const bySize = decision.rule.startsWith("no GPUs");
            if (bySize) {
              expect(h.cpuCores).toBeLessThanOrEqual(n * 8 + 1e-9);
              expect(h.memoryBytes).toBeLessThanOrEqual(n * 32 * GiB);
              expect(h.storageBytes).toBeLessThanOrEqual(n * 200 * GiB);
            } else expect(h.monthly).toBeLessThanOrEqual(n * 500);
          }
        }),
      );
    });

    it("counts only grants in force at the instant, priced at the prices given", () => {
      const at = new Date("2026-05-01T00:00:00Z");
      const span = (cpuCores: number, startsAt: string, endsAt: string | null, gpu?: [string, number]): GrantSpan => {
        const amounts: QuotaAmounts = { gpus: gpu ? [{ model: gpu[0], count: gpu[1], burst: 0 }] : [], cpuCores, memoryBytes: 0, storageBytes: 0 };
        return { ...amounts, startsAt: new Date(startsAt), endsAt: endsAt ? new Date(endsAt) : null, lines: linesOfAmounts(amounts, gpu ? { [gpu[0]]: "nvidia.com/gpu" } : {}) };
      };
      const prices = new Map([["cpu", 0.03], ["gpu:L4", 0.5]]);
      const grants = [
        span(4, "2026-04-01T00:00:00Z", null),
        span(0.1, "2026-04-01T00:00:00Z", "2026-05-02T00:00:00Z", ["L4", 1]),
        span(8, "2026-03-01T00:00:00Z", "2026-05-01T00:00:00Z"), // ended at the instant
        span(8, "2026-05-01T00:00:01Z", null), // not yet
      ];
      expect(autoApprovedHoldings(grants, at, prices)).toEqual({ grants: 2, cpuCores: 4.1, memoryBytes: 0, storageBytes: 0, monthly: Math.round((4.1 * 0.03 * 730 + 0.5 * 730) * 100) / 100 });
      expect(autoApprovedHoldings([], at, prices)).toEqual(NO_AUTO_APPROVED_HOLDINGS);
    });
  });

  it("calls a request large above the second-approval limit, or above 5,000 when none is set", () => {
    expect(largeRequestThreshold({ ...policy, secondApprovalAboveMonthlyCost: 2500 })).toBe(2500);
    expect(largeRequestThreshold({ ...policy, secondApprovalAboveMonthlyCost: null })).toBe(DEFAULT_LARGE_REQUEST_MONTHLY_COST);
    expect(DEFAULT_LARGE_REQUEST_MONTHLY_COST).toBe(5000);
  });

  it("asks for a second approval above the configured monthly cost only", () => {
    expect(needsSecondApproval(10_001, { ...policy, secondApprovalAboveMonthlyCost: 10_000 })).toBe(true);
    expect(needsSecondApproval(10_000, { ...policy, secondApprovalAboveMonthlyCost: 10_000 })).toBe(false);
    expect(needsSecondApproval(1e9, { ...policy, secondApprovalAboveMonthlyCost: null })).toBe(false);
  });
});
