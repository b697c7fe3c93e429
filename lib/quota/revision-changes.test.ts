import { describe, expect, it } from "vitest";
import { GiB } from "./amounts";
import { contentChanges, type RequestContent } from "./revision-changes";

const asked: RequestContent = {
  amounts: { gpus: [{ model: "H100", count: 4, burst: 0 }], cpuCores: 32, memoryBytes: 256 * GiB, storageBytes: 0 },
  endsAt: new Date("2026-12-16T12:00:00Z"),
  justification: "Fine-tuning the ranking model for the December release.",
  monthlyCost: 11972,
  writtenAt: new Date("2026-12-02T12:00:00Z"),
};

describe("what changed between two revisions of a request", () => {
  it("lists nothing when nothing changed", () => {
    expect(contentChanges(asked, { ...asked, writtenAt: new Date("2026-12-03T00:00:00Z") }, "USD")).toEqual([]);
  });

  it("names each changed field with its value before and after", () => {
    const edited: RequestContent = { ...asked, amounts: { ...asked.amounts, gpus: [{ model: "H100", count: 2, burst: 0 }], storageBytes: 500 * GiB }, justification: "Only the small model this month.", monthlyCost: 5986 };
    const changes = contentChanges(asked, edited, "USD");
    expect(changes.map((c) => c.field)).toEqual(["gpus.H100.count", "storage", "justification", "estimate"]);
    expect(changes[0]).toEqual({ field: "gpus.H100.count", label: "H100 GPUs", before: "4", after: "2" });
    expect(changes[1]!.before).toBe("none");
    expect(changes[1]!.after).toMatch(/500/);
    expect(changes[3]!.before).toMatch(/^\$11,972\.00 a month \(\$.* for its/);
  });

  it("names each GPU model's change: one lowered, one added, one dropped, a burst added", () => {
    const before: RequestContent = { ...asked, amounts: { ...asked.amounts, gpus: [{ model: "A100", count: 1, burst: 0 }, { model: "H100", count: 4, burst: 0 }] } };
    const after: RequestContent = { ...asked, amounts: { ...asked.amounts, gpus: [{ model: "H100", count: 2, burst: 2 }, { model: "L4", count: 4, burst: 0 }] } };
    expect(contentChanges(before, after, "USD").map((c) => [c.field, c.label, c.before, c.after])).toEqual([
      ["gpus.A100.count", "A100 GPUs", "1", "none"],
      ["gpus.H100.count", "H100 GPUs", "4", "2"],
      ["gpus.H100.burst", "Burst H100 GPUs", "none", "2"],
      ["gpus.L4.count", "L4 GPUs", "none", "4"],
    ]);
  });

  it("shows a change of end with the money of the period, even at the same monthly rate", () => {
    const longer: RequestContent = { ...asked, endsAt: new Date("2026-12-30T12:00:00Z") };
    const changes = contentChanges(asked, longer, "USD");
    expect(changes.map((c) => c.field)).toEqual(["endsAt", "estimate"]);
    expect(changes[1]!.before).not.toBe(changes[1]!.after);
  });

  it("names a changed CPU or memory burst with the unit people read", () => {
    const withBurst: RequestContent = { ...asked, amounts: { ...asked.amounts, cpuBurst: 16, memoryBurstBytes: 128 * GiB } };
    expect(contentChanges(asked, withBurst, "USD")).toEqual([
      { field: "cpuBurst", label: "Burst CPU cores", before: "none", after: "16" },
      { field: "memoryBurst", label: "Burst memory", before: "none", after: "128 GiB" },
    ]);
    expect(contentChanges(withBurst, { ...withBurst, amounts: { ...withBurst.amounts, cpuBurst: 0.5 } }, "USD")).toEqual([{ field: "cpuBurst", label: "Burst CPU cores", before: "16", after: "0.5" }]);
  });

  it("tells permanent from time-bound", () => {
    const [change] = contentChanges(asked, { ...asked, endsAt: null }, "USD");
    expect(change).toMatchObject({ field: "endsAt", after: "permanent" });
  });
});
