import "server-only";
import { and, desc, eq } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { accessExtensionRequests, principals, projectGrants, projects, users } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { projectBySlugs, tenantBySlug } from "./lookup";

const DAY = 86_400_000;

/**
 * What the holder sees on the extension page: their own grant on the project,
 * its sponsor, the latest date the maximum allows, and their requests for it.
 * Null when the actor may not ask here (no grant in force, another tenant).
 */
export async function ownExtensionState(ctx: CommandContext, tenantSlug: string, projectSlug: string) {
  const found = await projectBySlugs(ctx.db, tenantSlug, projectSlug).catch(() => null);
  if (!found) return null;
  const { tenant, project } = found;
  if (!can(ctx.actor, "project.extension.request", { kind: "project", tenantId: tenant.id, projectId: project.id }, ctx.now)) return null;
  const sponsor = alias(principals, "sponsor");
  const [grant] = await ctx.db
    .select({ id: projectGrants.id, role: projectGrants.role, expiresAt: projectGrants.expiresAt, sponsor: sponsor.displayName })
    .from(projectGrants)
    .leftJoin(sponsor, eq(sponsor.id, projectGrants.grantedBy))
    .where(and(eq(projectGrants.projectId, project.id), eq(projectGrants.principalId, ctx.actor.principalId)));
  if (!grant) return null;
  const requests = await ctx.db
    .select({
      id: accessExtensionRequests.id,
      status: accessExtensionRequests.status,
      currentExpiresAt: accessExtensionRequests.currentExpiresAt,
      requestedUntil: accessExtensionRequests.requestedUntil,
      reason: accessExtensionRequests.reason,
      createdAt: accessExtensionRequests.createdAt,
      decidedAt: accessExtensionRequests.decidedAt,
      decisionNote: accessExtensionRequests.decisionNote,
    })
    .from(accessExtensionRequests)
    .where(eq(accessExtensionRequests.grantId, grant.id))
    .orderBy(desc(accessExtensionRequests.createdAt));
  const maxDays = config().maxCollaboratorDays;
  return { tenant: { slug: tenant.slug, name: tenant.name }, project: { slug: project.slug, name: project.name }, grant, requests, maxDays, latest: new Date(ctx.now.getTime() + maxDays * DAY) };
}

/** Pending extension requests of a tenant, for those who may decide them (each row's project is checked). */
export async function pendingExtensionRequests(ctx: CommandContext, tenantSlug: string) {
  const tenant = await tenantBySlug(ctx.db, tenantSlug);
  const requester = alias(principals, "requester");
  const sponsor = alias(principals, "sponsor");
  const rows = await ctx.db
    .select({
      id: accessExtensionRequests.id,
      projectId: projects.id,
      projectSlug: projects.slug,
      projectName: projects.name,
      requesterName: requester.displayName,
      requesterEmail: users.email,
      sponsor: sponsor.displayName,
      currentExpiresAt: projectGrants.expiresAt,
      requestedUntil: accessExtensionRequests.requestedUntil,
      reason: accessExtensionRequests.reason,
      createdAt: accessExtensionRequests.createdAt,
    })
    .from(accessExtensionRequests)
    .innerJoin(projects, eq(projects.id, accessExtensionRequests.projectId))
    .innerJoin(projectGrants, eq(projectGrants.id, accessExtensionRequests.grantId))
    .innerJoin(requester, eq(requester.id, accessExtensionRequests.requestedBy))
    .leftJoin(users, eq(users.principalId, accessExtensionRequests.requestedBy))
    .leftJoin(sponsor, eq(sponsor.id, projectGrants.grantedBy))
    .where(and(eq(accessExtensionRequests.tenantId, tenant.id), eq(accessExtensionRequests.status, "pending")))
    .orderBy(accessExtensionRequests.createdAt);
  return rows.filter((r) => can(ctx.actor, "project.extension.decide", { kind: "project", tenantId: tenant.id, projectId: r.projectId }, ctx.now));
}
