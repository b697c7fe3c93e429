import fc from "fast-check";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installDatabase, type Database } from "@/db/client";
import { seedDemoData } from "@/db/seed";
import { buildOpenApiDocument } from "@/lib/api/openapi";
import { API_ROUTES } from "@/lib/api/registry";
import { callOperation, operatorAccount } from "@/test/api";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { countOf, rowsOf } from "@/test/fixtures";
import { accepts, invalidSamples, lenient, validObject, type JsonSchema } from "@/test/openapi-samples";

/**
 * Walks the OpenAPI document and sends every operation hostile input through
 * the real handlers, as a platform admin (so authorization hides no
 * validation) and as a tenant-scoped account: every path parameter, query
 * parameter and body field gets wrong types, absurd numbers, huge strings,
 * control characters, NUL, lone surrogates and undecodable percent-encoding;
 * bodies get required fields left out, extra fields, wrong content types,
 * malformed JSON, non-UTF-8 bytes and nothing at all. Every answer must be a
 * 4xx with the JSON `{error: {code, message}}` body within a bound, and no
 * table's row count may change. Generation is deterministic (fast-check with
 * a fixed seed), so the counts printed per database are stable.
 */

const SEED = 20261204;
const CALL_BOUND_MS = 5_000;
const SEEDED_AT = new Date(Date.now() - 3_600_000);
const doc = buildOpenApiDocument(API_ROUTES, "http://localhost:3000");

type Parameter = { name: string; in: "path" | "query"; required: boolean; schema: JsonSchema };
type Operation = { parameters: Parameter[]; requestBody?: { content: { "application/json": { schema: JsonSchema } } } };
// The JSON API under /api/v1; POST /oauth/token takes a form and answers OAuth errors, tested in lib/federation/exchange.int.test.ts.
const OPERATIONS = Object.entries(doc.paths)
  .filter(([template]) => template.startsWith("/api/v1/"))
  .flatMap(([template, methods]) =>
  Object.entries(methods as Record<string, Operation>).map(([method, op]) => ({ template, method: method.toUpperCase(), op })),
);

/** Path parameters naming seeded objects where the demo has them, so requests get as far as validation. */
const KNOWN: Record<string, string> = { tenant: "vision-lab", project: "detector-training" };
const validParams = (template: string) => Object.fromEntries([...template.matchAll(/\{(\w+)\}/g)].map((m) => [m[1]!, KNOWN[m[1]!] ?? "fuzz-none"]));

/** A JSON number literal JSON.stringify cannot write (1e309 parses to Infinity). */
class RawJson {
  constructor(readonly text: string) {}
}
const RAW_NUMBERS = ["1e309", "-1e309", "9223372036854775808", "-9223372036854775809", "1e-400", "2147483648", "1.5e3"].map((t) => new RawJson(t));
const CONTROL = ["a\u0007b", "\u001b[31m", "line\r\nInjected: 1", "\u202e"];
const ABSURD_TEXT = ["NaN", "Infinity", "0x10", "1.5e3", "1e309", "-1", "2147483648", "9223372036854775808", "4abc", "99999999999999999999Ti", "-1Gi", "", "null", "{}"];
const HUGE = ["x".repeat(100_000)];
const UNSAFE = ["\u0000", "a\u0000b", "\ud800", "x\udc00y"];
const RANDOM = fc.sample(fc.string({ unit: "binary", minLength: 1, maxLength: 24 }), { numRuns: 2, seed: SEED });

/** The server's stated leniencies (test/openapi-samples.ts), and: an optional field of only whitespace is left out. */
const excused = (schema: JsonSchema, value: unknown, required: boolean) => lenient(schema, value, required) || (!required && typeof value === "string" && value.trim() === "");
const parseRaw = (v: unknown) => (v instanceof RawJson ? (JSON.parse(v.text) as unknown) : v);

/** Values a body field must refuse: the document's invalid samples and every hostile value the document refuses too. */
function hostileBodyValues(schema: JsonSchema, required: boolean): unknown[] {
  const candidates = [...invalidSamples(schema), ...RAW_NUMBERS, ...CONTROL, ...ABSURD_TEXT, ...HUGE, ...RANDOM, [1, "x", null], { a: { b: ["c"] } }];
  const refused = candidates.filter((v) => {
    const value = parseRaw(v);
    return !accepts(schema, value) && !excused(schema, value, required);
  });
  return [...refused, ...UNSAFE];
}

/** Text a path or query parameter must refuse (a number parameter takes only its decimal digits within bounds). */
function hostileParamValues(schema: JsonSchema, required: boolean): string[] {
  const numeric = schema.type === "integer" || schema.type === "number";
  const takes = (text: string) => accepts(schema, text) || (numeric && /^(?:\d+(?:\.\d+)?|\.\d+)$/.test(text) && accepts(schema, Number(text))) || excused(schema, text, required);
  const candidates = [...ABSURD_TEXT, ...CONTROL, ...HUGE, ...RANDOM, ...invalidSamples(schema).map((v) => (typeof v === "string" ? v : JSON.stringify(v)))];
  return [...new Set([...candidates.filter((t) => !takes(t)), ...UNSAFE])];
}

type Call = { label: string; method: string; template: string; params: Record<string, string>; query?: Record<string, string>; body?: BodyInit; contentType?: string | null };

function jsonBody(value: Record<string, unknown>): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `__raw_${raws.length - 1}__`;
    }
    return v;
  });
  return text.replace(/"__raw_(\d+)__"/g, (_, i: string) => raws[Number(i)]!);
}

/** Every hostile call of one operation. */
function callsOf(template: string, method: string, op: Operation): Call[] {
  const params = validParams(template);
  const base = { method, template, params };
  const calls: Call[] = [];
  for (const p of op.parameters) {
    for (const bad of hostileParamValues(p.schema, p.required)) {
      if (p.in === "path") calls.push({ ...base, label: `path ${p.name}=${JSON.stringify(bad).slice(0, 40)}`, params: { ...params, [p.name]: bad } });
      // A lone surrogate cannot be percent-encoded: in a query it arrives as U+FFFD, which is text like any other.
      else if (bad.isWellFormed()) calls.push({ ...base, label: `query ${p.name}=${JSON.stringify(bad).slice(0, 40)}`, query: { [p.name]: bad } });
    }
  }
  // Percent-encoding that is not UTF-8 reaches a route undecoded when the router lets it through.
  for (const name of Object.keys(params)) calls.push({ ...base, label: `path ${name} undecodable`, params: { ...params, [name]: "%C3%28" } });
  const schema = op.requestBody?.content["application/json"].schema;
  if (!schema) return calls;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const valid = validObject(schema, "all");
  for (const [field, fieldSchema] of Object.entries(properties)) {
    for (const bad of hostileBodyValues(fieldSchema, required.has(field))) {
      calls.push({ ...base, label: `body ${field}=${JSON.stringify(bad instanceof RawJson ? bad.text : bad)?.slice(0, 40)}`, body: jsonBody({ ...valid, [field]: bad }) });
    }
  }
  for (const field of required) {
    const { [field]: _left, ...rest } = valid;
    calls.push({ ...base, label: `body without ${field}`, body: jsonBody(rest) });
    // Extra fields beside a missing one: unknown keys, prototype names, a deep value.
    calls.push({ ...base, label: `body without ${field}, extra fields`, body: `${jsonBody(rest).slice(0, -1)}${Object.keys(rest).length ? "," : ""}"__proto__":{"admin":true},"constructor":{"prototype":1},"extra":${"[".repeat(2_000)}${"]".repeat(2_000)}}` });
  }
  const goodText = jsonBody(valid);
  const refusesEmpty = !accepts(schema, {});
  const bodies: [string, BodyInit, string | null][] = [
    ["text/plain", goodText, "text/plain"],
    ["form-urlencoded", "a=1&b=2", "application/x-www-form-urlencoded"],
    ["multipart", "--x\r\ncontent-disposition: form-data; name=\"a\"\r\n\r\n1\r\n--x--", "multipart/form-data; boundary=x"],
    ["no content type", goodText, null],
    ["truncated JSON", goodText.slice(0, -1), "application/json"],
    ["trailing comma", "{\"a\":1,}", "application/json"],
    ["single quotes", "{'a':1}", "application/json"],
    ["JSON array", "[]", "application/json"],
    ["JSON string", "\"x\"", "application/json"],
    ["JSON number", "1", "application/json"],
    ["JSON null", "null", "application/json"],
    ["deep array", `${"[".repeat(50_000)}${"]".repeat(50_000)}`, "application/json"],
    ["non-UTF-8 bytes", new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]), "application/json"],
    ["lone surrogate escape", "{\"a\":\"\\ud800\"}", "application/json"],
    ["NUL escape", "{\"a\":\"\\u0000\"}", "application/json"],
    ...(refusesEmpty ? ([["empty body", "", "application/json"], ["empty object", "{}", "application/json"], ["whitespace body", " \n ", "application/json"]] as [string, BodyInit, string][]) : []),
  ];
  for (const [label, body, contentType] of bodies) calls.push({ ...base, label: `body ${label}`, body, contentType });
  return calls;
}

/** One call through the route file Next serves, bounded in time. */
const send = (call: Call, token: string) =>
  callOperation(call.method, call.template, call.params, { token, query: call.query, body: call.body, contentType: call.contentType, timeoutMs: CALL_BOUND_MS }).catch((error: Error) => {
    throw new Error(`${call.label}: ${error.message}`);
  });

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;
const tokens: Record<string, string> = {};
let tables: string[] = [];
const counts = async () => Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await countOf(db, t)] as const)));

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  installDatabase(handle);
  await seedDemoData(db, SEEDED_AT);
  tokens["platform admin"] = (await operatorAccount(db, SEEDED_AT, null, "fuzz-platform")).token;
  tokens["tenant member"] = (await operatorAccount(db, SEEDED_AT, "vision-lab", "fuzz-member", [{ project: "detector-training", role: "member" }])).token;
  tables = (await rowsOf<{ name: string }>(db, sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`)).map((r) => r.name);
}, 120_000);
afterAll(async () => {
  (globalThis as { allotDb?: unknown }).allotDb = undefined;
  await handle?.close();
});

describe(`fuzzing the OpenAPI document's operations (${databaseLabel()})`, () => {
  const plan = OPERATIONS.map((o) => ({ ...o, calls: callsOf(o.template, o.method, o.op) }));

  it("walks every operation, and every parameter and body field of each", () => {
    expect(plan.length).toBe(API_ROUTES.length);
    for (const o of plan) for (const p of o.op.parameters) expect(o.calls.some((c) => c.label.startsWith(`${p.in} ${p.name}=`)), `${o.method} ${o.template} ${p.name}`).toBe(true);
  });

  it("answers every hostile call 4xx with the JSON error body, within the bound, writing nothing", async () => {
    const started = performance.now();
    const tally = { operations: plan.length, calls: 0, status5xx: 0, byStatus: {} as Record<number, number> };
    const failures: string[] = [];
    for (const [role, token] of Object.entries(tokens)) {
      for (const o of plan) {
        const before = await counts();
        // The platform admin gets every call; the tenant member one in ten (authorization answers most of them first).
        for (const call of role === "platform admin" ? o.calls : o.calls.filter((_, i) => i % 10 === 0)) {
          const answer = await send(call, token);
          tally.calls += 1;
          tally.byStatus[answer.status] = (tally.byStatus[answer.status] ?? 0) + 1;
          if (answer.status >= 500) tally.status5xx += 1;
          const where = `${role}: ${o.method} ${o.template} ${call.label} -> ${answer.status} ${answer.text.slice(0, 200)}`;
          let body: { error?: { code?: unknown; message?: unknown } } | undefined;
          try {
            body = JSON.parse(answer.text) as typeof body;
          } catch {
            body = undefined;
          }
          const shaped = typeof body?.error?.code === "string" && typeof body.error.message === "string";
          if (answer.status < 400 || answer.status >= 500 || !answer.contentType.includes("application/json") || !shaped) failures.push(where);
        }
        const after = await counts();
        if (JSON.stringify(after) !== JSON.stringify(before)) failures.push(`${role}: ${o.method} ${o.template} wrote rows: ${JSON.stringify(Object.fromEntries(Object.entries(after).filter(([t, n]) => before[t] !== n)))}`);
      }
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`API fuzz (${databaseLabel()}): ${tally.operations} operations, ${tally.calls} calls as ${Object.keys(tokens).length} roles, 5xx: ${tally.status5xx}, statuses ${JSON.stringify(tally.byStatus)}, ${seconds} s`);
    expect(failures.slice(0, 40)).toEqual([]);
  }, 600_000);
});
