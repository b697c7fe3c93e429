import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Service account bearer tokens: `allot_<prefix>_<secret>`. The prefix is
 * public (it names the token in lists, logs and rate limits); the database keeps
 * only the SHA-256 of the whole token, so a leaked table grants nothing.
 */
const TOKEN_PATTERN = /^allot_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

export function newApiToken(): { token: string; prefix: string; hash: string } {
  const prefix = randomBytes(9).toString("base64url").toLowerCase().replace(/[^a-z0-9]/g, "0").slice(0, 12);
  const token = `allot_${prefix}_${randomBytes(32).toString("base64url")}`;
  return { token, prefix, hash: hashApiToken(token) };
}

export function hashApiToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The prefix of a well-formed token, or null for anything that is not one. */
export function apiTokenPrefix(token: string): string | null {
  return TOKEN_PATTERN.exec(token)?.[1] ?? null;
}

export function apiTokenMatches(token: string, storedHash: string): boolean {
  const a = Buffer.from(hashApiToken(token), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
