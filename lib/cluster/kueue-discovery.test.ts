import { describe, expect, it } from "vitest";
import { groupList, resourceList, resourceTypes, type ResourceType } from "@/test/kube-api/resources";
import { chooseKueueVersion, discoverKueueApi, KUEUE_GROUP, withKueueChoice } from "./kueue-discovery";
import { DEFAULT_RENDER_CONFIG } from "./desired-state";

/** A discovery door over the stand-in's own documents: what an API server serving `types` answers. */
const serving = (types: readonly ResourceType[]) => (path: string) => {
  if (path === "/apis") return Promise.resolve(groupList(types));
  const [, , group, version] = path.split("/");
  const body = resourceList(types, group!, version!);
  return body ? Promise.resolve(body) : Promise.reject(new Error("404"));
};
const withoutCohorts = (types: ResourceType[]) => types.filter((t) => t.kind !== "Cohort");
const setting = (apiVersion: "v1beta1" | "v1beta2", cohortObjects = true) => ({ enabled: true, apiVersion, cohort: "allot", cohortObjects });

describe("Kueue API discovery", () => {
  it("renders v1beta2 with Cohorts where the cluster serves both versions, whatever the setting says", async () => {
    const choice = await discoverKueueApi(serving(resourceTypes(["v1beta1", "v1beta2"])), setting("v1beta1", false));
    expect(choice).toMatchObject({ apiVersion: "v1beta2", cohortObjects: true, source: "discovered" });
  });

  it("renders v1beta1 where only v1beta1 is served, and no Cohort objects where that version has none", async () => {
    expect(await discoverKueueApi(serving(resourceTypes(["v1beta1"])), setting("v1beta2"))).toMatchObject({ apiVersion: "v1beta1", cohortObjects: true, source: "discovered" });
    const old = await discoverKueueApi(serving(withoutCohorts(resourceTypes(["v1beta1"]))), setting("v1beta2"));
    expect(old).toMatchObject({ apiVersion: "v1beta1", cohortObjects: false, source: "discovered" });
    expect(old.note).toContain("without Cohort objects");
  });

  it("keeps the setting where Kueue is not served or discovery fails, and says so", async () => {
    const none = await discoverKueueApi(serving(resourceTypes([])), setting("v1beta1", false));
    expect(none).toMatchObject({ apiVersion: "v1beta1", cohortObjects: false, source: "setting" });
    expect(none.note).toContain("serves no Kueue version");
    const down = await discoverKueueApi(() => Promise.reject(new Error("ECONNREFUSED")), setting("v1beta2"));
    expect(down).toMatchObject({ apiVersion: "v1beta2", cohortObjects: true, source: "setting" });
  });

  it("prefers the group's preferred version only when Allot renders it", () => {
    const group = (versions: string[], preferred: string) => ({ groups: [{ name: KUEUE_GROUP, versions: versions.map((version) => ({ version })), preferredVersion: { version: preferred } }] });
    expect(chooseKueueVersion(group(["v1beta1", "v1beta2"], "v1beta1"))).toBe("v1beta1");
    expect(chooseKueueVersion(group(["v1beta1", "v1beta2", "v1"], "v1"))).toBe("v1beta2");
    expect(chooseKueueVersion(group(["v1alpha1"], "v1alpha1"))).toBeNull();
  });

  it("applies the choice to the render settings only when Kueue is on", () => {
    const choice = { apiVersion: "v1beta1" as const, cohortObjects: false, source: "discovered" as const, note: "" };
    const on = { ...DEFAULT_RENDER_CONFIG, kueue: setting("v1beta2") };
    expect(withKueueChoice(on, choice).kueue).toMatchObject({ apiVersion: "v1beta1", cohortObjects: false, enabled: true });
    expect(withKueueChoice(DEFAULT_RENDER_CONFIG, choice)).toBe(DEFAULT_RENDER_CONFIG);
  });
});
