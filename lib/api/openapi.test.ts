import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi";
import { API_ROUTES } from "./registry";

const doc = buildOpenApiDocument(API_ROUTES, "http://localhost:3000");
type Operation = { operationId: string; parameters: { name: string; in: string }[]; requestBody?: { content: { "application/json": { schema: Record<string, unknown> } } } };
const operation = (p: string, method: string) => (doc.paths[p] as Record<string, Operation> | undefined)?.[method];

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 with bearer security", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("lists the endpoints the issue asks for", () => {
    for (const [p, m] of [
      ["/api/v1/tenants", "get"],
      ["/api/v1/tenants/{tenant}/projects", "get"],
      ["/api/v1/tenants/{tenant}/projects/{project}", "get"],
      ["/api/v1/tenants/{tenant}/projects/{project}/access", "get"],
      ["/api/v1/tenants/{tenant}/members", "get"],
      ["/api/v1/tenants/{tenant}/collaborators", "get"],
      ["/api/v1/tenants/{tenant}/service-accounts", "get"],
      ["/api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/tokens", "post"],
      ["/api/v1/audit", "get"],
    ] as const) {
      expect(operation(p, m), `${m} ${p}`).toBeDefined();
    }
  });

  it("documents request bodies from the command schemas, without the path's own fields", () => {
    const body = operation("/api/v1/tenants/{tenant}/projects", "post")!.requestBody!.content["application/json"].schema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(["name", "slug", "description"]));
    expect(body.properties).not.toHaveProperty("tenant");
    expect(body.required).toContain("slug");
    expect(operation("/api/v1/tenants/{tenant}/projects", "post")!.parameters.map((p) => p.name)).toEqual(["tenant"]);
  });

  it("documents the token exchange as a public form endpoint with the RFC 8693 parameters", () => {
    const exchange = (doc.paths["/oauth/token"] as Record<string, { security: unknown[]; requestBody: { content: Record<string, { schema: { required: string[] } }> } }>).post!;
    expect(exchange.security).toEqual([]);
    expect(exchange.requestBody.content["application/x-www-form-urlencoded"]!.schema.required).toEqual(["grant_type", "subject_token", "subject_token_type"]);
  });

  it("gives every operation a unique id", () => {
    const ids = API_ROUTES.map((r) => operation(r.path, r.method.toLowerCase())!.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("has a route file serving each documented path from the registry, and no other route file", () => {
    const documented = new Set(API_ROUTES.map((r) => r.path));
    for (const p of documented) {
      const dir = p.replace(/^\/api\/v1/, "app/api/v1").replace(/\{(\w+)\}/g, "[$1]");
      const file = path.join(process.cwd(), dir, "route.ts");
      expect(fs.existsSync(file), file).toBe(true);
      expect(fs.readFileSync(file, "utf8")).toContain(`export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = routeFile("${p}");`);
    }
    const walk = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name === "route.ts" ? [path.join(dir, e.name)] : []));
    const files = walk(path.join(process.cwd(), "app/api/v1")).map((f) => path.relative(process.cwd(), path.dirname(f)));
    const served = files.filter((f) => !f.endsWith("openapi.json") && !f.endsWith("[[...unknown]]"));
    expect(served.length).toBe(documented.size);
    expect(files).toContain("app/api/v1/[[...unknown]]");
  });
});
