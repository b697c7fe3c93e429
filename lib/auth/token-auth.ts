import "server-only";
import { eq } from "drizzle-orm";
import type { Database } from "@/db/client";
import { apiTokens, principals } from "@/db/schema";
import type { Actor } from "./actor";
import { apiTokenMatches, apiTokenPrefix } from "./api-token";
import { loadActor } from "./load-actor";
import { inForce } from "./policy";

export type TokenAuthentication =
  | { ok: true; actor: Actor; prefix: string }
  | { ok: false; reason: "malformed" | "unknown" | "revoked" | "expired" | "disabled"; prefix: string | null };

/** last_used_at is informational: refresh it at most once a minute per token, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Resolve a bearer token to its service account's actor, checking revocation, expiry and disabling at `now`. */
export async function authenticateToken(db: Database, token: string, now: Date, platformAdminEmails: readonly string[]): Promise<TokenAuthentication> {
  const prefix = apiTokenPrefix(token);
  if (!prefix) return { ok: false, reason: "malformed", prefix: null };
  const [row] = await db
    .select({ token: apiTokens, disabledAt: principals.disabledAt })
    .from(apiTokens)
    .innerJoin(principals, eq(principals.id, apiTokens.serviceAccountId))
    .where(eq(apiTokens.prefix, prefix));
  if (!row || !apiTokenMatches(token, row.token.hash)) return { ok: false, reason: "unknown", prefix };
  if (row.token.revokedAt) return { ok: false, reason: "revoked", prefix };
  if (!inForce(row.token.expiresAt, now)) return { ok: false, reason: "expired", prefix };
  if (row.disabledAt) return { ok: false, reason: "disabled", prefix };
  const actor = await loadActor(db, row.token.serviceAccountId, platformAdminEmails);
  if (!actor) return { ok: false, reason: "disabled", prefix };
  if (!row.token.lastUsedAt || now.getTime() - row.token.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, row.token.id));
  }
  return { ok: true, actor, prefix };
}
