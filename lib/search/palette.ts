import "server-only";
import { and, asc, desc, eq, ilike, inArray, isNotNull, or, type SQL } from "drizzle-orm";
import { z } from "zod";
import { memberships, principals, projects, quotaRequests, serviceAccounts, tenants, users } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { visibleTenantIds } from "@/lib/tenancy/member-queries";

/**
 * The command palette's search: tenants, projects, people, service accounts and
 * quota requests that the actor may see, by name. Rows are first narrowed in SQL
 * to the tenants the actor reaches, then each is decided by the policy with the
 * action its own page uses (tenant.view, project.view, service_account.view,
 * project.quota.view), so the palette never shows what the pages would refuse.
 * People are the members of tenants the actor may view, as the tenant page lists them.
 */

export const paletteQueryInput = z.object({
  q: z.string({ error: "Enter something to search for." }).trim().min(1, "Enter something to search for.").max(100, "Search for at most 100 characters."),
});

export type PaletteKind = "tenant" | "project" | "person" | "service_account" | "request";
export interface PaletteItem {
  kind: PaletteKind;
  /** Unique within one answer. */
  id: string;
  label: string;
  detail: string;
  href: string;
}

/** How many of each kind one answer holds: the palette is for jumping, not for listing. */
export const PER_KIND = 6;
/** Rows read per kind before the policy filters them. */
const READ_LIMIT = 40;

const like = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function searchPalette(ctx: CommandContext, rawQuery: string): Promise<PaletteItem[]> {
  if (!can(ctx.actor, "portal.search", { kind: "platform" }, ctx.now)) return [];
  const { q } = paletteQueryInput.parse({ q: rawQuery });
  const reach = visibleTenantIds(ctx);
  if (reach !== "all" && reach.length === 0) return [];
  const pattern = like(q);
  const inReach = (column: Parameters<typeof inArray>[0]): SQL | undefined => (reach === "all" ? undefined : inArray(column, reach));
  const [tenantItems, projectItems, people, accounts, requests] = await Promise.all([
    searchTenants(ctx, pattern, inReach(tenants.id)),
    searchProjects(ctx, pattern, inReach(projects.tenantId)),
    searchPeople(ctx, pattern, inReach(memberships.tenantId)),
    searchServiceAccounts(ctx, pattern, inReach(serviceAccounts.tenantId)),
    searchRequests(ctx, pattern, inReach(quotaRequests.tenantId)),
  ]);
  return [...tenantItems, ...projectItems, ...people, ...accounts, ...requests];
}

async function searchTenants(ctx: CommandContext, pattern: string, reach: SQL | undefined): Promise<PaletteItem[]> {
  const rows = await ctx.db
    .select({ id: tenants.id, slug: tenants.slug, name: tenants.name })
    .from(tenants)
    .where(and(reach, or(ilike(tenants.name, pattern), ilike(tenants.slug, pattern))))
    .orderBy(asc(tenants.name))
    .limit(READ_LIMIT);
  return rows
    .filter((t) => can(ctx.actor, "tenant.view", { kind: "tenant", tenantId: t.id }, ctx.now))
    .slice(0, PER_KIND)
    .map((t) => ({ kind: "tenant", id: `tenant:${t.id}`, label: t.name, detail: "Tenant", href: `/tenants/${t.slug}` }));
}

async function searchProjects(ctx: CommandContext, pattern: string, reach: SQL | undefined): Promise<PaletteItem[]> {
  const rows = await ctx.db
    .select({ id: projects.id, slug: projects.slug, name: projects.name, tenantId: tenants.id, tenantSlug: tenants.slug, tenantName: tenants.name })
    .from(projects)
    .innerJoin(tenants, eq(tenants.id, projects.tenantId))
    .where(and(reach, or(ilike(projects.name, pattern), ilike(projects.slug, pattern), ilike(projects.namespace, pattern))))
    .orderBy(asc(projects.name))
    .limit(READ_LIMIT);
  return rows
    .filter((p) => can(ctx.actor, "project.view", { kind: "project", tenantId: p.tenantId, projectId: p.id }, ctx.now))
    .slice(0, PER_KIND)
    .map((p) => ({ kind: "project", id: `project:${p.id}`, label: p.name, detail: `Project in ${p.tenantName}`, href: `/tenants/${p.tenantSlug}/projects/${p.slug}` }));
}

async function searchPeople(ctx: CommandContext, pattern: string, reach: SQL | undefined): Promise<PaletteItem[]> {
  const rows = await ctx.db
    .select({ principalId: principals.id, name: principals.displayName, email: users.email, tenantId: tenants.id, tenantSlug: tenants.slug, tenantName: tenants.name })
    .from(memberships)
    .innerJoin(principals, eq(principals.id, memberships.principalId))
    .innerJoin(users, eq(users.principalId, principals.id))
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(and(reach, or(ilike(principals.displayName, pattern), ilike(users.email, pattern))))
    .orderBy(asc(principals.displayName), asc(tenants.name))
    .limit(READ_LIMIT);
  return rows
    .filter((r) => can(ctx.actor, "tenant.view", { kind: "tenant", tenantId: r.tenantId }, ctx.now))
    .slice(0, PER_KIND)
    .map((r) => ({ kind: "person", id: `person:${r.principalId}:${r.tenantId}`, label: r.name, detail: `${r.email} · member of ${r.tenantName}`, href: `/tenants/${r.tenantSlug}#members` }));
}

async function searchServiceAccounts(ctx: CommandContext, pattern: string, reach: SQL | undefined): Promise<PaletteItem[]> {
  const rows = await ctx.db
    .select({ principalId: serviceAccounts.principalId, name: serviceAccounts.name, tenantId: tenants.id, tenantSlug: tenants.slug, tenantName: tenants.name })
    .from(serviceAccounts)
    .innerJoin(tenants, eq(tenants.id, serviceAccounts.tenantId))
    .where(and(reach, isNotNull(serviceAccounts.tenantId), or(ilike(serviceAccounts.name, pattern), ilike(serviceAccounts.description, pattern))))
    .orderBy(asc(serviceAccounts.name))
    .limit(READ_LIMIT);
  return rows
    .filter((r) => can(ctx.actor, "service_account.view", { kind: "tenant", tenantId: r.tenantId }, ctx.now))
    .slice(0, PER_KIND)
    .map((r) => ({ kind: "service_account", id: `service_account:${r.principalId}`, label: r.name, detail: `Service account of ${r.tenantName}`, href: `/tenants/${r.tenantSlug}/service-accounts/${r.name}` }));
}

const STATUS_WORDS: Record<(typeof quotaRequests.$inferSelect)["status"], string> = {
  pending: "pending",
  approved: "approved",
  auto_approved: "approved automatically",
  rejected: "rejected",
  cancelled: "cancelled",
  expired: "expired",
  applied: "applied",
  apply_failed: "apply failed",
};

async function searchRequests(ctx: CommandContext, pattern: string, reach: SQL | undefined): Promise<PaletteItem[]> {
  const rows = await ctx.db
    .select({
      id: quotaRequests.id,
      status: quotaRequests.status,
      justification: quotaRequests.justification,
      projectId: projects.id,
      projectSlug: projects.slug,
      projectName: projects.name,
      tenantId: tenants.id,
      tenantSlug: tenants.slug,
      requester: principals.displayName,
    })
    .from(quotaRequests)
    .innerJoin(projects, eq(projects.id, quotaRequests.projectId))
    .innerJoin(tenants, eq(tenants.id, quotaRequests.tenantId))
    .leftJoin(principals, eq(principals.id, quotaRequests.requestedBy))
    .where(and(reach, or(ilike(projects.name, pattern), ilike(quotaRequests.justification, pattern), ilike(principals.displayName, pattern))))
    .orderBy(desc(quotaRequests.createdAt))
    .limit(READ_LIMIT);
  return rows
    .filter((r) => can(ctx.actor, "project.quota.view", { kind: "project", tenantId: r.tenantId, projectId: r.projectId }, ctx.now))
    .slice(0, PER_KIND)
    .map((r) => ({
      kind: "request",
      id: `request:${r.id}`,
      label: `Quota request for ${r.projectName} (${STATUS_WORDS[r.status]})`,
      detail: `${r.requester ?? "unknown requester"}: ${r.justification.length > 60 ? `${r.justification.slice(0, 60)}…` : r.justification}`,
      href: `/tenants/${r.tenantSlug}/projects/${r.projectSlug}/quota/requests/${r.id}`,
    }));
}
