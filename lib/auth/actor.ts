/**
 * The principal acting on a request, with every role binding it holds. Loaded
 * once per request (see current-actor.ts) and handed to the policy; the policy
 * itself decides what the bindings allow at a given instant.
 */
export type TenantRole = "tenant_admin" | "member" | "viewer";
/** "meter" is held only by service accounts: it pushes usage for the project and grants nothing else. */
export type ProjectRole = "member" | "viewer" | "meter";
export type TenantStatus = "active" | "disabled";

/** Where a binding comes from: held directly (a membership or grant row), or through an identity provider's group. */
export type BindingSource = { group: string } | null;

export type Actor = {
  principalId: string;
  /**
   * "scim_client" is an identity provider holding a SCIM token (lib/scim/http.ts):
   * not a principal, holds no binding, and may do nothing but provision.
   */
  kind: "user" | "service_account" | "scim_client";
  displayName: string;
  email: string | null;
  isPlatformAdmin: boolean;
  /**
   * Direct bindings and those derived from groups (lib/groups/derived.ts), side
   * by side: a tenant may appear more than once, and every entry counts.
   */
  memberships: { tenantId: string; tenantStatus: TenantStatus; role: TenantRole; via?: BindingSource }[];
  projectGrants: {
    projectId: string;
    tenantId: string;
    tenantStatus: TenantStatus;
    role: ProjectRole;
    expiresAt: Date | null;
    via?: BindingSource;
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
