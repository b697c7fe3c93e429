import { describe, expect, it } from "vitest";
import { resolveRoute, routeModule } from "@/test/api";
import { buildOpenApiDocument } from "./openapi";
import { API_ROUTES } from "./registry";
import { HTTP_METHODS } from "./route-file";

/**
 * Every method of every documented path, through the route files Next serves:
 * an undocumented method is a 405 with the error body and an Allow header, and
 * a path that names no endpoint is a 404 with the error body. None of these
 * reach authentication or the database.
 */

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
const doc = buildOpenApiDocument(API_ROUTES, "http://localhost");
const paths = Object.entries(doc.paths).map(([template, operations]) => ({ template, documented: Object.keys(operations).map((m) => m.toUpperCase()) }));

async function call(method: string, pathname: string): Promise<Response> {
  const { file, params } = resolveRoute(pathname);
  const handler = (await routeModule(file))[method] as Handler | undefined;
  if (typeof handler !== "function") throw new Error(`${file} exports no ${method}`);
  const body = ["POST", "PUT", "PATCH"].includes(method) ? "{}" : undefined;
  return handler(new Request(new URL(pathname, "http://localhost"), { method, body, headers: body ? { "content-type": "application/json" } : {} }), { params: Promise.resolve(params) });
}

async function expectErrorBody(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  expect(await response.json()).toEqual({ error: { code, message: expect.any(String) as unknown } });
}

const concrete = (template: string) => template.replace(/\{(\w+)\}/g, "x");

describe("methods the API does not document", () => {
  it("walks every documented path", () => {
    expect(paths.length).toBeGreaterThan(30);
  });

  it.each(paths)("$template answers 405 with the error body and Allow to every other method", async ({ template, documented }) => {
    const allow = HTTP_METHODS.filter((m) => documented.includes(m) || m === "OPTIONS" || (m === "HEAD" && documented.includes("GET")));
    for (const method of HTTP_METHODS.filter((m) => !allow.includes(m))) {
      const response = await call(method, concrete(template));
      expect(response.headers.get("allow"), `${method} ${template}`).toBe(allow.join(", "));
      if (method === "HEAD") expect(response.status).toBe(405);
      else await expectErrorBody(response, 405, "method_not_allowed");
    }
    const options = await call("OPTIONS", concrete(template));
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe(allow.join(", "));
  });

  it("answers HEAD like GET, without a body", async () => {
    const response = await call("HEAD", "/api/v1/me");
    expect(response.status).toBe(401);
    expect(await response.text()).toBe("");
  });

  it("refuses all but GET on the OpenAPI document itself", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) await expectErrorBody(await call(method, "/api/v1/openapi.json"), 405, "method_not_allowed");
    expect((await call("GET", "/api/v1/openapi.json")).status).toBe(200);
  });
});

describe("paths that name no endpoint", () => {
  const unknown = ["/api/v1", "/api/v1/nope", "/api/v1/tenants/a/nope", "/api/v1/tenants/a/projects/b/spend/focus/extra", "/api/v1/quota-requests/x/approve/again"];

  it.each(unknown)("%s answers 404 with the error body to every method", async (pathname) => {
    expect(resolveRoute(pathname).file).toContain("[[...unknown]]");
    for (const method of HTTP_METHODS) {
      const response = await call(method, pathname);
      if (method === "HEAD") expect(response.status).toBe(404);
      else await expectErrorBody(response, 404, "not_found");
    }
  });

  it("does not echo a huge path back whole", async () => {
    const response = await call("GET", `/api/v1/${"a".repeat(100_000)}`);
    expect(((await response.json()) as { error: { message: string } }).error.message.length).toBeLessThan(400);
  });
});
