import type { RoleKey } from "./policy";

/** How a role reads to people; the first (strongest) role held is the one shown. */
export const ROLE_LABELS: Record<RoleKey, string> = {
  platform_admin: "Platform admin",
  tenant_admin: "Tenant admin",
  tenant_member: "Member",
  tenant_viewer: "Viewer",
  project_member: "Project member",
  project_viewer: "Project viewer",
  project_meter: "Usage meter",
  scim_client: "SCIM client",
  assigned_reviewer: "Reviewer",
};

export function primaryRoleLabel(roles: readonly RoleKey[], options: { collaborator?: boolean } = {}): string {
  const first = roles[0];
  if (!first) return "No access";
  if (options.collaborator && (first === "project_member" || first === "project_viewer")) {
    return `Collaborator (${first === "project_member" ? "member" : "viewer"})`;
  }
  return ROLE_LABELS[first];
}
