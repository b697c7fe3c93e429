import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi";
import { API_ROUTES } from "./registry";

/** The share endpoints in the OpenAPI document: a project's share now, a tenant's envelope with its cohort now. */

const doc = buildOpenApiDocument(API_ROUTES, "http://localhost:3000");
type Schema = { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; anyOf?: Schema[]; items?: Schema; enum?: string[] };
type Operation = { summary: string; tags: string[]; parameters: { name: string; in: string }[]; requestBody?: unknown; responses: Record<string, { content?: { "application/json": { schema: Schema } } }> };
const operation = (p: string, method: string) => (doc.paths[p] as Record<string, Operation> | undefined)?.[method];
const success = (p: string) => operation(p, "get")!.responses["200"]!.content!["application/json"].schema;
const nullable = (s: Schema) => JSON.stringify(s).includes('"null"');

const PROJECT = "/api/v1/tenants/{tenant}/projects/{project}/quota-share";
const TENANT = "/api/v1/tenants/{tenant}/quota-share";

describe("OpenAPI document: seeing one's share", () => {
  it.each([PROJECT, TENANT])("documents GET %s only, with its path parameters, a tag and the error statuses", (p) => {
    const op = operation(p, "get");
    expect(op).toBeDefined();
    expect(Object.keys(doc.paths[p] as object)).toEqual(["get"]);
    expect(op!.tags).toEqual(["Quota envelopes"]);
    expect(op!.requestBody).toBeUndefined();
    expect(op!.parameters.filter((x) => x.in === "path").map((x) => x.name)).toEqual([...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
    expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(["200", "401", "403", "404"]));
  });

  it("states the modes and that live figures are null without a cluster", () => {
    for (const p of [PROJECT, TENANT]) {
      const out = success(p);
      expect(out.properties!.mode!.enum).toEqual(["live", "record-only", "no-kueue", "unavailable"]);
      expect(out.required).toEqual(expect.arrayContaining(["mode", "message", "readAt"]));
    }
    const line = success(PROJECT).properties!.lines!.items!;
    expect(Object.keys(line.properties!)).toEqual(["quota", "flavor", "resource", "guaranteed", "burst", "lendLimit", "inUse", "borrowed", "lent"]);
    for (const field of ["inUse", "borrowed", "lent"]) expect(nullable(line.properties![field]!), field).toBe(true);
    expect(nullable(line.properties!.guaranteed!)).toBe(false);
  });

  it("documents the tenant's envelope, its projects and the cohort's sums", () => {
    const out = success(TENANT);
    expect(Object.keys(out.properties!)).toEqual(expect.arrayContaining(["envelope", "projects", "totals", "cohort"]));
    expect(Object.keys(out.properties!.totals!.items!.properties!)).toEqual(expect.arrayContaining(["guaranteed", "lendable", "inUse", "borrowed", "lent"]));
    expect(out.properties!.totals!.items!.properties).not.toHaveProperty("lendLimit");
  });
});
