import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installDatabase, type Database } from "@/db/client";
import { seedDemoData } from "@/db/seed";
import { callApi, operatorAccount, type ApiResponse } from "@/test/api";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { accepts, undocumentedKeys, type JsonSchema } from "@/test/openapi-samples";
import { HOUR } from "@/test/tenancy";
import { buildOpenApiDocument } from "./openapi";
import { API_ROUTES } from "./registry";

/**
 * A request's revisions and conversation over REST: the requester edits with
 * PATCH (a stale approval is then 409), both sides comment, others get 404;
 * every answer matches its documented schema and carries nothing it leaves out.
 */
const SEEDED_AT = new Date(Date.now() - HOUR);
const DT = "/api/v1/tenants/vision-lab/projects/detector-training";
const DOCUMENT = buildOpenApiDocument(API_ROUTES, "http://localhost:3000");

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;
const token = {} as Record<"platform" | "member" | "colleague" | "foreign", string>;

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  installDatabase(handle);
  await seedDemoData(db, SEEDED_AT);
  token.platform = (await operatorAccount(db, SEEDED_AT, null, "conversation-platform-bot")).token;
  token.member = (await operatorAccount(db, SEEDED_AT, "vision-lab", "conversation-member-bot", [{ project: "detector-training", role: "member" }])).token;
  token.colleague = (await operatorAccount(db, SEEDED_AT, "vision-lab", "conversation-colleague-bot", [{ project: "detector-training", role: "member" }])).token;
  token.foreign = (await operatorAccount(db, SEEDED_AT, "language-models", "conversation-foreign-bot", [{ project: "chat-eval", role: "member" }])).token;
});
afterAll(async () => {
  (globalThis as { allotDb?: unknown }).allotDb = undefined;
  await handle?.close();
});

/** The documented JSON schema of an operation's answer with this status. */
function documented(method: string, template: string, status: number): JsonSchema {
  const op = (DOCUMENT.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }> }>>)[template]?.[method.toLowerCase()];
  const schema = op?.responses[String(status)]?.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`${method} ${template} ${status} is not documented`);
  return schema;
}

/**
 * The answer carries no field its document leaves out and, where the sample checker can judge the whole schema
 * (not a request's detail, whose decision picture holds oneOf branches it does not check), matches it.
 */
function expectDocumented(response: ApiResponse, template: string, status: number, whole = true) {
  expect(response.status, `${response.method} ${response.path}: ${response.text}`).toBe(status);
  const schema = documented(response.method, template, status);
  if (whole) expect(accepts(schema, response.json), `${response.method} ${template} matches its schema`).toBe(true);
  expect(undocumentedKeys(schema, response.json), `${response.method} ${template}`).toEqual([]);
}

const ask = { gpuModel: "H100", gpuCount: 2, justification: "Evaluation runs of the detector over the new footage." };

describe(`request revisions and comments over REST (${databaseLabel()})`, () => {
  it("the requester edits, both sides comment, a stale approval is 409; all as documented", async () => {
    const created = await callApi("POST", `${DT}/quota-requests`, { token: token.member, body: ask });
    expect(created.status, created.text).toBe(201);
    const request = (created.json as { request: { id: string; version: number } }).request;
    const one = `/api/v1/quota-requests/${request.id}`;

    const edited = await callApi("PATCH", one, { token: token.member, body: { ...ask, gpuCount: 1, version: request.version } });
    expectDocumented(edited, "/api/v1/quota-requests/{id}", 200, false);
    const after = edited.json as { revision: number; version: number; revisions: { revision: number; changes: { field: string }[] }[]; canEdit: boolean };
    expect(after.revision).toBe(2);
    expect(after.canEdit).toBe(true);
    expect(after.revisions.map((r) => [r.revision, r.changes.map((c) => c.field)])).toEqual([
      [1, []],
      [2, ["gpus.H100.count", "estimate"]],
    ]);

    const stale = await callApi("POST", `${one}/approve`, { token: token.platform, body: { version: request.version } });
    expect(stale.status, stale.text).toBe(409);

    const asked = await callApi("POST", `${one}/comments`, { token: token.platform, body: { body: "Is one enough?" } });
    expectDocumented(asked, "/api/v1/quota-requests/{id}/comments", 201);
    const answered = await callApi("POST", `${one}/comments`, { token: token.member, body: { body: "Yes, one is enough." } });
    expectDocumented(answered, "/api/v1/quota-requests/{id}/comments", 201);
    const thread = await callApi("GET", `${one}/comments`, { token: token.member });
    expectDocumented(thread, "/api/v1/quota-requests/{id}/comments", 200);
    expect((thread.json as { comments: { byRequester: boolean; body: string }[] }).comments.map((c) => [c.byRequester, c.body])).toEqual([
      [false, "Is one enough?"],
      [true, "Yes, one is enough."],
    ]);

    // The decider's view: the picture, the history and the thread, all documented.
    const detail = await callApi("GET", one, { token: token.platform });
    expect(detail.status, detail.text).toBe(200);
    // The sample checker cannot walk the decision picture's oneOf branches: the top-level fields are checked here, the rest above without the picture.
    const properties = documented("GET", "/api/v1/quota-requests/{id}", 200).properties as Record<string, unknown>;
    expect(Object.keys(detail.json as object).filter((k) => !(k in properties))).toEqual([]);
    expect((detail.json as { history: unknown }).history).not.toBeNull();

    const approved = await callApi("POST", `${one}/approve`, { token: token.platform, body: { version: after.version } });
    expectDocumented(approved, "/api/v1/quota-requests/{id}/approve", 200, false);
  });

  it("others neither read nor write the thread, nor edit: 404 across tenants, 403 or 404 inside", async () => {
    const created = await callApi("POST", `${DT}/quota-requests`, { token: token.member, body: ask });
    const request = (created.json as { request: { id: string; version: number } }).request;
    const one = `/api/v1/quota-requests/${request.id}`;
    expect((await callApi("GET", `${one}/comments`, { token: token.foreign })).status).toBe(404);
    expect((await callApi("POST", `${one}/comments`, { token: token.foreign, body: { body: "Hello" } })).status).toBe(404);
    expect((await callApi("PATCH", one, { token: token.foreign, body: { ...ask, gpuCount: 1, version: request.version } })).status).toBe(404);
    // A colleague on the project sees the request but is neither of its sides.
    expect((await callApi("GET", `${one}/comments`, { token: token.colleague })).status).toBe(404);
    expect((await callApi("POST", `${one}/comments`, { token: token.colleague, body: { body: "Hello" } })).status).toBe(403);
    expect((await callApi("PATCH", one, { token: token.colleague, body: { ...ask, gpuCount: 1, version: request.version } })).status).toBe(403);
    const detail = await callApi("GET", one, { token: token.colleague });
    expectDocumented(detail, "/api/v1/quota-requests/{id}", 200, false);
    expect(detail.json).toMatchObject({ comments: null, canComment: false, canEdit: false });
    const empty = await callApi("POST", `${one}/comments`, { token: token.member, body: { body: "" } });
    expect(empty.status).toBe(400);
    expect((empty.json as { error: { fields: Record<string, string[]> } }).error.fields).toEqual({ body: ["Write a comment before sending it."] });
  });
});
