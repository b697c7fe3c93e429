import type { IRoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding";
import type { IServiceAccount } from "kubernetes-models/v1/ServiceAccount";
import type { BindingRole, DesiredBinding, DesiredProject, DesiredTenant, RenderConfig } from "./desired-state";
import { dnsLabel, projectMeta, shortHash } from "./meta";

/** The built-in aggregated ClusterRoles, bound per namespace. A plain tenant member gets nothing on a project (policy.ts). */
export const CLUSTER_ROLE_FOR: Record<BindingRole, "admin" | "edit" | "view" | null> = {
  tenant_admin: "admin",
  tenant_member: null,
  tenant_viewer: "view",
  project_member: "edit",
  project_viewer: "view",
};

/** Service accounts with workload identity annotations only: cloud credentials come from the token exchange, never a stored key. */
export function renderServiceAccounts(tenant: DesiredTenant, project: DesiredProject, config: RenderConfig): IServiceAccount[] {
  return [...project.serviceAccounts]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((sa) => {
      const metadata = projectMeta(config, tenant, project, sa.name);
      if (tenant.workloadIdentityTemplate) {
        const fill = (v: string) =>
          v
            .replaceAll("{tenant}", tenant.slug)
            .replaceAll("{project}", project.slug)
            .replaceAll("{namespace}", project.namespace)
            .replaceAll("{serviceAccount}", sa.name);
        metadata.annotations = Object.fromEntries(Object.entries(tenant.workloadIdentityTemplate).map(([k, v]) => [k, fill(v)]));
      }
      return { apiVersion: "v1", kind: "ServiceAccount", metadata };
    });
}

const NAME_PART: Record<DesiredBinding["principalKind"], string> = { user: "user", group: "group", service_account: "sa" };

/**
 * One RoleBinding per binding, always namespaced: tenants never get a
 * ClusterRoleBinding. The name is readable and stable: role, kind, cleaned
 * subject and a hash of the exact subject (so cleaning cannot collide).
 */
export function renderRoleBindings(tenant: DesiredTenant, project: DesiredProject, config: RenderConfig): IRoleBinding[] {
  const byName = new Map<string, IRoleBinding>();
  for (const b of project.bindings) {
    const clusterRole = CLUSTER_ROLE_FOR[b.role];
    if (!clusterRole) continue;
    const name = `${clusterRole}-${NAME_PART[b.principalKind]}-${dnsLabel(b.subject, 30) || "x"}-${shortHash(`${b.principalKind}:${b.subject}`)}`;
    const subject =
      b.principalKind === "service_account"
        ? { kind: "ServiceAccount", name: b.subject, namespace: project.namespace }
        : { kind: b.principalKind === "user" ? "User" : "Group", apiGroup: "rbac.authorization.k8s.io", name: b.subject };
    byName.set(name, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: projectMeta(config, tenant, project, name),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: clusterRole },
      subjects: [subject],
    });
  }
  return [...byName.keys()].sort().map((n) => byName.get(n)!);
}
