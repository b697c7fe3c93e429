import "server-only";
import { and, asc, count, eq, inArray } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { memberships, principals, projectGrants, projects, tenants, users } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can, inForce, rolesOn, type RoleKey } from "@/lib/auth/policy";
import { groupAccessToProject, groupTenantMembers, tenantMemberCounts } from "@/lib/groups/derived";

/**
 * Reads for the tenancy pages. Each narrows by the actor's own bindings in the
 * WHERE clause and then asks the policy, so nothing outside the actor's reach
 * is ever loaded into a page.
 */

export type ProjectSummary = { id: string; slug: string; name: string; namespace: string; roles: RoleKey[] };
export type TenantSummary = {
  id: string;
  slug: string;
  name: string;
  status: "active" | "disabled";
  roles: RoleKey[];
  /** Projects of this tenant the actor can open. */
  projects: ProjectSummary[];
};

/** Home page: every tenant and project the actor reaches through a membership or a grant. */
export async function reachableTenants(ctx: CommandContext): Promise<TenantSummary[]> {
  const { actor, now } = ctx;
  const tenantIds = [...new Set([...actor.memberships.map((m) => m.tenantId), ...actor.projectGrants.map((g) => g.tenantId)])];
  if (tenantIds.length === 0) return [];
  const [tenantRows, projectRows] = await Promise.all([
    ctx.db.select().from(tenants).where(inArray(tenants.id, tenantIds)).orderBy(asc(tenants.name)),
    ctx.db.select().from(projects).where(inArray(projects.tenantId, tenantIds)).orderBy(asc(projects.name)),
  ]);
  return tenantRows.flatMap((t) => {
    const visibleProjects = projectRows
      .filter((p) => p.tenantId === t.id && can(actor, "project.view", { kind: "project", tenantId: t.id, projectId: p.id }, now))
      .map((p) => ({
        id: p.id,
        slug: p.slug,
        name: p.name,
        namespace: p.namespace,
        roles: rolesOn(actor, { kind: "project", tenantId: t.id, projectId: p.id }, now),
      }));
    const tenantVisible = can(actor, "tenant.view", { kind: "tenant", tenantId: t.id }, now);
    if (!tenantVisible && visibleProjects.length === 0) return [];
    return [{ id: t.id, slug: t.slug, name: t.name, status: t.status, roles: rolesOn(actor, { kind: "tenant", tenantId: t.id }, now), projects: visibleProjects }];
  });
}

export type TenantMember = {
  principalId: string;
  displayName: string;
  email: string | null;
  kind: "user" | "service_account";
  role: "tenant_admin" | "member" | "viewer";
  version: number;
  since: Date;
  disabled: boolean;
  /** Null: a direct membership. A group: the person is a member only through it, and is removed in the identity provider, not here. */
  via: { group: string } | null;
};
/** A tenant the actor may see, with what the actor may do there: enough for the tenant's header and tabs. */
export type TenantAccess = {
  tenant: typeof tenants.$inferSelect;
  roles: RoleKey[];
  canCreateProject: boolean;
  canManageMembers: boolean;
  canSeeAudit: boolean;
  /** Platform admins set the tenant's runtime class and workload identity. */
  canManageCluster: boolean;
};

export type TenantDetail = TenantAccess & {
  members: TenantMember[];
  /** Every project of the tenant, with whether the actor may open it. */
  projects: (ProjectSummary & { canOpen: boolean; description: string; archived: boolean })[];
};

/** The tenant and the actor's rights in it, or null when it does not exist or is out of reach. */
export async function tenantAccess(ctx: CommandContext, tenantSlug: string): Promise<TenantAccess | null> {
  const { actor, now } = ctx;
  const [tenant] = await ctx.db.select().from(tenants).where(eq(tenants.slug, tenantSlug));
  if (!tenant) return null;
  const resource = { kind: "tenant", tenantId: tenant.id } as const;
  if (!can(actor, "tenant.view", resource, now)) return null;
  return {
    tenant,
    roles: rolesOn(actor, resource, now),
    canCreateProject: can(actor, "project.create", resource, now),
    canManageMembers: can(actor, "tenant.members.manage", resource, now),
    canSeeAudit: can(actor, "tenant.audit.view", resource, now),
    canManageCluster: can(actor, "tenant.cluster.manage", resource, now),
  };
}

/** The tenant page: its access, members and projects; null when out of reach. */
export async function tenantDetail(ctx: CommandContext, tenantSlug: string): Promise<TenantDetail | null> {
  const access = await tenantAccess(ctx, tenantSlug);
  if (!access) return null;
  const { actor, now } = ctx;
  const { tenant } = access;

  const [memberRows, projectRows, groupRows] = await Promise.all([
    ctx.db
      .select({
        principalId: principals.id,
        displayName: principals.displayName,
        email: users.email,
        kind: principals.kind,
        role: memberships.role,
        version: memberships.version,
        since: memberships.createdAt,
        disabledAt: principals.disabledAt,
      })
      .from(memberships)
      .innerJoin(principals, eq(principals.id, memberships.principalId))
      .leftJoin(users, eq(users.principalId, principals.id))
      .where(eq(memberships.tenantId, tenant.id))
      .orderBy(asc(memberships.role), asc(principals.displayName)),
    ctx.db.select().from(projects).where(eq(projects.tenantId, tenant.id)).orderBy(asc(projects.name)),
    groupTenantMembers(ctx.db, tenant.id),
  ]);
  const direct = new Set(memberRows.map((m) => m.principalId));
  // Members through a group only, once per group, as "Who has access" lists them.
  const viaGroup = groupRows
    .filter((g) => !direct.has(g.principalId))
    .map((g): TenantMember => ({ principalId: g.principalId, displayName: g.displayName, email: g.email, kind: "user", role: g.role, version: 0, since: g.mappedAt, disabled: false, via: { group: g.groupName } }));

  return {
    ...access,
    members: [...memberRows.map(({ disabledAt, ...m }): TenantMember => ({ ...m, disabled: disabledAt !== null, via: null })), ...viaGroup],
    projects: projectRows.map((p) => {
      const projectResource = { kind: "project", tenantId: tenant.id, projectId: p.id } as const;
      return {
        id: p.id,
        slug: p.slug,
        name: p.name,
        namespace: p.namespace,
        description: p.description,
        archived: p.archivedAt !== null,
        roles: rolesOn(actor, projectResource, now),
        canOpen: can(actor, "project.view", projectResource, now),
      };
    }),
  };
}

export type AccessEntry = {
  /** The grant behind a project-grant entry (for revoking it); null for tenant memberships. */
  grantId: string | null;
  principalId: string;
  displayName: string;
  email: string | null;
  kind: "user" | "service_account";
  role: string;
  /** A person with both a direct grant and a group has one entry for each. */
  via: "tenant membership" | "project grant" | "group";
  /** The group's name when via is "group". */
  group: string | null;
  collaborator: boolean;
  expiresAt: Date | null;
  grantedBy: string | null;
};

export type ProjectDetail = {
  tenant: typeof tenants.$inferSelect;
  project: typeof projects.$inferSelect;
  roles: RoleKey[];
  access: AccessEntry[];
  canEdit: boolean;
  canManageAccess: boolean;
};

/** Direct access first, then what comes through groups. */
const ACCESS_ORDER: Record<AccessEntry["via"], number> = { "tenant membership": 0, "project grant": 1, group: 2 };

/** The project page, or null when out of reach (the page then answers 404, leaking nothing). */
export async function projectDetail(ctx: CommandContext, tenantSlug: string, projectSlug: string): Promise<ProjectDetail | null> {
  const { actor, now } = ctx;
  const [row] = await ctx.db
    .select({ tenant: tenants, project: projects })
    .from(projects)
    .innerJoin(tenants, eq(tenants.id, projects.tenantId))
    .where(and(eq(tenants.slug, tenantSlug), eq(projects.slug, projectSlug)));
  if (!row) return null;
  const resource = { kind: "project", tenantId: row.tenant.id, projectId: row.project.id } as const;
  if (!can(actor, "project.view", resource, now)) return null;

  const grantor = alias(principals, "grantor");
  const [membershipRows, grantRows, groupRows] = await Promise.all([
    ctx.db
      .select({ principalId: principals.id, displayName: principals.displayName, email: users.email, kind: principals.kind, role: memberships.role })
      .from(memberships)
      .innerJoin(principals, eq(principals.id, memberships.principalId))
      .leftJoin(users, eq(users.principalId, principals.id))
      // Tenant members reach a project only through a grant, so only admins and viewers count here.
      .where(and(eq(memberships.tenantId, row.tenant.id), inArray(memberships.role, ["tenant_admin", "viewer"]))),
    ctx.db
      .select({
        grantId: projectGrants.id,
        principalId: principals.id,
        displayName: principals.displayName,
        email: users.email,
        kind: principals.kind,
        role: projectGrants.role,
        expiresAt: projectGrants.expiresAt,
        grantedBy: grantor.displayName,
        membershipId: memberships.id,
      })
      .from(projectGrants)
      .innerJoin(principals, eq(principals.id, projectGrants.principalId))
      .leftJoin(users, eq(users.principalId, principals.id))
      .leftJoin(grantor, eq(grantor.id, projectGrants.grantedBy))
      .leftJoin(memberships, and(eq(memberships.principalId, projectGrants.principalId), eq(memberships.tenantId, row.tenant.id)))
      .where(eq(projectGrants.projectId, row.project.id)),
    groupAccessToProject(ctx.db, row.tenant.id, row.project.id),
  ]);

  const access: AccessEntry[] = [
    ...membershipRows.map((m) => ({
      ...m,
      grantId: null,
      role: m.role === "tenant_admin" ? "tenant admin" : "viewer",
      via: "tenant membership" as const,
      group: null,
      collaborator: false,
      expiresAt: null,
      grantedBy: null,
    })),
    ...grantRows
      .filter((g) => inForce(g.expiresAt, now))
      .map(({ membershipId, ...g }) => ({ ...g, via: "project grant" as const, group: null, collaborator: membershipId === null && g.kind === "user" })),
    ...groupRows.map((g) => ({
      grantId: null,
      principalId: g.principalId,
      displayName: g.displayName,
      email: g.email,
      kind: "user" as const,
      role: g.role === "tenant_admin" ? "tenant admin" : g.role,
      via: "group" as const,
      group: g.groupName,
      // A group is the organisation's own: whoever it brings in is not an outside collaborator.
      collaborator: false,
      expiresAt: null,
      grantedBy: `identity provider (${[g.sources.includes("scim") && "SCIM", g.sources.includes("claim") && "sign-in claim"].filter(Boolean).join(", ")})`,
    })),
  ];
  access.sort((a, b) => a.displayName.localeCompare(b.displayName) || ACCESS_ORDER[a.via] - ACCESS_ORDER[b.via] || (a.group ?? "").localeCompare(b.group ?? ""));
  return {
    ...row,
    roles: rolesOn(actor, resource, now),
    access,
    canEdit: can(actor, "project.edit", resource, now),
    canManageAccess: can(actor, "project.access.manage", resource, now),
  };
}

export type AdminTenantRow = typeof tenants.$inferSelect & { projectCount: number; memberCount: number };

/** Admin area: every tenant with its size. Null when the actor is not a platform admin. */
export async function allTenantsForAdmin(ctx: CommandContext): Promise<AdminTenantRow[] | null> {
  if (!can(ctx.actor, "platform.view", { kind: "platform" }, ctx.now)) return null;
  const [tenantRows, projectCounts, memberCounts] = await Promise.all([
    ctx.db.select().from(tenants).orderBy(asc(tenants.name)),
    ctx.db.select({ tenantId: projects.tenantId, n: count() }).from(projects).groupBy(projects.tenantId),
    tenantMemberCounts(ctx.db),
  ]);
  const countOf = (rows: { tenantId: string; n: number }[], id: string) => rows.find((r) => r.tenantId === id)?.n ?? 0;
  return tenantRows.map((t) => ({ ...t, projectCount: countOf(projectCounts, t.id), memberCount: memberCounts.get(t.id) ?? 0 }));
}
