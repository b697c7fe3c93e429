import { describe, expect, it } from "vitest";
import { poolFlavorsOf } from "@/lib/quota/pool-flavors";
import type { FlavorQuota, RenderConfig } from "./desired-state";
import { fullConfig, project, sharedTenant } from "./fixtures";
import type { ClusterQueue, ResourceFlavor } from "./kueue";
import { renderPlatformFlavors } from "./render-platform";
import { renderTenantObjects } from "./render-tenant";
import { validateObjects } from "./validate";

/**
 * A MIG mixed-strategy pool with two requestable profiles renders a
 * ResourceFlavor per profile on the same nodes, and a project holding both
 * gets a ClusterQueue whose resource groups obey Kueue's rules: each resource
 * in exactly one group, and the flavours of a group covering the same
 * resources (a group per MIG resource here, as each profile is its own
 * resource). Validated against Kueue's and Kubernetes' schemas.
 */
const GiB = 2 ** 30;
const mixedPool = {
  gpuModel: "A100 1g.10gb",
  gpuResource: "nvidia.com/mig-1g.10gb",
  gpuSharing: "mig" as const,
  gpuProfiles: [{ model: "A100 3g.40gb", resource: "nvidia.com/mig-3g.40gb", perNode: 2 }],
  nodeLabels: { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/mig.config": "custom-mixed" },
  nodeTaints: [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" as const }],
  tiers: null,
};
const h100Pool = { gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpuSharing: "exclusive" as const, nodeLabels: { "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" }, nodeTaints: [], tiers: null };
const line = (flavor: string, resource: string, guarantee: number, burst = 0): FlavorQuota => ({ flavor, resource, guarantee, burst, lendLimit: null });

for (const apiVersion of ["v1beta1", "v1beta2"] as const) {
  describe(`a mixed MIG pool with two requestable profiles (Kueue ${apiVersion})`, () => {
    const config: RenderConfig = { ...fullConfig, flavors: poolFlavorsOf([mixedPool, h100Pool]), kueue: { enabled: true, apiVersion, cohort: "allot" } };
    const flavors = renderPlatformFlavors([], config);
    const both = project({
      slug: "inference",
      namespace: "acme--inference",
      quota: {
        cpuCores: 16,
        memoryBytes: 64 * GiB,
        gpus: { "nvidia.com/mig-1g.10gb": 4, "nvidia.com/mig-3g.40gb": 2 },
        storageBytes: 0,
        pvcCount: 0,
        flavors: [line("default", "cpu", 16, 8), line("default", "memory", 64 * GiB, 32 * GiB), line("A100 1g.10gb", "nvidia.com/mig-1g.10gb", 4), line("A100 3g.40gb", "nvidia.com/mig-3g.40gb", 2, 2), line("H100", "nvidia.com/gpu", 1)],
      },
    });
    const objects = renderTenantObjects(sharedTenant, [both], config);
    const queues = objects.filter((o): o is ClusterQueue => o.kind === "ClusterQueue");

    it("renders one ResourceFlavor per profile, both selecting the pool's nodes and tolerating its taint", async () => {
      await validateObjects(flavors);
      expect(flavors.map((f) => f.metadata.name)).toEqual(["default", "a100-1g-10gb", "a100-3g-40gb", "h100"]);
      const spec = (name: string) => (flavors.find((f) => f.metadata.name === name) as ResourceFlavor).spec;
      expect(spec("a100-3g-40gb")).toEqual(spec("a100-1g-10gb"));
      expect(spec("a100-3g-40gb").nodeLabels).toEqual(mixedPool.nodeLabels);
    });

    it("covers each profile's resource with its flavour in a group of its own: each resource in exactly one group, every flavour of a group covering the group's resources", async () => {
      await validateObjects([...flavors, ...objects]);
      expect(queues.map((q) => q.metadata.name)).toEqual(["acme--inference", "acme--inference.burst"]);
      const [guaranteed, burst] = queues as [ClusterQueue, ClusterQueue];
      expect(guaranteed.spec.resourceGroups.map((g) => [g.coveredResources, g.flavors.map((f) => f.name)])).toEqual([
        [["cpu", "memory"], ["default"]],
        [["nvidia.com/gpu"], ["h100"]],
        [["nvidia.com/mig-1g.10gb"], ["a100-1g-10gb"]],
        [["nvidia.com/mig-3g.40gb"], ["a100-3g-40gb"]],
      ]);
      expect(guaranteed.spec.resourceGroups[3]!.flavors[0]!.resources).toEqual([{ name: "nvidia.com/mig-3g.40gb", nominalQuota: "2", borrowingLimit: "0" }]);
      // Only the second profile has burst: the burst queue borrows on it alone among the GPUs.
      expect(burst.spec.resourceGroups.map((g) => g.coveredResources)).toEqual([["cpu", "memory"], ["nvidia.com/mig-3g.40gb"]]);
      for (const q of queues) {
        const covered = q.spec.resourceGroups.flatMap((g) => g.coveredResources);
        expect(new Set(covered).size, `${q.metadata.name}: a resource in two groups`).toBe(covered.length);
        for (const g of q.spec.resourceGroups) for (const f of g.flavors) expect(f.resources.map((r) => r.name)).toEqual(g.coveredResources);
        // Every flavour a queue names is rendered.
        for (const g of q.spec.resourceGroups) for (const f of g.flavors) expect(flavors.map((x) => x.metadata.name)).toContain(f.name);
      }
    });
  });
}
