import { describe, expect, it } from "vitest";
import { FOCUS_COLUMN_NAMES } from "@/lib/metering/focus";
import { buildOpenApiDocument } from "./openapi";
import { API_ROUTES } from "./registry";

/** The usage push, spend and FOCUS export endpoints in the OpenAPI document. */

const doc = buildOpenApiDocument(API_ROUTES, "http://localhost:3000");
type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[]; items?: Schema; enum?: string[]; maxItems?: number; pattern?: string; additionalProperties?: unknown; anyOf?: Schema[] };
type Operation = {
  operationId: string;
  summary: string;
  tags: string[];
  parameters: { name: string; in: string; required: boolean; schema: Schema }[];
  requestBody?: { content: { "application/json": { schema: Schema } } };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
};
const operation = (p: string, method: string) => (doc.paths[p] as Record<string, Operation> | undefined)?.[method];

const SPEND_PATHS = ["/api/v1/tenants/{tenant}/projects/{project}/spend", "/api/v1/tenants/{tenant}/spend", "/api/v1/spend"] as const;
const FOCUS_PATHS = SPEND_PATHS.map((p) => `${p}/focus`);

describe("OpenAPI document: usage push, spend and FOCUS exports", () => {
  it.each([["/api/v1/usage", "post"], ...SPEND_PATHS.map((p) => [p, "get"]), ...FOCUS_PATHS.map((p) => [p, "get"])])("documents %s %s with a summary, the tag and the error responses", (p, method) => {
    const op = operation(p, method);
    expect(op, `${method} ${p}`).toBeDefined();
    expect(op!.summary.length).toBeGreaterThan(10);
    expect(op!.tags).toEqual(["Usage and spend"]);
    expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "404"]));
    expect(op!.parameters.filter((x) => x.in === "path").map((x) => x.name)).toEqual([...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
  });

  it("documents the push body: samples with their fields, at most 10,000, nothing else", () => {
    const body = operation("/api/v1/usage", "post")!.requestBody!.content["application/json"].schema;
    expect(body.required).toEqual(["samples"]);
    expect(body.additionalProperties).toBe(false);
    const samples = body.properties!.samples!;
    expect(samples.maxItems).toBe(10_000);
    const item = samples.items!;
    expect(Object.keys(item.properties!)).toEqual(["tenant", "project", "resource", "hour", "quantity", "requested", "used", "gpuUtilization"]);
    expect(item.required).toEqual(["tenant", "project", "resource", "hour"]);
    expect(item.additionalProperties).toBe(false);
    expect(new RegExp(item.properties!.resource!.pattern!).test("gpu:A100 1g.10gb")).toBe(true);
    const push = operation("/api/v1/usage", "post")!.responses["200"]!.content!["application/json"]!.schema;
    expect(Object.keys(push.properties!)).toEqual(["stored"]);
  });

  it.each(SPEND_PATHS)("documents %s's window query, JSON report and FOCUS CSV", (p) => {
    const op = operation(p, "get")!;
    expect(op.parameters.filter((x) => x.in === "query").map((x) => x.name)).toEqual(["range", "from", "to", "granularity", "format"]);
    expect(op.parameters.find((x) => x.name === "granularity")!.schema.enum).toEqual(["hour", "day", "month"]);
    expect(op.parameters.find((x) => x.name === "format")!.schema.enum).toEqual(["json", "csv"]);
    expect(Object.keys(op.responses["200"]!.content!).sort()).toEqual(["application/json", "text/csv"]);
    const report = op.responses["200"]!.content!["application/json"]!.schema;
    expect(Object.keys(report.properties!)).toEqual(
      expect.arrayContaining(["scope", "currency", "window", "totalCost", "series", "byResource", "unpricedResources", "budget", "byProject", "byTenant", "cluster"]),
    );
    expect(JSON.stringify(report)).not.toMatch(/"(tenantId|projectId)"/);
  });

  it.each(SPEND_PATHS)("documents %s's idle cost: the rule, what was charged back and (platform) what was left apart", (p) => {
    const report = operation(p, "get")!.responses["200"]!.content!["application/json"]!.schema;
    const idle = report.properties!.idleCost!;
    expect(report.required).toContain("idleCost");
    expect(Object.keys(idle.properties!)).toEqual(["mode", "rule", "chargedBack", "apart"]);
    expect(idle.properties!.mode!.enum).toEqual(["apart", "chargeback"]);
    expect(idle.required).toEqual(["mode", "rule", "chargedBack"]);
    const item = (list: string) => report.properties![list]!.items!;
    expect(Object.keys(item("byProject").properties!)).toContain("idleChargedBack");
    expect(item("byProject").required).not.toContain("idleChargedBack");
    expect(Object.keys(item("byTenant").properties!)).toEqual(["slug", "name", "cost", "idleChargedBack"]);
  });

  it.each(FOCUS_PATHS)("documents %s's FOCUS rows with every CSV column", (p) => {
    const op = operation(p, "get")!;
    const rows = op.responses["200"]!.content!["application/json"]!.schema.properties!.rows!.items!;
    expect(Object.keys(rows.properties!)).toEqual([...FOCUS_COLUMN_NAMES]);
    expect(rows.properties!.ServiceCategory!.enum).toEqual(["Compute", "Storage", "AI and Machine Learning", "Other"]);
    // Use is Usage; idle capacity is an Adjustment (nothing consumed), marked by x_IdleCost.
    expect(rows.properties!.ChargeCategory!.enum).toEqual(["Usage", "Adjustment"]);
    expect(rows.properties!.x_IdleCost!.anyOf!.flatMap((s) => s.enum ?? [])).toEqual(["apart", "chargeback"]);
    expect(Object.keys(op.responses["200"]!.content!).sort()).toEqual(["application/json", "text/csv"]);
  });
});
