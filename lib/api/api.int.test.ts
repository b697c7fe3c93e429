import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installDatabase, type Database } from "@/db/client";
import { apiTokens, invitations, memberships, projects, tenants, users } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import { executeCommand } from "@/lib/auth/command";
import { revokeToken, setServiceAccountDisabled } from "@/lib/tenancy/commands/service-accounts";
import { createServiceAccountAsOperator, mintTokenAsOperator } from "@/lib/tenancy/operator";
import { callApi, freshAddress, keyPaths, resolveRoute, responses, routeModule, type ApiResponse } from "@/test/api";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { DAY, fingerprint, HOUR, unique } from "@/test/tenancy";
import { FAILURE_LIMITS } from "./rate-limit";
import * as auditRoutes from "./routes/audit";
import * as collaboratorRoutes from "./routes/collaborators";
import * as meRoutes from "./routes/me";
import * as memberRoutes from "./routes/members";
import * as projectRoutes from "./routes/projects";
import * as serviceAccountRoutes from "./routes/service-accounts";
import * as tenantRoutes from "./routes/tenants";

/**
 * The REST API in-process: requests go through the handlers exported by
 * app/api/v1/** (bearer token -> rate limit -> command or query -> response
 * shape), on this file's database. The API reads the wall clock, so the demo
 * data is seeded an hour ago and tokens expire relative to the real time.
 */

const SEEDED_AT = new Date(Date.now() - HOUR);

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;
const token = { platform: "", detector: "", revoked: "", expired: "", disabled: "" };
/** Every plaintext token of this file, none of which may show up in a response that did not just mint it. */
const knownTokens: string[] = [];

function randomToken(prefix = randomBytes(9).toString("hex").slice(0, 12)): string {
  return `allot_${prefix}_${randomBytes(32).toString("base64url")}`;
}

async function accountWithToken(tenant: string | null, name: string, projectRoles: { project: string; role: "member" | "viewer" }[] = [], expiresAt: Date | null = null, now = SEEDED_AT) {
  await createServiceAccountAsOperator(db, { tenant, name, description: "", projectRoles }, now);
  const minted = await mintTokenAsOperator(db, tenant, name, expiresAt, now);
  knownTokens.push(minted.token);
  return minted;
}

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  installDatabase(handle);
  await seedDemoData(db, SEEDED_AT);
  token.platform = (await accountWithToken(null, "platform-bot")).token;
  token.detector = (await accountWithToken("vision-lab", "detector-bot", [{ project: "detector-training", role: "member" }])).token;
  const revoked = await accountWithToken("vision-lab", "revoked-bot");
  token.revoked = revoked.token;
  const alex = await contextOf(db, "vision-admin", new Date());
  await executeCommand(revokeToken, alex, { tenant: "vision-lab", serviceAccount: "revoked-bot", prefix: revoked.prefix });
  token.expired = (await accountWithToken("vision-lab", "expired-bot", [], new Date(Date.now() - 60_000), new Date(Date.now() - DAY))).token;
  token.disabled = (await accountWithToken("vision-lab", "disabled-bot", [{ project: "detector-training", role: "viewer" }])).token;
  await executeCommand(setServiceAccountDisabled, alex, { tenant: "vision-lab", serviceAccount: "disabled-bot", disabled: true });
});
afterAll(async () => {
  (globalThis as { allotDb?: unknown }).allotDb = undefined;
  await handle?.close();
});

const get = (path: string, tokenValue: string | null) => callApi("GET", path, { token: tokenValue });
const post = (path: string, tokenValue: string, body: unknown) => callApi("POST", path, { token: tokenValue, body });
const jsonOf = <T = Record<string, unknown>>(response: ApiResponse) => response.json as T;

function expectError(response: ApiResponse, status: number, code: string) {
  expect(response.status, `${response.method} ${response.path}: ${response.text}`).toBe(status);
  const body = jsonOf<{ error: Record<string, unknown> }>(response);
  expect(body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) as unknown }) as unknown });
  expect(Object.keys(body.error).filter((k) => !["code", "message", "fields"].includes(k))).toEqual([]);
  return body.error;
}

describe(`authentication (${databaseLabel()})`, () => {
  it.each([
    ["no Authorization header", { token: null }, "Send a service account token: Authorization: Bearer <token>."],
    ["another scheme", { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }, "Send a service account token: Authorization: Bearer <token>."],
    ["a malformed token", { token: "not-a-token" }, "Malformed token."],
    ["an unknown token", { token: randomToken() }, "Unknown token."],
  ])("answers %s with 401 and the error body", async (_label, options, message) => {
    const response = await callApi("GET", "/api/v1/tenants", options);
    const error = expectError(response, 401, "unauthenticated");
    expect(error).toEqual({ code: "unauthenticated", message });
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="allot"/);
  });

  it.each([
    ["a known prefix with a wrong secret", () => randomToken(token.detector.split("_")[1]), "Unknown token."],
    ["a revoked token", () => token.revoked, "This token was revoked."],
    ["an expired token", () => token.expired, "This token has expired."],
    ["a disabled service account's token", () => token.disabled, "This service account is disabled."],
  ])("answers %s with 401", async (_label, tokenOf, message) => {
    const response = await get("/api/v1/tenants/vision-lab/projects/detector-training", tokenOf());
    expect(expectError(response, 401, "unauthenticated")).toEqual({ code: "unauthenticated", message });
  });

  it("answers a valid token with who it is", async () => {
    const response = await get("/api/v1/me", token.detector);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ principalId: expect.any(String) as unknown, kind: "service_account", displayName: "detector-bot", isPlatformAdmin: false });
    const [row] = await db.select({ lastUsedAt: apiTokens.lastUsedAt }).from(apiTokens).where(eq(apiTokens.prefix, token.detector.split("_")[1]!));
    expect(row?.lastUsedAt).not.toBeNull();
  });
});

describe(`a platform-scoped service account (${databaseLabel()})`, () => {
  it("lists every tenant as platform admin", async () => {
    const response = await get("/api/v1/tenants", token.platform);
    expect(response.status).toBe(200);
    const { tenants: listed } = jsonOf<{ tenants: { slug: string; roles: string[] }[] }>(response);
    expect(listed.map((t) => t.slug)).toEqual(expect.arrayContaining(["language-models", "robotics", "vision-lab"]));
    expect(listed.every((t) => t.roles.join() === "platform_admin")).toBe(true);
  });

  it("creates a tenant with its first admin (201), then answers the same slug with 409", async () => {
    const slug = unique("perception");
    const response = await post("/api/v1/tenants", token.platform, { name: "Perception", slug, isolationTier: "dedicated", firstAdmins: ["Lead@Perception.example"] });
    expect(response.status).toBe(201);
    expect(response.json).toEqual({ slug, name: "Perception", isolationTier: "dedicated", costCentre: "", status: "active", createdAt: expect.any(String) as unknown });
    const [tenant] = await db.select().from(tenants).where(eq(tenants.slug, slug));
    const admins = await db
      .select({ email: users.email, role: memberships.role })
      .from(memberships)
      .innerJoin(users, eq(users.principalId, memberships.principalId))
      .where(eq(memberships.tenantId, tenant!.id));
    expect(admins).toEqual([{ email: "lead@perception.example", role: "tenant_admin" }]);
    expect(jsonOf(await get(`/api/v1/tenants/${slug}`, token.platform))).toMatchObject({ slug, roles: ["platform_admin"] });

    const again = await post("/api/v1/tenants", token.platform, { name: "Perception", slug });
    expect(expectError(again, 409, "conflict").fields).toEqual({ slug: ["Choose another slug: this one is taken."] });
  });

  it("answers invalid input with 400 naming each field, and a body that is not JSON with 400", async () => {
    const before = await fingerprint(db);
    const invalid = expectError(await post("/api/v1/tenants", token.platform, { slug: "Bad Slug" }), 400, "validation");
    expect(Object.keys(invalid.fields as object).sort()).toEqual(["name", "slug"]);
    const grant = expectError(
      await post("/api/v1/tenants/vision-lab/projects/detector-training/grants", token.platform, { principalId: "not-an-id", role: "owner" }),
      400,
      "validation",
    );
    expect(Object.keys(grant.fields as object).sort()).toEqual(["principalId", "role"]);
    expectError(await callApi("POST", "/api/v1/tenants", { token: token.platform, rawBody: "{not json" }), 400, "validation");
    expectError(await callApi("POST", "/api/v1/tenants", { token: token.platform, rawBody: "name=x", contentType: "application/x-www-form-urlencoded" }), 400, "validation");
    expect(expectError(await get("/api/v1/audit?limit=lots", token.platform), 400, "validation").fields).toHaveProperty("limit");
    expect(await fingerprint(db)).toEqual(before);
  });

  it("creates a project in the tenant of the path, whatever tenant the body names; a taken slug is 409", async () => {
    const slug = unique("from-path");
    const response = await post("/api/v1/tenants/vision-lab/projects", token.platform, { tenant: "language-models", tenantId: "x", name: "From the path", slug });
    expect(response.status).toBe(201);
    expect(response.json).toMatchObject({ slug, namespace: `vision-lab--${slug}`, version: 1 });
    const stored = await db
      .select({ tenant: tenants.slug })
      .from(projects)
      .innerJoin(tenants, eq(tenants.id, projects.tenantId))
      .where(eq(projects.slug, slug));
    expect(stored).toEqual([{ tenant: "vision-lab" }]);

    const again = await post("/api/v1/tenants/vision-lab/projects", token.platform, { name: "Again", slug });
    expect(expectError(again, 409, "conflict").fields).toEqual({ slug: ["Choose another slug: this one is taken."] });
  });

  it("makes a service account and mints its token, shown once; listings show prefixes only", async () => {
    const name = unique("api-made");
    const created = await post("/api/v1/tenants/vision-lab/service-accounts", token.platform, { name, description: "made through the API" });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ principalId: expect.any(String) as unknown, name, description: "made through the API" });

    const minted = await post(`/api/v1/tenants/vision-lab/service-accounts/${name}/tokens`, token.platform, { expiresInDays: 7 });
    expect(minted.status).toBe(201);
    const body = jsonOf<{ token: string; prefix: string; expiresAt: string }>(minted);
    knownTokens.push(body.token);
    expect(body.token.startsWith(`allot_${body.prefix}_`)).toBe(true);
    expect(jsonOf(await get("/api/v1/me", body.token))).toMatchObject({ displayName: name });

    const listed = await get(`/api/v1/tenants/vision-lab/service-accounts/${name}/tokens`, token.platform);
    expect(jsonOf(listed)).toEqual({ tokens: [{ prefix: body.prefix, createdAt: expect.any(String) as unknown, expiresAt: body.expiresAt, lastUsedAt: expect.any(String) as unknown, revokedAt: null, state: "active" }] });
    expect(listed.text).not.toContain(body.token);

    const noExpiryChoice = await post(`/api/v1/tenants/vision-lab/service-accounts/${name}/tokens`, token.platform, {});
    expect(expectError(noExpiryChoice, 400, "validation").fields).toHaveProperty("expiresInDays");
  });

  it("changes a service account's description and disabled state in one PATCH, and refuses one that sends neither", async () => {
    const name = unique("api-patched");
    expect((await post("/api/v1/tenants/vision-lab/service-accounts", token.platform, { name })).status).toBe(201);
    const path = `/api/v1/tenants/vision-lab/service-accounts/${name}`;
    expect(expectError(await callApi("PATCH", path, { token: token.platform, body: {} }), 400, "validation").fields).toEqual({ _form: ["Send description and/or disabled."] });
    const patched = await callApi("PATCH", path, { token: token.platform, body: { description: "Nightly", disabled: true } });
    expect(patched.status).toBe(200);
    expect(jsonOf(patched)).toMatchObject({ name, description: "Nightly", disabled: true });
  });

  it("invites a member and returns the link, while the database keeps only the hash", async () => {
    const response = await post("/api/v1/tenants/robotics/invitations", token.platform, { email: "new.roboticist@example.com", role: "member" });
    expect(response.status).toBe(201);
    const body = jsonOf<{ invitationId: string; path: string }>(response);
    const [row] = await db.select().from(invitations).where(eq(invitations.id, body.invitationId));
    expect(body.path).toMatch(/^\/invite\/[A-Za-z0-9_-]{40,}$/);
    expect(response.text).not.toContain(row!.tokenHash);
  });
});

describe(`a service account with a project role (${databaseLabel()})`, () => {
  it("sees its tenant in the list, and only its project in it", async () => {
    expect(jsonOf(await get("/api/v1/tenants", token.detector))).toEqual({ tenants: [expect.objectContaining({ slug: "vision-lab", roles: [] })] });
    const listed = jsonOf<{ projects: { slug: string; roles: string[] }[] }>(await get("/api/v1/tenants/vision-lab/projects", token.detector));
    expect(listed.projects.map((p) => [p.slug, p.roles])).toEqual([["detector-training", ["project_member"]]]);
    const project = await get("/api/v1/tenants/vision-lab/projects/detector-training", token.detector);
    expect(project.status).toBe(200);
    expect(project.json).toMatchObject({ slug: "detector-training", namespace: "vision-lab--detector-training", roles: ["project_member"] });
  });

  it("reads who has access to its project, as JSON and as CSV", async () => {
    const access = await get("/api/v1/tenants/vision-lab/projects/detector-training/access", token.detector);
    expect(access.status).toBe(200);
    const entries = jsonOf<{ access: { displayName: string; kind: string; via: string; role: string }[] }>(access).access;
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ displayName: "detector-bot", kind: "service_account", via: "project grant", role: "member" }),
        expect.objectContaining({ displayName: "Dana Okafor", kind: "user", via: "project grant", role: "member" }),
        expect.objectContaining({ displayName: "Alex Chen", via: "tenant membership", role: "tenant admin" }),
      ]),
    );

    const csv = await get("/api/v1/tenants/vision-lab/projects/detector-training/access?format=csv", token.detector);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="vision-lab--detector-training-access.csv"');
    const lines = csv.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe("Name,Email,Kind,Role,Through,Expires,Granted by");
    expect(lines.length).toBe(entries.length + 1);
    expect(lines.some((l) => l.startsWith("detector-bot,,service account,member,project grant,"))).toBe(true);
  });

  it.each([
    "/api/v1/tenants/vision-lab",
    "/api/v1/tenants/vision-lab/projects/segmentation-research",
    "/api/v1/tenants/vision-lab/members",
    "/api/v1/tenants/vision-lab/service-accounts",
    "/api/v1/tenants/language-models/projects",
    "/api/v1/tenants/language-models/projects/chat-eval",
    "/api/v1/tenants/language-models/projects/chat-eval/access",
    "/api/v1/tenants/no-such-tenant/projects",
    "/api/v1/audit",
    "/api/v1/audit?tenant=vision-lab",
  ])("answers GET %s with 404", async (path) => {
    expectError(await get(path, token.detector), 404, "not_found");
  });

  it.each([
    ["POST", "/api/v1/tenants/vision-lab/invitations", { email: "friend@example.com", role: "tenant_admin" }, 404],
    ["POST", "/api/v1/tenants/vision-lab/projects", { tenant: "language-models", name: "Sneaky", slug: "sneaky" }, 404],
    ["POST", "/api/v1/tenants/vision-lab/service-accounts/detector-bot/tokens", { noExpiry: true }, 404],
    ["POST", "/api/v1/tenants/language-models/projects/chat-eval/collaborators", { email: "friend@example.com", role: "member", expiresAt: "2099-01-01" }, 404],
    ["POST", "/api/v1/tenants/vision-lab/projects/detector-training/grants", { principalId: "00000000-0000-4000-8000-000000000000", role: "member" }, 403],
    ["PATCH", "/api/v1/tenants/vision-lab/projects/detector-training", { name: "Renamed", version: 1 }, 403],
    ["POST", "/api/v1/tenants/vision-lab/projects/detector-training/archive", undefined, 403],
    ["POST", "/api/v1/tenants", { name: "Mine", slug: "mine" }, 403],
    ["PATCH", "/api/v1/tenants/vision-lab", { status: "disabled" }, 404],
  ] as const)("refuses %s %s with %i and writes nothing", async (method, path, body, status) => {
    const before = await fingerprint(db, ["tenants", "projects", "principals", "memberships", "project_grants", "invitations", "service_accounts", "audit_events"]);
    const response = await callApi(method, path, { token: token.detector, body });
    expectError(response, status, status === 403 ? "forbidden" : "not_found");
    expect(await fingerprint(db, ["tenants", "projects", "principals", "memberships", "project_grants", "invitations", "service_accounts", "audit_events"])).toEqual(before);
  });
});

describe(`GET /api/v1/audit (${databaseLabel()})`, () => {
  it("gives a platform admin every tenant's events, one tenant's on request, and CSV", async () => {
    const all = jsonOf<{ events: { tenantSlug: string | null; action: string }[] }>(await get("/api/v1/audit?limit=5000", token.platform)).events;
    expect(all.map((e) => e.action)).toEqual(expect.arrayContaining(["demo.seeded", "service_account.created", "api_token.revoked"]));
    const vision = jsonOf<{ events: { tenantSlug: string | null }[] }>(await get("/api/v1/audit?tenant=vision-lab&limit=5000", token.platform)).events;
    expect(vision.length).toBeGreaterThan(0);
    expect(vision.every((e) => e.tenantSlug === "vision-lab")).toBe(true);
    const csv = await get("/api/v1/audit?tenant=vision-lab&format=csv", token.platform);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
  });
});

describe(`failed authentication is rate limited (${databaseLabel()})`, () => {
  it(`blocks an address after ${FAILURE_LIMITS.perAddress} failures with 429 and Retry-After, not other addresses`, async () => {
    const address = freshAddress();
    for (let i = 0; i < FAILURE_LIMITS.perAddress; i++) {
      expect((await callApi("GET", "/api/v1/tenants", { token: randomToken(), address })).status).toBe(401);
    }
    const blocked = await callApi("GET", "/api/v1/tenants", { token: randomToken(), address });
    expectError(blocked, 429, "rate_limited");
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect((await callApi("GET", "/api/v1/tenants", { token: randomToken(), address: freshAddress() })).status).toBe(401);
  });

  it(`blocks a token prefix after ${FAILURE_LIMITS.perPrefix} failures from different addresses, not other prefixes`, async () => {
    const prefix = randomBytes(9).toString("hex").slice(0, 12);
    for (let i = 0; i < FAILURE_LIMITS.perPrefix; i++) {
      expect((await callApi("GET", "/api/v1/tenants", { token: randomToken(prefix), address: freshAddress() })).status).toBe(401);
    }
    const blocked = await callApi("GET", "/api/v1/tenants", { token: randomToken(prefix), address: freshAddress() });
    expectError(blocked, 429, "rate_limited");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await callApi("GET", "/api/v1/tenants", { token: randomToken(), address: freshAddress() })).status).toBe(401);
  });
});

describe(`a blocked prefix does not lock out its real token (${databaseLabel()})`, () => {
  it("keeps answering the right token while wrong guesses at its prefix get 429", async () => {
    const { token: real } = await accountWithToken("vision-lab", "prefix-victim", [{ project: "detector-training", role: "member" }]);
    const prefix = /^allot_([a-z0-9]{12})_/.exec(real)![1]!;
    for (let i = 0; i <= FAILURE_LIMITS.perPrefix; i++) await callApi("GET", "/api/v1/tenants", { token: randomToken(prefix), address: freshAddress() });
    expectError(await callApi("GET", "/api/v1/tenants", { token: randomToken(prefix), address: freshAddress() }), 429, "rate_limited");
    const response = await callApi("GET", "/api/v1/tenants/vision-lab/projects", { token: real, address: freshAddress() });
    expect(response.status).toBe(200);
  });
});

describe(`the OpenAPI document and the route files (${databaseLabel()})`, () => {
  it("serves an OpenAPI 3.1 document without authentication", async () => {
    const { GET } = await import("@/app/api/v1/openapi.json/route");
    const response = await GET(new Request("http://localhost/api/v1/openapi.json"));
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "http://localhost" }]);
    expect(Object.keys(doc.paths["/api/v1/tenants"]!).sort()).toEqual(["get", "post"]);
  });

  it("serves every documented route through its own handler", async () => {
    const modules = [auditRoutes, collaboratorRoutes, meRoutes, memberRoutes, projectRoutes, serviceAccountRoutes, tenantRoutes];
    const routes = modules.flatMap((m) => Object.values(m) as { spec?: { method: string; path: string }; handle?: unknown }[]).filter((r) => r.spec && r.handle);
    expect(routes.length).toBeGreaterThan(20);
    for (const route of routes) {
      const concrete = route.spec!.path.replace(/\{(\w+)\}/g, "x");
      const exported = (await routeModule(resolveRoute(concrete).file))[route.spec!.method];
      expect(exported, `${route.spec!.method} ${route.spec!.path}`).toBe(route.handle);
    }
  });
});

describe(`no response leaks a secret (${databaseLabel()})`, () => {
  it("has no hash keys, no stored hash and no token that it did not just mint", async () => {
    expect(responses.length).toBeGreaterThan(50);
    const storedHashes = [
      ...(await db.select({ hash: apiTokens.hash }).from(apiTokens)).map((r) => r.hash),
      ...(await db.select({ hash: invitations.tokenHash }).from(invitations)).map((r) => r.hash),
    ];
    expect(storedHashes.length).toBeGreaterThan(5);
    for (const response of responses) {
      const where = `${response.method} ${response.path}`;
      // Audit events carry their own chain hash (public integrity data), and nothing else named hash.
      const allowed = response.path.startsWith("/api/v1/audit") ? /^events\.\d+\.hash$/ : /^$/;
      const hashKeys = keyPaths(response.json).filter((k) => /(^|\.)(hash|tokenHash|token_hash|prevHash)$/i.test(k) && !allowed.test(k));
      expect(hashKeys, where).toEqual([]);
      for (const hash of storedHashes) expect(response.text.includes(hash), where).toBe(false);
      const mints = response.status === 201 && /\/tokens(\/[^/]+\/rotate)?$/.test(response.path);
      for (const known of knownTokens) if (!mints) expect(response.text.includes(known), where).toBe(false);
    }
  });
});
