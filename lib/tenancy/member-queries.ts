import "server-only";
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { invitations, memberships, principals, projectGrants, projects, serviceAccounts, users } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can, inForce } from "@/lib/auth/policy";
import { AppError } from "@/lib/errors";
import { tenantBySlug } from "./lookup";

/** Open (not accepted, not withdrawn, not expired) invitations of a tenant; admins only. */
export async function openInvitations(ctx: CommandContext, tenantSlug: string) {
  const tenant = await tenantBySlug(ctx.db, tenantSlug);
  if (!can(ctx.actor, "tenant.members.manage", { kind: "tenant", tenantId: tenant.id }, ctx.now)) throw new AppError("not_found");
  const inviter = alias(principals, "inviter");
  return ctx.db
    .select({
      id: invitations.id,
      email: invitations.email,
      tenantRole: invitations.tenantRole,
      projectRole: invitations.projectRole,
      projectName: projects.name,
      grantExpiresAt: invitations.grantExpiresAt,
      expiresAt: invitations.expiresAt,
      invitedBy: inviter.displayName,
      createdAt: invitations.createdAt,
    })
    .from(invitations)
    .leftJoin(projects, eq(projects.id, invitations.projectId))
    .leftJoin(inviter, eq(inviter.id, invitations.invitedBy))
    .where(and(eq(invitations.tenantId, tenant.id), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, ctx.now)))
    .orderBy(asc(invitations.createdAt));
}

/**
 * External collaborators: people holding a project grant in this tenant without
 * being members. Expired grants are listed too (marked), so admins can extend them.
 */
export async function tenantCollaborators(ctx: CommandContext, tenantSlug: string) {
  const tenant = await tenantBySlug(ctx.db, tenantSlug);
  if (!can(ctx.actor, "tenant.members.manage", { kind: "tenant", tenantId: tenant.id }, ctx.now)) throw new AppError("not_found");
  const sponsor = alias(principals, "sponsor");
  const rows = await ctx.db
    .select({
      grantId: projectGrants.id,
      version: projectGrants.version,
      principalId: principals.id,
      displayName: principals.displayName,
      email: users.email,
      projectSlug: projects.slug,
      projectName: projects.name,
      role: projectGrants.role,
      expiresAt: projectGrants.expiresAt,
      sponsor: sponsor.displayName,
      membershipId: memberships.id,
    })
    .from(projectGrants)
    .innerJoin(projects, eq(projects.id, projectGrants.projectId))
    .innerJoin(principals, eq(principals.id, projectGrants.principalId))
    .innerJoin(users, eq(users.principalId, principals.id))
    .leftJoin(sponsor, eq(sponsor.id, projectGrants.grantedBy))
    .leftJoin(memberships, and(eq(memberships.principalId, projectGrants.principalId), eq(memberships.tenantId, tenant.id)))
    .where(eq(projects.tenantId, tenant.id))
    .orderBy(asc(projectGrants.expiresAt));
  return {
    tenant,
    collaborators: rows
      .filter((r) => r.membershipId === null)
      .map(({ membershipId: _m, ...r }) => ({ ...r, expired: !inForce(r.expiresAt, ctx.now) })),
  };
}

/** Projects of a tenant the actor can open (for the API, where service accounts reach projects by grant). */
export async function visibleProjects(ctx: CommandContext, tenantSlug: string) {
  const tenant = await tenantBySlug(ctx.db, tenantSlug);
  const rows = await ctx.db.select().from(projects).where(eq(projects.tenantId, tenant.id)).orderBy(asc(projects.slug));
  const visible = rows.filter((p) => can(ctx.actor, "project.view", { kind: "project", tenantId: tenant.id, projectId: p.id }, ctx.now));
  if (visible.length === 0 && !can(ctx.actor, "tenant.view", { kind: "tenant", tenantId: tenant.id }, ctx.now)) throw new AppError("not_found");
  return { tenant, projects: visible };
}

/** Tenants the actor reaches (all of them for a platform admin). */
export function visibleTenantIds(ctx: CommandContext): string[] | "all" {
  const { actor, now } = ctx;
  if (can(actor, "platform.view", { kind: "platform" }, now)) return "all";
  // Only bindings the policy still honours: an expired grant or a disabled tenant reveals nothing.
  const viaMembership = actor.memberships.filter((m) => can(actor, "tenant.view", { kind: "tenant", tenantId: m.tenantId }, now)).map((m) => m.tenantId);
  const viaGrant = actor.projectGrants
    .filter((g) => can(actor, "project.view", { kind: "project", tenantId: g.tenantId, projectId: g.projectId }, now))
    .map((g) => g.tenantId);
  return [...new Set([...viaMembership, ...viaGrant])];
}

/** Who can be granted a project role directly: members (role member) and service accounts of the tenant. */
export async function grantCandidates(ctx: CommandContext, tenantSlug: string) {
  const tenant = await tenantBySlug(ctx.db, tenantSlug);
  if (!can(ctx.actor, "tenant.members.manage", { kind: "tenant", tenantId: tenant.id }, ctx.now)) return [];
  const [people, accounts] = await Promise.all([
    ctx.db
      .select({ principalId: principals.id, label: principals.displayName, email: users.email })
      .from(memberships)
      .innerJoin(principals, eq(principals.id, memberships.principalId))
      .leftJoin(users, eq(users.principalId, principals.id))
      .where(and(eq(memberships.tenantId, tenant.id), eq(memberships.role, "member")))
      .orderBy(asc(principals.displayName)),
    ctx.db
      .select({ principalId: serviceAccounts.principalId, label: serviceAccounts.name })
      .from(serviceAccounts)
      .where(eq(serviceAccounts.tenantId, tenant.id))
      .orderBy(asc(serviceAccounts.name)),
  ]);
  return [
    ...people.map((p) => ({ value: p.principalId, label: `${p.label}${p.email ? ` <${p.email}>` : ""}` })),
    ...accounts.map((a) => ({ value: a.principalId, label: `${a.label} (service account)` })),
  ];
}
