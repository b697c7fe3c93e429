import type { ILimitRange } from "kubernetes-models/v1/LimitRange";
import type { INamespace } from "kubernetes-models/v1/Namespace";
import type { IResourceQuota } from "kubernetes-models/v1/ResourceQuota";
import type { IServiceAccount } from "kubernetes-models/v1/ServiceAccount";
import type { INetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import type { IRoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding";
import type { DesiredProject, DesiredTenant, RenderConfig } from "./desired-state";
import type { LocalQueue, ResourceFlavor } from "./kueue";
import { renderRoleBindings, renderServiceAccounts } from "./render-access";
import { renderNamespace } from "./render-namespace";
import { renderNetworkPolicies } from "./render-network";
import { renderLimitRange, renderPriorityQuotas, renderResourceQuota } from "./render-quota";
import { renderLocalQueues, renderTenantObjects, type TenantObject } from "./render-tenant";

export type ProjectObject = INamespace | IResourceQuota | ILimitRange | INetworkPolicy | IServiceAccount | IRoleBinding | LocalQueue;
export type ClusterObject = ProjectObject | TenantObject | ResourceFlavor;

/**
 * Everything one project becomes on the cluster, in apply order: the
 * namespace first, then its limits and network fence before anything that
 * lets a principal in, and the Kueue queues last (their ClusterQueues come from
 * renderTenantObjects, applied before the tenant's projects).
 */
export function renderProjectObjects(tenant: DesiredTenant, project: DesiredProject, config: RenderConfig): ProjectObject[] {
  const objects: ProjectObject[] = [
    renderNamespace(tenant, project, config),
    renderResourceQuota(tenant, project, config),
    ...renderPriorityQuotas(tenant, project, config),
    renderLimitRange(tenant, project, config),
    ...renderNetworkPolicies(tenant, project, config),
    ...renderServiceAccounts(tenant, project, config),
    ...renderRoleBindings(tenant, project, config),
  ];
  if (config.kueue.enabled && !project.closed) objects.push(...renderLocalQueues(tenant, project, config));
  return objects;
}

/** A whole tenant: its cluster-scoped Kueue objects, then each project, projects in namespace order. */
export function renderTenant(tenant: DesiredTenant, projects: DesiredProject[], config: RenderConfig): ClusterObject[] {
  const ordered = [...projects].sort((a, b) => (a.namespace < b.namespace ? -1 : 1));
  return [...renderTenantObjects(tenant, ordered, config), ...ordered.flatMap((p) => renderProjectObjects(tenant, p, config))];
}
