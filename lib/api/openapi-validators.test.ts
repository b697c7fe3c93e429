import { describe, expect, it } from "vitest";
import { z } from "zod";
import { accepts, invalidSamples, lenient, validObject, validSamples, type JsonSchema } from "@/test/openapi-samples";
import { buildOpenApiDocument } from "./openapi";
import { API_ROUTES } from "./registry";
import type { AnyApiRoute } from "./route";

/**
 * The OpenAPI document against the validators that really judge a request:
 * for every operation, each path, query and body schema it documents is the
 * JSON Schema of the route's zod validator, and samples built from the
 * document (valid at each bound and for each documented form, and invalid:
 * each required field left out, wrong types, one past each bound, outside an
 * enum or pattern) are accepted or refused by that validator as documented,
 * naming the field. A field documented optional that the server requires, a
 * bound the document lacks or an enum that differs fails here.
 */

const doc = buildOpenApiDocument(API_ROUTES, "http://localhost:3000");

type Parameter = { name: string; in: "path" | "query"; required: boolean; schema: JsonSchema };
type Operation = { parameters: Parameter[]; requestBody?: { content: { "application/json": { schema: JsonSchema } } } };
const operationOf = (route: AnyApiRoute) => (doc.paths[route.path] as Record<string, Operation>)[route.method.toLowerCase()]!;

/**
 * Rules JSON Schema cannot state per field, each named with why; a problem is
 * excused only for the field named. Every entry must still be needed (checked
 * at the end), so a fixed rule leaves this list.
 */
const BEYOND_JSON_SCHEMA: Record<string, string> = {
  "POST /api/v1/tenants slug": "no double hyphen and not a reserved name (kube, default, …): a refine after the pattern",
  "POST /api/v1/tenants/{tenant}/projects slug": "no double hyphen: a refine after the pattern",
  "POST /api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/tokens expiresInDays": "empty means no number of days, and then noExpiry must be sent",
  "POST /api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/tokens noExpiry": "expiresInDays or noExpiry, not both",
  "POST /api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/tokens/{prefix}/rotate expiresInDays": "empty means no number of days, and then noExpiry must be sent",
  "POST /api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/tokens/{prefix}/rotate noExpiry": "expiresInDays or noExpiry, not both",
  "POST /api/v1/rates (sample)": "a custom meter (any other key) needs its unit; a built-in resource has one",
  "POST /api/v1/node-pools gpuProfiles": "as model = resource x perNode lines, each line read as the list's items are; each model and each resource once in the list",
  "PATCH /api/v1/node-pools/{pool} gpuProfiles": "as model = resource x perNode lines, each line read as the list's items are; each model and each resource once in the list",
  "POST /api/v1/node-pools gpuModel": "checked after trimming, where an empty value means none",
  "POST /api/v1/node-pools gpuResource": "an extended resource name outside kubernetes.io, checked after trimming",
  "PATCH /api/v1/node-pools/{pool} gpuModel": "checked after trimming, where an empty value means none",
  "PATCH /api/v1/node-pools/{pool} gpuResource": "an extended resource name outside kubernetes.io, checked after trimming",
  "POST /api/v1/node-pools nodeLabels": "as key=value lines, each key and value in Kubernetes label syntax (a key's prefix a DNS subdomain), read line by line; as an object, its keys likewise",
  "POST /api/v1/node-pools nodeTaints": "as key=value:Effect lines, in Kubernetes syntax with one of three effects, read line by line; as a list, keys likewise",
  "POST /api/v1/node-pools gpuSharing": "must agree with gpuResource (mig for nvidia.com/mig-*, time_sliced for nvidia.com/gpu.shared) and needs a GPU model unless exclusive",
  "POST /api/v1/node-pools gpuSlices": "other than 1 only when gpuSharing is time_sliced",
  "PATCH /api/v1/node-pools/{pool} nodeLabels": "as key=value lines, each key and value in Kubernetes label syntax (a key's prefix a DNS subdomain), read line by line; as an object, its keys likewise",
  "PATCH /api/v1/node-pools/{pool} nodeTaints": "as key=value:Effect lines, in Kubernetes syntax with one of three effects, read line by line; as a list, keys likewise",
  "POST /api/v1/rates resource": "a built-in resource, gpu:<model> or a custom meter key, checked after trimming",
  "POST /api/v1/tenants/{tenant}/group-mappings project": "a project slug (no double hyphen: a refine after the pattern), or empty for the whole tenant",
};
const excusedUsed = new Set<string>();

// ------------------------------------------------------------ the validators

function inputSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return rest;
}

type Verdict = { ok: true } | { ok: false; paths: string[] };
function judge(schema: z.ZodType, value: unknown): Verdict {
  const result = schema.safeParse(value);
  return result.success ? { ok: true } : { ok: false, paths: result.error.issues.map((i) => i.path.join(".")) };
}
const names = (field: string) => (verdict: Verdict) => !verdict.ok && verdict.paths.some((p) => p === field || p.startsWith(`${field}.`));
const clean = (field: string) => (verdict: Verdict) => verdict.ok || !verdict.paths.some((p) => p === field || p.startsWith(`${field}.`));

/** Path and query values are text: a number is sent as its decimal digits. */
const asText = (value: unknown) => (typeof value === "number" || typeof value === "boolean" ? String(value) : value);
function paramAccepts(schema: JsonSchema, text: string): boolean {
  const numeric = schema.type === "integer" || schema.type === "number";
  return accepts(schema, text) || (numeric && /^(?:\d+(?:\.\d+)?|\.\d+)$/.test(text) && accepts(schema, Number(text)));
}

/** Problems of one operation, without the excused ones. */
function unexcused(label: string, problems: { field: string; text: string }[]): string[] {
  return problems
    .filter((p) => {
      const key = `${label} ${p.field}`;
      if (!(key in BEYOND_JSON_SCHEMA)) return true;
      excusedUsed.add(key);
      return false;
    })
    .map((p) => p.text);
}

type Case = { route: AnyApiRoute; op: Operation; label: string };
const cases: Case[] = API_ROUTES.map((route) => ({ route, op: operationOf(route), label: `${route.method} ${route.path}` }));

describe("OpenAPI document against the real validators", () => {
  it("walks every operation", () => {
    expect(cases.length).toBeGreaterThan(50);
    expect(cases.filter((c) => c.route.body).length).toBeGreaterThanOrEqual(20);
  });

  it.each(cases)("$label: documents exactly the validators' path and query fields, with the same required-ness", ({ route, op }) => {
    for (const [where, schema] of [["path", route.params], ["query", route.query ?? z.object({})]] as const) {
      const json = inputSchema(schema);
      const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((json.required ?? []) as string[]);
      const documented = op.parameters.filter((p) => p.in === where && !(where === "query" && p.name === "format" && route.csv));
      expect(documented.map((p) => p.name).sort(), where).toEqual(Object.keys(properties).sort());
      for (const p of documented) {
        expect(p.required, `${where} ${p.name}`).toBe(where === "path" || required.has(p.name));
        // The parameter is the validator's schema, or for a number field its numeric form (how a number travels in a URL).
        const own = properties[p.name]!;
        const numeric = ((own.anyOf ?? []) as JsonSchema[]).find((b) => b.type === "integer" || b.type === "number");
        const { anyOf: _drop, ...rest } = own;
        expect(p.schema, `${where} ${p.name}`).toEqual(numeric ? { ...rest, ...numeric } : own);
      }
    }
  });

  it.each(cases.filter((c) => c.route.body))("$label: documents the body validator's JSON Schema, without the fields the path supplies", ({ route, op }) => {
    const json = inputSchema(route.body!);
    const fromPath = route.bodyFromPath ?? [];
    const properties = Object.fromEntries(Object.entries((json.properties ?? {}) as Record<string, JsonSchema>).filter(([k]) => !fromPath.includes(k)));
    const documented = op.requestBody!.content["application/json"].schema;
    expect(documented.properties).toEqual(properties);
    expect([...((documented.required ?? []) as string[])].sort()).toEqual(((json.required ?? []) as string[]).filter((k) => !fromPath.includes(k)).sort());
  });

  it.each(cases)("$label: every documented field says what it takes (no schema that accepts anything)", ({ op }) => {
    const body = op.requestBody?.content["application/json"].schema;
    const fields: [string, JsonSchema][] = [
      ...op.parameters.map((p) => [p.name, p.schema] as [string, JsonSchema]),
      ...Object.entries((body?.properties ?? {}) as Record<string, JsonSchema>),
    ];
    for (const [name, schema] of fields) expect(["type", "anyOf", "enum", "const"].some((k) => k in schema), name).toBe(true);
  });

  it.each(cases.filter((c) => c.op.parameters.length > 0))("$label: path and query samples from the document are judged by the validator as documented", ({ route, op, label }) => {
    const problems: { field: string; text: string }[] = [];
    for (const [where, schema] of [["path", route.params], ["query", route.query ?? z.object({})]] as const) {
      const documented = op.parameters.filter((p) => p.in === where && !(where === "query" && p.name === "format" && route.csv));
      const base: Record<string, string> = Object.fromEntries(documented.filter((p) => p.required).map((p) => [p.name, asText(validSamples(p.schema)[0]) as string]));
      const baseVerdict = judge(schema, base);
      if (!baseVerdict.ok) problems.push({ field: "(sample)", text: `${where} ${JSON.stringify(base)} documented valid, refused at ${baseVerdict.paths.join(", ")}` });
      for (const p of documented) {
        for (const value of validSamples(p.schema).map(asText)) {
          if (typeof value !== "string") continue;
          if (!clean(p.name)(judge(schema, { ...base, [p.name]: value }))) problems.push({ field: p.name, text: `${where} ${p.name}=${JSON.stringify(value)} documented valid, refused` });
        }
        const candidates = invalidSamples(p.schema).map(asText).filter((v): v is string => typeof v === "string" && !lenient(p.schema, v, p.required));
        for (const value of candidates.filter((v) => !paramAccepts(p.schema, v))) {
          if (!names(p.name)(judge(schema, { ...base, [p.name]: value }))) problems.push({ field: p.name, text: `${where} ${p.name}=${JSON.stringify(value).slice(0, 40)} documented invalid, accepted` });
        }
        if (p.required && where === "query") {
          const { [p.name]: _left, ...without } = base;
          if (!names(p.name)(judge(schema, without))) problems.push({ field: p.name, text: `${where} ${p.name} documented required, accepted when absent` });
        }
      }
    }
    expect(unexcused(label, problems).join("\n")).toBe("");
  });

  it.each(cases.filter((c) => c.route.body))("$label: body samples from the document are judged by the validator as documented", ({ route, op, label }) => {
    const documented = op.requestBody!.content["application/json"].schema;
    const properties = (documented.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((documented.required ?? []) as string[]);
    // What the path supplies, valid by the validator's own schema for it.
    const full = inputSchema(route.body!);
    const fromPath = Object.fromEntries((route.bodyFromPath ?? []).map((k) => [k, validSamples(((full.properties ?? {}) as Record<string, JsonSchema>)[k]!)[0]]));
    const withPath = (body: Record<string, unknown>) => ({ ...body, ...fromPath });
    const base = validObject(documented, "required");
    const problems: { field: string; text: string }[] = [];
    const baseVerdict = judge(route.body!, withPath(base));
    if (!baseVerdict.ok) problems.push({ field: "(sample)", text: `${JSON.stringify(base)} documented valid, refused at ${baseVerdict.paths.join(", ")}` });
    for (const [name, schema] of Object.entries(properties)) {
      for (const value of validSamples(schema)) {
        // Rules between fields (a minimum above the count) cannot be stated per field; only the field itself must not be named.
        if (!clean(name)(judge(route.body!, withPath({ ...base, [name]: value })))) problems.push({ field: name, text: `${name}=${JSON.stringify(value).slice(0, 60)} documented valid, refused` });
      }
      for (const value of invalidSamples(schema).filter((v) => !lenient(schema, v, required.has(name)))) {
        if (!names(name)(judge(route.body!, withPath({ ...base, [name]: value })))) problems.push({ field: name, text: `${name}=${JSON.stringify(value).slice(0, 60)} documented invalid, accepted` });
      }
      if (required.has(name)) {
        const { [name]: _left, ...without } = base;
        if (!names(name)(judge(route.body!, withPath(without)))) problems.push({ field: name, text: `${name} documented required, accepted when absent` });
      }
    }
    expect(unexcused(label, problems).join("\n")).toBe("");
  });

  it("needs every rule it excuses (a rule the document now states leaves the list)", () => {
    expect(Object.keys(BEYOND_JSON_SCHEMA).filter((k) => !excusedUsed.has(k))).toEqual([]);
  });
});
