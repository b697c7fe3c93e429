import { describe, expect, it } from "vitest";
import { capacityCost, capacityPerHour } from "./idle";

const GiB = 2 ** 30;
const rate = (resource: string, unitPrice: number, from: string) => ({ resource, unitPrice, effectiveFrom: new Date(from) });
const h100 = { gpuModel: "H100", gpusPerNode: 8, nodeCount: 2, cpuPerNode: 100, memoryBytesPerNode: 1000 * GiB };
const mig = { gpuModel: "A100 1g.10gb", gpusPerNode: 56, nodeCount: 1, cpuPerNode: 0, memoryBytesPerNode: 0 };
/** A pool that has stood as it is since before every window here. */
const always = <T extends object>(pool: T) => ({ ...pool, validFrom: new Date("2025-01-01T00:00:00Z"), validTo: null });

describe("capacity cost of node pools", () => {
  it("counts GPU-hours per model (MIG profiles on their own), core-hours and GiB-hours per hour", () => {
    expect(capacityPerHour([h100, mig])).toEqual(
      new Map([
        ["gpu:H100", 16],
        ["cpu", 200],
        ["memory", 2000],
        ["gpu:A100 1g.10gb", 56],
      ]),
    );
  });

  it("prices each requestable profile of a mixed MIG pool at its own rate, on the same nodes (CPU and memory once)", () => {
    const mixed = { gpuModel: "A100 1g.10gb", gpusPerNode: 28, gpuProfiles: [{ model: "A100 3g.40gb", perNode: 2 }], nodeCount: 2, cpuPerNode: 96, memoryBytesPerNode: 1152 * GiB };
    expect(capacityPerHour([mixed])).toEqual(
      new Map([
        ["gpu:A100 1g.10gb", 56],
        ["gpu:A100 3g.40gb", 4],
        ["cpu", 192],
        ["memory", 2304],
      ]),
    );
    const rates = [rate("gpu:A100 1g.10gb", 0.5, "2026-01-01T00:00:00Z"), rate("gpu:A100 3g.40gb", 1.75, "2026-01-01T00:00:00Z")];
    // A day: 56 instances × 24 h × 0.50 + 4 instances × 24 h × 1.75, in cents.
    expect(capacityCost([always(mixed)], rates, new Date("2026-03-01T00:00:00Z"), new Date("2026-03-02T00:00:00Z"), 2)).toBe((56 * 24 * 0.5 + 4 * 24 * 1.75) * 100);
  });

  it("prices each piece of the window at the rate in force, cutting where a price changes", () => {
    const rates = [rate("gpu:H100", 4, "2026-01-01T00:00:00Z"), rate("gpu:H100", 5, "2026-03-01T12:00:00Z"), rate("gpu:A100 1g.10gb", 0.5, "2026-01-01T00:00:00Z")];
    const cost = capacityCost([always(h100), always(mig)], rates, new Date("2026-03-01T00:00:00Z"), new Date("2026-03-02T00:00:00Z"), 2);
    // 16 H100 × (12 h × 4 + 12 h × 5) + 56 MIG × 24 h × 0.5; CPU and memory have no price: they cost nothing. In cents.
    expect(cost).toBe((16 * (12 * 4 + 12 * 5) + 56 * 24 * 0.5) * 100);
  });

  it("costs nothing before the first price and over an empty window", () => {
    const rates = [rate("gpu:H100", 4, "2026-03-01T12:00:00Z")];
    expect(capacityCost([always(h100)], rates, new Date("2026-03-01T00:00:00Z"), new Date("2026-03-01T13:00:00Z"), 2)).toBe(16 * 4 * 100);
    expect(capacityCost([always(h100)], rates, new Date("2026-03-02T00:00:00Z"), new Date("2026-03-02T00:00:00Z"), 2)).toBe(0);
  });

  it("is exact and rounded once, half away from zero, where floats would drift", () => {
    // 1 node × 3 cores × 1 h × 0.105 is 0.315 exactly (0.31499999999999995 in floats) → 0.32.
    const cpu = { gpuModel: null, gpusPerNode: 0, nodeCount: 1, cpuPerNode: 3, memoryBytesPerNode: 0 };
    expect(capacityCost([always(cpu)], [rate("cpu", 0.105, "2026-01-01T00:00:00Z")], new Date("2026-03-01T00:00:00Z"), new Date("2026-03-01T01:00:00Z"), 2)).toBe(32);
    // 0.5 GiB × 1 h × 0.01 = 0.005 → 0.01 (a tie, away from zero); JPY has no minor unit: 1 GPU × 1 h × 2.5 → 3.
    const half = { gpuModel: null, gpusPerNode: 0, nodeCount: 1, cpuPerNode: 0, memoryBytesPerNode: GiB / 2 };
    expect(capacityCost([always(half)], [rate("memory", 0.01, "2026-01-01T00:00:00Z")], new Date("2026-03-01T00:00:00Z"), new Date("2026-03-01T01:00:00Z"), 2)).toBe(1);
    const one = { ...h100, gpusPerNode: 1, nodeCount: 1, cpuPerNode: 0, memoryBytesPerNode: 0 };
    expect(capacityCost([always(one)], [rate("gpu:H100", 2.5, "2026-01-01T00:00:00Z")], new Date("2026-03-01T00:00:00Z"), new Date("2026-03-01T01:00:00Z"), 0)).toBe(3);
  });

  it("prices each hour at the pool's size then: before it grew, after it grew, and not before it existed or after it was deleted", () => {
    const rates = [rate("gpu:H100", 4, "2026-01-01T00:00:00Z")];
    const gpuOnly = { ...h100, cpuPerNode: 0, memoryBytesPerNode: 0 };
    // Created at 02:00 with 1 node, grew to 3 at 06:00, deleted at 10:00; the window is 00:00–12:00.
    const history = [
      { ...gpuOnly, nodeCount: 1, validFrom: new Date("2026-03-01T02:00:00Z"), validTo: new Date("2026-03-01T06:00:00Z") },
      { ...gpuOnly, nodeCount: 3, validFrom: new Date("2026-03-01T06:00:00Z"), validTo: new Date("2026-03-01T10:00:00Z") },
    ];
    const cost = (from: string, to: string) => capacityCost(history, rates, new Date(from), new Date(to), 2);
    expect(cost("2026-03-01T00:00:00Z", "2026-03-01T12:00:00Z")).toBe((4 * 8 * 1 + 4 * 8 * 3) * 4 * 100);
    expect(cost("2026-03-01T05:00:00Z", "2026-03-01T07:00:00Z")).toBe((8 * 1 + 8 * 3) * 4 * 100);
    expect(cost("2026-03-01T00:00:00Z", "2026-03-01T02:00:00Z")).toBe(0);
    expect(cost("2026-03-01T10:00:00Z", "2026-03-01T12:00:00Z")).toBe(0);
    // Today's pool (3 nodes) over the whole window would have been 12 h × 24 GPUs: the history is what is priced.
    expect(cost("2026-03-01T00:00:00Z", "2026-03-01T12:00:00Z")).not.toBe(12 * 24 * 4 * 100);
  });

  it("cuts a span where a price changes inside it", () => {
    const rates = [rate("cpu", 0.1, "2026-01-01T00:00:00Z"), rate("cpu", 0.2, "2026-03-01T03:00:00Z")];
    const cpu = { gpuModel: null, gpusPerNode: 0, nodeCount: 1, cpuPerNode: 10, memoryBytesPerNode: 0 };
    const history = [
      { ...cpu, validFrom: new Date("2026-03-01T00:00:00Z"), validTo: new Date("2026-03-01T02:00:00Z") },
      { ...cpu, nodeCount: 2, validFrom: new Date("2026-03-01T02:00:00Z"), validTo: null },
    ];
    // 00–02: 10 cores × 0.1; 02–03: 20 cores × 0.1; 03–04: 20 cores × 0.2. In cents.
    expect(capacityCost(history, rates, new Date("2026-03-01T00:00:00Z"), new Date("2026-03-01T04:00:00Z"), 2)).toBe(2 * 10 * 10 + 20 * 10 + 20 * 20);
  });
});
