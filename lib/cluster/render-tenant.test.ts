import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderConfig, type FlavorQuota, type RenderConfig } from "./desired-state";
import { dedicatedTenant, fullConfig, migProject, noGpuProject, POOL_FLAVORS, project, sharedTenant } from "./fixtures";
import { kueueProblems, type ClusterQueue, type Cohort, type LocalQueue, type WorkloadPriorityClass } from "./kueue";
import { renderProjectObjects, renderTenant } from "./render-project";
import { renderTenantObjects } from "./render-tenant";
import { validateObjects } from "./validate";

const GiB = 2 ** 30;
const line = (flavor: string, resource: string, guarantee: number, burst = 0, lendLimit: number | null = null): FlavorQuota => ({ flavor, resource, guarantee, burst, lendLimit });

/** A project holding lines of every sharing kind, with burst on H100 (preemptible allowed) and on MIG (serving only: no burst queue there). */
const pretraining = project({
  slug: "pretraining",
  namespace: "vision--pretraining",
  fairShareWeight: 2,
  quota: {
    cpuCores: 64,
    memoryBytes: 512 * GiB,
    gpus: { "nvidia.com/gpu": 16, "nvidia.com/mig-1g.10gb": 4, "nvidia.com/gpu.shared": 8 },
    storageBytes: 0,
    pvcCount: 0,
    burst: { cpuCores: 32, memoryBytes: 128 * GiB, gpus: { "nvidia.com/gpu": 8, "nvidia.com/mig-1g.10gb": 2, "nvidia.com/gpu.shared": 0 } },
    flavors: [
      line("default", "cpu", 64, 32),
      line("default", "memory", 512 * GiB, 128 * GiB),
      line("H100", "nvidia.com/gpu", 16, 8, 8),
      line("A100 1g.10gb", "nvidia.com/mig-1g.10gb", 4, 2),
      line("L4 shared x4", "nvidia.com/gpu.shared", 8),
    ],
  },
});
const inference = project({
  slug: "inference",
  namespace: "vision--inference",
  quota: { cpuCores: 16, memoryBytes: 64 * GiB, gpus: { "nvidia.com/gpu": 2 }, storageBytes: 0, pvcCount: 0, flavors: [line("default", "cpu", 16), line("default", "memory", 64 * GiB), line("L4", "nvidia.com/gpu", 2)] },
});

const config = (apiVersion: "v1beta1" | "v1beta2", extra: Partial<RenderConfig["kueue"]> = {}): RenderConfig => ({ ...fullConfig, flavors: POOL_FLAVORS, kueue: { enabled: true, apiVersion, cohort: "allot", ...extra } });
const ofKind = <T>(objects: { kind: string }[], kind: string) => objects.filter((o) => o.kind === kind) as T[];
const queue = (objects: { kind: string }[], name: string) => ofKind<ClusterQueue>(objects, "ClusterQueue").find((q) => q.metadata.name === name);

describe("renderTenantObjects", () => {
  it("renders nothing cluster-wide when Kueue is off, and the namespace quota alone caps the project", () => {
    expect(renderTenantObjects(dedicatedTenant, [pretraining], renderConfig({ flavors: POOL_FLAVORS }))).toEqual([]);
    expect(renderProjectObjects(dedicatedTenant, pretraining, renderConfig({ flavors: POOL_FLAVORS })).some((o) => o.apiVersion.startsWith("kueue"))).toBe(false);
  });

  for (const apiVersion of ["v1beta1", "v1beta2"] as const) {
    describe(`Kueue ${apiVersion}`, () => {
      const objects = renderTenantObjects(sharedTenant, [pretraining, inference], config(apiVersion));

      it("passes the Kueue and Kubernetes checks, in apply order: tiers, the cohort, then queues (the flavours are the platform's)", async () => {
        await validateObjects(objects);
        expect(objects.every((o) => o.apiVersion === `kueue.x-k8s.io/${apiVersion}`)).toBe(true);
        expect(objects.map((o) => o.kind)).toEqual([
          ...Array<string>(3).fill("WorkloadPriorityClass"),
          "Cohort",
          "ClusterQueue",
          "ClusterQueue",
          "ClusterQueue",
        ]);
      });

      it("puts the tenant's cohort under the platform's, and every project queue in the tenant's cohort", () => {
        const [cohort] = ofKind<Cohort>(objects, "Cohort");
        expect(cohort).toMatchObject({ metadata: { name: "tenant-acme" }, spec: { parentName: "allot" } });
        for (const q of ofKind<ClusterQueue>(objects, "ClusterQueue")) {
          if (apiVersion === "v1beta1") expect(q.spec).toMatchObject({ cohort: "tenant-acme" });
          else expect(q.spec).toMatchObject({ cohortName: "tenant-acme" });
          expect(q.spec.cohort ?? q.spec.cohortName).toBe("tenant-acme");
        }
      });

      it("gives a project's guaranteed queue its guarantee (nominal), no borrowing, its lend limit, weight and reclaim policy", () => {
        const q = queue(objects, "vision--pretraining")!;
        expect(q.spec.namespaceSelector).toEqual({ matchLabels: { "kubernetes.io/metadata.name": "vision--pretraining" } });
        expect(q.spec.fairSharing).toEqual({ weight: "2" });
        expect(q.spec.preemption).toEqual({ reclaimWithinCohort: "Any", withinClusterQueue: "LowerPriority" });
        expect(q.spec.resourceGroups).toEqual([
          {
            coveredResources: ["cpu", "memory"],
            flavors: [{ name: "default", resources: [{ name: "cpu", nominalQuota: "64", borrowingLimit: "0" }, { name: "memory", nominalQuota: "512Gi", borrowingLimit: "0" }] }],
          },
          { coveredResources: ["nvidia.com/gpu"], flavors: [{ name: "h100", resources: [{ name: "nvidia.com/gpu", nominalQuota: "16", borrowingLimit: "0", lendingLimit: "8" }] }] },
          { coveredResources: ["nvidia.com/gpu.shared"], flavors: [{ name: "l4-shared-x4", resources: [{ name: "nvidia.com/gpu.shared", nominalQuota: "8", borrowingLimit: "0" }] }] },
          { coveredResources: ["nvidia.com/mig-1g.10gb"], flavors: [{ name: "a100-1g-10gb", resources: [{ name: "nvidia.com/mig-1g.10gb", nominalQuota: "4", borrowingLimit: "0" }] }] },
        ]);
      });

      it("gives burst a queue of its own that holds nothing and borrows up to the burst, only on pools that admit preemptible work", () => {
        const q = queue(objects, "vision--pretraining.burst")!;
        expect(q.spec.preemption).toEqual({ reclaimWithinCohort: "LowerPriority", borrowWithinCohort: { policy: "LowerPriority", maxPriorityThreshold: 100 }, withinClusterQueue: "LowerPriority" });
        // The MIG pool is serving only: its 2 burst slices are not offered to preemptible work.
        expect(q.spec.resourceGroups).toEqual([
          {
            coveredResources: ["cpu", "memory"],
            flavors: [{ name: "default", resources: [{ name: "cpu", nominalQuota: "0", borrowingLimit: "32" }, { name: "memory", nominalQuota: "0", borrowingLimit: "128Gi" }] }],
          },
          { coveredResources: ["nvidia.com/gpu"], flavors: [{ name: "h100", resources: [{ name: "nvidia.com/gpu", nominalQuota: "0", borrowingLimit: "8" }] }] },
        ]);
        expect(queue(objects, "vision--inference.burst")).toBeUndefined();
      });

      it("lists every flavour of one GPU resource in one resource group (two models both advertise nvidia.com/gpu)", async () => {
        const both = project({
          slug: "both",
          namespace: "vision--both",
          quota: { cpuCores: 8, memoryBytes: 8 * GiB, gpus: { "nvidia.com/gpu": 6 }, storageBytes: 0, pvcCount: 0, flavors: [line("default", "cpu", 8), line("default", "memory", 8 * GiB), line("L4", "nvidia.com/gpu", 2), line("H100", "nvidia.com/gpu", 4)] },
        });
        const rendered = renderTenantObjects(sharedTenant, [both], config(apiVersion));
        await validateObjects(rendered);
        expect(queue(rendered, "vision--both")!.spec.resourceGroups[1]).toEqual({
          coveredResources: ["nvidia.com/gpu"],
          flavors: [
            { name: "h100", resources: [{ name: "nvidia.com/gpu", nominalQuota: "4", borrowingLimit: "0" }] },
            { name: "l4", resources: [{ name: "nvidia.com/gpu", nominalQuota: "2", borrowingLimit: "0" }] },
          ],
        });
      });

      it("renders the tiers as WorkloadPriorityClasses, serving above training above preemptible", () => {
        expect(ofKind<WorkloadPriorityClass>(objects, "WorkloadPriorityClass").map((c) => [c.metadata.name, c.value])).toEqual([
          ["acme-serving", 1000],
          ["acme-training", 500],
          ["acme-preemptible", 100],
        ]);
      });
    });
  }

  it("without Cohort objects (Kueue before 0.13), puts project queues straight into the platform cohort", async () => {
    const objects = renderTenantObjects(sharedTenant, [pretraining], config("v1beta1", { cohortObjects: false }));
    await validateObjects(objects);
    expect(ofKind(objects, "Cohort")).toEqual([]);
    for (const q of ofKind<ClusterQueue>(objects, "ClusterQueue")) expect(q.spec.cohort).toBe("allot");
  });

  it("makes a dedicated tenant's queues name its own pool's flavours, and drops lines of flavours no pool offers", async () => {
    const objects = renderTenantObjects(dedicatedTenant, [migProject], fullConfig);
    await validateObjects(objects);
    const names = ofKind<ClusterQueue>(objects, "ClusterQueue").flatMap((q) => q.spec.resourceGroups.flatMap((g) => g.flavors.map((f) => f.name)));
    // fullConfig knows one GPU model (a100-80gb); the MIG line's flavour is no pool's, so no queue names it.
    expect(names).toEqual(["vision-a100-default", "vision-a100-a100-80gb"]);
  });

  it("labels tenant objects with managed-by and tenant (they belong to no project)", () => {
    for (const o of renderTenantObjects(dedicatedTenant, [migProject], fullConfig)) {
      expect(o.metadata.labels).toEqual({ "app.kubernetes.io/managed-by": "allot", "allot.dev/tenant": "vision" });
    }
  });

  it("renders a project with CPU only: a guaranteed queue with the default flavour and no burst queue", async () => {
    const objects = renderTenantObjects(sharedTenant, [noGpuProject], config("v1beta2"));
    await validateObjects(objects);
    expect(ofKind<ClusterQueue>(objects, "ClusterQueue").map((q) => q.metadata.name)).toEqual([noGpuProject.namespace]);
  });
});

describe("project objects with Kueue", () => {
  it("adds a preemptible LocalQueue on the burst queue only when the project may burst, and caps the namespace at guarantee plus burst for every pool GPU", async () => {
    const objects = renderProjectObjects(sharedTenant, pretraining, config("v1beta2"));
    await validateObjects(objects);
    expect(ofKind<LocalQueue>(objects, "LocalQueue").map((q) => [q.metadata.name, q.spec.clusterQueue])).toEqual([
      ["default", "vision--pretraining"],
      ["preemptible", "vision--pretraining.burst"],
    ]);
    const rq = objects.find((o) => o.kind === "ResourceQuota" && o.metadata?.name === "project-quota") as { spec: { hard: Record<string, string> } };
    expect(rq.spec.hard).toMatchObject({
      "requests.cpu": "96",
      "limits.memory": "640Gi",
      "requests.nvidia.com/gpu": "24",
      "requests.nvidia.com/mig-1g.10gb": "6",
      "requests.nvidia.com/gpu.shared": "8",
    });
    expect(ofKind<LocalQueue>(renderProjectObjects(sharedTenant, inference, config("v1beta2")), "LocalQueue").map((q) => q.metadata.name)).toEqual(["default"]);
  });

  it("gives a closed project (archived, or its tenant disabled) no ClusterQueue and no LocalQueue, while its namespace and quota stay", async () => {
    const archived = { ...inference, closed: true };
    const tenantObjects = renderTenantObjects(sharedTenant, [pretraining, archived], config("v1beta2"));
    await validateObjects(tenantObjects);
    expect(ofKind<ClusterQueue>(tenantObjects, "ClusterQueue").map((q) => q.metadata.name)).toEqual(["vision--pretraining", "vision--pretraining.burst"]);
    const projectObjects = renderProjectObjects(sharedTenant, archived, config("v1beta2"));
    expect(ofKind<LocalQueue>(projectObjects, "LocalQueue")).toEqual([]);
    expect(projectObjects.map((o) => o.kind)).toEqual(expect.arrayContaining(["Namespace", "ResourceQuota"]));
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

describe("rendered queues hold the plan (property)", () => {
  /** A project's GPU lines on H100 (preemptible allowed) and MIG (serving only), any guarantee, burst and lend limit, even one above the guarantee. */
  const gpuLine = (flavor: "H100" | "A100 1g.10gb") =>
    fc.record({ guarantee: fc.integer({ min: 0, max: 32 }), burst: fc.integer({ min: 0, max: 16 }), lendLimit: fc.option(fc.integer({ min: 0, max: 40 }), { nil: null }) }).map((l) => ({
      ...l,
      flavor,
      resource: flavor === "H100" ? "nvidia.com/gpu" : "nvidia.com/mig-1g.10gb",
    }));
  const projectsArb = fc.array(fc.tuple(gpuLine("H100"), gpuLine("A100 1g.10gb"), fc.integer({ min: 0, max: 8 })), { minLength: 1, maxLength: 4 });

  it("guarantees are nominal quota, bursts are borrowing limits only where preemptible work may run, lending never exceeds the guarantee, the namespace cap is guarantee + burst", () => {
    fc.assert(
      fc.property(projectsArb, (specs) => {
        const projects = specs.map(([h100, mig, weight], i) =>
          project({
            slug: `p${i}`,
            namespace: `vision--p${i}`,
            fairShareWeight: weight,
            quota: {
              cpuCores: 4,
              memoryBytes: 16 * GiB,
              gpus: { "nvidia.com/gpu": h100.guarantee, "nvidia.com/mig-1g.10gb": mig.guarantee },
              storageBytes: 0,
              pvcCount: 0,
              burst: { cpuCores: 0, memoryBytes: 0, gpus: { "nvidia.com/gpu": h100.burst, "nvidia.com/mig-1g.10gb": mig.burst } },
              flavors: [line("default", "cpu", 4), line("default", "memory", 16 * GiB), h100, mig],
            },
          }),
        );
        const cfg = config("v1beta2");
        const objects = renderTenantObjects(sharedTenant, projects, cfg);
        for (const o of objects) expect(kueueProblems(o)).toEqual([]);
        projects.forEach((p, i) => {
          const [h100, mig] = specs[i]!;
          const quotaOf = (q: ClusterQueue | undefined, flavor: string, resource: string) =>
            q?.spec.resourceGroups.flatMap((g) => g.flavors).find((f) => f.name === flavor)?.resources.find((r) => r.name === resource);
          for (const l of [h100, mig]) {
            const g = quotaOf(queue(objects, p.namespace), l.flavor === "H100" ? "h100" : "a100-1g-10gb", l.resource);
            expect(g).toMatchObject({ nominalQuota: String(l.guarantee), borrowingLimit: "0" });
            if (g?.lendingLimit !== undefined) expect(Number(g.lendingLimit)).toBeLessThanOrEqual(l.guarantee);
            expect(g?.lendingLimit).toBe(l.lendLimit === null ? undefined : String(Math.min(l.lendLimit, l.guarantee)));
          }
          const burst = queue(objects, `${p.namespace}.burst`);
          // MIG admits only serving: never borrowed, whatever its burst.
          expect(burst !== undefined).toBe(h100.burst > 0);
          expect(quotaOf(burst, "a100-1g-10gb", mig.resource)).toBeUndefined();
          if (burst) expect(quotaOf(burst, "h100", h100.resource)).toEqual({ name: h100.resource, nominalQuota: "0", borrowingLimit: String(h100.burst) });
          const hard = renderProjectObjects(sharedTenant, p, cfg).find((o) => o.kind === "ResourceQuota" && o.metadata?.name === "project-quota") as { spec: { hard: Record<string, string> } } | undefined;
          expect(hard?.spec.hard["requests.nvidia.com/gpu"]).toBe(String(h100.guarantee + h100.burst));
          expect(hard?.spec.hard["requests.nvidia.com/mig-1g.10gb"]).toBe(String(mig.guarantee + mig.burst));
        });
      }),
      { numRuns: 200 },
    );
  });
});
