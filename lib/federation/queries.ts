import "server-only";
import { and, count, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import { apiTokens, federationTrusts, principals } from "@/db/schema";
import { inForce } from "@/lib/auth/policy";

export type TrustSummary = {
  name: string;
  issuer: string;
  audience: string;
  subjectPattern: string;
  claimConditions: Record<string, string | number | boolean>;
  createdAt: Date;
  createdBy: string | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  state: "active" | "expired" | "revoked";
  /** Exchanged tokens of this trust still live at `now`. */
  liveTokens: number;
};

/** The trusts of these service accounts (the caller checked it may manage them), newest first, by account id. */
export async function trustsOfAccounts(db: Database, serviceAccountIds: string[], now: Date): Promise<Map<string, TrustSummary[]>> {
  const byAccount = new Map<string, TrustSummary[]>();
  if (serviceAccountIds.length === 0) return byAccount;
  const [trusts, live] = await Promise.all([
    db
      .select({ trust: federationTrusts, createdBy: principals.displayName })
      .from(federationTrusts)
      .leftJoin(principals, eq(principals.id, federationTrusts.createdBy))
      .where(inArray(federationTrusts.serviceAccountId, serviceAccountIds))
      .orderBy(desc(federationTrusts.createdAt)),
    db
      .select({ trustId: apiTokens.federationTrustId, live: count() })
      .from(apiTokens)
      .innerJoin(federationTrusts, eq(federationTrusts.id, apiTokens.federationTrustId))
      .where(and(inArray(federationTrusts.serviceAccountId, serviceAccountIds), isNull(apiTokens.revokedAt), gt(apiTokens.expiresAt, now)))
      .groupBy(apiTokens.federationTrustId),
  ]);
  const liveOf = new Map(live.map((l) => [l.trustId, l.live]));
  for (const { trust: t, createdBy } of trusts) {
    const summary: TrustSummary = {
      name: t.name,
      issuer: t.issuer,
      audience: t.audience,
      subjectPattern: t.subjectPattern,
      claimConditions: t.claimConditions,
      createdAt: t.createdAt,
      createdBy,
      expiresAt: t.expiresAt,
      lastUsedAt: t.lastUsedAt,
      revokedAt: t.revokedAt,
      state: t.revokedAt ? "revoked" : inForce(t.expiresAt, now) ? "active" : "expired",
      liveTokens: liveOf.get(t.id) ?? 0,
    };
    byAccount.set(t.serviceAccountId, [...(byAccount.get(t.serviceAccountId) ?? []), summary]);
  }
  return byAccount;
}
