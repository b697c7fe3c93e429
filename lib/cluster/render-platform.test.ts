import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderConfig, type DesiredTenant, type FlavorQuota, type PoolFlavor, type RenderConfig } from "./desired-state";
import { dedicatedTenant, fullConfig, GPU_TAINT, POOL_FLAVORS, project, sharedTenant } from "./fixtures";
import type { ClusterQueue, ResourceFlavor } from "./kueue";
import { renderPlatformFlavors } from "./render-platform";
import { renderTenantObjects } from "./render-tenant";
import { validateObjects } from "./validate";

const GiB = 2 ** 30;
const config = (apiVersion: "v1beta1" | "v1beta2"): RenderConfig => ({ ...fullConfig, flavors: POOL_FLAVORS, kueue: { enabled: true, apiVersion, cohort: "allot" } });
const line = (flavor: string, resource: string, guarantee: number, burst = 0): FlavorQuota => ({ flavor, resource, guarantee, burst, lendLimit: null });
const named = (flavors: ResourceFlavor[], name: string) => flavors.find((f) => f.metadata.name === name)!;
/** Every ResourceFlavor name the tenant's ClusterQueues name, per resource ("<resource>=<flavour>"). */
const namesInQueues = (objects: { kind: string }[]) =>
  (objects.filter((o) => o.kind === "ClusterQueue") as ClusterQueue[]).flatMap((q) => q.spec.resourceGroups.flatMap((g) => g.flavors.map((f) => f.name)));

describe("renderPlatformFlavors", () => {
  it("renders nothing when Kueue is off", () => {
    expect(renderPlatformFlavors([dedicatedTenant], renderConfig({ flavors: POOL_FLAVORS }))).toEqual([]);
  });

  for (const apiVersion of ["v1beta1", "v1beta2"] as const) {
    describe(`Kueue ${apiVersion}`, () => {
      const flavors = renderPlatformFlavors([], config(apiVersion));

      it("renders one ResourceFlavor per pool flavour, named from the flavour alone, valid against Kueue's and Kubernetes' schemas", async () => {
        await validateObjects(flavors);
        expect(flavors.every((f) => f.apiVersion === `kueue.x-k8s.io/${apiVersion}` && f.kind === "ResourceFlavor")).toBe(true);
        expect(flavors.map((f) => f.metadata.name)).toEqual(["default", "a100-1g-10gb", "h100", "l4", "l4-shared-x4"]);
      });

      it("gives each flavour its pools' labels and taints and tolerates the taints, so admitted work lands there", () => {
        expect(named(flavors, "default").spec).toEqual({});
        expect(named(flavors, "h100").spec).toEqual({
          nodeLabels: { "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" },
          nodeTaints: [GPU_TAINT],
          tolerations: [{ key: "nvidia.com/gpu", operator: "Equal", value: "present", effect: "NoSchedule" }],
        });
        expect(named(flavors, "l4").spec).toEqual({ nodeLabels: { "nvidia.com/gpu.product": "NVIDIA-L4" } });
      });

      it("renders a MIG profile and a time-sliced GPU as flavours of their own, selecting their nodes by the MIG config and replica count", () => {
        expect(named(flavors, "a100-1g-10gb").spec.nodeLabels).toEqual({ "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/mig.config": "all-1g.10gb" });
        expect(named(flavors, "l4-shared-x4").spec.nodeLabels).toEqual({ "nvidia.com/gpu.product": "NVIDIA-L4-SHARED", "nvidia.com/gpu.replicas": "4" });
        expect(named(flavors, "l4-shared-x4").spec.tolerations).toEqual([{ key: "nvidia.com/gpu", operator: "Equal", value: "present", effect: "NoSchedule" }]);
      });
    });
  }

  it("labels the flavours as the platform's, with no tenant label (no tenant's pruning selects them)", () => {
    for (const f of renderPlatformFlavors([dedicatedTenant], config("v1beta2"))) expect(f.metadata.labels).toEqual({ "app.kubernetes.io/managed-by": "allot", "allot.dev/scope": "platform" });
  });

  it("gives a dedicated tenant's pool flavours of its own, pinned to its nodes on top of the GPU's labels and taints, and its queues name them", async () => {
    const flavors = renderPlatformFlavors([sharedTenant, dedicatedTenant], config("v1beta2"));
    await validateObjects(flavors);
    // Shared tenants add nothing: their queues name the platform's flavours.
    expect(flavors.map((f) => f.metadata.name)).toEqual([
      "default",
      "a100-1g-10gb",
      "h100",
      "l4",
      "l4-shared-x4",
      "vision-a100-default",
      "vision-a100-a100-1g-10gb",
      "vision-a100-h100",
      "vision-a100-l4",
      "vision-a100-l4-shared-x4",
    ]);
    expect(named(flavors, "vision-a100-h100").spec).toEqual({
      nodeLabels: { "allot.dev/pool": "vision-a100", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" },
      nodeTaints: [GPU_TAINT],
      tolerations: [...dedicatedTenant.nodePool!.tolerations, { key: "nvidia.com/gpu", operator: "Equal", value: "present", effect: "NoSchedule" }],
    });
    expect(named(flavors, "vision-a100-default").spec).toEqual({ nodeLabels: { "allot.dev/pool": "vision-a100" }, tolerations: dedicatedTenant.nodePool!.tolerations });
    const training = project({
      slug: "training",
      namespace: "vision--training",
      quota: { cpuCores: 8, memoryBytes: 8 * GiB, gpus: { "nvidia.com/gpu": 2 }, storageBytes: 0, pvcCount: 0, flavors: [line("default", "cpu", 8), line("default", "memory", 8 * GiB), line("H100", "nvidia.com/gpu", 2)] },
    });
    expect(namesInQueues(renderTenantObjects(dedicatedTenant, [training], config("v1beta2")))).toEqual(["vision-a100-default", "vision-a100-h100"]);
  });

  it("falls back to the configured GPU models when no pools are known", () => {
    expect(renderPlatformFlavors([], fullConfig).map((f) => [f.metadata.name, f.spec.nodeLabels ?? {}])).toEqual([
      ["default", {}],
      ["a100-80gb", { "nvidia.com/gpu.product": "A100-SXM4-80GB" }],
    ]);
  });

  it("keeps at most Kueue's 8 node labels on a flavour, those that pick the GPU first", async () => {
    const many: PoolFlavor = { key: "H100", resource: "nvidia.com/gpu", sharing: "exclusive", nodeTaints: [], nodeLabels: Object.fromEntries([...Array(12).keys()].map((i): [string, string] => [`example.com/l${i}`, "x"]).concat([["nvidia.com/gpu.product", "H100"]])) };
    const flavors = renderPlatformFlavors([], { ...config("v1beta2"), flavors: [POOL_FLAVORS[0]!, many] });
    await validateObjects(flavors);
    expect(Object.keys(named(flavors, "h100").spec.nodeLabels!)).toHaveLength(8);
    expect(named(flavors, "h100").spec.nodeLabels).toMatchObject({ "nvidia.com/gpu.product": "H100" });
  });

  it("refuses two pool flavours that would share one object name, rather than merge their nodes", () => {
    const twin: PoolFlavor = { ...POOL_FLAVORS[2]!, key: "h100" };
    expect(() => renderPlatformFlavors([], { ...config("v1beta2"), flavors: [...POOL_FLAVORS, twin] })).toThrow(/“H100” and “h100” would share this name/);
  });
});

describe("tenants share the platform's flavours (property)", () => {
  const keyed = POOL_FLAVORS.filter((f) => f.resource !== null);
  const lineArb = fc.record({ flavor: fc.constantFrom(...keyed), guarantee: fc.integer({ min: 0, max: 16 }), burst: fc.integer({ min: 0, max: 8 }) });
  // A project holds one line per flavour and resource (lib/quota/lines.ts).
  const tenantArb = fc.record({ slug: fc.constantFrom("acme", "vision-lab", "nlp", "robotics"), lines: fc.uniqueArray(lineArb, { minLength: 1, maxLength: 4, selector: (l) => l.flavor.key }) });

  it("two tenants' ClusterQueues for the same pool flavour name the same ResourceFlavor, and every name a queue names is a flavour the platform renders", () => {
    const cfg = config("v1beta2");
    const rendered = new Set(renderPlatformFlavors([], cfg).map((f) => f.metadata.name));
    fc.assert(
      fc.property(fc.array(tenantArb, { minLength: 2, maxLength: 4 }), (specs) => {
        // Per tenant and GPU resource: the pool flavours it holds, and the ResourceFlavors its guaranteed queue names for them.
        const seen = specs.map((spec, i) => {
          const tenant: DesiredTenant = { ...sharedTenant, slug: `${spec.slug}-${i}` };
          const lines = spec.lines.map((l) => line(l.flavor.key, l.flavor.resource!, l.guarantee, l.burst));
          const p = project({ slug: "p", namespace: `${tenant.slug}--p`, quota: { cpuCores: 4, memoryBytes: 4 * GiB, gpus: {}, storageBytes: 0, pvcCount: 0, flavors: [line("default", "cpu", 4, 2), line("default", "memory", 4 * GiB), ...lines] } });
          const objects = renderTenantObjects(tenant, [p], cfg);
          for (const name of namesInQueues(objects)) {
            expect(rendered.has(name), name).toBe(true);
            expect(name.includes(tenant.slug)).toBe(false);
          }
          const guaranteed = objects.filter((o): o is ClusterQueue => o.kind === "ClusterQueue").find((q) => q.metadata.name === p.namespace)!;
          return new Map(
            guaranteed.spec.resourceGroups.map((g) => [
              g.coveredResources.join(),
              { keys: [...new Set(lines.filter((l) => g.coveredResources.includes(l.resource)).map((l) => l.flavor))].sort().join(), names: g.flavors.map((f) => f.name).join() },
            ]),
          );
        });
        for (const a of seen)
          for (const b of seen)
            for (const [resource, held] of a) {
              const other = b.get(resource);
              if (other && other.keys === held.keys) expect(other.names, resource).toBe(held.names);
            }
      }),
      { numRuns: 100 },
    );
  });
});
