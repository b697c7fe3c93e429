import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installDatabase, type Database } from "@/db/client";
import { seedDemoData } from "@/db/seed";
import type { CommandContext } from "@/lib/auth/context";
import { currentContext } from "@/lib/auth/current-actor";
import { API_ROUTES } from "@/lib/api/registry";
import { initialFormState } from "@/lib/form-state";
import { createProjectAction } from "@/app/(portal)/tenants/[tenant]/actions";
import { callApi, callOperation, operatorAccount } from "@/test/api";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { contextOf, countOf } from "@/test/fixtures";

/**
 * Strings the database cannot take (NUL) or that are not Unicode (a lone
 * surrogate) are refused where requests enter, through the real handlers: every
 * REST operation for a bad path parameter, query and JSON body, and the
 * server-action wrapper for a form field. Nothing is written.
 */

vi.mock("@/lib/auth/current-actor", () => ({ currentContext: vi.fn(), currentActor: vi.fn() }));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));

const SEEDED_AT = new Date(Date.now() - 3_600_000);
let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;
let token = "";

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  installDatabase(handle);
  await seedDemoData(db, SEEDED_AT);
  token = (await operatorAccount(db, SEEDED_AT, null, "bad-bytes-bot")).token;
});
afterAll(async () => {
  (globalThis as { allotDb?: unknown }).allotDb = undefined;
  await handle?.close();
});

const CLASSES = [
  { name: "a NUL byte", bad: "vision\u0000lab", message: /NUL character/ },
  { name: "a lone high surrogate", bad: "vision\ud800lab", message: /unpaired surrogate/ },
  { name: "a lone low surrogate", bad: "\udc00", message: /unpaired surrogate/ },
] as const;

/** Calls one operation's real handler with the given (already decoded) path parameters: a lone surrogate has no percent-encoding. */
async function callWithParams(method: string, template: string, params: Record<string, string>, init: { body?: string } = {}) {
  const answer = await callOperation(method, template, params, { token, body: init.body });
  return { status: answer.status, body: JSON.parse(answer.text) as { error?: { code: string; message: string; fields?: Record<string, string[]> } } };
}

const clean = (template: string) => Object.fromEntries([...template.matchAll(/\{(\w+)\}/g)].map((m) => [m[1]!, m[1] === "tenant" ? "vision-lab" : "detector-training"]));
const tables = ["projects", "tenants", "audit_events", "quota_requests", "service_accounts", "node_pools", "rates", "usage_hourly", "invitations", "webhooks"];
const counts = async () => Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await countOf(db, t)] as const)));

describe(`bad bytes at the REST door (${databaseLabel()})`, () => {
  const withParams = API_ROUTES.filter((r) => r.path.includes("{"));
  const withBody = API_ROUTES.filter((r) => ["POST", "PATCH", "PUT"].includes(r.method));

  it("covers many operations", () => {
    expect(withParams.length).toBeGreaterThan(30);
    expect(withBody.length).toBeGreaterThan(20);
  });

  for (const c of CLASSES) {
    it(`answers ${c.name} in any path parameter of any operation with 400 validation naming it, writing nothing`, async () => {
      const before = await counts();
      for (const route of withParams) {
        for (const name of [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)) {
          const response = await callWithParams(route.method, route.path, { ...clean(route.path), [name]: c.bad }, route.method === "GET" || route.method === "DELETE" ? {} : { body: "{}" });
          expect(response.status, `${route.method} ${route.path} with ${name}`).toBe(400);
          expect(response.body.error).toMatchObject({ code: "validation", message: expect.stringMatching(c.message) as unknown });
          expect(response.body.error?.fields).toEqual({ [name]: [expect.stringMatching(c.message) as unknown] });
        }
      }
      expect(await counts()).toEqual(before);
    });

    it(`answers ${c.name} anywhere in a JSON body of any operation with 400 validation, writing nothing`, async () => {
      const before = await counts();
      for (const route of withBody) {
        for (const body of [{ name: c.bad }, { nested: { list: ["ok", c.bad] } }, { [c.bad]: "key" }]) {
          const response = await callWithParams(route.method, route.path, clean(route.path), { body: JSON.stringify(body) });
          expect(response.status, `${route.method} ${route.path} ${JSON.stringify(body)}`).toBe(400);
          expect(response.body.error).toMatchObject({ code: "validation", message: expect.stringMatching(c.message) as unknown });
        }
      }
      expect(await counts()).toEqual(before);
    });
  }

  // A lone surrogate cannot come in a query: it cannot be percent-encoded, and
  // invalid UTF-8 there is decoded to U+FFFD. A NUL can.
  it("answers a NUL byte in a query parameter's name or value with 400 validation", async () => {
    for (const query of ["?from=%00", "?from=2026-12-01%00", "?%00=1", "?format=csv&tenant=vision%00lab"]) {
      const response = await callApi("GET", `/api/v1/audit${query}`, { token });
      expect(response.status, query).toBe(400);
      expect(response.json).toMatchObject({ error: { code: "validation", message: expect.stringMatching(/^Invalid query: .* contains a NUL character/) as unknown } });
    }
  });

  it("names the field inside the body", async () => {
    const response = await callApi("POST", "/api/v1/tenants/vision-lab/projects", { token, body: { slug: "fine", name: "Fine", description: "line\u0000two" } });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: { code: "validation", message: "Invalid body: description contains a NUL character, which cannot be stored.", fields: { description: ["This contains a NUL character, which cannot be stored."] } } });
  });
});

// Only NUL: FormData holds USVStrings, so a lone surrogate is already U+FFFD
// in the browser, and the multipart body is decoded as UTF-8 the same way.
describe(`bad bytes at the server-action door (${databaseLabel()})`, () => {
  it("answers a NUL byte in a form field beside that field, writing nothing", async () => {
    const ctx: CommandContext = await contextOf(db, "vision-admin", new Date());
    vi.mocked(currentContext).mockResolvedValue(ctx);
    const before = await counts();
    const form = new FormData();
    form.set("tenant", "vision-lab");
    form.set("slug", "bad-bytes");
    form.set("name", "Bad bytes");
    form.set("description", "pasted \u0000 from a terminal");
    const state = await createProjectAction(initialFormState, form);
    expect(state).toEqual({
      status: "error",
      message: "Invalid form: description contains a NUL character, which cannot be stored.",
      fieldErrors: { description: ["This contains a NUL character, which cannot be stored."] },
    });
    expect(await counts()).toEqual(before);
  });
});
