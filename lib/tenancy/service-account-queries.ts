import "server-only";
import { and, asc, desc, eq, inArray, isNull } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { apiTokens, principals, projectGrants, projects, serviceAccounts } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can, inForce } from "@/lib/auth/policy";
import { AppError } from "@/lib/errors";
import { trustsOfAccounts } from "@/lib/federation/queries";
import { tenantBySlug } from "./lookup";

export type TokenSummary = { prefix: string; createdAt: Date; expiresAt: Date | null; lastUsedAt: Date | null; revokedAt: Date | null; state: "active" | "expired" | "revoked" };

/**
 * A tenant's service accounts with their project roles; tokens (prefix and
 * dates only, never hashes) and trusted issuers for those who may manage them.
 */
export async function tenantServiceAccounts(ctx: CommandContext, tenantSlug: string) {
  return accountsOf(ctx, tenantSlug);
}

/**
 * One service account of the tenant, for its own page: as the list shows it,
 * with what the viewer may do there. not_found when the tenant or the account
 * is out of reach or missing, alike.
 */
export async function serviceAccountDetail(ctx: CommandContext, tenantSlug: string, name: string) {
  const { accounts, ...rest } = await accountsOf(ctx, tenantSlug, name);
  const account = accounts[0];
  if (!account) throw new AppError("not_found");
  return { ...rest, account };
}

async function accountsOf(ctx: CommandContext, tenantSlug: string, name?: string) {
  const tenant = await tenantBySlug(ctx.db, tenantSlug);
  const resource = { kind: "tenant", tenantId: tenant.id } as const;
  if (!can(ctx.actor, "service_account.view", resource, ctx.now)) throw new AppError("not_found");
  const canManage = can(ctx.actor, "service_account.manage", resource, ctx.now);
  const creator = alias(principals, "creator");
  const accounts = await ctx.db
    .select({
      principalId: serviceAccounts.principalId,
      name: serviceAccounts.name,
      description: serviceAccounts.description,
      createdBy: creator.displayName,
      createdAt: principals.createdAt,
      disabledAt: principals.disabledAt,
    })
    .from(serviceAccounts)
    .innerJoin(principals, eq(principals.id, serviceAccounts.principalId))
    .leftJoin(creator, eq(creator.id, serviceAccounts.createdBy))
    .where(and(eq(serviceAccounts.tenantId, tenant.id), name === undefined ? undefined : eq(serviceAccounts.name, name)))
    .orderBy(asc(serviceAccounts.name));
  const ids = accounts.map((a) => a.principalId);
  const [grants, tokens, trusts, openProjects] = await Promise.all([
    ids.length
      ? ctx.db
          .select({ grantId: projectGrants.id, principalId: projectGrants.principalId, projectSlug: projects.slug, projectName: projects.name, role: projectGrants.role, expiresAt: projectGrants.expiresAt })
          .from(projectGrants)
          .innerJoin(projects, eq(projects.id, projectGrants.projectId))
          .where(inArray(projectGrants.principalId, ids))
      : [],
    ids.length && canManage
      ? // Tokens exchanged under a trust are short-lived and many: counted on their trust, not listed here.
        ctx.db.select().from(apiTokens).where(and(inArray(apiTokens.serviceAccountId, ids), isNull(apiTokens.federationTrustId))).orderBy(desc(apiTokens.createdAt))
      : [],
    canManage ? trustsOfAccounts(ctx.db, ids, ctx.now) : new Map<string, never[]>(),
    // Where a role can be set from an account's own page (grantProjectRole decides whether it may, project by project).
    canManage ? ctx.db.select({ slug: projects.slug, name: projects.name }).from(projects).where(and(eq(projects.tenantId, tenant.id), isNull(projects.archivedAt))).orderBy(asc(projects.name)) : [],
  ]);
  return {
    tenant,
    canManage,
    projects: openProjects,
    accounts: accounts.map(({ disabledAt, ...a }) => ({
      ...a,
      disabled: disabledAt !== null,
      trusts: trusts.get(a.principalId) ?? [],
      projectRoles: grants.filter((g) => g.principalId === a.principalId).map(({ principalId: _p, ...g }) => g),
      tokens: tokens
        .filter((t) => t.serviceAccountId === a.principalId)
        .map(
          (t): TokenSummary => ({
            prefix: t.prefix,
            createdAt: t.createdAt,
            expiresAt: t.expiresAt,
            lastUsedAt: t.lastUsedAt,
            revokedAt: t.revokedAt,
            state: t.revokedAt ? "revoked" : inForce(t.expiresAt, ctx.now) ? "active" : "expired",
          }),
        ),
    })),
  };
}
