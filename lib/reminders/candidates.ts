import { and, eq, gt, isNull, lte, notExists, or, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { alias } from "drizzle-orm/pg-core";
import { apiTokens, memberships, principals, projectGrants, projects, serviceAccounts, tenants, users } from "@/db/schema";
import { REMINDER_HORIZON_MS } from "./thresholds";

/**
 * What may need an expiry reminder at `now`: everything in force that expires
 * within the furthest threshold. Grants on archived projects, in disabled
 * tenants or held by disabled principals are left out (they give no access
 * anyway), and so are revoked tokens, tokens issued by a token exchange
 * (minutes long by design) and a token whose account holds another live token
 * that outlives it (a rotated token's grace period ends without harm).
 */

export type GrantCandidate = {
  kind: "project_grant";
  id: string;
  expiresAt: Date;
  tenantId: string;
  tenantSlug: string;
  projectSlug: string;
  projectName: string;
  holderId: string;
  holderName: string;
  holderEmail: string | null;
  grantedBy: string | null;
  /** A person with no membership of the tenant: an external collaborator. */
  collaborator: boolean;
};

export type TokenCandidate = {
  kind: "api_token";
  id: string;
  expiresAt: Date;
  tenantId: string | null;
  tenantSlug: string | null;
  prefix: string;
  serviceAccountName: string;
  createdBy: string | null;
};

export type ReminderCandidate = GrantCandidate | TokenCandidate;

export async function expiringGrants(db: Database, now: Date): Promise<GrantCandidate[]> {
  const horizon = new Date(now.getTime() + REMINDER_HORIZON_MS);
  const rows = await db
    .select({
      id: projectGrants.id,
      expiresAt: projectGrants.expiresAt,
      tenantId: tenants.id,
      tenantSlug: tenants.slug,
      projectSlug: projects.slug,
      projectName: projects.name,
      holderId: projectGrants.principalId,
      holderName: principals.displayName,
      holderEmail: users.email,
      grantedBy: projectGrants.grantedBy,
      membershipId: memberships.id,
    })
    .from(projectGrants)
    .innerJoin(projects, eq(projects.id, projectGrants.projectId))
    .innerJoin(tenants, eq(tenants.id, projects.tenantId))
    .innerJoin(principals, eq(principals.id, projectGrants.principalId))
    .leftJoin(users, eq(users.principalId, projectGrants.principalId))
    .leftJoin(memberships, and(eq(memberships.tenantId, tenants.id), eq(memberships.principalId, projectGrants.principalId)))
    .where(
      and(
        gt(projectGrants.expiresAt, now),
        lte(projectGrants.expiresAt, horizon),
        isNull(projects.archivedAt),
        eq(tenants.status, "active"),
        isNull(principals.disabledAt),
      ),
    );
  return rows.map((r) => ({
    kind: "project_grant",
    id: r.id,
    expiresAt: r.expiresAt!,
    tenantId: r.tenantId,
    tenantSlug: r.tenantSlug,
    projectSlug: r.projectSlug,
    projectName: r.projectName,
    holderId: r.holderId,
    holderName: r.holderName,
    holderEmail: r.holderEmail,
    grantedBy: r.grantedBy,
    collaborator: r.holderEmail !== null && r.membershipId === null,
  }));
}

export async function expiringTokens(db: Database, now: Date): Promise<TokenCandidate[]> {
  const horizon = new Date(now.getTime() + REMINDER_HORIZON_MS);
  const other = alias(apiTokens, "other_token");
  const rows = await db
    .select({
      id: apiTokens.id,
      expiresAt: apiTokens.expiresAt,
      prefix: apiTokens.prefix,
      createdBy: apiTokens.createdBy,
      serviceAccountName: serviceAccounts.name,
      tenantId: serviceAccounts.tenantId,
      tenantSlug: tenants.slug,
      tenantStatus: tenants.status,
    })
    .from(apiTokens)
    .innerJoin(serviceAccounts, eq(serviceAccounts.principalId, apiTokens.serviceAccountId))
    .innerJoin(principals, eq(principals.id, apiTokens.serviceAccountId))
    .leftJoin(tenants, eq(tenants.id, serviceAccounts.tenantId))
    .where(
      and(
        isNull(apiTokens.revokedAt),
        isNull(apiTokens.federationTrustId),
        gt(apiTokens.expiresAt, now),
        lte(apiTokens.expiresAt, horizon),
        isNull(principals.disabledAt),
        or(isNull(serviceAccounts.tenantId), eq(tenants.status, "active")),
        notExists(
          db
            .select({ one: sql`1` })
            .from(other)
            .where(
              and(
                eq(other.serviceAccountId, apiTokens.serviceAccountId),
                sql`${other.id} <> ${apiTokens.id}`,
                isNull(other.revokedAt),
                isNull(other.federationTrustId),
                or(isNull(other.expiresAt), gt(other.expiresAt, apiTokens.expiresAt)),
              ),
            ),
        ),
      ),
    );
  return rows.map((r) => ({
    kind: "api_token",
    id: r.id,
    expiresAt: r.expiresAt!,
    tenantId: r.tenantId,
    tenantSlug: r.tenantSlug,
    prefix: r.prefix,
    serviceAccountName: r.serviceAccountName,
    createdBy: r.createdBy,
  }));
}
