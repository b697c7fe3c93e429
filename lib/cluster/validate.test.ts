import { describe, expect, it } from "vitest";
import { fullConfig, migProject, sharedTenant, noGpuProject, dedicatedTenant } from "./fixtures";
import type { ClusterQueue } from "./kueue";
import { renderProjectObjects, renderTenant, type ClusterObject } from "./render-project";
import { InvalidObjectError, validateObjects } from "./validate";

const rendered = () => renderTenant(dedicatedTenant, [migProject], fullConfig);
const fails = async (objects: ClusterObject[]) => {
  try {
    await validateObjects(objects);
  } catch (e) {
    return e as InvalidObjectError;
  }
  throw new Error("expected validation to fail");
};

describe("validateObjects", () => {
  it("accepts everything rendering produces", async () => {
    await expect(validateObjects(rendered())).resolves.toBeUndefined();
    await expect(validateObjects(renderProjectObjects(sharedTenant, noGpuProject, fullConfig))).resolves.toBeUndefined();
  });

  it("refuses a schema-invalid object, naming its kind, name and the schema's message", async () => {
    const objects = rendered();
    const dns = objects.find((o) => o.kind === "NetworkPolicy" && o.metadata?.name === "allow-dns")!;
    (dns as { spec: { egress: { ports: { protocol: unknown }[] }[] } }).spec.egress[0]!.ports[0]!.protocol = 17;
    const error = await fails(objects);
    expect(error).toBeInstanceOf(InvalidObjectError);
    expect(error.message).toMatch(/^invalid NetworkPolicy allow-dns: .*protocol must be string/);
    expect(error.kind).toBe("NetworkPolicy");
    expect(error.objectName).toBe("allow-dns");
  });

  it("refuses a RoleBinding without its roleRef", async () => {
    const rb = renderProjectObjects(sharedTenant, noGpuProject, fullConfig).find((o) => o.kind === "RoleBinding")!;
    const broken = { ...rb, roleRef: undefined } as unknown as ClusterObject;
    expect((await fails([broken])).message).toMatch(/^invalid RoleBinding admin-user-alice-acme-example-[0-9a-f]{8}: .*roleRef/);
  });

  it("refuses names and labels the API server would refuse", async () => {
    const [ns] = renderProjectObjects(sharedTenant, noGpuProject, fullConfig);
    expect((await fails([{ ...ns!, metadata: { ...ns!.metadata, name: `${"a".repeat(60)}--etl` } }])).message).toMatch(/invalid Namespace a+--etl: .*DNS-1123 label/);
    expect((await fails([{ ...ns!, metadata: { ...ns!.metadata, labels: { "allot.dev/cost-centre": "CC 4711" } } }])).message).toMatch(/label allot.dev\/cost-centre value/);
  });

  it("refuses kinds it has no schema for, such as a ClusterRoleBinding", async () => {
    const crb = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: "x" } } as unknown as ClusterObject;
    expect((await fails([crb])).message).toBe("invalid ClusterRoleBinding x: no schema for rbac.authorization.k8s.io/v1 ClusterRoleBinding");
  });

  it("checks Kueue objects' required fields and version-specific cohort field", async () => {
    const queue = rendered().find((o): o is ClusterQueue => o.kind === "ClusterQueue")!;
    expect((await fails([{ ...queue, spec: { ...queue.spec, cohort: "allot", cohortName: undefined } }])).message).toMatch(/invalid ClusterQueue vision--training: spec.cohort is v1beta1/);
    expect((await fails([{ ...queue, spec: { ...queue.spec, namespaceSelector: { matchLabels: {} } } }])).message).toMatch(/namespaceSelector/);
    // The CRDs' CEL rules: lending more than the nominal quota, borrowing limits without a cohort, preempting to borrow without reclaiming.
    const group = queue.spec.resourceGroups[0]!;
    const overLent = { ...group, flavors: group.flavors.map((f) => ({ ...f, resources: f.resources.map((r) => ({ ...r, lendingLimit: "1000" })) })) };
    expect((await fails([{ ...queue, spec: { ...queue.spec, resourceGroups: [overLent] } }])).message).toMatch(/lendingLimit 1000 is more than nominalQuota/);
    expect((await fails([{ ...queue, spec: { ...queue.spec, cohortName: undefined } }])).message).toMatch(/borrowingLimit must be nil when cohort is empty/);
    const noReclaim = { reclaimWithinCohort: "Never", borrowWithinCohort: { policy: "LowerPriority" }, withinClusterQueue: "Never" } as const;
    expect((await fails([{ ...queue, spec: { ...queue.spec, preemption: noReclaim } }])).message).toMatch(/reclaimWithinCohort=Never and borrowWithinCohort.policy!=Never/);
    expect((await fails([{ ...queue, spec: { ...queue.spec, cohortName: "Not_A_Name" } }])).message).toMatch(/the cohort “Not_A_Name” must be a DNS subdomain/);
    const lq = rendered().find((o) => o.kind === "LocalQueue")!;
    expect((await fails([{ ...lq, spec: {} } as ClusterObject])).message).toMatch(/invalid LocalQueue default: spec.clusterQueue is required/);
  });
});
