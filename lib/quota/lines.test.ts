import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GiB, gpuAmountsOf } from "./amounts";
import { requestAmountsOf } from "./request-amounts";
import { effectiveQuotaAt, type GrantSpan } from "./effective";
import { amountsOfLines, columnGpuOfLines, DEFAULT_FLAVOR, linesOfAmounts, quotaOfLines, sumLines, withLendLimits, type QuotaLine } from "./lines";

const line = (flavor: string, resource: string, guarantee: number, burst = 0, lendLimit: number | null = null): QuotaLine => ({ flavor, resource, guarantee, burst, lendLimit });
const BASE = { cpuCores: 2, memoryBytes: 4 * GiB, storageBytes: 10 * GiB, pvcCount: 5 };

describe("quota lines", () => {
  it("turns a request's amounts into lines: default flavour for CPU, memory and storage, the GPU model for GPUs, each with its burst", () => {
    expect(linesOfAmounts({ gpus: [{ model: "H100", count: 4, burst: 4 }], cpuCores: 8, cpuBurst: 32, memoryBytes: 64 * GiB, memoryBurstBytes: 256 * GiB, storageBytes: 0 }, { H100: "nvidia.com/gpu" })).toEqual([
      line(DEFAULT_FLAVOR, "cpu", 8, 32),
      line(DEFAULT_FLAVOR, "memory", 64 * GiB, 256 * GiB),
      line("H100", "nvidia.com/gpu", 4, 4),
    ]);
    // Burst alone is a line of its own; a GPU model without a served resource makes none.
    expect(linesOfAmounts({ gpus: [{ model: "L4", count: 0, burst: 2 }], cpuCores: 0, memoryBytes: 0, storageBytes: 0 }, { L4: "nvidia.com/gpu" })).toEqual([line("L4", "nvidia.com/gpu", 0, 2)]);
    expect(linesOfAmounts({ gpus: [], cpuCores: 0, cpuBurst: 0.5, memoryBytes: 0, memoryBurstBytes: GiB, storageBytes: 0 }, {})).toEqual([
      line(DEFAULT_FLAVOR, "cpu", 0, 0.5),
      line(DEFAULT_FLAVOR, "memory", 0, GiB),
    ]);
    expect(linesOfAmounts({ gpus: [{ model: "L4", count: 2, burst: 0 }], cpuCores: 0, memoryBytes: 0, storageBytes: 0 }, {})).toEqual([]);
  });

  it("makes a line per GPU model of a request, each on its own resource, and reads the same models back", () => {
    const amounts = { gpus: [{ model: "H100", count: 2, burst: 2 }, { model: "L4", count: 4, burst: 0 }], cpuCores: 16, memoryBytes: 0, storageBytes: 0 };
    const lines = linesOfAmounts(amounts, { H100: "nvidia.com/gpu", L4: "nvidia.com/gpu.l4" });
    expect(lines).toEqual([line(DEFAULT_FLAVOR, "cpu", 16), line("H100", "nvidia.com/gpu", 2, 2), line("L4", "nvidia.com/gpu.l4", 4)]);
    expect(requestAmountsOf({ cpuCores: 16, memoryBytes: 0, storageBytes: 0 }, lines)).toEqual(amounts);
    // The row's single GPU columns keep the largest guarantee (L4 here), for the previous release.
    expect(columnGpuOfLines(lines)).toEqual({ gpuModel: "L4", gpuResource: "nvidia.com/gpu.l4", gpuCount: 4 });
  });

  it("sums per flavour and resource; the project's lend limits apply to the sums, at most the guarantee", () => {
    const summed = sumLines([line("H100", "nvidia.com/gpu", 8, 2), line("H100", "nvidia.com/gpu", 4), line("A100 1g.10gb", "nvidia.com/mig-1g.10gb", 7), line(DEFAULT_FLAVOR, "cpu", 0.1), line(DEFAULT_FLAVOR, "cpu", 0.2)]);
    expect(summed).toEqual([line(DEFAULT_FLAVOR, "cpu", 0.3), line("A100 1g.10gb", "nvidia.com/mig-1g.10gb", 7), line("H100", "nvidia.com/gpu", 12, 2)]);
    const limited = withLendLimits(summed, [
      { flavor: "H100", resource: "nvidia.com/gpu", lendLimit: 4 },
      { flavor: "A100 1g.10gb", resource: "nvidia.com/mig-1g.10gb", lendLimit: 50 },
    ]);
    expect(limited.map((l) => l.lendLimit)).toEqual([null, 7, 4]);
  });

  it("gives the cluster guarantees and bursts per resource, and the lines per flavour without storage", () => {
    const summed = withLendLimits(sumLines([line(DEFAULT_FLAVOR, "cpu", 8, 4), line(DEFAULT_FLAVOR, "storage", 100 * GiB), line("H100", "nvidia.com/gpu", 8, 8), line("L4 shared x4", "nvidia.com/gpu", 0, 4)]), [{ flavor: "H100", resource: "nvidia.com/gpu", lendLimit: 2 }]);
    const q = quotaOfLines(summed, 5, ["nvidia.com/gpu", "nvidia.com/mig-1g.10gb"]);
    expect(q.cpuCores).toBe(8);
    expect(q.storageBytes).toBe(100 * GiB);
    expect(q.gpus).toEqual({ "nvidia.com/gpu": 8, "nvidia.com/mig-1g.10gb": 0 });
    expect(q.burst).toEqual({ cpuCores: 4, memoryBytes: 0, gpus: { "nvidia.com/gpu": 12, "nvidia.com/mig-1g.10gb": 0 } });
    expect(q.flavors).toEqual([
      { flavor: DEFAULT_FLAVOR, resource: "cpu", guarantee: 8, burst: 4, lendLimit: null },
      { flavor: "H100", resource: "nvidia.com/gpu", guarantee: 8, burst: 8, lendLimit: 2 },
      { flavor: "L4 shared x4", resource: "nvidia.com/gpu", guarantee: 0, burst: 4, lendLimit: null },
    ]);
  });

  it("keeps the fixed columns a summary of the guarantees for the previous release", () => {
    expect(amountsOfLines([line(DEFAULT_FLAVOR, "cpu", 4), line("H100", "nvidia.com/gpu", 2, 6), line("L4", "nvidia.com/gpu", 1)])).toEqual({
      gpuModel: "H100",
      gpuResource: "nvidia.com/gpu",
      gpuCount: 2,
      gpus: [
        { model: "H100", count: 2, burst: 6 },
        { model: "L4", count: 1, burst: 0 },
      ],
      cpuCores: 4,
      memoryBytes: 0,
      storageBytes: 0,
    });
    expect(amountsOfLines([line("H100", "nvidia.com/gpu", 0, 6)])).toMatchObject({ gpuModel: null, gpuResource: null, gpuCount: 0 });
  });

  const gpuArb = fc.record({ model: fc.constantFrom("H100", "A100 1g.10gb"), count: fc.integer({ min: 0, max: 16 }), burst: fc.integer({ min: 0, max: 16 }) });
  const amounts = fc.record({
    gpus: fc.uniqueArray(gpuArb, { selector: (g) => g.model, maxLength: 2 }).map(gpuAmountsOf),
    cpuCores: fc.integer({ min: 0, max: 64000 }).map((m) => m / 1000),
    memoryBytes: fc.integer({ min: 0, max: 512 }).map((g) => g * GiB),
    storageBytes: fc.integer({ min: 0, max: 1000 }).map((g) => g * GiB),
    cpuBurst: fc.integer({ min: 0, max: 64000 }).map((m) => m / 1000),
    memoryBurstBytes: fc.integer({ min: 0, max: 512 }).map((g) => g * GiB),
  });
  const resourceOf = (model: string) => (model === "H100" ? "nvidia.com/gpu" : "nvidia.com/mig-1g.10gb");
  const RESOURCES = { H100: "nvidia.com/gpu", "A100 1g.10gb": "nvidia.com/mig-1g.10gb" };

  it("reads back from its lines the amounts a request of any GPU models wrote (property)", () => {
    fc.assert(
      fc.property(amounts, (a) => {
        const lines = sumLines(linesOfAmounts(a, RESOURCES));
        const back = requestAmountsOf(a, lines);
        expect(back.gpus).toEqual(a.gpus);
        expect(back.cpuBurst ?? 0).toBeCloseTo(a.cpuBurst, 9);
        expect(back.memoryBurstBytes ?? 0).toBe(a.memoryBurstBytes);
      }),
    );
  });

  it("lines give the quota the fixed columns gave, plus GPU, CPU and memory burst (property)", () => {
    fc.assert(
      fc.property(fc.array(amounts, { maxLength: 6 }), (grants) => {
        const at = new Date("2026-06-01T00:00:00Z");
        const spans: GrantSpan[] = grants.map((g) => ({ ...g, startsAt: new Date(0), endsAt: null, lines: linesOfAmounts(g, RESOURCES) }));
        const q = effectiveQuotaAt(BASE, spans, at, ["nvidia.com/gpu", "nvidia.com/mig-1g.10gb"]);
        const sum = (f: (g: (typeof grants)[number]) => number) => grants.reduce((s, g) => s + f(g), 0);
        expect(q.cpuCores).toBeCloseTo(BASE.cpuCores + sum((g) => g.cpuCores), 9);
        expect(q.memoryBytes).toBe(BASE.memoryBytes + sum((g) => g.memoryBytes));
        expect(q.storageBytes).toBe(BASE.storageBytes + sum((g) => g.storageBytes));
        for (const model of ["H100", "A100 1g.10gb"]) {
          const ofModel = grants.flatMap((g) => g.gpus).filter((g) => g.model === model);
          expect(q.gpus[resourceOf(model)]).toBe(ofModel.reduce((s, g) => s + g.count, 0));
          expect(q.burst!.gpus[resourceOf(model)]).toBe(ofModel.reduce((s, g) => s + g.burst, 0));
        }
        expect(q.burst!.cpuCores).toBeCloseTo(sum((g) => g.cpuBurst), 9);
        expect(q.burst!.memoryBytes).toBe(sum((g) => g.memoryBurstBytes));
        // The hard cap the cluster gets is guarantee plus burst, per flavour line too.
        for (const f of q.flavors!) expect(f.guarantee + f.burst).toBeGreaterThan(0);
      }),
    );
  });

  it("moving quota between two lines of one tenant never changes the tenant's total (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 64 }), (a, b, moved) => {
        fc.pre(moved <= a);
        const before = sumLines([line("H100", "nvidia.com/gpu", a), line("H100", "nvidia.com/gpu", b)]);
        const from = sumLines([line("H100", "nvidia.com/gpu", a), line("H100", "nvidia.com/gpu", -moved)]);
        const to = sumLines([line("H100", "nvidia.com/gpu", b), line("H100", "nvidia.com/gpu", moved)]);
        expect(from[0]!.guarantee + to[0]!.guarantee).toBe(before[0]!.guarantee);
        expect(from[0]!.guarantee).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
