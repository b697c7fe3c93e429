import { and, eq, sql } from "drizzle-orm";
import SCIMMY from "scimmy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installDatabase, type Database } from "@/db/client";
import { auditEvents, authSessions, scimTokens, serviceAccounts } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import { loadActorForSession } from "@/lib/auth/load-actor";
import { provisionOidcUser, startSession } from "@/lib/auth/sign-in";
import { createServiceAccountAsOperator, mintTokenAsOperator } from "@/lib/tenancy/operator";
import * as groupItem from "@/app/scim/v2/Groups/[id]/route";
import * as groupCollection from "@/app/scim/v2/Groups/route";
import * as resourceTypeItem from "@/app/scim/v2/ResourceTypes/[id]/route";
import * as resourceTypeCollection from "@/app/scim/v2/ResourceTypes/route";
import * as schemaItem from "@/app/scim/v2/Schemas/[id]/route";
import * as schemaCollection from "@/app/scim/v2/Schemas/route";
import * as spc from "@/app/scim/v2/ServiceProviderConfig/route";
import * as userItem from "@/app/scim/v2/Users/[id]/route";
import * as userCollection from "@/app/scim/v2/Users/route";
import { freshAddress } from "@/test/api";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { personaEmail, principalIdOf } from "@/test/fixtures";
import { DAY, HOUR } from "@/test/tenancy";
import { PATCH_OP_SCHEMA } from "./patch";
import { mintScimToken, revokeScimToken } from "./token";

/**
 * /scim/v2 in-process, through the route handlers Next serves, as an IdP
 * calls it: Entra ID's and Okta's request shapes, with every answer checked
 * against SCIMMY's core schemas (a SCIM implementation no one here wrote).
 */
const SEEDED_AT = new Date(Date.now() - HOUR);
const BASE = "http://allot.test/scim/v2";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;
let token = "";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Reply = { status: number; headers: Headers; body: Record<string, unknown> & { Resources?: Record<string, unknown>[] } };

const ROUTES: [RegExp, Record<string, unknown>][] = [
  [/^\/Users$/, userCollection],
  [/^\/Users\/([^/]+)$/, userItem],
  [/^\/Groups$/, groupCollection],
  [/^\/Groups\/([^/]+)$/, groupItem],
  [/^\/ServiceProviderConfig$/, spc],
  [/^\/ResourceTypes$/, resourceTypeCollection],
  [/^\/ResourceTypes\/([^/]+)$/, resourceTypeItem],
  [/^\/Schemas$/, schemaCollection],
  [/^\/Schemas\/([^/]+)$/, schemaItem],
];

async function scim(method: string, path: string, options: { body?: unknown; raw?: string; token?: string | null; headers?: Record<string, string> } = {}): Promise<Reply> {
  const url = new URL(`${BASE}${path}`);
  const route = ROUTES.find(([pattern]) => pattern.test(url.pathname.replace("/scim/v2", "")));
  if (!route) throw new Error(`no route for ${path}`);
  const id = route[0].exec(url.pathname.replace("/scim/v2", ""))?.[1];
  const handler = route[1][method] as Handler | undefined;
  if (!handler) throw new Error(`${method} not exported for ${path}`);
  const auth: Record<string, string> = options.token === null ? {} : { Authorization: `Bearer ${options.token ?? token}` };
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const request = new Request(url, { method, body, headers: { "Content-Type": "application/scim+json", "X-Forwarded-For": freshAddress(), ...auth, ...options.headers } });
  const response = await handler(request, { params: Promise.resolve<Record<string, string>>(id ? { id: decodeURIComponent(id) } : {}) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Reply["body"]) : {} };
}

const patch = (Operations: unknown[]) => ({ schemas: [PATCH_OP_SCHEMA], Operations });
const filterQuery = (filter: string) => `?filter=${encodeURIComponent(filter)}`;

/** Our answer holds to the core schema as SCIMMY reads it (it throws naming the attribute otherwise). */
function conforms(resource: unknown) {
  const schemas = (resource as { schemas: string[] }).schemas;
  const definition = schemas.includes(USER) ? SCIMMY.Schemas.User.definition : SCIMMY.Schemas.Group.definition;
  expect(() => void definition.coerce(resource, "out")).not.toThrow();
}

function expectScimError(reply: Reply, status: number, scimType?: string) {
  expect(reply.status).toBe(status);
  expect(reply.headers.get("content-type")).toBe("application/scim+json");
  expect(reply.body).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: String(status), ...(scimType ? { scimType } : {}) });
  expect(typeof reply.body.detail).toBe("string");
}

async function auditOf(action: string, targetId: string) {
  return db.select().from(auditEvents).where(and(eq(auditEvents.action, action), eq(auditEvents.targetId, targetId)));
}

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  installDatabase(handle);
  await seedDemoData(db, SEEDED_AT);
  token = (await mintScimToken(db, 30, new Date())).token;
});

afterAll(async () => {
  await handle.close();
});

describe(`SCIM 2.0 at /scim/v2 (${databaseLabel()})`, () => {
  it("takes only a SCIM token in force", async () => {
    expectScimError(await scim("GET", "/Users", { token: null }), 401);
    expectScimError(await scim("GET", "/Users", { token: "scim_aaaaaaaaaaaa_" + "A".repeat(43) }), 401);
    await createServiceAccountAsOperator(db, { tenant: null, name: "platform-bot", description: "", projectRoles: [] }, SEEDED_AT);
    const apiToken = await mintTokenAsOperator(db, null, "platform-bot", null, SEEDED_AT);
    expectScimError(await scim("GET", "/Users", { token: apiToken.token }), 401);
    const revoked = await mintScimToken(db, 1, new Date());
    await revokeScimToken(db, revoked.id, new Date());
    expect((await scim("GET", "/Users", { token: revoked.token })).body.detail).toMatch(/revoked/);
    const expired = await mintScimToken(db, 1, new Date(Date.now() - 2 * DAY));
    expect((await scim("GET", "/Users", { token: expired.token })).body.detail).toMatch(/expired/);
    const [stored] = await db.select().from(scimTokens).where(eq(scimTokens.id, revoked.id));
    // The secret is everything after "scim_<12-character prefix>_" (it may itself hold "_"): never stored as it is.
    const secret = /^scim_.{12}_(.+)$/.exec(revoked.token)![1]!;
    expect(stored!.hash).not.toContain(secret);
    expect((await auditOf("scim.token.revoked", revoked.id)).length).toBe(1);
  });

  it("describes itself: ServiceProviderConfig, ResourceTypes, Schemas", async () => {
    const config = await scim("GET", "/ServiceProviderConfig");
    expect(config.headers.get("content-type")).toBe("application/scim+json");
    expect(config.body).toMatchObject({ patch: { supported: true }, filter: { supported: true }, etag: { supported: true }, bulk: { supported: false } });
    const types = await scim("GET", "/ResourceTypes");
    expect(types.body.Resources!.map((r) => r.id)).toEqual(["User", "Group"]);
    expect((await scim("GET", "/ResourceTypes/User")).body).toMatchObject({ endpoint: "/Users", schema: USER });
    const schemas = await scim("GET", "/Schemas");
    expect(schemas.body.totalResults).toBe(2);
    expect((await scim("GET", `/Schemas/${GROUP}`)).body).toMatchObject({ id: GROUP, name: "Group" });
    expectScimError(await scim("GET", "/Schemas/urn:nothing"), 404);
  });

  it("finds a person who signed in before, by userName in any case, and refuses a duplicate", async () => {
    const email = personaEmail("data-scientist");
    const found = await scim("GET", `/Users${filterQuery(`userName eq "${email.toUpperCase()}"`)}`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: 1, startIndex: 1, itemsPerPage: 1 });
    const person = found.body.Resources![0]!;
    expect(person).toMatchObject({ id: await principalIdOf(db, email), userName: email, active: true, meta: { resourceType: "User", version: 'W/"0"' } });
    conforms(person);
    expect(() => new SCIMMY.Messages.ListResponse(found.body as never)).not.toThrow();

    const duplicate = await scim("POST", "/Users", { body: { schemas: [USER], userName: email.toUpperCase(), active: true } });
    expectScimError(duplicate, 409, "uniqueness");
    // Service accounts are principals, never SCIM Users.
    expect((await scim("GET", `/Users${filterQuery('userName eq "platform-bot"')}`)).body.totalResults).toBe(0);
  });

  it("creates a person, reads it back with its ETag, and pages through everyone", async () => {
    const created = await scim("POST", "/Users", {
      body: { schemas: [USER], userName: "Kim.Lee@Example.com", externalId: "entra-kim", name: { givenName: "Kim", familyName: "Lee" }, emails: [{ value: "kim.lee@example.com", primary: true }], active: true },
    });
    expect(created.status).toBe(201);
    conforms(created.body);
    expect(created.body).toMatchObject({ userName: "kim.lee@example.com", displayName: "Kim Lee", externalId: "entra-kim", active: true });
    expect(created.headers.get("location")).toBe(`${BASE}/Users/${String(created.body.id)}`);
    expect(created.headers.get("etag")).toBe('W/"1"');
    expect((await auditOf("scim.user.created", String(created.body.id)))[0]).toMatchObject({ actorLabel: expect.stringMatching(/^scim:[a-z0-9]{12}$/) as unknown });

    const byExternalId = await scim("GET", `/Users${filterQuery('externalId eq "entra-kim"')}`);
    expect(byExternalId.body.Resources!.map((r) => r.id)).toEqual([created.body.id]);
    const got = await scim("GET", `/Users/${String(created.body.id)}`);
    expect(got.headers.get("etag")).toBe('W/"1"');
    expect((await scim("GET", `/Users/${String(created.body.id)}`, { headers: { "If-None-Match": 'W/"1"' } })).status).toBe(304);

    const everyone = await scim("GET", "/Users");
    const total = everyone.body.totalResults as number;
    expect(total).toBeGreaterThan(3);
    const pages: unknown[] = [];
    for (let start = 1; start <= total; start += 2) pages.push(...(await scim("GET", `/Users?startIndex=${start}&count=2`)).body.Resources!.map((r) => r.id));
    expect(pages).toEqual(everyone.body.Resources!.map((r) => r.id));
    expect((await scim("GET", "/Users?count=0")).body).toMatchObject({ totalResults: total, itemsPerPage: 0, Resources: [] });
  });

  // Not name.familyName: SCIMMY 1.3.5's match throws on a person without a name (it reads the absent complex attribute).
  it("answers filters as SCIMMY's filter does on the same people", async () => {
    const everyone = (await scim("GET", "/Users")).body.Resources!;
    for (const filter of ['userName eq "kim.lee@example.com"', 'displayName eq "Kim Lee"', 'userName sw "kim" or externalId pr', 'displayName sw "Kim" and active eq true', 'not (userName co "example")', 'emails[type eq "work" and value ew ".com"]']) {
      const ours = (await scim("GET", `/Users${filterQuery(filter)}`)).body.Resources!.map((r) => r.id);
      const theirs = new SCIMMY.Types.Filter(filter).match(everyone).map((r: { id: string }) => r.id);
      expect(ours, filter).toEqual(theirs);
    }
  });

  it("Entra ID's PATCH deactivation disables the person, ends their sessions at once and refuses the next sign-in", async () => {
    const email = personaEmail("data-scientist");
    const id = await principalIdOf(db, email);
    const sid = await startSession(db, id, "demo", new Date(), 8);
    expect(await loadActorForSession(db, sid, new Date(), [])).not.toBeNull();
    const [accountsBefore] = await db.select({ n: sql<number>`count(*)::int` }).from(serviceAccounts);
    const historyBefore = (await db.select().from(auditEvents).where(eq(auditEvents.actorPrincipalId, id))).length;

    const reply = await scim("PATCH", `/Users/${id}`, {
      body: patch([
        { op: "Replace", path: "active", value: "False" },
        { op: "Add", path: 'emails[type eq "work"].value', value: email },
      ]),
    });
    expect(reply.status).toBe(200);
    expect(reply.body.active).toBe(false);
    conforms(reply.body);
    expect(reply.headers.get("etag")).toBe('W/"1"');

    // The cookie the browser still holds names a session that has ended.
    expect(await loadActorForSession(db, sid, new Date(), [])).toBeNull();
    const [session] = await db.select().from(authSessions).where(eq(authSessions.id, sid));
    expect(session!.endedAt).not.toBeNull();
    // Sign-in refused as a demo persona and through the IdP alike.
    await expect(startSession(db, id, "demo", new Date(), 8)).rejects.toThrow(/disabled/);
    const viaIdp = await provisionOidcUser(db, { issuer: "https://idp.test", subject: "ds-1", email, name: null, inAdminGroup: null, groups: [] }, new Date());
    await expect(startSession(db, viaIdp, "oidc", new Date(), 8)).rejects.toThrow(/disabled/);

    const [disabled] = await auditOf("scim.user.disabled", id);
    expect(disabled!.after).toMatchObject({ active: false, sessionsEnded: 1 });
    const [accountsAfter] = await db.select({ n: sql<number>`count(*)::int` }).from(serviceAccounts);
    expect(accountsAfter!.n).toBe(accountsBefore!.n);
    expect((await db.select().from(auditEvents).where(eq(auditEvents.actorPrincipalId, id))).length).toBe(historyBefore);

    // Okta re-enables with a replace that has no path.
    const enabled = await scim("PATCH", `/Users/${id}`, { body: patch([{ op: "replace", value: { active: true } }]) });
    expect(enabled.body.active).toBe(true);
    expect((await auditOf("scim.user.enabled", id)).length).toBe(1);
    await expect(startSession(db, id, "demo", new Date(), 8)).resolves.toEqual(expect.any(String));
  });

  it("Okta's PUT replaces the person, guarded by If-Match", async () => {
    const [kim] = (await scim("GET", `/Users${filterQuery('userName eq "kim.lee@example.com"')}`)).body.Resources!;
    const id = String(kim!.id);
    const body = { schemas: [USER], id, userName: "kim.lee@example.com", externalId: "okta-00u1", name: { givenName: "Kimberly", familyName: "Lee" }, displayName: "Kimberly Lee", active: true };
    expectScimError(await scim("PUT", `/Users/${id}`, { body, headers: { "If-Match": 'W/"7"' } }), 412);
    const put = await scim("PUT", `/Users/${id}`, { body, headers: { "If-Match": 'W/"1"' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ displayName: "Kimberly Lee", externalId: "okta-00u1", name: { givenName: "Kimberly" }, meta: { version: 'W/"2"' } });
    const [updated] = await auditOf("scim.user.updated", id);
    expect(updated).toMatchObject({ before: { displayName: "Kim Lee" }, after: { displayName: "Kimberly Lee" } });
    // Taking another person's email is a uniqueness error, not a 500.
    expectScimError(await scim("PUT", `/Users/${id}`, { body: { ...body, userName: personaEmail("viewer") } }), 409, "uniqueness");
  });

  it("keeps groups and their members as Entra ID and Okta change them", async () => {
    const kim = String((await scim("GET", `/Users${filterQuery('userName eq "kim.lee@example.com"')}`)).body.Resources![0]!.id);
    const ds = await principalIdOf(db, personaEmail("data-scientist"));
    const viewer = await principalIdOf(db, personaEmail("viewer"));
    const created = await scim("POST", "/Groups", { body: { schemas: [GROUP], displayName: "ml-researchers", externalId: "grp-1", members: [{ value: kim }] } });
    expect(created.status).toBe(201);
    conforms(created.body);
    const id = String(created.body.id);
    expectScimError(await scim("POST", "/Groups", { body: { schemas: [GROUP], displayName: "ml-researchers" } }), 409, "uniqueness");

    const memberIds = async () => ((await scim("GET", `/Groups/${id}`)).body.members as { value: string }[]).map((m) => m.value).sort();
    await scim("PATCH", `/Groups/${id}`, { body: patch([{ op: "Add", path: "members", value: [{ value: ds }, { value: viewer }] }]) });
    expect(await memberIds()).toEqual([kim, ds, viewer].sort());
    // Okta removes by a filtered path, Entra by a value list.
    await scim("PATCH", `/Groups/${id}`, { body: patch([{ op: "remove", path: `members[value eq "${viewer}"]` }]) });
    expect(await memberIds()).toEqual([kim, ds].sort());
    const entraRemove = await scim("PATCH", `/Groups/${id}`, { body: patch([{ op: "Remove", path: "members", value: [{ value: kim }] }]) });
    expect(entraRemove.status).toBe(200);
    expect(await memberIds()).toEqual([ds]);
    const [removed] = (await auditOf("scim.group.updated", id)).slice(-1);
    expect(removed!.after).toMatchObject({ membersRemoved: [kim], membersAdded: [] });

    const user = await scim("GET", `/Users/${ds}`);
    expect(user.body.groups).toEqual([expect.objectContaining({ value: id, display: "ml-researchers" })]);
    const lookup = await scim("GET", `/Groups${filterQuery('displayName eq "ML-Researchers"')}&excludedAttributes=members`);
    expect(lookup.body.totalResults).toBe(1);
    expect(lookup.body.Resources![0]).not.toHaveProperty("members");
    // Okta renames with a replace that has no path.
    const renamed = await scim("PATCH", `/Groups/${id}`, { body: patch([{ op: "replace", value: { id, displayName: "ml-research" } }]) });
    expect(renamed.body).toMatchObject({ displayName: "ml-research", meta: { version: 'W/"5"' } });

    expectScimError(await scim("PATCH", `/Groups/${id}`, { body: patch([{ op: "add", path: "members", value: [{ value: "not-a-user" }] }]) }), 400, "invalidValue");
    expectScimError(await scim("DELETE", `/Groups/${id}`, { headers: { "If-Match": 'W/"1"' } }), 412);
    expect((await scim("DELETE", `/Groups/${id}`)).status).toBe(204);
    expectScimError(await scim("GET", `/Groups/${id}`), 404);
    expect((await auditOf("scim.group.deleted", id)).length).toBe(1);
  });

  it("DELETE disables and hides the person, keeping their history; creating them again brings the same person back", async () => {
    const kim = String((await scim("GET", `/Users${filterQuery('userName eq "kim.lee@example.com"')}`)).body.Resources![0]!.id);
    const sid = await startSession(db, kim, "demo", new Date(), 8);
    expect((await scim("DELETE", `/Users/${kim}`)).status).toBe(204);
    expect(await loadActorForSession(db, sid, new Date(), [])).toBeNull();
    expectScimError(await scim("GET", `/Users/${kim}`), 404);
    expectScimError(await scim("PATCH", `/Users/${kim}`, { body: patch([{ op: "replace", path: "active", value: true }]) }), 404);
    expect((await scim("GET", `/Users${filterQuery('userName eq "kim.lee@example.com"')}`)).body.totalResults).toBe(0);
    await expect(startSession(db, kim, "demo", new Date(), 8)).rejects.toThrow(/disabled/);
    expect((await auditOf("scim.user.created", kim)).length).toBe(1);
    expect((await auditOf("scim.user.deleted", kim)).length).toBe(1);

    const again = await scim("POST", "/Users", { body: { schemas: [USER], userName: "kim.lee@example.com", active: true } });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: kim, active: true });
    expect((await auditOf("scim.user.restored", kim)).length).toBe(1);
  });

  it("answers bad requests in the SCIM error format", async () => {
    expectScimError(await scim("GET", `/Users${filterQuery('userName eq "x')}`), 400, "invalidFilter");
    expectScimError(await scim("POST", "/Users", { raw: "{not json" }), 400, "invalidSyntax");
    expectScimError(await scim("POST", "/Users", { body: { schemas: [USER], userName: "not-an-email" } }), 400, "invalidValue");
    expectScimError(await scim("POST", "/Users", { body: { schemas: [USER], userName: "nul@example.com", displayName: "a\u0000b" } }), 400, "invalidValue");
    expectScimError(await scim("PATCH", `/Users/${await principalIdOf(db, personaEmail("viewer"))}`, { body: { schemas: [PATCH_OP_SCHEMA], Operations: [{ op: "move", path: "active" }] } }), 400, "invalidSyntax");
    expectScimError(await scim("GET", "/Users/not-a-uuid"), 404);
    expectScimError(await scim("GET", "/Users/00000000-0000-4000-8000-000000000000"), 404);
    expectScimError(await scim("GET", "/Users?startIndex=first"), 400, "invalidValue");
  });
});
