/** Where reminders and extension requests link to in the portal. */
export const extensionRequestPath = (tenantSlug: string, projectSlug: string) => `/tenants/${tenantSlug}/projects/${projectSlug}/extension`;
/** Where the sponsor and the tenant admins see the pending requests and the collaborators. */
export const tenantCollaboratorsPath = (tenantSlug: string) => `/tenants/${tenantSlug}/collaborators`;
export const projectPath = (tenantSlug: string, projectSlug: string) => `/tenants/${tenantSlug}/projects/${projectSlug}`;
export const serviceAccountsPath = (tenantSlug: string | null) => (tenantSlug ? `/tenants/${tenantSlug}/service-accounts` : "/admin");
