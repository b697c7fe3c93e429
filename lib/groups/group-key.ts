import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { z } from "zod";
import { FILL_IN, atMostChars } from "@/lib/input/messages";

/**
 * The one matching rule between a group mapping and the groups a person is
 * in: a mapping's group matches a value of the OIDC groups claim, a SCIM
 * group's displayName, or a SCIM group's externalId when the two are equal
 * after removing leading and trailing spaces and ignoring the case of the
 * letters A-Z. Only ASCII letters are folded, so the same key comes out of
 * JavaScript and out of SQL on any database collation (PostgreSQL's lower()
 * folds other letters by locale, and PGlite's locale is not the server's).
 */
export function groupKey(name: string): string {
  return name.replace(/^ +| +$/g, "").replace(/[A-Z]/g, (c) => c.toLowerCase());
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";

/** `groupKey` in SQL, for SCIM groups' columns (their keys are not stored). */
export function groupKeySql(column: SQLWrapper): SQL<string> {
  return sql<string>`translate(btrim(${column}, ' '), ${UPPER}, ${LOWER})`;
}

/**
 * A group as an admin types it: its name (Keycloak, Okta, Entra ID with
 * cloud group names) or an id the IdP sends instead (Entra ID's object id,
 * which SCIM carries as externalId).
 */
export const groupNameInput = z
  .string({ message: FILL_IN })
  .trim()
  .min(1, FILL_IN)
  .max(256, atMostChars(256))
  .refine((name) => !hasControlCharacter(name), "Enter the group name without control characters.");

/** C0 controls and DEL: no IdP names a group with them, and they would hide in a table. */
export function hasControlCharacter(text: string): boolean {
  for (const c of text) {
    const code = c.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** At most this many values are read from a claim: a bound on what one sign-in writes (Entra ID itself stops at 200 and sends an overage reference instead, which is not followed). */
const MAX_CLAIM_GROUPS = 1000;
const MAX_GROUP_LENGTH = 256;

/**
 * The group names in a groups claim as the provider sent it: an array of
 * strings (or one string). Anything else, and values that are empty, too long
 * or hold control characters, are not groups; an absent claim is no groups.
 */
export function claimGroupNames(claim: unknown): string[] {
  const values = typeof claim === "string" ? [claim] : Array.isArray(claim) ? claim : [];
  const names = new Map<string, string>();
  for (const value of values.slice(0, MAX_CLAIM_GROUPS)) {
    if (typeof value !== "string") continue;
    const name = value.trim();
    if (!name || name.length > MAX_GROUP_LENGTH || hasControlCharacter(name)) continue;
    if (!names.has(groupKey(name))) names.set(groupKey(name), name);
  }
  return [...names.values()];
}
