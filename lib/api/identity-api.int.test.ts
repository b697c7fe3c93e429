import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installDatabase, type Database } from "@/db/client";
import { accessExtensionRequests, groupMappings, projectGrants, tenants } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import { executeCommand } from "@/lib/auth/command";
import { requestExtension } from "@/lib/tenancy/commands/extensions";
import { revokeToken } from "@/lib/tenancy/commands/service-accounts";
import { callApi, operatorAccount, type ApiResponse } from "@/test/api";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { auditLog, contextOf, personaEmail, principalIdOf } from "@/test/fixtures";
import { accepts, undocumentedKeys, type JsonSchema } from "@/test/openapi-samples";
import { addGrant, contextFor, DAY, HOUR, projectIdOf, uniqueEmail, userWithEmail } from "@/test/tenancy";
import { buildOpenApiDocument } from "./openapi";
import { API_ROUTES } from "./registry";

/**
 * Identity over REST: a tenant's IdP group mappings (list, create, delete) and
 * the sponsor's side of access extension requests (list, grant, decline). Every
 * answer matches its documented schema; other tenants get 404, those who see
 * the tenant but may not act 403, a revoked token 401.
 */
const SEEDED_AT = new Date(Date.now() - HOUR);
const DOCUMENT = buildOpenApiDocument(API_ROUTES, "http://localhost:3000");
const MAPPINGS = "/api/v1/tenants/language-models/group-mappings";
const EXTENSIONS = "/api/v1/tenants/language-models/extension-requests";

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;
const token = {} as Record<"platform" | "viewer" | "foreign" | "revoked", string>;

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  installDatabase(handle);
  await seedDemoData(db, SEEDED_AT);
  token.platform = (await operatorAccount(db, SEEDED_AT, null, "identity-platform-bot")).token;
  token.viewer = (await operatorAccount(db, SEEDED_AT, "language-models", "identity-viewer-bot", [{ project: "chat-eval", role: "viewer" }])).token;
  token.foreign = (await operatorAccount(db, SEEDED_AT, "vision-lab", "identity-foreign-bot", [{ project: "detector-training", role: "member" }])).token;
  const revoked = await operatorAccount(db, SEEDED_AT, "language-models", "identity-revoked-bot", [{ project: "chat-eval", role: "member" }]);
  token.revoked = revoked.token;
  const prefix = revoked.token.split("_")[1]!;
  await executeCommand(revokeToken, await contextOf(db, "language-admin", new Date()), { tenant: "language-models", serviceAccount: "identity-revoked-bot", prefix });
});
afterAll(async () => {
  (globalThis as { allotDb?: unknown }).allotDb = undefined;
  await handle?.close();
});

function documented(method: string, template: string, status: number): JsonSchema {
  const op = (DOCUMENT.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }> }>>)[template]?.[method.toLowerCase()];
  const schema = op?.responses[String(status)]?.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`${method} ${template} ${status} is not documented`);
  return schema;
}

/** The answer has the status, matches its documented schema and carries nothing the document leaves out. */
function expectDocumented(response: ApiResponse, template: string, status: number) {
  expect(response.status, `${response.method} ${response.path}: ${response.text}`).toBe(status);
  const schema = documented(response.method, template, status);
  expect(accepts(schema, response.json), `${response.method} ${template} matches its schema`).toBe(true);
  expect(undocumentedKeys(schema, response.json), `${response.method} ${template}`).toEqual([]);
}

/** The API's error body with this status and code, and the field messages if any. */
function expectError(response: ApiResponse, status: number, code: string) {
  expect(response.status, `${response.method} ${response.path}: ${response.text}`).toBe(status);
  const { error } = response.json as { error: { code: string; message: string; fields?: Record<string, string[]> } };
  expect(error.code).toBe(code);
  expect(error.message).toEqual(expect.any(String));
  expect(Object.keys(error).filter((k) => !["code", "message", "fields"].includes(k))).toEqual([]);
  return error;
}

type Mapping = { id: string; groupName: string; project: { slug: string } | null; role: string; people: number };

describe(`group mappings over REST (${databaseLabel()})`, () => {
  it("a platform admin maps groups to the tenant and to a project, lists and removes them, all as documented and audited", async () => {
    const tenantWide = await callApi("POST", MAPPINGS, { token: token.platform, body: { group: "ml-researchers", role: "member" } });
    expectDocumented(tenantWide, "/api/v1/tenants/{tenant}/group-mappings", 201);
    expect(tenantWide.json).toMatchObject({ groupName: "ml-researchers", project: null, role: "member", people: 0, createdBy: "identity-platform-bot" });
    const onProject = await callApi("POST", MAPPINGS, { token: token.platform, body: { group: "eval-readers", project: "chat-eval", role: "viewer" } });
    expectDocumented(onProject, "/api/v1/tenants/{tenant}/group-mappings", 201);
    expect(onProject.json).toMatchObject({ groupName: "eval-readers", project: { slug: "chat-eval", name: "Chat evaluation" }, role: "viewer" });

    const listed = await callApi("GET", MAPPINGS, { token: token.platform });
    expectDocumented(listed, "/api/v1/tenants/{tenant}/group-mappings", 200);
    expect((listed.json as { mappings: Mapping[] }).mappings.map((m) => [m.groupName, m.project?.slug ?? null, m.role])).toEqual([
      ["eval-readers", "chat-eval", "viewer"],
      ["ml-researchers", null, "member"],
    ]);

    const duplicate = await callApi("POST", MAPPINGS, { token: token.platform, body: { group: "ML-Researchers", role: "viewer" } });
    expect(expectError(duplicate, 409, "conflict").fields).toEqual({ group: ["Choose another group: this one is already mapped here."] });

    const id = (tenantWide.json as Mapping).id;
    const removed = await callApi("DELETE", `${MAPPINGS}/${id}`, { token: token.platform });
    expectDocumented(removed, "/api/v1/tenants/{tenant}/group-mappings/{mappingId}", 200);
    expect(await db.select().from(groupMappings).where(eq(groupMappings.id, id))).toEqual([]);
    expectError(await callApi("DELETE", `${MAPPINGS}/${id}`, { token: token.platform }), 404, "not_found");
    // The mapping is another tenant's there: its id is not found through vision-lab.
    const other = (onProject.json as Mapping).id;
    expectError(await callApi("DELETE", `/api/v1/tenants/vision-lab/group-mappings/${other}`, { token: token.platform }), 404, "not_found");

    const actions = (await auditLog(db)).filter((e) => e.action.startsWith("group_mapping.")).map((e) => e.action);
    expect(actions).toEqual(["group_mapping.created", "group_mapping.created", "group_mapping.deleted"]);
  });

  it.each([
    ["no group and an unknown role", { role: "owner" }, ["group", "role"]],
    ["a project role of tenant admin", { group: "eval-admins", project: "chat-eval", role: "tenant_admin" }, ["role"]],
    ["a project of another tenant", { group: "eval-admins", project: "detector-training", role: "member" }, ["project"]],
  ])("refuses %s with 400 naming the fields", async (_label, body, fields) => {
    const error = expectError(await callApi("POST", MAPPINGS, { token: token.platform, body }), 400, "validation");
    expect(Object.keys(error.fields ?? {}).sort()).toEqual(fields);
  });

  // A project viewer does not see the tenant itself (only its project), so the tenant's mappings are a 404 to it, as the invitations are.
  it.each([
    ["another tenant's service account", "foreign", 404, "not_found"],
    ["a project viewer of the tenant", "viewer", 404, "not_found"],
    ["a revoked token", "revoked", 401, "unauthenticated"],
  ] as const)("refuses %s on every mapping endpoint, changing nothing", async (_label, who, status, code) => {
    const [seeded] = await db.insert(groupMappings).values({ tenantId: await tenantIdOf("language-models"), projectId: null, groupName: `kept-${who}`, groupKey: `kept-${who}`, tenantRole: "viewer", projectRole: null, createdBy: null, createdAt: SEEDED_AT }).returning();
    const before = await db.select().from(groupMappings);
    expectError(await callApi("GET", MAPPINGS, { token: token[who] }), status, code);
    expectError(await callApi("POST", MAPPINGS, { token: token[who], body: { group: "intruders", role: "tenant_admin" } }), status, code);
    expectError(await callApi("DELETE", `${MAPPINGS}/${seeded!.id}`, { token: token[who] }), status, code);
    expect(await db.select().from(groupMappings)).toEqual(before);
  });
});

async function tenantIdOf(slug: string) {
  const [row] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, slug));
  return row!.id;
}

/** A person with a viewer grant on chat-eval ending in `days`, who asks for `more` days beyond it. */
async function askedExtension(days: number, more: number) {
  const now = new Date();
  const principalId = await userWithEmail(db, uniqueEmail("guest"), SEEDED_AT);
  const end = new Date(now.getTime() + days * DAY);
  const grantId = await addGrant(db, {
    projectId: await projectIdOf(db, "language-models", "chat-eval"),
    principalId,
    role: "viewer",
    expiresAt: end,
    grantedBy: await principalIdOf(db, personaEmail("language-admin")),
    createdAt: SEEDED_AT,
  });
  const until = new Date(end.getTime() + more * DAY);
  const asked = await executeCommand(requestExtension, await contextFor(db, principalId, now), { tenant: "language-models", project: "chat-eval", until: until.toISOString(), reason: "The evaluation needs another round." });
  return { requestId: asked.requestId, grantId, end, until };
}

const grantEnd = async (id: string) => (await db.select({ e: projectGrants.expiresAt }).from(projectGrants).where(eq(projectGrants.id, id)))[0]!.e;
const statusOf = async (id: string) => (await db.select({ s: accessExtensionRequests.status }).from(accessExtensionRequests).where(eq(accessExtensionRequests.id, id)))[0]!.s;

describe(`access extension requests over REST (${databaseLabel()})`, () => {
  it("the sponsor's side lists pending requests, grants one within the maximum and declines another", async () => {
    const first = await askedExtension(5, 20);
    const second = await askedExtension(3, 10);
    const listed = await callApi("GET", EXTENSIONS, { token: token.platform });
    expectDocumented(listed, "/api/v1/tenants/{tenant}/extension-requests", 200);
    const requests = (listed.json as { requests: { id: string; projectSlug: string; reason: string; currentExpiresAt: string; requestedUntil: string }[] }).requests;
    expect(requests.find((r) => r.id === first.requestId)).toMatchObject({
      projectSlug: "chat-eval",
      reason: "The evaluation needs another round.",
      currentExpiresAt: first.end.toISOString(),
      requestedUntil: first.until.toISOString(),
    });

    const grant = `/api/v1/extension-requests/${first.requestId}/grant`;
    // Beyond the maximum term (90 days by default), later than asked, and not a date: each names the field.
    const tooLate = await callApi("POST", grant, { token: token.platform, body: { until: new Date(Date.now() + 400 * DAY).toISOString() } });
    expect(Object.keys(expectError(tooLate, 400, "validation").fields ?? {})).toEqual(["until"]);
    expect(Object.keys(expectError(await callApi("POST", grant, { token: token.platform, body: { until: "soon" } }), 400, "validation").fields ?? {})).toEqual(["until"]);
    expect(Object.keys(expectError(await callApi("POST", "/api/v1/extension-requests/not-an-id/grant", { token: token.platform, body: {} }), 400, "validation").fields ?? {})).toEqual(["requestId"]);
    expect(await grantEnd(first.grantId)).toEqual(first.end);

    const shorter = new Date(first.until.getTime() - 5 * DAY);
    const granted = await callApi("POST", grant, { token: token.platform, body: { until: shorter.toISOString(), note: "Fifteen days are enough." } });
    expectDocumented(granted, "/api/v1/extension-requests/{id}/grant", 200);
    expect(granted.json).toEqual({ grantId: first.grantId, expiresAt: shorter.toISOString() });
    expect(await grantEnd(first.grantId)).toEqual(shorter);
    expectError(await callApi("POST", grant, { token: token.platform, body: {} }), 409, "conflict");

    const declined = await callApi("POST", `/api/v1/extension-requests/${second.requestId}/decline`, { token: token.platform, body: { note: "The project closes this month." } });
    expectDocumented(declined, "/api/v1/extension-requests/{id}/decline", 200);
    expect(declined.json).toEqual({ requestId: second.requestId });
    expect(await statusOf(second.requestId)).toBe("declined");
    expect(await grantEnd(second.grantId)).toEqual(second.end);

    const after = (await callApi("GET", EXTENSIONS, { token: token.platform })).json as { requests: { id: string }[] };
    expect(after.requests.map((r) => r.id)).not.toEqual(expect.arrayContaining([first.requestId]));
    expect(after.requests.map((r) => r.id)).not.toEqual(expect.arrayContaining([second.requestId]));
    const audit = (await auditLog(db)).filter((e) => e.targetId === first.grantId || e.targetId === second.grantId).map((e) => e.action);
    expect(audit).toEqual(["project_grant.extension_requested", "project_grant.extension_requested", "project_grant.extension_granted", "project_grant.extension_declined"]);
  });

  // The tenant's list is a tenant resource (a project viewer does not see it: 404); a request is its project's (seen by the viewer: 403).
  it.each([
    ["another tenant's service account", "foreign", [404, "not_found"], [404, "not_found"]],
    ["a project viewer of the tenant", "viewer", [404, "not_found"], [403, "forbidden"]],
    ["a revoked token", "revoked", [401, "unauthenticated"], [401, "unauthenticated"]],
  ] as const)("refuses %s on every extension endpoint, deciding nothing", async (_label, who, [listStatus, listCode], [status, code]) => {
    const pending = await askedExtension(4, 10);
    expectError(await callApi("GET", EXTENSIONS, { token: token[who] }), listStatus, listCode);
    expectError(await callApi("POST", `/api/v1/extension-requests/${pending.requestId}/grant`, { token: token[who], body: {} }), status, code);
    expectError(await callApi("POST", `/api/v1/extension-requests/${pending.requestId}/decline`, { token: token[who], body: {} }), status, code);
    expect(await statusOf(pending.requestId)).toBe("pending");
    expect(await grantEnd(pending.grantId)).toEqual(pending.end);
  });
});
