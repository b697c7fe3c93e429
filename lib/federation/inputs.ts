import { z } from "zod";
import { wholeNumber } from "@/lib/input/numbers";
import type { ClaimConditions } from "./conditions";
import { FILL_IN, SLUG_RULE, atLeastChars, atMostChars } from "@/lib/input/messages";

/**
 * What a tenant admin types to trust an issuer. Shared by the portal form and
 * the REST API; the issuer's scheme is checked against the setting by
 * `issuerProblem`, because plain http is only for a loopback issuer in tests.
 */

export const trustName = z
  .string({ message: FILL_IN })
  .trim()
  .min(2, atLeastChars(2))
  .max(40, atMostChars(40))
  .regex(/^[a-z][a-z0-9-]*[a-z0-9]$/, SLUG_RULE);

export const issuerInput = z.string({ message: FILL_IN }).trim().min(1, FILL_IN).max(300, atMostChars(300));

/** Claims checked by the trust's own fields or by every exchange: a condition on them would be misleading. */
const RESERVED_CLAIMS = ["iss", "aud", "sub", "exp", "nbf", "iat", "jti"];
const MAX_CONDITIONS = 10;

const conditionValue = z.union([z.string().max(300, atMostChars(300)), z.number(), z.boolean()], {
  message: "Give each claim a string, number or boolean value.",
});

/** Claim name -> the value it must equal; empty means none. The portal's form sends it as JSON text (see `conditionsFromText`). */
export const claimConditionsInput = z
  .object({}, { message: 'Enter a JSON object such as {"repository_owner": "acme"}.' })
  .catchall(conditionValue)
  .refine((c) => Object.keys(c).length <= MAX_CONDITIONS, `Enter at most ${MAX_CONDITIONS} conditions.`)
  .refine((c) => Object.keys(c).every((k) => k.length >= 1 && k.length <= 100), "Name each claim in 1 to 100 characters.")
  .refine((c) => !Object.keys(c).some((k) => RESERVED_CLAIMS.includes(k)), "Leave out iss, aud, sub, exp, nbf, iat and jti: they have their own checks.")
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
  audience: z.string({ message: FILL_IN }).trim().min(1, FILL_IN).max(300, atMostChars(300)),
  subjectPattern: z
    .string({ message: FILL_IN })
    .trim()
    .min(1, FILL_IN)
    .max(300, atMostChars(300))
    .refine((p) => p.replace(/\*/g, "").length > 0, "Enter more than `*`: name the subject, or the part that must match."),
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
    return "Enter a URL such as https://token.actions.githubusercontent.com.";
  }
  if (url.search || url.hash || url.username || url.password) return "Enter the URL without a query, fragment or credentials.";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && httpLoopback && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return httpLoopback ? "Enter an https:// URL (http:// only on a loopback address)." : "Enter an https:// URL.";
}
