import "server-only";
import { and, eq, isNull, lte, or } from "drizzle-orm";
import type { Database } from "@/db/client";
import { apiTokens, platformAdmins, principals, users } from "@/db/schema";
import type { Actor } from "./actor";
import { apiTokenMatches, apiTokenPrefix } from "./api-token";
import { actorColumns, actorFromRow } from "./load-actor";
import { inForce } from "./policy";

export type TokenAuthentication =
  | { ok: true; actor: Actor; prefix: string; token: { id: string; lastUsedAt: Date | null } }
  | { ok: false; reason: "malformed" | "unknown" | "revoked" | "expired" | "disabled"; prefix: string | null };

/**
 * last_used_at is informational ("last used" in lists, to the minute): it is
 * refreshed at most once a minute per token, so a read is not a write commit.
 * Revocation, expiry and disabling are read on every request regardless.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolve a bearer token to its service account's actor, checking revocation,
 * expiry and disabling at `now`, and note its use (noteTokenUse).
 */
export async function authenticateToken(db: Database, token: string, now: Date, platformAdminEmails: readonly string[]): Promise<TokenAuthentication> {
  const result = await identifyToken(db, token, now, platformAdminEmails);
  if (result.ok) await noteTokenUse(db, result.token, now);
  return result;
}

/**
 * The reading half of authenticateToken, writing nothing: the token, its
 * principal and the principal's bindings come in one statement (service
 * accounts are in no group, so that is the whole actor). Nothing is cached
 * between requests: a revoked token is refused on the next one.
 */
export async function identifyToken(db: Database, token: string, now: Date, platformAdminEmails: readonly string[]): Promise<TokenAuthentication> {
  const prefix = apiTokenPrefix(token);
  if (!prefix) return { ok: false, reason: "malformed", prefix: null };
  const [row] = await db
    .select({
      token: { id: apiTokens.id, hash: apiTokens.hash, revokedAt: apiTokens.revokedAt, expiresAt: apiTokens.expiresAt, lastUsedAt: apiTokens.lastUsedAt },
      actor: actorColumns,
    })
    .from(apiTokens)
    .innerJoin(principals, eq(principals.id, apiTokens.serviceAccountId))
    .leftJoin(users, eq(users.principalId, principals.id))
    .leftJoin(platformAdmins, eq(platformAdmins.principalId, principals.id))
    .where(eq(apiTokens.prefix, prefix));
  if (!row || !apiTokenMatches(token, row.token.hash)) return { ok: false, reason: "unknown", prefix };
  if (row.token.revokedAt) return { ok: false, reason: "revoked", prefix };
  if (!inForce(row.token.expiresAt, now)) return { ok: false, reason: "expired", prefix };
  if (row.actor.disabledAt) return { ok: false, reason: "disabled", prefix };
  const actor = await actorFromRow(db, row.actor, platformAdminEmails);
  if (!actor) return { ok: false, reason: "disabled", prefix };
  return { ok: true, actor, prefix, token: { id: row.token.id, lastUsedAt: row.token.lastUsedAt } };
}

/** Refresh last_used_at when the stored one is a minute old or more (or never set); otherwise write nothing. */
export async function noteTokenUse(db: Database, token: { id: string; lastUsedAt: Date | null }, now: Date): Promise<void> {
  if (token.lastUsedAt && now.getTime() - token.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
  // Conditional, so replicas answering the same token in the same minute write it once between them.
  const staleFrom = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  await db
    .update(apiTokens)
    .set({ lastUsedAt: now })
    .where(and(eq(apiTokens.id, token.id), or(isNull(apiTokens.lastUsedAt), lte(apiTokens.lastUsedAt, staleFrom))));
}
