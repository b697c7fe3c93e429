/** Where reminders and extension requests link to in the portal. */
export const extensionRequestPath = (tenantSlug: string, projectSlug: string) => `/tenants/${tenantSlug}/projects/${projectSlug}/extension`;
/** Where the sponsor and the tenant admins see the pending requests and the collaborators. */
export const tenantCollaboratorsPath = (tenantSlug: string) => `/tenants/${tenantSlug}/collaborators`;
export const projectPath = (tenantSlug: string, projectSlug: string) => `/tenants/${tenantSlug}/projects/${projectSlug}`;
/** A tenant's service account has a page of its own (its tokens are rotated there); a platform one is managed from /admin. */
export const serviceAccountPath = (tenantSlug: string | null, name: string) => (tenantSlug ? `/tenants/${tenantSlug}/service-accounts/${name}` : "/admin");
