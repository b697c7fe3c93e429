import { randomUUID } from "node:crypto";
import { SignJWT, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { executeCommand } from "@/lib/auth/command";
import { apiTokenPrefix } from "@/lib/auth/api-token";
import { rolesOn } from "@/lib/auth/policy";
import { authenticateToken } from "@/lib/auth/token-auth";
import type { AllotConfig } from "@/lib/config";
import { grantProjectRole } from "@/lib/tenancy/commands/project-access";
import { createServiceAccount, deleteServiceAccount, rotateToken, setServiceAccountDisabled } from "@/lib/tenancy/commands/service-accounts";
import { databaseLabel } from "@/test/database";
import { auditLog, contextOf, countOf } from "@/test/fixtures";
import { startLoopbackIssuer, type LoopbackIssuer } from "@/test/oidc-issuer";
import { freePort } from "@/test/ports";
import { outcomeOf, projectIdOf, seededDatabase, unique } from "@/test/tenancy";
import { createTrust, createTrustFromForm, revokeTrust } from "./commands";
import { exchangeToken, type ExchangeResult } from "./exchange";
import { handleTokenRequest } from "./token-endpoint";
import { IssuerKeys } from "./jwks";
import { GRANT_TYPE, JWT_TOKEN_TYPE } from "./token-types";

/**
 * The token exchange against an OpenID issuer on loopback that signs with its
 * own keys: the success path, every refusal as a table, single use, key
 * rotation and the key cache, and the trust commands' rules.
 */

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const SEC = Math.floor(NOW.getTime() / 1000);

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let issuer: LoopbackIssuer;
let other: LoopbackIssuer;
let keys: IssuerKeys;
const globalConfig = globalThis as unknown as { allotConfig?: AllotConfig };
let previousConfig: AllotConfig | undefined;
let previousFlag: string | undefined;

beforeAll(async () => {
  db = seeded.db;
  previousConfig = globalConfig.allotConfig;
  previousFlag = process.env.ALLOT_FEDERATION_HTTP_LOOPBACK;
  // The issuers here are plain http on loopback, which only this setting admits.
  process.env.ALLOT_FEDERATION_HTTP_LOOPBACK = "1";
  globalConfig.allotConfig = undefined;
  [issuer, other] = await Promise.all([startLoopbackIssuer(), startLoopbackIssuer()]);
  keys = new IssuerKeys({ httpLoopback: true, cacheMaxAgeMs: 600_000, cooldownMs: 0, timeoutMs: 2_000 });
});

afterAll(async () => {
  if (previousFlag === undefined) delete process.env.ALLOT_FEDERATION_HTTP_LOOPBACK;
  else process.env.ALLOT_FEDERATION_HTTP_LOOPBACK = previousFlag;
  globalConfig.allotConfig = previousConfig;
  await Promise.all([issuer?.close(), other?.close()]);
});

const visionAdmin = () => contextOf(db, "vision-admin", NOW);

/** A vision-lab service account with a member role on detector-training, trusting `issuer` for CI jobs of the repository acme/<its name>. */
async function trustedAccount(trust: Partial<{ issuer: string; subjectPattern: string; claimConditions: Record<string, string | number | boolean> }> = {}) {
  const ctx = await visionAdmin();
  const name = unique("ci");
  const account = await executeCommand(createServiceAccount, ctx, { tenant: "vision-lab", name, description: "" });
  await executeCommand(grantProjectRole, ctx, { tenant: "vision-lab", project: "detector-training", principalId: account.principalId, role: "member" });
  await executeCommand(createTrust, ctx, {
    tenant: "vision-lab",
    serviceAccount: name,
    name: "github",
    issuer: trust.issuer ?? issuer.url,
    audience: "allot",
    subjectPattern: trust.subjectPattern ?? `repo:acme/${name}:*`,
    claimConditions: trust.claimConditions ?? { repository_owner: "acme" },
  });
  return { name, principalId: account.principalId };
}

const goodClaims = (account: string, extra: JWTPayload = {}): JWTPayload => ({
  sub: `repo:acme/${account}:ref:refs/heads/main`,
  aud: "allot",
  iat: SEC - 10,
  nbf: SEC - 10,
  exp: SEC + 300,
  jti: randomUUID(),
  repository_owner: "acme",
  ...extra,
});

function exchange(token: string, extra: Record<string, string> = {}, at: Date = NOW, with_: IssuerKeys = keys): Promise<ExchangeResult> {
  return exchangeToken({ db, keys: with_, now: at, tokenMinutes: 15 }, { grant_type: GRANT_TYPE, subject_token: token, subject_token_type: JWT_TOKEN_TYPE, ...extra });
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe(`token exchange (${databaseLabel()})`, () => {
  it("exchanges a CI token for a short-lived token acting with the account's roles, audited without the token", async () => {
    const account = await trustedAccount();
    const subjectToken = await issuer.sign(goodClaims(account.name));
    const result = await exchange(subjectToken);
    if (!result.ok) throw new Error(`refused: ${result.description}`);
    expect(result.body).toMatchObject({ issued_token_type: "urn:ietf:params:oauth:token-type:access_token", token_type: "Bearer", expires_in: 900 });

    const auth = await authenticateToken(db, result.body.access_token, new Date(NOW.getTime() + 60_000), []);
    if (!auth.ok) throw new Error(auth.reason);
    expect(auth.actor.principalId).toBe(account.principalId);
    const detector = { kind: "project", tenantId: seeded.tenantId["vision-lab"]!, projectId: await projectIdOf(db, "vision-lab", "detector-training") } as const;
    expect(rolesOn(auth.actor, detector, NOW)).toEqual(["project_member"]);
    // Short-lived: gone 15 minutes after the exchange.
    expect(await authenticateToken(db, result.body.access_token, new Date(NOW.getTime() + 15 * 60_000), [])).toMatchObject({ ok: false, reason: "expired" });

    const event = (await auditLog(db)).at(-1)!;
    expect(event).toMatchObject({ action: "federation.token_exchanged", tenantId: seeded.tenantId["vision-lab"], actorLabel: `oidc:${issuer.url}` });
    expect(event.after).toMatchObject({ subject: `repo:acme/${account.name}:ref:refs/heads/main`, trust: "github" });
    expect(JSON.stringify(event)).not.toContain(subjectToken);
    expect(JSON.stringify(event)).not.toContain(result.body.access_token);
  });

  describe("refusals", () => {
    let account: { name: string; principalId: string };
    beforeAll(async () => {
      account = await trustedAccount();
    });

    const rows: { name: string; reason: string; token: () => Promise<string> }[] = [
      { name: "not a JWT", reason: "malformed", token: () => Promise.resolve("not-a-jwt") },
      { name: "alg none", reason: "unsupported_algorithm", token: () => Promise.resolve(`${b64({ alg: "none", typ: "JWT" })}.${b64({ iss: issuer.url, ...goodClaims(account.name) })}.`) },
      {
        name: "HS256 keyed with the issuer's public key",
        reason: "unsupported_algorithm",
        token: async () => {
          const published = (await (await fetch(`${issuer.url}/jwks`)).json()) as { keys: unknown[] };
          const secret = new TextEncoder().encode(JSON.stringify(published.keys[0]));
          return new SignJWT({ iss: issuer.url, ...goodClaims(account.name) }).setProtectedHeader({ alg: "HS256" }).sign(secret);
        },
      },
      { name: "expired", reason: "expired", token: () => issuer.sign(goodClaims(account.name, { iat: SEC - 600, nbf: SEC - 600, exp: SEC - 60 })) },
      { name: "not yet valid (nbf)", reason: "not_yet_valid", token: () => issuer.sign(goodClaims(account.name, { nbf: SEC + 300, exp: SEC + 600 })) },
      { name: "issued in the future (iat)", reason: "not_yet_valid", token: () => issuer.sign(goodClaims(account.name, { iat: SEC + 300, nbf: undefined, exp: SEC + 600 })) },
      { name: "wrong audience", reason: "wrong_audience", token: () => issuer.sign(goodClaims(account.name, { aud: "someone-else" })) },
      { name: "an issuer nobody trusts", reason: "no_trust", token: () => other.sign(goodClaims(account.name)) },
      {
        name: "the trusted issuer's name, signed by another issuer's key",
        reason: "bad_signature",
        token: async () => issuer.sign(goodClaims(account.name), { key: await other.strangerKey() }),
      },
      {
        name: "a published kid, signed by another key",
        reason: "bad_signature",
        token: async () => {
          const current = (((await (await fetch(`${issuer.url}/jwks`)).json()) as { keys: { kid: string }[] }).keys[0]!).kid;
          return issuer.sign(goodClaims(account.name), { key: await issuer.strangerKey(), kid: current });
        },
      },
      { name: "no exp", reason: "missing_claim", token: () => issuer.sign(goodClaims(account.name, { exp: undefined })) },
      { name: "meant to live two days", reason: "lifetime_too_long", token: () => issuer.sign(goodClaims(account.name, { exp: SEC + 48 * 3600 })) },
      { name: "subject not matching", reason: "subject_mismatch", token: () => issuer.sign(goodClaims(account.name, { sub: `repo:acme/${account.name}-fork:ref:refs/heads/main` })) },
      { name: "claim condition not met", reason: "condition_unmet", token: () => issuer.sign(goodClaims(account.name, { repository_owner: "evil" })) },
    ];

    it.each(rows)("$name: refused as $reason, audited without the token, nothing issued", async ({ reason, token }) => {
      const subjectToken = await token();
      const issuedBefore = await countOf(db, "api_tokens");
      const result = await exchange(subjectToken);
      expect(result).toMatchObject({ ok: false, status: 400, error: "invalid_grant", reason });
      expect(await countOf(db, "api_tokens")).toBe(issuedBefore);
      const event = (await auditLog(db)).at(-1)!;
      expect(event.action).toBe("federation.exchange_refused");
      expect(event.after).toMatchObject({ reason });
      expect(JSON.stringify(event)).not.toContain(subjectToken);
    });

    it("refuses a token used once already (replay), until and after its expiry", async () => {
      const subjectToken = await issuer.sign(goodClaims(account.name));
      expect((await exchange(subjectToken)).ok).toBe(true);
      expect(await exchange(subjectToken)).toMatchObject({ ok: false, error: "invalid_grant", reason: "replayed" });
      // The same jti in a freshly signed token is the same token as far as single use goes.
      const jti = randomUUID();
      expect((await exchange(await issuer.sign(goodClaims(account.name, { jti })))).ok).toBe(true);
      expect(await exchange(await issuer.sign(goodClaims(account.name, { jti })))).toMatchObject({ ok: false, reason: "replayed" });
      // Past its expiry the replay record may be gone; the token is refused on exp.
      expect(await exchange(subjectToken, {}, new Date(NOW.getTime() + 10 * 60_000))).toMatchObject({ ok: false, reason: "expired" });
    });

    it("refuses a replayed token without a jti too (keyed by the token's hash)", async () => {
      const subjectToken = await issuer.sign(goodClaims(account.name, { jti: undefined }));
      expect((await exchange(subjectToken)).ok).toBe(true);
      expect(await exchange(subjectToken)).toMatchObject({ ok: false, reason: "replayed" });
    });
  });

  it("refuses once the trust is revoked, and revoking ends the tokens already exchanged", async () => {
    const account = await trustedAccount();
    const first = await exchange(await issuer.sign(goodClaims(account.name)));
    if (!first.ok) throw new Error(first.description);
    await executeCommand(revokeTrust, await visionAdmin(), { tenant: "vision-lab", serviceAccount: account.name, trust: "github" });
    expect(await authenticateToken(db, first.body.access_token, NOW, [])).toMatchObject({ ok: false, reason: "revoked" });
    expect(await exchange(await issuer.sign(goodClaims(account.name)), { audience: `vision-lab/${account.name}` })).toMatchObject({ ok: false, error: "invalid_target", reason: "no_trust" });
    expect((await auditLog(db)).some((e) => e.action === "federation.trust_revoked" && JSON.stringify(e.after).includes("revokedTokens"))).toBe(true);
  });

  it("refuses to rotate an exchanged token into a stored one, and leaves it working until it expires", async () => {
    const account = await trustedAccount();
    const first = await exchange(await issuer.sign(goodClaims(account.name)));
    if (!first.ok) throw new Error(first.description);
    const prefix = apiTokenPrefix(first.body.access_token)!;
    const rotated = executeCommand(rotateToken, await visionAdmin(), { tenant: "vision-lab", serviceAccount: account.name, prefix, graceHours: 0, expiresInDays: 90 });
    await expect(rotated).rejects.toMatchObject({ code: "validation", fields: { prefix: [expect.stringContaining("token exchange")] } });
    expect(await authenticateToken(db, first.body.access_token, NOW, [])).toMatchObject({ ok: true });
  });

  it("refuses for a disabled service account, and for a deleted one", async () => {
    const ctx = await visionAdmin();
    const disabled = await trustedAccount({ subjectPattern: "repo:acme/disabled:*" });
    await executeCommand(setServiceAccountDisabled, ctx, { tenant: "vision-lab", serviceAccount: disabled.name, disabled: true });
    expect(await exchange(await issuer.sign(goodClaims(disabled.name, { sub: "repo:acme/disabled:ref:x" })))).toMatchObject({ ok: false, reason: "account_disabled" });

    const deleted = await trustedAccount({ subjectPattern: "repo:acme/deleted:*" });
    await executeCommand(deleteServiceAccount, ctx, { tenant: "vision-lab", serviceAccount: deleted.name });
    expect(await exchange(await issuer.sign(goodClaims(deleted.name, { sub: "repo:acme/deleted:ref:x" })))).toMatchObject({ ok: false, reason: "subject_mismatch" });
  });

  it("gives no token of another tenant's account: the audience must name the account that trusts the issuer", async () => {
    const account = await trustedAccount({ subjectPattern: "repo:acme/named:*" });
    const token = () => issuer.sign(goodClaims(account.name, { sub: "repo:acme/named:ref:x" }));
    expect(await exchange(await token(), { audience: `language-models/${account.name}` })).toMatchObject({ ok: false, error: "invalid_target", reason: "no_trust" });
    expect((await exchange(await token(), { audience: `vision-lab/${account.name}` })).ok).toBe(true);
  });

  it("asks for the account by name when trusts of two accounts accept the same token", async () => {
    const a = await trustedAccount({ subjectPattern: "repo:acme/shared:*" });
    const b = await trustedAccount({ subjectPattern: "repo:acme/shared:*" });
    const token = () => issuer.sign(goodClaims(a.name, { sub: "repo:acme/shared:ref:x" }));
    expect(await exchange(await token())).toMatchObject({ ok: false, reason: "ambiguous" });
    const named = await exchange(await token(), { audience: `vision-lab/${b.name}` });
    if (!named.ok) throw new Error(named.description);
    expect(await authenticateToken(db, named.body.access_token, NOW, [])).toMatchObject({ ok: true, actor: { principalId: b.principalId } });
  });

  it("answers temporarily_unavailable when the issuer cannot be reached", async () => {
    const gone = `http://127.0.0.1:${await freePort()}`;
    const account = await trustedAccount({ issuer: gone, subjectPattern: "repo:acme/gone:*" });
    const token = `${b64({ alg: "RS256", kid: "k" })}.${b64({ ...goodClaims(account.name), iss: gone, sub: "repo:acme/gone:ref:x" })}.c2ln`;
    expect(await exchange(token)).toMatchObject({ ok: false, status: 503, error: "temporarily_unavailable", reason: "issuer_unreachable" });
  });

  it("refuses malformed requests as RFC 6749 errors", async () => {
    const good = await issuer.sign(goodClaims("x"));
    const call = (params: Record<string, string>) => exchangeToken({ db, keys, now: NOW, tokenMinutes: 15 }, params);
    expect(await call({ grant_type: "client_credentials", subject_token: good, subject_token_type: JWT_TOKEN_TYPE })).toMatchObject({ error: "unsupported_grant_type" });
    expect(await call({ grant_type: GRANT_TYPE, subject_token_type: JWT_TOKEN_TYPE })).toMatchObject({ error: "invalid_request" });
    expect(await call({ grant_type: GRANT_TYPE, subject_token: good, subject_token_type: "urn:ietf:params:oauth:token-type:saml2" })).toMatchObject({ error: "invalid_request" });
    expect(await call({ grant_type: GRANT_TYPE, subject_token: good, subject_token_type: JWT_TOKEN_TYPE, audience: "not an account" })).toMatchObject({ error: "invalid_request" });
    expect(await call({ grant_type: GRANT_TYPE, subject_token: good, subject_token_type: JWT_TOKEN_TYPE, client_secret: "x" })).toMatchObject({ error: "invalid_request" });
  });
});

describe(`issuer keys: discovery, cache and rotation (${databaseLabel()})`, () => {
  it("fetches the keys once, refetches when the issuer rotates to an unknown kid, and refuses tokens of the dropped key", async () => {
    const rotating = await startLoopbackIssuer();
    try {
      const account = await trustedAccount({ issuer: rotating.url, subjectPattern: "repo:acme/rotating:*" });
      const cache = new IssuerKeys({ httpLoopback: true, cacheMaxAgeMs: 600_000, cooldownMs: 0, timeoutMs: 2_000 });
      const token = (extra: JWTPayload = {}) => rotating.sign(goodClaims(account.name, { sub: "repo:acme/rotating:ref:x", ...extra }));
      expect((await exchange(await token(), {}, NOW, cache)).ok).toBe(true);
      expect((await exchange(await token(), {}, NOW, cache)).ok).toBe(true);
      expect([rotating.discoveryFetches(), rotating.jwksFetches()]).toEqual([1, 1]);

      const oldKeyToken = await token();
      await rotating.rotate();
      expect((await exchange(await token(), {}, NOW, cache)).ok).toBe(true);
      expect(rotating.jwksFetches()).toBe(2);
      expect(await exchange(oldKeyToken, {}, NOW, cache)).toMatchObject({ ok: false, reason: "bad_signature" });
    } finally {
      await rotating.close();
    }
  });

  it("does not refetch for unknown kids more often than the cooldown allows", async () => {
    const slow = await startLoopbackIssuer();
    try {
      const account = await trustedAccount({ issuer: slow.url, subjectPattern: "repo:acme/slow:*" });
      const cache = new IssuerKeys({ httpLoopback: true, cacheMaxAgeMs: 600_000, cooldownMs: 60_000, timeoutMs: 2_000 });
      const token = async () => slow.sign(goodClaims(account.name, { sub: "repo:acme/slow:ref:x" }));
      expect((await exchange(await token(), {}, NOW, cache)).ok).toBe(true);
      for (let i = 0; i < 3; i++) {
        const stranger = await slow.strangerKey();
        expect(await exchange(await slow.sign(goodClaims(account.name, { sub: "repo:acme/slow:ref:x" }), { key: stranger }), {}, NOW, cache)).toMatchObject({ ok: false, reason: "bad_signature" });
      }
      expect(slow.jwksFetches()).toBe(1);
    } finally {
      await slow.close();
    }
  });
});

describe(`trust commands (${databaseLabel()})`, () => {
  const input = (serviceAccount: string, extra: Record<string, unknown> = {}) => ({
    tenant: "vision-lab",
    serviceAccount,
    name: unique("trust"),
    issuer: "https://token.actions.githubusercontent.com",
    audience: "allot",
    subjectPattern: `repo:acme/${serviceAccount}:*`,
    ...extra,
  });

  it("names the wrong field", async () => {
    const { name } = await trustedAccount();
    const ctx = await visionAdmin();
    const fieldsOf = async (extra: Record<string, unknown>) => {
      try {
        await executeCommand(createTrust, ctx, input(name, extra));
        return null;
      } catch (error) {
        return Object.keys((error as { fields?: Record<string, string[]> }).fields ?? {});
      }
    };
    expect(await fieldsOf({ issuer: "http://issuer.example.com" })).toEqual(["issuer"]);
    expect(await fieldsOf({ issuer: "not a url" })).toEqual(["issuer"]);
    expect(await fieldsOf({ audience: " " })).toEqual(["audience"]);
    expect(await fieldsOf({ subjectPattern: "**" })).toEqual(["subjectPattern"]);
    expect(await fieldsOf({ claimConditions: { sub: "x" } })).toEqual(["claimConditions"]);
    expect(await fieldsOf({ claimConditions: "not json" })).toEqual(["claimConditions"]);
    expect(await fieldsOf({ claimConditions: { nested: { a: 1 } } })).toEqual(["claimConditions.nested"]);
  });

  it("takes the portal form: an issuer preset or a typed one, and conditions as JSON text", async () => {
    const { name } = await trustedAccount();
    const ctx = await visionAdmin();
    const form = (extra: Record<string, string>) => ({ tenant: "vision-lab", serviceAccount: name, name: unique("form"), audience: "allot", subjectPattern: "repo:acme/ml:*", issuer: "", claimConditions: "", ...extra });
    const preset = await executeCommand(createTrustFromForm, ctx, form({ issuerPreset: "https://token.actions.githubusercontent.com", claimConditions: '{"repository_owner": "acme"}' }));
    expect(preset).toMatchObject({ issuer: "https://token.actions.githubusercontent.com", claimConditions: { repository_owner: "acme" } });
    expect((await executeCommand(createTrustFromForm, ctx, form({ issuerPreset: "other", issuer: " https://oidc.example.com " }))).issuer).toBe("https://oidc.example.com");
    await expect(executeCommand(createTrustFromForm, ctx, form({ issuerPreset: "other" }))).rejects.toMatchObject({ fields: { issuer: [expect.any(String)] } });
    await expect(executeCommand(createTrustFromForm, ctx, form({ issuerPreset: "https://gitlab.com", claimConditions: "{not json" }))).rejects.toMatchObject({ fields: { claimConditions: [expect.any(String)] } });
  });

  it("lets only the tenant's admins (and platform admins) manage trusts", async () => {
    const { name } = await trustedAccount();
    for (const [persona, expected] of [
      ["data-scientist", "forbidden"],
      ["viewer", "not_found"],
      ["collaborator", "not_found"],
      ["language-admin", "not_found"],
      ["vision-admin", "ok"],
    ] as const) {
      expect(await outcomeOf(executeCommand(createTrust, await contextOf(db, persona, NOW), input(name))), persona).toBe(expected);
    }
    expect(await outcomeOf(executeCommand(revokeTrust, await contextOf(db, "language-admin", NOW), { tenant: "vision-lab", serviceAccount: name, trust: "github" }))).toBe("not_found");
    expect(await outcomeOf(executeCommand(revokeTrust, await contextOf(db, "data-scientist", NOW), { tenant: "vision-lab", serviceAccount: name, trust: "github" }))).toBe("forbidden");
  });
});

describe(`POST /oauth/token (${databaseLabel()})`, () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    handleTokenRequest(new Request("http://localhost/oauth/token", { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded", ...headers } }), { db, keys, now: NOW, tokenMinutes: 15 });
  const form = (params: Record<string, string>) => new URLSearchParams(params).toString();

  it("answers the RFC 8693 response to a form, and RFC 6749 errors otherwise", async () => {
    const account = await trustedAccount();
    const ok = await post(form({ grant_type: GRANT_TYPE, subject_token: await issuer.sign(goodClaims(account.name)), subject_token_type: JWT_TOKEN_TYPE }), { "x-real-ip": "10.9.0.1" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toBe("no-store");
    expect(await ok.json()).toMatchObject({ token_type: "Bearer", expires_in: 900, access_token: expect.stringMatching(/^allot_/) as unknown });

    const json = await post(JSON.stringify({ grant_type: GRANT_TYPE }), { "content-type": "application/json" });
    expect([json.status, await json.json()]).toEqual([400, { error: "invalid_request", error_description: expect.any(String) as unknown }]);
    const twice = await post(`grant_type=${encodeURIComponent(GRANT_TYPE)}&grant_type=x`);
    expect([twice.status, ((await twice.json()) as { error: string }).error]).toEqual([400, "invalid_request"]);
  });

  it("slows an address down after repeated refusals (429 with Retry-After)", async () => {
    const refused = () => post(form({ grant_type: GRANT_TYPE, subject_token: "not-a-jwt", subject_token_type: JWT_TOKEN_TYPE }), { "x-real-ip": "10.9.0.2" });
    for (let i = 0; i < 20; i++) expect((await refused()).status).toBe(400);
    const limited = await refused();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
