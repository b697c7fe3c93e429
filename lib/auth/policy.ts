import type { Actor, Resource } from "./actor";

/**
 * The one authorization policy. Every page, server action and API route asks
 * `decide` (usually through `authorize`); nothing else decides access.
 *
 * Roles reach a resource through bindings:
 * - platform_admin   everything, everywhere
 * - tenant_admin     a tenant membership: the tenant and all its projects
 * - tenant_member    a tenant membership: belongs to the team, sees the tenant;
 *                    works only in projects it holds a grant on
 * - tenant_viewer    a tenant membership: reads the tenant and all its projects
 * - project_member / project_viewer
 *                    a project grant. Held without a membership of that tenant,
 *                    it makes the principal an external collaborator: it sees
 *                    that project and nothing else of the tenant.
 * - project_meter    a service account's project grant that may push usage
 *                    for the project (POST /api/v1/usage) and do nothing else,
 *                    not even read it.
 * - scim_client      an identity provider with a SCIM token in force: it
 *                    provisions people and groups (/scim/v2) and nothing
 *                    else; no person, not even a platform admin, holds it.
 * Memberships and grants reached through an identity provider's group (a
 * group mapping, lib/groups) count exactly like direct ones while the person
 * is in the group.
 * - assigned_reviewer
 *                    on an access review item assigned to this person by name
 *                    (a collaborator's sponsor), while they are still a member
 *                    of that tenant. Never a service account: reviews are for people.
 * Grants stop counting at their expiry instant, and bindings in a disabled
 * tenant do not count at all; both are checked on every decision.
 * A rule may also name `authenticated`: any signed-in principal (e.g. to
 * accept an invitation addressed to it, which the command then checks); a
 * SCIM client is not one.
 */
export type RoleKey =
  | "platform_admin"
  | "tenant_admin"
  | "tenant_member"
  | "tenant_viewer"
  | "project_member"
  | "project_viewer"
  | "project_meter"
  | "scim_client"
  | "assigned_reviewer";

/** Strongest first: the order in which held roles are reported (and the first is shown). */
export const ROLE_KEYS: readonly RoleKey[] = [
  "platform_admin",
  "tenant_admin",
  "tenant_member",
  "project_member",
  "tenant_viewer",
  "project_viewer",
  "project_meter",
  "scim_client",
  "assigned_reviewer",
];

type RuleRole = RoleKey | "authenticated";

const ADMINS = ["platform_admin", "tenant_admin"] as const;
const TENANT_READERS = ["platform_admin", "tenant_admin", "tenant_member", "tenant_viewer"] as const;
const PROJECT_READERS = ["platform_admin", "tenant_admin", "tenant_viewer", "project_member", "project_viewer"] as const;
/** Who sees a whole tenant's spend: its admins and viewers (finance reads), not every member. */
const TENANT_SPEND_READERS = ["platform_admin", "tenant_admin", "tenant_viewer"] as const;

/** Permissions as data: what each role may do. An action missing here is refused. */
export const PERMISSIONS = {
  // Platform
  "platform.view": { on: "platform", roles: ["platform_admin"] },
  "tenant.create": { on: "platform", roles: ["platform_admin"] },
  "audit.view_all": { on: "platform", roles: ["platform_admin"] },
  "audit.verify": { on: "platform", roles: ["platform_admin"] },
  "audit.checkpoint": { on: "platform", roles: ["platform_admin"] },
  "invitation.accept": { on: "platform", roles: ["authenticated"] },
  "notification.own": { on: "platform", roles: ["authenticated"] },
  // The command palette: a person looks for what they may open; each result is then decided by its own page's action.
  "portal.search": { on: "platform", roles: ["authenticated"], usersOnly: true },
  "cluster.view": { on: "platform", roles: ["platform_admin"] },
  "capacity.view": { on: "platform", roles: ["authenticated"] },
  "capacity.manage": { on: "platform", roles: ["platform_admin"] },
  /** Every tenant's cohort now (use, borrowing, lending across tenants): for the platform only, a tenant sees its own through tenant.quota.view. */
  "platform.cohorts.view": { on: "platform", roles: ["platform_admin"] },
  "quota.decide": { on: "platform", roles: ["platform_admin"] },
  "webhooks.manage": { on: "platform", roles: ["platform_admin"] },
  "tenant_request.create": { on: "platform", roles: ["authenticated"] },
  "tenant_request.decide": { on: "platform", roles: ["platform_admin"] },
  "cluster.manage": { on: "platform", roles: ["platform_admin"] },
  "platform.spend.view": { on: "platform", roles: ["platform_admin"] },
  /** Whether idle capacity cost is shown apart or charged back to tenants: one rule for the cluster. */
  "platform.idle_cost.manage": { on: "platform", roles: ["platform_admin"] },
  "usage.manage": { on: "platform", roles: ["platform_admin"] },
  /** Create, change and disable people and groups through /scim/v2: the identity provider's job alone. */
  "scim.provision": { on: "platform", roles: ["scim_client"] },
  /** Reviews of the platform's own access (platform admins, platform service accounts): open, read, export. */
  "access_review.platform": { on: "platform", roles: ["platform_admin"] },
  // Tenant
  "tenant.view": { on: "tenant", roles: TENANT_READERS },
  "tenant.disable": { on: "tenant", roles: ["platform_admin"] },
  "tenant.cluster.manage": { on: "tenant", roles: ["platform_admin"] },
  "tenant.members.manage": { on: "tenant", roles: ADMINS },
  /** Which identity provider groups hold roles in the tenant: as strong as managing members. */
  "tenant.groups.manage": { on: "tenant", roles: ADMINS },
  "tenant.audit.view": { on: "tenant", roles: ADMINS },
  "service_account.view": { on: "tenant", roles: TENANT_READERS },
  "service_account.manage": { on: "tenant", roles: ADMINS },
  /** Which external OIDC issuers may act as the tenant's service accounts (lib/federation): as strong as minting tokens. */
  "service_account.trust.manage": { on: "tenant", roles: ADMINS },
  "project.create": { on: "tenant", roles: ADMINS },
  "tenant.quota.view": { on: "tenant", roles: TENANT_READERS },
  /** The envelope is what the platform approved for the whole tenant: only the platform changes it. */
  "tenant.envelope.manage": { on: "tenant", roles: ["platform_admin"] },
  /** Dividing the envelope among the tenant's projects needs no ticket: its admins do it. */
  "tenant.quota.move": { on: "tenant", roles: ADMINS },
  "tenant.spend.view": { on: "tenant", roles: TENANT_SPEND_READERS },
  /** Open a review of the tenant's access, read all of it and export it: who manages members reviews them. */
  "access_review.manage": { on: "tenant", roles: ADMINS },
  /** Apply a tenant review's deadline rule now: its admins, narrowed to the review's opener (or a platform admin) by mayCloseReview. */
  "access_review.close": { on: "tenant", roles: ADMINS },
  // Project
  "project.view": { on: "project", roles: PROJECT_READERS },
  "project.edit": { on: "project", roles: ADMINS },
  "project.access.manage": { on: "project", roles: ADMINS },
  /**
   * Asking to keep one's own time-bound grant longer (lib/tenancy/commands/extensions.ts):
   * a person holding a grant in force; the command takes the actor's own grant, never one from the input.
   */
  "project.extension.request": { on: "project", roles: ["project_member", "project_viewer"], usersOnly: true },
  /** Granting or declining such a request: the sponsor is a tenant admin; any admin of the tenant may answer. */
  "project.extension.decide": { on: "project", roles: ADMINS },
  "project.cluster.view": { on: "project", roles: PROJECT_READERS },
  "project.quota.view": { on: "project", roles: PROJECT_READERS },
  "project.quota.request": { on: "project", roles: ["platform_admin", "tenant_admin", "project_member"] },
  /**
   * Ask to keep a time-bound quota grant of the project longer (lib/quota/commands/extensions.ts): who may ask for
   * quota there; the command refuses a grant that has ended, is permanent, or belongs to another project.
   */
  "project.quota.extend": { on: "project", roles: ["platform_admin", "tenant_admin", "project_member"] },
  /**
   * Read and write a quota request's comments (lib/quota/commands/request-comments.ts). The rule admits
   * those who see the project's quota; mayDiscussRequest narrows it to the request's two sides.
   */
  "quota_request.discuss": { on: "project", roles: PROJECT_READERS },
  /** Edit a pending request into a new revision: who may ask on the project, narrowed to its requester by mayEditRequest. */
  "quota_request.edit": { on: "project", roles: ["platform_admin", "tenant_admin", "project_member"] },
  "project.spend.view": { on: "project", roles: PROJECT_READERS },
  "project.budget.manage": { on: "project", roles: ADMINS },
  /** How a project shares its guarantee with its cohort (lend limits, fair-share weight): the tenant's call. */
  "project.sharing.manage": { on: "project", roles: ADMINS },
  "usage.push": { on: "project", roles: ["project_meter"] },
  // Access review items
  /** Keep or revoke one item (and see it): the admins of its scope, or the person it is assigned to. */
  "access_review.item.decide": { on: "review_item", roles: ["platform_admin", "tenant_admin", "assigned_reviewer"] },
} as const satisfies Record<string, { on: Resource["kind"]; roles: readonly RuleRole[]; usersOnly?: true }>;

export type Action = keyof typeof PERMISSIONS;
export const ACTIONS = Object.keys(PERMISSIONS) as Action[];

/** Whether something that expires (a grant, a token) still counts at `now`: it ends at the expiry instant. */
export function inForce(expiresAt: Date | null, now: Date): boolean {
  return expiresAt === null || expiresAt.getTime() > now.getTime();
}

/** The roles an actor holds on a resource at `now`, strongest first. */
export function rolesOn(actor: Actor, resource: Resource, now: Date): RoleKey[] {
  const roles = new Set<RoleKey>();
  if (actor.kind === "scim_client") return resource.kind === "platform" ? ["scim_client"] : [];
  if (actor.isPlatformAdmin) roles.add("platform_admin");
  if (resource.kind === "platform") return [...roles];
  if (resource.kind === "review_item") return reviewItemRoles(actor, resource, roles);

  // A tenant may be reached both directly and through groups: every binding there counts.
  for (const membership of actor.memberships) {
    if (membership.tenantId !== resource.tenantId || membership.tenantStatus !== "active") continue;
    // Plain tenant membership gives nothing on a project (work there needs a grant), so it is not reported there.
    if (resource.kind === "project" && membership.role === "member") continue;
    roles.add(`tenant_${membership.role === "tenant_admin" ? "admin" : membership.role}`);
  }

  if (resource.kind === "project") {
    for (const grant of actor.projectGrants) {
      if (grant.projectId !== resource.projectId || grant.tenantId !== resource.tenantId) continue;
      if (grant.tenantStatus === "active" && inForce(grant.expiresAt, now)) roles.add(`project_${grant.role}`);
    }
  }
  return ROLE_KEYS.filter((r) => roles.has(r));
}

/** On a review item: platform admins; a platform item nothing else; a tenant's item its admins and, by name, its reviewer. */
function reviewItemRoles(actor: Actor, resource: Extract<Resource, { kind: "review_item" }>, roles: Set<RoleKey>): RoleKey[] {
  const { tenantId } = resource;
  if (tenantId !== null) {
    // Every binding in the tenant counts, direct or through a group (as in rolesOn).
    const bindings = actor.memberships.filter((m) => m.tenantId === tenantId && m.tenantStatus === "active");
    if (bindings.some((m) => m.role === "tenant_admin")) roles.add("tenant_admin");
    if (bindings.length > 0 && actor.kind === "user" && resource.reviewerId === actor.principalId) roles.add("assigned_reviewer");
  }
  return ROLE_KEYS.filter((r) => roles.has(r));
}

export type Decision = { allowed: true; roles: RoleKey[] } | { allowed: false; reason: "unknown_action" | "wrong_resource" | "no_role" };

export function decide(actor: Actor, action: string, resource: Resource, now: Date): Decision {
  if (!Object.hasOwn(PERMISSIONS, action)) return { allowed: false, reason: "unknown_action" };
  const rule = PERMISSIONS[action as Action];
  if (rule.on !== resource.kind) return { allowed: false, reason: "wrong_resource" };
  const held = rolesOn(actor, resource, now);
  // A request a person makes for themselves (an extension): a service account's token has no one behind it to ask.
  if ("usersOnly" in rule && actor.kind !== "user") return { allowed: false, reason: "no_role" };
  const allowed: readonly RuleRole[] = rule.roles;
  if (allowed.includes("authenticated")) return actor.kind === "scim_client" ? { allowed: false, reason: "no_role" } : { allowed: true, roles: held };
  return held.some((r) => allowed.includes(r)) ? { allowed: true, roles: held } : { allowed: false, reason: "no_role" };
}

export function can(actor: Actor, action: Action, resource: Resource, now: Date): boolean {
  return decide(actor, action, resource, now).allowed;
}

/** The actor a SCIM request acts as once its token is found in force (lib/scim/http.ts); the policy decides what it may do. */
export function scimClientActor(tokenPrefix: string): Actor {
  return { principalId: `scim:${tokenPrefix}`, kind: "scim_client", displayName: `scim:${tokenPrefix}`, email: null, isPlatformAdmin: false, memberships: [], projectGrants: [] };
}

/**
 * True when the actor's only way into the tenant is a direct project grant: no
 * membership, and no project role through one of the organisation's groups
 * (whoever a group brings in is not an outside collaborator).
 */
export function isCollaboratorOn(actor: Actor, tenantId: string): boolean {
  return !actor.memberships.some((m) => m.tenantId === tenantId) && !actor.projectGrants.some((g) => g.tenantId === tenantId && g.via);
}

/**
 * Separation of duties for decisions on requests: nobody decides a request
 * they made, or one for a tenant they administer. A request for a tenant that
 * does not exist yet (onboarding) has no tenant: tenantId null. Returns why
 * not, or null.
 */
export function decisionConflict(actor: Actor, request: { requestedBy: string | null; tenantId: string | null }, now: Date): string | null {
  if (request.requestedBy !== null && request.requestedBy === actor.principalId) return "You made this request; another platform admin must decide it.";
  if (request.tenantId === null) return null;
  const adminsTenant = rolesOn({ ...actor, isPlatformAdmin: false }, { kind: "tenant", tenantId: request.tenantId }, now).includes("tenant_admin");
  if (adminsTenant) return "You are a tenant admin of this tenant; a platform admin from outside it must decide.";
  return null;
}

/** A quota request as the rules about its two sides read it. */
export interface RequestSides {
  tenantId: string;
  projectId: string;
  requestedBy: string | null;
}

const requestProject = (r: RequestSides): Resource => ({ kind: "project", tenantId: r.tenantId, projectId: r.projectId });

/**
 * Who takes part in a request's conversation: its requester (while they still
 * see the project), the tenant's admins and the platform's approvers. Other
 * members and viewers of the project do not read it; other tenants never.
 */
export function mayDiscussRequest(actor: Actor, request: RequestSides, now: Date): boolean {
  const project = requestProject(request);
  if (!can(actor, "quota_request.discuss", project, now)) return false;
  const held = rolesOn(actor, project, now);
  return held.includes("platform_admin") || held.includes("tenant_admin") || (request.requestedBy !== null && request.requestedBy === actor.principalId);
}

/** Only the requester edits a request, and only while they may still ask for quota on its project. */
/**
 * Closing a review early decides every undecided item by its rule, so it is
 * the opener's call (who chose the rule and the deadline) or a platform
 * admin's; a platform review is any platform admin's, as opening one is.
 */
export function mayCloseReview(actor: Actor, review: { tenantId: string | null; openedBy: string | null }, now: Date): boolean {
  if (review.tenantId === null) return can(actor, "access_review.platform", { kind: "platform" }, now);
  if (!can(actor, "access_review.close", { kind: "tenant", tenantId: review.tenantId }, now)) return false;
  return actor.isPlatformAdmin || (review.openedBy !== null && review.openedBy === actor.principalId);
}

export function mayEditRequest(actor: Actor, request: RequestSides, now: Date): boolean {
  return request.requestedBy !== null && request.requestedBy === actor.principalId && can(actor, "quota_request.edit", requestProject(request), now);
}

/**
 * Minting a token and setting its account's project role in one step
 * (lib/tenancy/commands/mint-token-with-role.ts) takes both rights the two
 * steps take apart: managing the tenant's service accounts, and managing
 * access to that project of the same tenant.
 */
export function maySetRoleWhileMinting(actor: Actor, project: { tenantId: string; projectId: string }, now: Date): boolean {
  return (
    can(actor, "service_account.manage", { kind: "tenant", tenantId: project.tenantId }, now) &&
    can(actor, "project.access.manage", { kind: "project", tenantId: project.tenantId, projectId: project.projectId }, now)
  );
}
