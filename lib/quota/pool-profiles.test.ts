import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capacityAtMinNowMax, clusterCapacity, fitOf, type PoolCapacityInput } from "./capacity";
import { gpuProfilesInput } from "./pool-hardware-inputs";
import { poolFlavorsOf } from "./pool-flavors";
import { gpuResourcesByModel, profileClash, requestableProfilesOf, type GpuProfile } from "./pool-profiles";
import { poolMinimumProblem, sharingArithmetic, type TenantHoldings } from "./sharing-arithmetic";

const GiB = 2 ** 30;
const NONE = { cpu: 1, memory: 1, gpu: 1 };
/** A mixed MIG pool: 28 1g.10gb instances a node requestable first, two 3g.40gb beside them. */
const mixed: PoolCapacityInput & { nodeLabels: Record<string, string>; nodeTaints: []; tiers: null; gpuSharing: "mig"; gpuProfiles: GpuProfile[] } = {
  name: "a100-mig",
  gpuModel: "A100 1g.10gb",
  gpuResource: "nvidia.com/mig-1g.10gb",
  gpusPerNode: 28,
  gpuSharing: "mig",
  gpuProfiles: [{ model: "A100 3g.40gb", resource: "nvidia.com/mig-3g.40gb", perNode: 2 }],
  nodeCount: 3,
  minNodes: 2,
  maxNodes: 5,
  cpuPerNode: 96,
  memoryBytesPerNode: 1152 * GiB,
  nodeLabels: { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/mig.config": "custom-mixed" },
  nodeTaints: [],
  tiers: null,
};

describe("a pool's requestable profiles", () => {
  it("lists the first profile (gpuModel) and then the further ones; a pool without a GPU model has none", () => {
    expect(requestableProfilesOf(mixed)).toEqual([
      { model: "A100 1g.10gb", resource: "nvidia.com/mig-1g.10gb", perNode: 28, sharing: "mig", first: true },
      { model: "A100 3g.40gb", resource: "nvidia.com/mig-3g.40gb", perNode: 2, sharing: "mig", first: false },
    ]);
    expect(requestableProfilesOf({ ...mixed, gpuModel: null, gpuResource: null })).toEqual([]);
    expect([...gpuResourcesByModel([mixed])]).toEqual([
      ["A100 1g.10gb", "nvidia.com/mig-1g.10gb"],
      ["A100 3g.40gb", "nvidia.com/mig-3g.40gb"],
    ]);
  });

  it("makes each profile a flavour of its own on the pool's nodes, with its own resource", () => {
    const flavors = poolFlavorsOf([mixed]);
    expect(flavors.map((f) => [f.key, f.resource, f.sharing])).toEqual([
      ["default", null, "exclusive"],
      ["A100 1g.10gb", "nvidia.com/mig-1g.10gb", "mig"],
      ["A100 3g.40gb", "nvidia.com/mig-3g.40gb", "mig"],
    ]);
    expect(flavors[2]!.nodeLabels).toEqual(mixed.nodeLabels);
  });

  it("counts each profile's capacity per flavour on the same nodes, CPU and memory once", () => {
    expect(clusterCapacity([mixed], NONE)).toEqual(
      new Map([
        ["cpu", 3 * 96],
        ["memory", 3 * 1152 * GiB],
        ["gpu:A100 1g.10gb", 84],
        ["gpu:A100 3g.40gb", 6],
      ]),
    );
    const ranges = capacityAtMinNowMax([mixed], { cpu: 1, memory: 1, gpu: 1.5 });
    expect(ranges.find((r) => r.resource === "gpu:A100 3g.40gb")).toMatchObject({ atMin: 6, now: 9, atMax: 15, pools: [{ pool: "a100-mig", nodes: { atMin: 2, now: 3, atMax: 5 } }] });
    expect(ranges.find((r) => r.resource === "cpu")!.pools).toHaveLength(1);
    // 8 of the second profile need a fourth node (2 each): the pool grows, within its maximum.
    expect(fitOf([mixed], NONE, "gpu:A100 3g.40gb", 8)).toEqual({ kind: "grows", pools: [{ pool: "a100-mig", nodes: 3, to: 4, max: 5 }] });
  });

  it("refuses to shrink a pool below what the second profile's guarantees stand on, naming the line", () => {
    const holding: TenantHoldings = { tenantId: "t-vision", slug: "vision-lab", name: "Vision Lab", active: true, lines: [{ flavor: "A100 3g.40gb", resource: "nvidia.com/mig-3g.40gb", envelope: null, held: 4, heldBurst: 0, lendable: 0 }] };
    expect(poolMinimumProblem([mixed], [{ ...mixed, minNodes: 1 }], NONE, [holding])).toMatch(/holding 2 A100 3g.40gb GPUs at their autoscaler minimum, fewer than the 4 guaranteed/);
    expect(poolMinimumProblem([mixed], [{ ...mixed, minNodes: 2 }], NONE, [holding])).toBeNull();
    expect(sharingArithmetic([mixed], NONE, [holding]).map((l) => [l.key, l.resource, l.capacity.atMin, l.guaranteed])).toEqual([
      ["gpu:A100 1g.10gb", "nvidia.com/mig-1g.10gb", 56, 0],
      ["gpu:A100 3g.40gb", "nvidia.com/mig-3g.40gb", 4, 4],
    ]);
  });

  it("keeps guarantees within every profile's minimum capacity when each is checked against it (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 4 }), fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 5 }), (minNodes, first, second, asks) => {
        const pool = { ...mixed, minNodes, nodeCount: Math.max(minNodes, 3), gpusPerNode: first, gpuProfiles: [{ model: "A100 3g.40gb", resource: "nvidia.com/mig-3g.40gb", perNode: second }] };
        const atMin = capacityAtMinNowMax([pool], NONE).find((r) => r.resource === "gpu:A100 3g.40gb")!.atMin;
        // Grant each ask only while the sum stays within the minimum, as approvals do: the sum never exceeds it.
        let guaranteed = 0;
        for (const ask of asks) if (guaranteed + ask <= atMin) guaranteed += ask;
        expect(guaranteed).toBeLessThanOrEqual(Math.min(pool.minNodes, pool.nodeCount) * second);
        expect(atMin).toBe(Math.min(pool.minNodes, pool.nodeCount) * second);
      }),
    );
  });

  it("refuses a model that another pool serves as another resource or another way", () => {
    const other = { name: "a100-b", profiles: requestableProfilesOf({ ...mixed, gpuProfiles: [{ model: "A100 3g.40gb", resource: "nvidia.com/mig-2g.20gb", perNode: 3 }] }) };
    expect(profileClash({ name: "a100-mig", profiles: requestableProfilesOf(mixed) }, [other])).toEqual({
      field: "gpuProfiles",
      message: "Give A100 3g.40gb the resource nvidia.com/mig-2g.20gb: pool a100-b already serves A100 3g.40gb as nvidia.com/mig-2g.20gb (use another model name for a different resource).",
    });
    expect(profileClash({ name: "a100-mig", profiles: requestableProfilesOf(mixed) }, [{ name: "a100-mig", profiles: [] }])).toBeNull();
  });
});

describe("gpuProfilesInput", () => {
  it("reads model = resource x perNode lines (the form) and a list (the API) alike", () => {
    const lines = gpuProfilesInput.parse("A100 3g.40gb = nvidia.com/mig-3g.40gb x 2\n\nA100 2g.20gb = nvidia.com/mig-2g.20gb × 1");
    expect(lines).toEqual([
      { model: "A100 3g.40gb", resource: "nvidia.com/mig-3g.40gb", perNode: 2 },
      { model: "A100 2g.20gb", resource: "nvidia.com/mig-2g.20gb", perNode: 1 },
    ]);
    expect(gpuProfilesInput.parse([{ model: "A100 3g.40gb", resource: "nvidia.com/mig-3g.40gb", perNode: 2 }])).toEqual([lines[0]]);
    expect(gpuProfilesInput.parse(null)).toEqual([]);
    expect(gpuProfilesInput.parse("")).toEqual([]);
  });

  it("refuses what is not a MIG profile, a count out of range and a model or resource twice, in sentences naming the profile", () => {
    const messages = (v: unknown) => gpuProfilesInput.safeParse(v).error?.issues.map((i) => i.message);
    expect(messages("A100 3g.40gb nvidia.com/mig-3g.40gb 2")).toEqual(["Write “A100 3g.40gb nvidia.com/mig-3g.40gb 2” as model = resource x instances per node, e.g. A100 3g.40gb = nvidia.com/mig-3g.40gb x 2."]);
    expect(messages("H100 = nvidia.com/gpu x 8")).toEqual(["Give the profile H100 a MIG resource such as nvidia.com/mig-3g.40gb, not “nvidia.com/gpu”."]);
    expect(messages("A = nvidia.com/mig-3g.40gb x 0")).toEqual(["Give the profile A a whole number from 1 to 1024 of instances per node."]);
    expect(messages("A = nvidia.com/mig-3g.40gb x 1\nA = nvidia.com/mig-2g.20gb x 1")).toEqual(["Name the profile A once only."]);
    expect(messages("A = nvidia.com/mig-3g.40gb x 1\nB = nvidia.com/mig-3g.40gb x 1")).toEqual(["Make nvidia.com/mig-3g.40gb requestable under one model only."]);
    expect(messages([{ model: "A", resource: "nvidia.com/gpu", perNode: 1 }])).toEqual(["Enter a MIG resource such as nvidia.com/mig-3g.40gb."]);
  });
});
