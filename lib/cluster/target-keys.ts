/** The outbox's names for what a cluster change covers: a project's namespace, a tenant's cluster-scoped objects, or the platform's flavours. */
export const projectTarget = (projectId: string) => `project:${projectId}`;
export const tenantTarget = (tenantId: string) => `tenant:${tenantId}`;
/** The platform's Kueue ResourceFlavors: one target for the whole cluster, with no tenant. */
export const PLATFORM_FLAVORS_TARGET = "platform:flavors";
