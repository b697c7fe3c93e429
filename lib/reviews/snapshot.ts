import "server-only";
import { and, eq, gt, inArray, isNull, or } from "drizzle-orm";
import type { Database } from "@/db/client";
import { apiTokens, groupMappings, memberships, platformAdmins, principals, projectGrants, projects, serviceAccounts, users } from "@/db/schema";
import { peopleOfMappings } from "@/lib/groups/derived";
import { trustsInForce } from "@/lib/federation/revoke";
import type { PlatformSnapshot, TenantSnapshot, TokenSnapshot } from "./assign";

/**
 * Read, inside the opening's transaction, every access a review covers as it
 * is at `now`. Grants and tokens that have already expired or were revoked
 * are not access any more and are left out; grants in archived projects are in
 * (they are still rows that hold a role).
 */
export async function tenantSnapshot(tx: Database, tenantId: string, now: Date): Promise<{ snapshot: TenantSnapshot; emails: Map<string, string> }> {
  const memberRows = await tx
    .select({ membershipId: memberships.id, principalId: memberships.principalId, role: memberships.role, label: principals.displayName, email: users.email })
    .from(memberships)
    .innerJoin(principals, eq(principals.id, memberships.principalId))
    .leftJoin(users, eq(users.principalId, memberships.principalId))
    .where(eq(memberships.tenantId, tenantId));
  const grantRows = await tx
    .select({
      grantId: projectGrants.id,
      projectId: projectGrants.projectId,
      projectLabel: projects.name,
      principalId: projectGrants.principalId,
      principalKind: principals.kind,
      label: principals.displayName,
      email: users.email,
      role: projectGrants.role,
      expiresAt: projectGrants.expiresAt,
      grantedBy: projectGrants.grantedBy,
    })
    .from(projectGrants)
    .innerJoin(projects, eq(projects.id, projectGrants.projectId))
    .innerJoin(principals, eq(principals.id, projectGrants.principalId))
    .leftJoin(users, eq(users.principalId, projectGrants.principalId))
    .where(and(eq(projects.tenantId, tenantId), or(isNull(projectGrants.expiresAt), gt(projectGrants.expiresAt, now))));
  const accounts = await tx.select({ principalId: serviceAccounts.principalId, name: serviceAccounts.name }).from(serviceAccounts).where(eq(serviceAccounts.tenantId, tenantId));
  const mappingRows = await tx
    .select({ mappingId: groupMappings.id, groupName: groupMappings.groupName, projectId: groupMappings.projectId, projectLabel: projects.name, tenantRole: groupMappings.tenantRole, projectRole: groupMappings.projectRole })
    .from(groupMappings)
    .leftJoin(projects, eq(projects.id, groupMappings.projectId))
    .where(eq(groupMappings.tenantId, tenantId))
    .orderBy(groupMappings.groupName);
  const people = await peopleOfMappings(tx, tenantId);
  const groupMappingSnapshots = mappingRows.map((m) => ({
    ...m,
    role: (m.tenantRole ?? m.projectRole)!,
    people: people.filter((p) => p.mappingId === m.mappingId).map((p) => ({ principalId: p.principalId, label: p.displayName, email: p.email })),
  }));
  const emails = new Map<string, string>();
  for (const r of [...memberRows, ...grantRows]) if (r.email) emails.set(r.principalId, r.email);
  return {
    emails,
    snapshot: {
      memberships: memberRows,
      grants: grantRows,
      serviceAccounts: await withLiveTokens(tx, accounts, now),
      memberLabels: new Map(memberRows.map((m) => [m.principalId, m.label])),
      groupMappings: groupMappingSnapshots,
    },
  };
}

/** `environmentAdminEmails` is ALLOT_PLATFORM_ADMINS, as the actor loader applies it (lower-case emails). */
export async function platformSnapshot(tx: Database, now: Date, environmentAdminEmails: readonly string[]): Promise<{ snapshot: PlatformSnapshot; emails: Map<string, string> }> {
  const admins = await tx
    .select({ principalId: platformAdmins.principalId, source: platformAdmins.source, label: principals.displayName, email: users.email })
    .from(platformAdmins)
    .innerJoin(principals, eq(principals.id, platformAdmins.principalId))
    .leftJoin(users, eq(users.principalId, platformAdmins.principalId));
  const known = environmentAdminEmails.length
    ? await tx.select({ principalId: users.principalId, email: users.email, label: principals.displayName }).from(users).innerJoin(principals, eq(principals.id, users.principalId)).where(inArray(users.email, [...environmentAdminEmails]))
    : [];
  const environmentAdmins = environmentAdminEmails.map((email) => {
    const user = known.find((k) => k.email === email);
    return { email, principalId: user?.principalId ?? null, label: user?.label ?? email };
  });
  const accounts = await tx.select({ principalId: serviceAccounts.principalId, name: serviceAccounts.name }).from(serviceAccounts).where(isNull(serviceAccounts.tenantId));
  return {
    emails: new Map([...admins, ...known].flatMap((a) => (a.email ? [[a.principalId, a.email] as const] : []))),
    snapshot: { admins, environmentAdmins, serviceAccounts: await withLiveTokens(tx, accounts, now) },
  };
}

/** The tokens of these accounts that still work at `now`. */
export async function liveTokens(tx: Database, accountIds: readonly string[], now: Date) {
  if (accountIds.length === 0) return [];
  return tx
    .select({ id: apiTokens.id, serviceAccountId: apiTokens.serviceAccountId, prefix: apiTokens.prefix, expiresAt: apiTokens.expiresAt, lastUsedAt: apiTokens.lastUsedAt })
    .from(apiTokens)
    .where(and(inArray(apiTokens.serviceAccountId, [...accountIds]), isNull(apiTokens.revokedAt), or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, now))))
    .orderBy(apiTokens.prefix);
}

/** Each account with what lets automation act as it: live tokens and federation trusts in force (revoking the account's item ends both). */
async function withLiveTokens(tx: Database, accounts: { principalId: string; name: string }[], now: Date) {
  const ids = accounts.map((a) => a.principalId);
  const [tokens, trusts] = await Promise.all([liveTokens(tx, ids, now), trustsInForce(tx, ids, now)]);
  return accounts.map((a) => ({
    ...a,
    tokens: tokens.filter((t) => t.serviceAccountId === a.principalId).map((t): TokenSnapshot => ({ prefix: t.prefix, expiresAt: t.expiresAt, lastUsedAt: t.lastUsedAt })),
    trusts: trusts.filter((t) => t.serviceAccountId === a.principalId).map((t) => t.name),
  }));
}
