import { describe, expect, it } from "vitest";
import { poolFlavorsOf } from "./pool-flavors";

const TAINT = { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" as const };
const pool = (over: Partial<Parameters<typeof poolFlavorsOf>[0][number]>) => ({
  gpuModel: "H100",
  gpuResource: "nvidia.com/gpu",
  gpuSharing: "exclusive" as const,
  nodeLabels: {},
  nodeTaints: [],
  tiers: null,
  ...over,
});

describe("poolFlavorsOf", () => {
  it("has the default flavour of CPU and memory, and one per GPU model in model order; CPU pools add none", () => {
    const flavors = poolFlavorsOf([pool({ gpuModel: "L4" }), pool({ gpuModel: null, gpuResource: null }), pool({ gpuModel: "A100 1g.10gb", gpuResource: "nvidia.com/mig-1g.10gb", gpuSharing: "mig" })]);
    expect(flavors.map((f) => [f.key, f.resource, f.sharing])).toEqual([
      ["default", null, "exclusive"],
      ["A100 1g.10gb", "nvidia.com/mig-1g.10gb", "mig"],
      ["L4", "nvidia.com/gpu", "exclusive"],
    ]);
  });

  it("makes one flavour of two pools of a model: labels and taints every pool carries, tiers any pool admits", () => {
    const [, h100] = poolFlavorsOf([
      pool({ nodeLabels: { "nvidia.com/gpu.product": "H100", zone: "a" }, nodeTaints: [TAINT, { key: "spot", effect: "NoSchedule" }], tiers: ["training"] }),
      pool({ nodeLabels: { "nvidia.com/gpu.product": "H100", zone: "b" }, nodeTaints: [TAINT], tiers: ["preemptible"] }),
    ]);
    expect(h100).toEqual({ key: "H100", resource: "nvidia.com/gpu", sharing: "exclusive", nodeLabels: { "nvidia.com/gpu.product": "H100" }, nodeTaints: [TAINT], tiers: ["preemptible", "training"] });
  });

  it("admits every tier when any pool of the model does", () => {
    const [, h100] = poolFlavorsOf([pool({ tiers: ["training"] }), pool({ tiers: null })]);
    expect(h100!.tiers).toBeUndefined();
  });
});
