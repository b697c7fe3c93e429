import "server-only";
import { and, asc, eq, gt, inArray, isNull, or } from "drizzle-orm";
import type { Database } from "@/db/client";
import { apiTokens, federationTrusts } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";

/**
 * Revoke trusts of a service account that are in force (one by name, or all)
 * and every token exchanged under them that is still live, inside the
 * caller's transaction: the trust command and an access review's revocation
 * of the account (which also reaches platform-scoped accounts: tenantId null).
 * Each trust is audited as `by`. Returns what was revoked.
 */
export async function revokeTrustsWithin(
  tx: Database,
  by: { actor: AuditActor; now: Date },
  tenantId: string | null,
  serviceAccountId: string,
  name?: string,
): Promise<{ name: string; revokedTokens: number }[]> {
  const trusts = await tx
    .update(federationTrusts)
    .set({ revokedAt: by.now })
    .where(and(eq(federationTrusts.serviceAccountId, serviceAccountId), name === undefined ? undefined : eq(federationTrusts.name, name), isNull(federationTrusts.revokedAt)))
    .returning();
  const revoked: { name: string; revokedTokens: number }[] = [];
  for (const trust of trusts.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const tokens = await tx
      .update(apiTokens)
      .set({ revokedAt: by.now })
      .where(and(eq(apiTokens.federationTrustId, trust.id), isNull(apiTokens.revokedAt)))
      .returning({ prefix: apiTokens.prefix });
    await recordAudit(tx, {
      actor: by.actor,
      at: by.now,
      tenantId,
      action: "federation.trust_revoked",
      target: { type: "principal", id: serviceAccountId },
      before: { name: trust.name, issuer: trust.issuer },
      after: { revokedTokens: tokens.map((t) => t.prefix).sort() },
    });
    revoked.push({ name: trust.name, revokedTokens: tokens.length });
  }
  return revoked;
}

/** The trusts of these accounts in force at `now` (not revoked, not expired), by name: what a review lists beside the tokens. */
export async function trustsInForce(db: Database, serviceAccountIds: readonly string[], now: Date): Promise<{ serviceAccountId: string; name: string }[]> {
  if (serviceAccountIds.length === 0) return [];
  return db
    .select({ serviceAccountId: federationTrusts.serviceAccountId, name: federationTrusts.name })
    .from(federationTrusts)
    .where(and(inArray(federationTrusts.serviceAccountId, [...serviceAccountIds]), isNull(federationTrusts.revokedAt), or(isNull(federationTrusts.expiresAt), gt(federationTrusts.expiresAt, now))))
    .orderBy(asc(federationTrusts.name));
}
