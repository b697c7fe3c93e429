import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi";
import { API_ROUTES } from "./registry";

/**
 * The reference page shows, for every operation, a curl line and (for a body)
 * an example body. The example is made from the route's own schema, so the
 * API must accept it: checked here against the zod schema the route validates with.
 */
const SERVER = "http://localhost:3000";
const doc = buildOpenApiDocument(API_ROUTES, SERVER);
type Operation = { "x-codeSamples"?: { lang: string; label: string; source: string }[]; requestBody?: { content: Record<string, { example?: unknown }> } };
const operationOf = (path: string, method: string) => (doc.paths[path] as Record<string, Operation>)[method]!;

describe("examples in the OpenAPI document", () => {
  it("gives every operation a curl example that names its method, address and token", () => {
    for (const route of API_ROUTES) {
      const samples = operationOf(route.path, route.method.toLowerCase())["x-codeSamples"];
      expect(samples, `${route.method} ${route.path}`).toHaveLength(1);
      const source = samples![0]!.source;
      expect(source, route.path).toMatch(new RegExp(`^curl${route.method === "GET" ? "" : ` -X ${route.method}`} "${SERVER}/api/v1/`));
      expect(source, route.path).not.toMatch(/\{[a-zA-Z]+\}/);
      expect(source).toContain('-H "Authorization: Bearer $ALLOT_TOKEN"');
    }
    expect(operationOf("/oauth/token", "post")["x-codeSamples"]![0]!.source).toContain("grant_type=urn:ietf:params:oauth:grant-type:token-exchange");
  });

  it("gives every request body an example its route accepts", () => {
    const withBody = API_ROUTES.filter((r) => r.body);
    expect(withBody.length).toBeGreaterThan(5);
    const refused: string[] = [];
    for (const route of withBody) {
      const operation = operationOf(route.path, route.method.toLowerCase());
      const example = operation.requestBody!.content["application/json"]!.example as Record<string, unknown>;
      // Fields the route takes from the address: an id there is a UUID, a slug a slug.
      const fromPath = Object.fromEntries((route.bodyFromPath ?? []).map((name) => [name, /Id$/.test(name) ? "00000000-0000-4000-8000-000000000000" : name === "prefix" ? "abcdef012345" : "example"]));
      const parsed = route.body!.safeParse({ ...example, ...fromPath });
      if (!parsed.success) refused.push(`${route.method} ${route.path}: ${JSON.stringify(example)} ${parsed.error.message}`);
      expect(operation["x-codeSamples"]![0]!.source).toContain(`-d '${JSON.stringify(example)}'`);
    }
    expect(refused).toEqual([]);
  });

  it("says how to get a token before the first call: a service account token, or the token exchange", () => {
    const intro = doc.info.description;
    expect(intro).toContain("## Getting a token");
    expect(intro).toContain("Service accounts");
    expect(intro).toContain("POST /oauth/token");
    expect(intro).toContain(`curl "${SERVER}/api/v1/me"`);
  });
});
