import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from "jose";
import { DiscoveryError, type IssuerKeys } from "./jwks";

/**
 * Verifying a subject token from an external issuer: signature by a key the
 * issuer publishes, then iss, aud, exp, nbf and iat at `now` with a small
 * leeway. Only asymmetric algorithms: with `none` anyone signs, and with HS*
 * the "secret" would be the issuer's public key, which anyone can fetch.
 */

export const ACCEPTED_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
/** Clocks of issuer and portal differ a little. */
export const LEEWAY_SECONDS = 30;
/** A subject token meant to live longer than this is a long-lived credential in disguise (Kubernetes' legacy secret tokens have no exp at all). */
export const MAX_SUBJECT_LIFETIME_SECONDS = 24 * 3600;

/** Why a subject token was refused: stable codes, for the audit log and the tests. */
export type RefusalReason =
  | "malformed"
  | "unsupported_algorithm"
  | "no_trust"
  | "issuer_unreachable"
  | "bad_signature"
  | "expired"
  | "not_yet_valid"
  | "wrong_issuer"
  | "wrong_audience"
  | "missing_claim"
  | "lifetime_too_long"
  | "subject_mismatch"
  | "condition_unmet"
  | "ambiguous"
  | "replayed"
  | "account_disabled";

export class FederationRefusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
    /** What we could read of the token before refusing it (never the token itself). */
    readonly seen: { issuer?: string; subject?: string } = {},
  ) {
    super(message);
  }
}

/** The issuer and subject a token claims, before any check: only to find the trusts and to say what was refused. */
export function unverifiedIdentity(token: string): { issuer: string; subject: string | undefined } {
  let alg: unknown;
  let payload: JWTPayload;
  try {
    alg = decodeProtectedHeader(token).alg;
    payload = decodeJwt(token);
  } catch {
    throw new FederationRefusal("malformed", "subject_token is not a JWT.");
  }
  const seen = { issuer: typeof payload.iss === "string" ? payload.iss : undefined, subject: typeof payload.sub === "string" ? payload.sub : undefined };
  if (typeof alg !== "string" || !ACCEPTED_ALGORITHMS.includes(alg)) {
    throw new FederationRefusal("unsupported_algorithm", `Tokens signed with ${typeof alg === "string" ? alg : "no algorithm"} are not accepted; the issuer must sign with a published asymmetric key.`, seen);
  }
  if (!seen.issuer) throw new FederationRefusal("missing_claim", "The token has no iss claim.", seen);
  return { issuer: seen.issuer, subject: seen.subject };
}

function refusalOf(error: unknown, seen: { issuer?: string; subject?: string }): FederationRefusal {
  if (error instanceof FederationRefusal) return error;
  if (error instanceof DiscoveryError) return new FederationRefusal("issuer_unreachable", "The issuer's keys could not be fetched; try again later.", seen);
  if (error instanceof errors.JWTExpired) return new FederationRefusal("expired", "The token has expired.", seen);
  if (error instanceof errors.JWTClaimValidationFailed) {
    const byClaim: Record<string, [RefusalReason, string]> = {
      nbf: ["not_yet_valid", "The token is not valid yet (nbf)."],
      iat: ["not_yet_valid", "The token was issued in the future (iat)."],
      iss: ["wrong_issuer", "The token's issuer is not the trusted one."],
      aud: ["wrong_audience", "The token's audience is not one a trust accepts."],
    };
    const [reason, message] = byClaim[error.claim] ?? (error.reason === "missing" ? ["missing_claim", `The token has no ${error.claim} claim.`] : ["malformed", `The token's ${error.claim} claim is invalid.`]);
    return new FederationRefusal(reason, message, seen);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return new FederationRefusal("unsupported_algorithm", "The token's algorithm is not accepted.", seen);
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSMultipleMatchingKeys) {
    return new FederationRefusal("bad_signature", "The token's signature does not verify with the issuer's published keys.", seen);
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return new FederationRefusal("issuer_unreachable", "The issuer's keys could not be fetched; try again later.", seen);
  if (error instanceof errors.JOSEError) return new FederationRefusal("malformed", "The token is not a valid signed JWT.", seen);
  throw error;
}

/** Verify the token as issued by `issuer` for one of `audiences`; returns its claims or throws a FederationRefusal. */
export async function verifySubjectToken(
  token: string,
  keys: IssuerKeys,
  expected: { issuer: string; audiences: string[]; now: Date },
): Promise<JWTPayload & { exp: number; iat: number }> {
  const seen = { issuer: expected.issuer, subject: undefined as string | undefined };
  try {
    const { payload } = await jwtVerify(token, await keys.forIssuer(expected.issuer), {
      issuer: expected.issuer,
      audience: expected.audiences,
      algorithms: ACCEPTED_ALGORITHMS,
      clockTolerance: LEEWAY_SECONDS,
      currentDate: expected.now,
      requiredClaims: ["exp", "iat", "sub"],
      // Also refuses an iat in the future (beyond the leeway).
      maxTokenAge: MAX_SUBJECT_LIFETIME_SECONDS,
    });
    seen.subject = payload.sub;
    const { exp, iat } = payload as { exp: number; iat: number };
    if (exp - iat > MAX_SUBJECT_LIFETIME_SECONDS) {
      throw new FederationRefusal("lifetime_too_long", `The token lives ${exp - iat} s; at most ${MAX_SUBJECT_LIFETIME_SECONDS} s is accepted.`, seen);
    }
    return { ...payload, exp, iat };
  } catch (error) {
    throw refusalOf(error, seen);
  }
}
