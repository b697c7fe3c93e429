/**
 * The principal acting on a request, with every role binding it holds. Loaded
 * once per request (see current-actor.ts) and handed to the policy; the policy
 * itself decides what the bindings allow at a given instant.
 */
export type TenantRole = "tenant_admin" | "member" | "viewer";
/** "meter" is held only by service accounts: it pushes usage for the project and grants nothing else. */
export type ProjectRole = "member" | "viewer" | "meter";
export type TenantStatus = "active" | "disabled";

export type Actor = {
  principalId: string;
  kind: "user" | "service_account";
  displayName: string;
  email: string | null;
  isPlatformAdmin: boolean;
  memberships: { tenantId: string; tenantStatus: TenantStatus; role: TenantRole }[];
  projectGrants: {
    projectId: string;
    tenantId: string;
    tenantStatus: TenantStatus;
    role: ProjectRole;
    expiresAt: Date | null;
  }[];
};

/** The thing an action is performed on, built from the database row acted on. */
export type Resource =
  | { kind: "platform" }
  | { kind: "tenant"; tenantId: string }
  | { kind: "project"; tenantId: string; projectId: string }
  /**
   * One item of an access review: in a tenant, or the platform's own (tenantId
   * null). reviewerId is the person it is assigned to by name (a collaborator's
   * sponsor), null when it is for the tenant's or the platform's admins.
   */
  | { kind: "review_item"; tenantId: string | null; reviewerId: string | null };
