/** The outbox's names for what a cluster change covers: a project's namespace, or a tenant's cluster-scoped objects. */
export const projectTarget = (projectId: string) => `project:${projectId}`;
export const tenantTarget = (tenantId: string) => `tenant:${tenantId}`;
