import { describe, expect, it } from "vitest";
import type { RenderConfig } from "./desired-state";
import { dedicatedTenant, fullConfig, migProject, noGpuProject, POOL_FLAVORS, sharedTenant } from "./fixtures";
import type { ClusterQueue, ResourceFlavor } from "./kueue";
import { KUEUE_CRD_SOURCE, kueueSchemaProblems } from "./kueue-schema";
import { renderPlatformFlavors } from "./render-platform";
import { renderProjectObjects } from "./render-project";
import { renderTenantObjects } from "./render-tenant";
import { InvalidObjectError, validateObjects } from "./validate";

const config = (apiVersion: "v1beta1" | "v1beta2"): RenderConfig => ({ ...fullConfig, kueue: { enabled: true, apiVersion, cohort: "allot" } });
const clone = <T>(o: T): T => structuredClone(o);

for (const apiVersion of ["v1beta1", "v1beta2"] as const) {
  describe(`Kueue ${apiVersion} objects against Kueue's own CRDs (${KUEUE_CRD_SOURCE})`, () => {
    const tenantObjects = renderTenantObjects(sharedTenant, [migProject, noGpuProject], config(apiVersion));
    const projectObjects = renderProjectObjects(sharedTenant, migProject, config(apiVersion)).filter((o) => o.apiVersion.startsWith("kueue"));
    // The platform's flavours: every kind of pool (MIG, time-sliced, tainted) and a dedicated tenant's pinned ones.
    const platformObjects = renderPlatformFlavors([dedicatedTenant], { ...config(apiVersion), flavors: POOL_FLAVORS });
    const rendered = [...platformObjects, ...tenantObjects, ...projectObjects];
    const queue = () => clone(rendered.find((o) => o.kind === "ClusterQueue")) as unknown as ClusterQueue;
    const flavour = () => clone(rendered.find((o) => o.kind === "ResourceFlavor")) as unknown as ResourceFlavor;

    it("accepts every kind Allot renders", () => {
      expect(new Set(rendered.map((o) => o.kind))).toEqual(new Set(["WorkloadPriorityClass", "ResourceFlavor", "Cohort", "ClusterQueue", "LocalQueue"]));
      for (const o of rendered) expect(kueueSchemaProblems(o), `${o.kind} ${o.metadata?.name}`).toEqual([]);
    });

    it("refuses a field the version does not know instead of letting the API server drop it", () => {
      const q = queue() as unknown as { spec: Record<string, unknown> };
      const [ours, theirs] = apiVersion === "v1beta1" ? ["cohort", "cohortName"] : ["cohortName", "cohort"];
      q.spec[theirs] = q.spec[ours];
      delete q.spec[ours];
      expect(kueueSchemaProblems(q).join("\n")).toContain(`spec has a field the CRD does not know: ${theirs}`);
    });

    it("refuses what the schema types and enums refuse", () => {
      const q = queue();
      q.spec.queueingStrategy = "Random" as never;
      q.spec.resourceGroups[0]!.flavors[0]!.resources[0]!.nominalQuota = "lots";
      const problems = kueueSchemaProblems(q).join("\n");
      expect(problems).toContain("spec.queueingStrategy must be equal to one of the allowed values");
      expect(problems).toContain("spec.resourceGroups.0.flavors.0.resources.0.nominalQuota");
    });

    it("applies the CRDs' CEL rules: a borrowing limit needs a cohort, every flavour covers the group's resources, tolerations as Kubernetes takes them", () => {
      const loose = queue() as unknown as { spec: Record<string, unknown> } & ClusterQueue;
      delete loose.spec.cohort;
      delete loose.spec.cohortName;
      loose.spec.resourceGroups[0]!.flavors[0]!.resources[0]!.borrowingLimit = "1";
      expect(kueueSchemaProblems(loose).join("\n")).toContain("spec: borrowingLimit must be nil when cohort is empty");

      const short = queue();
      short.spec.resourceGroups[0]!.coveredResources.push("example.com/widgets");
      expect(kueueSchemaProblems(short).join("\n")).toMatch(/spec\.resourceGroups\[0\]: flavors must have the same number of resources as the coveredResources/);

      const f = flavour();
      f.spec.tolerations = [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule", tolerationSeconds: 30 } as never];
      expect(kueueSchemaProblems(f).join("\n")).toContain("spec.tolerations: effect must be 'NoExecute' when 'tolerationSeconds' is set");
    });

    it("fails the render's validation, naming the object, so nothing of the change is applied", async () => {
      const q = queue() as unknown as { spec: Record<string, unknown>; metadata: { name: string } };
      q.spec.unknownKnob = true;
      await expect(validateObjects([q as never])).rejects.toThrow(InvalidObjectError);
      await expect(validateObjects([q as never])).rejects.toThrow(`invalid ClusterQueue ${q.metadata.name}: spec has a field the CRD does not know: unknownKnob`);
    });
  });
}

it("names a kind the CRDs do not have", () => {
  expect(kueueSchemaProblems({ apiVersion: "kueue.x-k8s.io/v1alpha1", kind: "Cohort" })).toEqual([expect.stringContaining("have no kueue.x-k8s.io/v1alpha1 Cohort")]);
});
