import { describe, expect, it } from "vitest";
import { capacityCost, capacityPerHour } from "./idle";

const GiB = 2 ** 30;
const rate = (resource: string, unitPrice: number, from: string) => ({ resource, unitPrice, effectiveFrom: new Date(from) });
const h100 = { gpuModel: "H100", gpusPerNode: 8, nodeCount: 2, cpuPerNode: 100, memoryBytesPerNode: 1000 * GiB };
const mig = { gpuModel: "A100 1g.10gb", gpusPerNode: 56, nodeCount: 1, cpuPerNode: 0, memoryBytesPerNode: 0 };

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

  it("prices each piece of the window at the rate in force, cutting where a price changes", () => {
    const rates = [rate("gpu:H100", 4, "2026-01-01T00:00:00Z"), rate("gpu:H100", 5, "2026-03-01T12:00:00Z"), rate("gpu:A100 1g.10gb", 0.5, "2026-01-01T00:00:00Z")];
    const cost = capacityCost([h100, mig], rates, new Date("2026-03-01T00:00:00Z"), new Date("2026-03-02T00:00:00Z"), 2);
    // 16 H100 × (12 h × 4 + 12 h × 5) + 56 MIG × 24 h × 0.5; CPU and memory have no price: they cost nothing. In cents.
    expect(cost).toBe((16 * (12 * 4 + 12 * 5) + 56 * 24 * 0.5) * 100);
  });

  it("costs nothing before the first price and over an empty window", () => {
    const rates = [rate("gpu:H100", 4, "2026-03-01T12:00:00Z")];
    expect(capacityCost([h100], rates, new Date("2026-03-01T00:00:00Z"), new Date("2026-03-01T13:00:00Z"), 2)).toBe(16 * 4 * 100);
    expect(capacityCost([h100], rates, new Date("2026-03-02T00:00:00Z"), new Date("2026-03-02T00:00:00Z"), 2)).toBe(0);
  });

  it("is exact and rounded once, half away from zero, where floats would drift", () => {
    // 1 node × 3 cores × 1 h × 0.105 is 0.315 exactly (0.31499999999999995 in floats) → 0.32.
    const cpu = { gpuModel: null, gpusPerNode: 0, nodeCount: 1, cpuPerNode: 3, memoryBytesPerNode: 0 };
    expect(capacityCost([cpu], [rate("cpu", 0.105, "2026-01-01T00:00:00Z")], new Date("2026-03-01T00:00:00Z"), new Date("2026-03-01T01:00:00Z"), 2)).toBe(32);
    // 0.5 GiB × 1 h × 0.01 = 0.005 → 0.01 (a tie, away from zero); JPY has no minor unit: 1 GPU × 1 h × 2.5 → 3.
    const half = { gpuModel: null, gpusPerNode: 0, nodeCount: 1, cpuPerNode: 0, memoryBytesPerNode: GiB / 2 };
    expect(capacityCost([half], [rate("memory", 0.01, "2026-01-01T00:00:00Z")], new Date("2026-03-01T00:00:00Z"), new Date("2026-03-01T01:00:00Z"), 2)).toBe(1);
    const one = { ...h100, gpusPerNode: 1, nodeCount: 1, cpuPerNode: 0, memoryBytesPerNode: 0 };
    expect(capacityCost([one], [rate("gpu:H100", 2.5, "2026-01-01T00:00:00Z")], new Date("2026-03-01T00:00:00Z"), new Date("2026-03-01T01:00:00Z"), 0)).toBe(3);
  });
});
