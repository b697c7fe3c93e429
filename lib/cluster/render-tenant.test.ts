import { describe, expect, it } from "vitest";
import { renderConfig } from "./desired-state";
import { dedicatedTenant, fullConfig, migProject, noGpuProject, project, sharedTenant } from "./fixtures";
import type { ClusterQueue, ResourceFlavor } from "./kueue";
import { renderTenant } from "./render-project";
import { renderTenantObjects } from "./render-tenant";
import { validateObjects } from "./validate";

const inference = project({ slug: "inference", namespace: "vision--inference", quota: { cpuCores: 16, memoryBytes: 64 * 2 ** 30, gpus: { "nvidia.com/gpu": 2 }, storageBytes: 0, pvcCount: 0 } });

describe("renderTenantObjects", () => {
  it("renders nothing cluster-wide when Kueue is off", () => {
    expect(renderTenantObjects(dedicatedTenant, [migProject], renderConfig())).toEqual([]);
  });

  it("sums the projects into the ClusterQueue's nominal quota, one flavour per GPU resource, in the cohort", async () => {
    const objects = renderTenantObjects(dedicatedTenant, [migProject, inference], fullConfig);
    await validateObjects(objects);
    const queue = objects.find((o): o is ClusterQueue => o.kind === "ClusterQueue")!;
    expect(queue.metadata.name).toBe("tenant-vision");
    expect(queue.spec.cohortName).toBe("allot");
    expect(queue.spec.cohort).toBeUndefined();
    expect(queue.spec.namespaceSelector.matchLabels).toEqual({ "allot.dev/tenant": "vision", "app.kubernetes.io/managed-by": "allot" });
    expect(queue.spec.resourceGroups).toEqual([
      {
        coveredResources: ["cpu", "memory"],
        flavors: [{ name: "vision-default", resources: [{ name: "cpu", nominalQuota: "80" }, { name: "memory", nominalQuota: "576Gi" }] }],
      },
      { coveredResources: ["nvidia.com/gpu"], flavors: [{ name: "vision-a100-80gb", resources: [{ name: "nvidia.com/gpu", nominalQuota: "6" }] }] },
      { coveredResources: ["nvidia.com/mig-1g.10gb"], flavors: [{ name: "vision-nvidia-com-mig-1g-10gb", resources: [{ name: "nvidia.com/mig-1g.10gb", nominalQuota: "2" }] }] },
    ]);
  });

  it("puts a dedicated tenant's node pool and GPU model on its flavours", () => {
    const flavors = renderTenantObjects(dedicatedTenant, [migProject], fullConfig).filter((o): o is ResourceFlavor => o.kind === "ResourceFlavor");
    const a100 = flavors.find((f) => f.metadata.name === "vision-a100-80gb")!;
    expect(a100.spec).toEqual({
      nodeLabels: { "allot.dev/pool": "vision-a100", "nvidia.com/gpu.product": "A100-SXM4-80GB" },
      tolerations: dedicatedTenant.nodePool!.tolerations,
    });
    for (const f of flavors) expect(f.spec.nodeLabels).toMatchObject({ "allot.dev/pool": "vision-a100" });
  });

  it("leaves a shared tenant's flavours off any pool, and uses `cohort` for v1beta1", async () => {
    const objects = renderTenantObjects(sharedTenant, [noGpuProject], { ...fullConfig, kueue: { enabled: true, apiVersion: "v1beta1", cohort: "ml" } });
    await validateObjects(objects);
    expect(objects.map((o) => [o.apiVersion, o.kind, o.metadata.name])).toEqual([
      ["kueue.x-k8s.io/v1beta1", "ResourceFlavor", "acme-default"],
      ["kueue.x-k8s.io/v1beta1", "ClusterQueue", "tenant-acme"],
    ]);
    expect(objects[0]!.spec).toEqual({});
    expect((objects[1] as ClusterQueue).spec).toMatchObject({ cohort: "ml" });
  });

  it("labels tenant objects with managed-by and tenant (they belong to no project)", () => {
    for (const o of renderTenantObjects(dedicatedTenant, [migProject], fullConfig)) {
      expect(o.metadata.labels).toEqual({ "app.kubernetes.io/managed-by": "allot", "allot.dev/tenant": "vision" });
    }
  });
});

describe("renderTenant", () => {
  it("orders cluster-scoped queue objects first, then projects by namespace, and is deterministic", async () => {
    const objects = renderTenant(dedicatedTenant, [migProject, inference], fullConfig);
    await validateObjects(objects);
    const namespaces = objects.filter((o) => o.kind === "Namespace").map((o) => o.metadata!.name);
    expect(namespaces).toEqual(["vision--inference", "vision--training"]);
    expect(objects.findIndex((o) => o.kind === "ClusterQueue")).toBeLessThan(objects.findIndex((o) => o.kind === "Namespace"));
    expect(JSON.stringify(renderTenant(dedicatedTenant, [inference, migProject], fullConfig))).toBe(JSON.stringify(objects));
  });
});
