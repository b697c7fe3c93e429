import "server-only";
import { randomBytes } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import { scimTokens } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { apiTokenMatches, hashApiToken } from "@/lib/auth/api-token";
import { inForce } from "@/lib/auth/policy";
import { AppError } from "@/lib/errors";

/**
 * SCIM client tokens: `scim_<prefix>_<secret>`, kept as the SHA-256 of the
 * whole token (the same hashing and constant-time compare as service account
 * tokens). An operator makes one with the CLI and pastes it into the IdP; it
 * can create and disable any person, so it always expires.
 */
const TOKEN_PATTERN = /^scim_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;
const DAY = 86_400_000;
const operator: AuditActor = { principalId: null, label: "system:cli" };

export function scimTokenPrefix(token: string): string | null {
  return TOKEN_PATTERN.exec(token)?.[1] ?? null;
}

export async function mintScimToken(db: Database, expiresDays: number, now: Date): Promise<{ id: string; token: string; expiresAt: Date }> {
  if (!Number.isInteger(expiresDays) || expiresDays < 1 || expiresDays > 365) throw new AppError("validation", "--expires-days must be a whole number from 1 to 365");
  const prefix = randomBytes(9).toString("base64url").toLowerCase().replace(/[^a-z0-9]/g, "0").slice(0, 12);
  const token = `scim_${prefix}_${randomBytes(32).toString("base64url")}`;
  const expiresAt = new Date(now.getTime() + expiresDays * DAY);
  const id = await db.transaction(async (tx) => {
    const [row] = await tx.insert(scimTokens).values({ prefix, hash: hashApiToken(token), createdAt: now, expiresAt }).returning({ id: scimTokens.id });
    await recordAudit(tx, { actor: operator, at: now, tenantId: null, action: "scim.token.created", target: { type: "scim_token", id: row!.id }, after: { prefix, expiresAt } });
    return row!.id;
  });
  return { id, token, expiresAt };
}

export async function revokeScimToken(db: Database, idOrPrefix: string, now: Date): Promise<{ prefix: string }> {
  return db.transaction(async (tx) => {
    const column = /^[0-9a-f-]{36}$/i.test(idOrPrefix) ? scimTokens.id : scimTokens.prefix;
    const [row] = await tx.update(scimTokens).set({ revokedAt: now }).where(and(eq(column, idOrPrefix), isNull(scimTokens.revokedAt))).returning();
    if (!row) throw new AppError("not_found", `No SCIM token ${idOrPrefix} that is not already revoked.`);
    await recordAudit(tx, { actor: operator, at: now, tenantId: null, action: "scim.token.revoked", target: { type: "scim_token", id: row.id }, before: { prefix: row.prefix } });
    return { prefix: row.prefix };
  });
}

export function listScimTokens(db: Database) {
  return db
    .select({ id: scimTokens.id, prefix: scimTokens.prefix, createdAt: scimTokens.createdAt, expiresAt: scimTokens.expiresAt, lastUsedAt: scimTokens.lastUsedAt, revokedAt: scimTokens.revokedAt })
    .from(scimTokens)
    .orderBy(desc(scimTokens.createdAt));
}

export type ScimAuthentication = { ok: true; prefix: string } | { ok: false; reason: "malformed" | "unknown" | "revoked" | "expired"; prefix: string | null };

export async function authenticateScimToken(db: Database, token: string, now: Date): Promise<ScimAuthentication> {
  const prefix = scimTokenPrefix(token);
  if (!prefix) return { ok: false, reason: "malformed", prefix: null };
  const [row] = await db.select().from(scimTokens).where(eq(scimTokens.prefix, prefix));
  if (!row || !apiTokenMatches(token, row.hash)) return { ok: false, reason: "unknown", prefix };
  if (row.revokedAt) return { ok: false, reason: "revoked", prefix };
  if (!inForce(row.expiresAt, now)) return { ok: false, reason: "expired", prefix };
  // Informational, so at most once a minute: an IdP sync makes many requests.
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) await db.update(scimTokens).set({ lastUsedAt: now }).where(eq(scimTokens.id, row.id));
  return { ok: true, prefix };
}
