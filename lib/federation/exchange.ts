import "server-only";
import { createHash } from "node:crypto";
import { and, eq, lt } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { apiTokens, federationExchanges, federationTrusts } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { newApiToken } from "@/lib/auth/api-token";
import { subjectMatches, unmetCondition } from "./conditions";
import { ACCESS_TOKEN_TYPE, GRANT_TYPE, ID_TOKEN_TYPE, JWT_TOKEN_TYPE } from "./token-types";
import type { IssuerKeys } from "./jwks";
import { trustsInForce, type CandidateTrust } from "./trust-lookup";
import { FederationRefusal, LEEWAY_SECONDS, unverifiedIdentity, verifySubjectToken } from "./verify";

/**
 * OAuth 2.0 Token Exchange (RFC 8693) of an external OIDC token for a
 * short-lived Allot token of the service account that trusts its issuer.
 * Every exchange and every refusal is audited; a refusal records what the
 * token claimed (issuer, subject) and why, never the token.
 */


/** RFC 6749 §5.2 and RFC 8693 §2.2.2 error codes, and 503 when the issuer cannot be reached. */
export type ExchangeError = "invalid_request" | "unsupported_grant_type" | "invalid_grant" | "invalid_target" | "temporarily_unavailable";

export type ExchangeResult =
  | { ok: true; body: { access_token: string; issued_token_type: string; token_type: "Bearer"; expires_in: number } }
  | { ok: false; status: 400 | 503; error: ExchangeError; description: string; reason?: string };

export type ExchangeDeps = { db: Database; keys: IssuerKeys; now: Date; tokenMinutes: number };

/** "tenant/service-account": the account a caller asks for when its token could match several. */
const accountAudience = z
  .string()
  .regex(/^[a-z0-9-]{1,63}\/[a-z0-9-]{1,63}$/, "audience must name a service account as <tenant>/<service-account>")
  .transform((v) => ({ tenant: v.split("/")[0]!, name: v.split("/")[1]! }));

const exchangeRequest = z.object({
  grant_type: z.string({ message: "grant_type is required" }),
  subject_token: z.string({ message: "subject_token is required" }).min(1, "subject_token is required").max(16_384, "subject_token is too long"),
  subject_token_type: z.enum([JWT_TOKEN_TYPE, ID_TOKEN_TYPE], { message: `subject_token_type must be ${JWT_TOKEN_TYPE} or ${ID_TOKEN_TYPE}` }),
  requested_token_type: z.literal(ACCESS_TOKEN_TYPE, { message: `requested_token_type, when sent, must be ${ACCESS_TOKEN_TYPE}` }).optional(),
  audience: accountAudience.optional(),
});

const PARAMETERS = new Set(["grant_type", "subject_token", "subject_token_type", "requested_token_type", "audience", "resource", "scope"]);

/** Anything a caller claims, cut short before it is written to the log. */
const clip = (text: string | undefined) => (text === undefined ? null : text.length > 200 ? `${text.slice(0, 200)}…` : text);

const audienceOf = (aud: unknown): string[] => (Array.isArray(aud) ? aud.filter((a): a is string => typeof a === "string") : typeof aud === "string" ? [aud] : []);

/** Single use: the key of a subject token is its issuer and jti, or the whole token when it carries no jti. */
function replayKey(issuer: string, jti: unknown, token: string): string {
  const id = typeof jti === "string" && jti ? `jti:${jti}` : `token:${token}`;
  return createHash("sha256").update(`${issuer}\n${id}`).digest("hex");
}

/** The trusts this verified token satisfies; a refusal says which check failed first. */
function satisfiedTrusts(candidates: CandidateTrust[], claims: Record<string, unknown>, seen: { issuer: string; subject?: string }): CandidateTrust[] {
  const audiences = audienceOf(claims.aud);
  const forAudience = candidates.filter((t) => audiences.includes(t.audience));
  const forSubject = forAudience.filter((t) => typeof claims.sub === "string" && subjectMatches(t.subjectPattern, claims.sub));
  if (forSubject.length === 0) throw new FederationRefusal("subject_mismatch", "No trust for this issuer and audience accepts this subject.", seen);
  const satisfied = forSubject.filter((t) => unmetCondition(t.claimConditions, claims) === null);
  if (satisfied.length === 0) {
    throw new FederationRefusal("condition_unmet", `The token does not meet the trust's condition on ${unmetCondition(forSubject[0]!.claimConditions, claims)}.`, seen);
  }
  if (new Set(satisfied.map((t) => t.serviceAccountId)).size > 1) {
    throw new FederationRefusal("ambiguous", "Trusts of several service accounts accept this token: name one with audience=<tenant>/<service-account>.", seen);
  }
  return satisfied;
}

async function auditRefusal(db: Database, now: Date, refusal: FederationRefusal, account: CandidateTrust | undefined) {
  await db.transaction((tx) =>
    recordAudit(tx, {
      actor: { principalId: null, label: clip(`oidc:${refusal.seen.issuer ?? "unknown issuer"}`)! },
      at: now,
      tenantId: account?.tenantId ?? null,
      action: "federation.exchange_refused",
      target: account ? { type: "principal", id: account.serviceAccountId } : { type: "federation", id: "token-exchange" },
      after: { reason: refusal.reason, issuer: clip(refusal.seen.issuer), subject: clip(refusal.seen.subject), serviceAccount: account ? `${account.tenantSlug}/${account.serviceAccountName}` : null },
    }),
  );
}

/** Mint the account's short-lived token, recording the subject token as used, in one transaction. */
async function mint(deps: ExchangeDeps, trust: CandidateTrust, token: string, claims: { iss?: string; sub?: string; jti?: unknown; exp: number }) {
  const { db, now } = deps;
  const issuer = claims.iss!;
  return db.transaction(async (tx) => {
    // Entries whose token has expired are refused on exp anyway: forget them.
    await tx.delete(federationExchanges).where(lt(federationExchanges.subjectExpiresAt, new Date(now.getTime() - LEEWAY_SECONDS * 1000)));
    const [fresh] = await tx
      .insert(federationExchanges)
      .values({ key: replayKey(issuer, claims.jti, token), trustId: trust.id, exchangedAt: now, subjectExpiresAt: new Date(claims.exp * 1000) })
      .onConflictDoNothing()
      .returning({ key: federationExchanges.key });
    if (!fresh) throw new FederationRefusal("replayed", "This token was already exchanged; each token is accepted once.", { issuer, subject: claims.sub });
    const { token: accessToken, prefix, hash } = newApiToken();
    const expiresAt = new Date(now.getTime() + deps.tokenMinutes * 60_000);
    await tx.insert(apiTokens).values({ serviceAccountId: trust.serviceAccountId, prefix, hash, expiresAt, createdAt: now, federationTrustId: trust.id });
    await tx.update(federationTrusts).set({ lastUsedAt: now }).where(and(eq(federationTrusts.id, trust.id)));
    const actor: AuditActor = { principalId: null, label: clip(`oidc:${issuer}`)! };
    await recordAudit(tx, {
      actor,
      at: now,
      tenantId: trust.tenantId,
      action: "federation.token_exchanged",
      target: { type: "api_token", id: prefix },
      after: { serviceAccountId: trust.serviceAccountId, trust: trust.name, issuer: clip(issuer), subject: clip(claims.sub), jti: typeof claims.jti === "string" ? clip(claims.jti) : null, expiresAt },
    });
    return { accessToken, expiresIn: deps.tokenMinutes * 60 };
  });
}

/** Parse, verify and exchange; always answers, never throws for a bad request or token. */
export async function exchangeToken(deps: ExchangeDeps, params: Record<string, string>): Promise<ExchangeResult> {
  const unknown = Object.keys(params).filter((k) => !PARAMETERS.has(k));
  if (unknown.length) return { ok: false, status: 400, error: "invalid_request", description: `Unknown parameter: ${clip(unknown.join(", "))}.` };
  if (params.grant_type !== undefined && params.grant_type !== GRANT_TYPE) {
    return { ok: false, status: 400, error: "unsupported_grant_type", description: `grant_type must be ${GRANT_TYPE}.` };
  }
  if (params.resource !== undefined || params.scope !== undefined) {
    return { ok: false, status: 400, error: "invalid_request", description: "resource and scope are not used here: name the service account with audience=<tenant>/<service-account>." };
  }
  const parsed = exchangeRequest.safeParse(params);
  if (!parsed.success) return { ok: false, status: 400, error: "invalid_request", description: parsed.error.issues.map((i) => i.message).join("; ") };
  const { subject_token: token, audience } = parsed.data;

  let account: CandidateTrust | undefined;
  try {
    const identity = unverifiedIdentity(token);
    const candidates = await trustsInForce(deps.db, identity.issuer, deps.now, audience);
    // Only one account in play: its tenant sees the refusals in its own audit log.
    if (new Set(candidates.map((c) => c.serviceAccountId)).size === 1) account = candidates[0];
    if (candidates.length === 0) {
      const where = audience ? `service account ${audience.tenant}/${audience.name}` : "any service account";
      throw new FederationRefusal("no_trust", `No trust in force of ${where} accepts tokens of this issuer.`, identity);
    }
    const claims = await verifySubjectToken(token, deps.keys, { issuer: identity.issuer, audiences: [...new Set(candidates.map((c) => c.audience))], now: deps.now });
    const seen = { issuer: identity.issuer, subject: claims.sub };
    const [trust] = satisfiedTrusts(candidates, claims, seen);
    account = trust;
    if (trust!.accountDisabled) throw new FederationRefusal("account_disabled", "The service account is disabled.", seen);
    const { accessToken, expiresIn } = await mint(deps, trust!, token, claims);
    return { ok: true, body: { access_token: accessToken, issued_token_type: ACCESS_TOKEN_TYPE, token_type: "Bearer", expires_in: expiresIn } };
  } catch (error) {
    if (!(error instanceof FederationRefusal)) throw error;
    await auditRefusal(deps.db, deps.now, error, account);
    if (error.reason === "issuer_unreachable") return { ok: false, status: 503, error: "temporarily_unavailable", description: error.message, reason: error.reason };
    if (error.reason === "no_trust" && audience) return { ok: false, status: 400, error: "invalid_target", description: error.message, reason: error.reason };
    return { ok: false, status: 400, error: "invalid_grant", description: error.message, reason: error.reason };
  }
}
