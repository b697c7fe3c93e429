import fs from "node:fs";
import path from "node:path";
import { ClusterRole } from "kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole";
import { describe, expect, it } from "vitest";
import { renderConfig } from "./desired-state";
import { dedicatedTenant, fullConfig, migProject, noGpuProject, sharedTenant } from "./fixtures";
import { BOUND_CLUSTER_ROLES, CLUSTER_PERMISSIONS, permits, type ClusterPermission } from "./permissions";
import { PORTAL_CLUSTER_ROLE_FILE, portalClusterRole, portalClusterRoleYaml } from "./portal-rbac";
import { CLUSTER_ROLE_FOR } from "./render-access";
import { renderTenant } from "./render-project";
import { ownedScope, type Target } from "./targets";

const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");
const ruleFor = (apiVersion: string, kind: string): ClusterPermission | undefined => CLUSTER_PERMISSIONS.find((p) => p.kind === kind && p.apiGroup === groupOf(apiVersion));

// Everything the renderers can produce: both tiers, every role, service accounts, priority quotas, Kueue.
const rendered = [
  ...renderTenant(dedicatedTenant, [migProject], fullConfig),
  ...renderTenant(sharedTenant, [noGpuProject], fullConfig),
  ...renderTenant(sharedTenant, [noGpuProject], renderConfig()),
];
const loaded = (p: typeof migProject) => ({ ...p, id: p.slug, closed: false });
const targets: Target[] = [
  { kind: "project", tenant: dedicatedTenant, project: loaded(migProject) },
  { kind: "tenant", tenant: dedicatedTenant, projects: [loaded(migProject)] },
];

describe("the portal's cluster permissions", () => {
  it("cover every kind the worker applies: get (drift), create and patch (server-side apply)", () => {
    const kinds = new Set(rendered.map((o) => `${o.apiVersion} ${o.kind}`));
    expect(kinds.size).toBeGreaterThanOrEqual(9);
    for (const key of kinds) {
      const [apiVersion, kind] = key.split(" ") as [string, string];
      expect(ruleFor(apiVersion, kind)?.verbs, `${key} needs a rule`).toEqual(expect.arrayContaining(["get", "create", "patch"]));
    }
  });

  it("cover every kind the worker prunes: list and delete", () => {
    for (const config of [fullConfig, { ...fullConfig, kueue: { ...fullConfig.kueue, apiVersion: "v1beta1" as const } }]) {
      for (const target of targets) {
        for (const { apiVersion, kind } of ownedScope(target, config).kinds) {
          expect(ruleFor(apiVersion, kind)?.verbs, `${kind} is pruned`).toEqual(expect.arrayContaining(["list", "delete"]));
        }
      }
    }
  });

  it("never list or delete namespaces: the portal does not prune them", () => {
    expect(ruleFor("v1", "Namespace")?.verbs).toEqual(["get", "create", "patch"]);
  });

  it("bind exactly the ClusterRoles the RoleBindings reference, by name", () => {
    const referenced = [...new Set(rendered.flatMap((o) => (o.kind === "RoleBinding" ? [o.roleRef.name] : [])))].sort();
    expect(referenced.length).toBeGreaterThan(1);
    expect(BOUND_CLUSTER_ROLES).toEqual([...new Set(Object.values(CLUSTER_ROLE_FOR).filter(Boolean))].sort());
    for (const name of referenced) expect(BOUND_CLUSTER_ROLES).toContain(name);
    const bind = CLUSTER_PERMISSIONS.filter((p) => p.verbs.includes("bind"));
    expect(bind).toEqual([expect.objectContaining({ apiGroup: "rbac.authorization.k8s.io", resource: "clusterroles", verbs: ["bind"], resourceNames: BOUND_CLUSTER_ROLES })]);
    expect(permits(CLUSTER_PERMISSIONS, { apiGroup: "rbac.authorization.k8s.io", resource: "clusterroles", verb: "bind", name: "edit" })).toBe(true);
    expect(permits(CLUSTER_PERMISSIONS, { apiGroup: "rbac.authorization.k8s.io", resource: "clusterroles", verb: "bind", name: "cluster-admin" })).toBe(false);
    expect(permits(CLUSTER_PERMISSIONS, { apiGroup: "rbac.authorization.k8s.io", resource: "clusterroles", verb: "bind" })).toBe(false);
  });

  it("hold no wildcard, no escalate or impersonate, and nothing on secrets, pods or ClusterRoleBindings", () => {
    for (const p of CLUSTER_PERMISSIONS) {
      expect([p.apiGroup, p.resource, ...p.verbs, ...(p.resourceNames ?? [])].some((s) => s.includes("*"))).toBe(false);
      expect(p.verbs).not.toContain("escalate");
    }
    const resources = CLUSTER_PERMISSIONS.map((p) => p.resource);
    for (const r of ["secrets", "pods", "clusterrolebindings", "roles"]) expect(resources).not.toContain(r);
    // ConfigMaps can hold anything: only the Cluster Autoscaler's status, only read.
    expect(CLUSTER_PERMISSIONS.filter((p) => p.resource === "configmaps")).toEqual([expect.objectContaining({ verbs: ["get"], resourceNames: ["cluster-autoscaler-status"] })]);
    expect(new Set(CLUSTER_PERMISSIONS.map((p) => `${p.apiGroup}/${p.resource}`)).size).toBe(CLUSTER_PERMISSIONS.length);
  });

  it("generate a ClusterRole that validates against the Kubernetes schema, one rule per permission", () => {
    const role = portalClusterRole();
    new ClusterRole(role).validate();
    expect(role.rules).toHaveLength(CLUSTER_PERMISSIONS.length);
    expect(role.rules![1]).toEqual({ apiGroups: [""], resources: ["resourcequotas"], verbs: ["get", "create", "patch", "list", "delete"] });
  });

  it(`match the committed ${PORTAL_CLUSTER_ROLE_FILE} (run npm run deploy:rbac after changing the list)`, () => {
    const committed = fs.readFileSync(path.join(import.meta.dirname, "..", "..", PORTAL_CLUSTER_ROLE_FILE), "utf8");
    expect(committed).toBe(portalClusterRoleYaml());
    // A changed list gives a different file, so the comparison above can fail.
    expect(portalClusterRoleYaml(CLUSTER_PERMISSIONS.slice(1))).not.toBe(committed);
  });
});
