import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi";
import { API_ROUTES } from "./registry";

/** The capacity, rate card and quota request endpoints in the OpenAPI document. */

const doc = buildOpenApiDocument(API_ROUTES, "http://localhost:3000");
type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[]; anyOf?: Schema[]; allOf?: Schema[] };
type Operation = {
  operationId: string;
  summary: string;
  tags: string[];
  parameters: { name: string; in: string; required: boolean }[];
  requestBody?: { content: { "application/json": { schema: Schema } } };
  responses: Record<string, { content?: { "application/json": { schema: Schema } } }>;
};
const operation = (p: string, method: string) => (doc.paths[p] as Record<string, Operation> | undefined)?.[method];
const bodyOf = (p: string, method: string) => operation(p, method)!.requestBody!.content["application/json"].schema;
const successOf = (p: string, method: string, status: string) => operation(p, method)!.responses[status]!.content!["application/json"].schema;

const NEW_OPERATIONS = [
  ["/api/v1/node-pools", "get", "200"],
  ["/api/v1/node-pools", "post", "201"],
  ["/api/v1/node-pools/{pool}", "patch", "200"],
  ["/api/v1/node-pools/{pool}", "delete", "200"],
  ["/api/v1/rates", "get", "200"],
  ["/api/v1/rates", "post", "201"],
  ["/api/v1/tenants/{tenant}/projects/{project}/quota-requests", "post", "201"],
  ["/api/v1/tenants/{tenant}/projects/{project}/quota-requests", "get", "200"],
  ["/api/v1/quota-requests", "get", "200"],
  ["/api/v1/quota-requests/{id}", "get", "200"],
  ["/api/v1/quota-requests/{id}/approve", "post", "200"],
  ["/api/v1/quota-requests/{id}/reject", "post", "200"],
  ["/api/v1/quota-requests/{id}/cancel", "post", "200"],
  ["/api/v1/quota-requests/{id}", "patch", "200"],
  ["/api/v1/quota-requests/{id}/comments", "get", "200"],
  ["/api/v1/quota-requests/{id}/comments", "post", "201"],
  ["/api/v1/tenants/{tenant}/projects/{project}/quota", "get", "200"],
] as const;

describe("OpenAPI document: capacity and quota requests", () => {
  it.each(NEW_OPERATIONS)("documents %s %s with its success status, a summary and a tag", (p, method, status) => {
    const op = operation(p, method);
    expect(op, `${method} ${p}`).toBeDefined();
    expect(op!.summary.length).toBeGreaterThan(10);
    expect(["Capacity and prices", "Quota requests"]).toContain(op!.tags[0]);
    expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining([status, "400", "401", "403", "404", "409"]));
    expect(op!.parameters.filter((x) => x.in === "path").map((x) => x.name)).toEqual([...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
  });

  it("documents the quota request body without the path's fields, amounts as text or numbers", () => {
    const body = bodyOf("/api/v1/tenants/{tenant}/projects/{project}/quota-requests", "post");
    expect(Object.keys(body.properties!)).toEqual(expect.arrayContaining(["gpuModel", "gpuCount", "cpuCores", "memory", "storage", "endsAt", "justification"]));
    expect(body.properties).not.toHaveProperty("tenant");
    expect(body.properties).not.toHaveProperty("project");
    expect(body.required).toEqual(["justification"]);
    const memory = JSON.stringify(body.properties!.memory);
    expect(memory).toContain('"string"');
    expect(memory).toContain('"number"');
  });

  it("documents decisions with the version required and the request id from the path only", () => {
    const approve = bodyOf("/api/v1/quota-requests/{id}/approve", "post");
    expect(approve.properties).not.toHaveProperty("requestId");
    expect(Object.keys(approve.properties!)).toEqual(expect.arrayContaining(["version", "gpuCount", "cpuCores", "memory", "storage", "endsAt", "note"]));
    expect(approve.required).toEqual(["version"]);
    const reject = bodyOf("/api/v1/quota-requests/{id}/reject", "post");
    expect(reject.properties).not.toHaveProperty("requestId");
    expect([...reject.required!].sort()).toEqual(["reason", "version"]);
    expect(operation("/api/v1/quota-requests/{id}/cancel", "post")!.requestBody).toBeUndefined();
  });

  it("documents the status filter and the shapes that leave the server", () => {
    const status = operation("/api/v1/quota-requests", "get")!.parameters.find((x) => x.name === "status");
    expect(status).toMatchObject({ in: "query", required: false });
    const created = successOf("/api/v1/tenants/{tenant}/projects/{project}/quota-requests", "post", "201");
    expect(Object.keys(created.properties!).sort()).toEqual(["autoApproval", "autoApproved", "estimate", "request"]);
    const detail = successOf("/api/v1/quota-requests/{id}", "get", "200");
    expect(Object.keys(detail.properties!)).toEqual(expect.arrayContaining(["status", "version", "amounts", "monthlyCost", "currency", "timeline", "decision"]));
    const rates = successOf("/api/v1/rates", "get", "200");
    expect(Object.keys(rates.properties!).sort()).toEqual(["currency", "history", "rateCard"]);
    const pool = bodyOf("/api/v1/node-pools/{pool}", "patch");
    expect(pool.required).toEqual(["version"]);
    expect(operation("/api/v1/node-pools/{pool}", "delete")!.parameters.map((x) => `${x.in}:${x.name}`)).toEqual(["path:pool", "query:version"]);
  });
});
