import "server-only";
import { and, eq, gt, isNull, or } from "drizzle-orm";
import type { Database } from "@/db/client";
import { federationTrusts, principals, serviceAccounts, tenants } from "@/db/schema";

export type CandidateTrust = Awaited<ReturnType<typeof trustsInForce>>[number];

/**
 * The trusts in force for an issuer at `now` (not revoked, not expired, of a
 * tenant's service account in an active tenant), optionally only those of one
 * named account. A deleted account took its trusts with it.
 */
export async function trustsInForce(db: Database, issuer: string, now: Date, account?: { tenant: string; name: string }) {
  return db
    .select({
      id: federationTrusts.id,
      name: federationTrusts.name,
      audience: federationTrusts.audience,
      subjectPattern: federationTrusts.subjectPattern,
      claimConditions: federationTrusts.claimConditions,
      serviceAccountId: serviceAccounts.principalId,
      serviceAccountName: serviceAccounts.name,
      tenantId: tenants.id,
      tenantSlug: tenants.slug,
      accountDisabled: principals.disabledAt,
    })
    .from(federationTrusts)
    .innerJoin(serviceAccounts, eq(serviceAccounts.principalId, federationTrusts.serviceAccountId))
    .innerJoin(principals, eq(principals.id, serviceAccounts.principalId))
    .innerJoin(tenants, eq(tenants.id, serviceAccounts.tenantId))
    .where(
      and(
        eq(federationTrusts.issuer, issuer),
        isNull(federationTrusts.revokedAt),
        or(isNull(federationTrusts.expiresAt), gt(federationTrusts.expiresAt, now)),
        eq(tenants.status, "active"),
        ...(account ? [eq(tenants.slug, account.tenant), eq(serviceAccounts.name, account.name)] : []),
      ),
    )
    .orderBy(federationTrusts.createdAt);
}
