import { z } from "zod";
import { wholeNumber } from "@/lib/input/numbers";
import type { ClaimConditions } from "./conditions";

/**
 * What a tenant admin types to trust an issuer. Shared by the portal form and
 * the REST API; the issuer's scheme is checked against the setting by
 * `issuerProblem`, because plain http is only for a loopback issuer in tests.
 */

export const trustName = z
  .string({ message: "is required" })
  .trim()
  .min(2, "must be at least 2 characters")
  .max(40, "must be at most 40 characters")
  .regex(/^[a-z][a-z0-9-]*[a-z0-9]$/, "must be lower-case letters, digits and hyphens, starting with a letter");

export const issuerInput = z.string({ message: "is required" }).trim().min(1, "is required").max(300, "must be at most 300 characters");

/** Claims checked by the trust's own fields or by every exchange: a condition on them would be misleading. */
const RESERVED_CLAIMS = ["iss", "aud", "sub", "exp", "nbf", "iat", "jti"];
const MAX_CONDITIONS = 10;

const conditionValue = z.union([z.string().max(300, "must be at most 300 characters"), z.number(), z.boolean()], {
  message: "must be a string, number or boolean",
});

/** Claim name -> the value it must equal; empty means none. The portal's form sends it as JSON text (see `conditionsFromText`). */
export const claimConditionsInput = z
  .object({}, { message: 'must be a JSON object such as {"repository_owner": "acme"}' })
  .catchall(conditionValue)
  .refine((c) => Object.keys(c).length <= MAX_CONDITIONS, `must have at most ${MAX_CONDITIONS} conditions`)
  .refine((c) => Object.keys(c).every((k) => k.length >= 1 && k.length <= 100), "must name each claim in 1 to 100 characters")
  .refine((c) => !Object.keys(c).some((k) => RESERVED_CLAIMS.includes(k)), "must not name iss, aud, sub, exp, nbf, iat or jti (they have their own checks)")
  .default({})
  .transform((c): ClaimConditions => c);

/** The form's JSON text as the object the command takes; text that is not JSON stays text, so the command names the field. */
export function conditionsFromText(text: string): unknown {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const trustInput = z.object({
  name: trustName,
  issuer: issuerInput,
  audience: z.string({ message: "is required" }).trim().min(1, "is required").max(300, "must be at most 300 characters"),
  subjectPattern: z
    .string({ message: "is required" })
    .trim()
    .min(1, "is required")
    .max(300, "must be at most 300 characters")
    .refine((p) => p.replace(/\*/g, "").length > 0, "must contain more than `*`: name the subject, or the part that must match"),
  claimConditions: claimConditionsInput,
  expiresInDays: wholeNumber("Expires in (days)", { min: 1, max: 365, empty: undefined }),
});

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Why this issuer cannot be trusted, or null. Keys are fetched from the
 * issuer, so anything but https lets a network attacker sign tokens; plain
 * http is allowed only to a loopback address, and only when the operator set
 * ALLOT_FEDERATION_HTTP_LOOPBACK=1 (tests, local trials).
 */
export function issuerProblem(issuer: string, httpLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return "must be a URL such as https://token.actions.githubusercontent.com";
  }
  if (url.search || url.hash || url.username || url.password) return "must not have a query, fragment or credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && httpLoopback && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return httpLoopback ? "must be an https:// URL (http:// only on a loopback address)" : "must be an https:// URL";
}
