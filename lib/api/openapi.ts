import "server-only";
import { z } from "zod";
import { API_ERROR_CODES } from "./errors";
import { BODY_EXAMPLES, PATH_EXAMPLES, curlSample, exampleOf, gettingATokenMarkdown, tokenExchangeSample } from "./openapi-examples";
import { ACCESS_TOKEN_TYPE, GRANT_TYPE, ID_TOKEN_TYPE, JWT_TOKEN_TYPE } from "@/lib/federation/token-types";
import type { AnyApiRoute } from "./route";

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

/** Remove properties that come from the path, in plain objects and in intersections (allOf). */
function withoutProperties(schema: JsonSchema, names: string[]): JsonSchema {
  if (Array.isArray(schema.allOf)) return { ...schema, allOf: (schema.allOf as JsonSchema[]).map((s) => withoutProperties(s, names)) };
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (!properties) return schema;
  return {
    ...schema,
    properties: Object.fromEntries(Object.entries(properties).filter(([k]) => !names.includes(k))),
    ...(Array.isArray(schema.required) ? { required: (schema.required as string[]).filter((k) => !names.includes(k)) } : {}),
  };
}

/**
 * A number field takes a JSON number or its digits (lib/input/numbers.ts). In a
 * path or query every value is text, so the parameter is documented as the
 * number it must be ("?version=3": integer, 1 to 2147483647), as OpenAPI
 * clients encode it; its text and empty forms are how that number arrives.
 */
function asParameter(schema: JsonSchema): JsonSchema {
  const branches = schema.anyOf as JsonSchema[] | undefined;
  const numeric = branches?.find((b) => b.type === "integer" || b.type === "number");
  if (!numeric) return schema;
  const { anyOf: _drop, ...rest } = schema;
  return { ...rest, ...numeric };
}

function parameters(schema: z.ZodType | undefined, where: "path" | "query") {
  if (!schema) return [];
  const json = jsonSchema(schema, "input");
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === "path" || required.has(name),
    schema: asParameter(s),
    ...(where === "path" && PATH_EXAMPLES[name] ? { example: PATH_EXAMPLES[name] } : {}),
  }));
}

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });

/**
 * POST /oauth/token (lib/federation/token-endpoint.ts) is no /api/v1 route: it
 * takes a form, answers OAuth errors and needs no bearer token, so it is
 * described here by hand, from the constants the endpoint itself uses.
 */
const oauthErrorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { type: "object", required: ["error"], properties: { error: { type: "string" }, error_description: { type: "string" } } } } },
});

const tokenExchangeOperation = {
  operationId: "postOauthToken",
  summary: "Exchange an external OIDC token (GitHub Actions, GitLab, a Kubernetes projected service account token) for a short-lived token of the service account that trusts its issuer (RFC 8693)",
  tags: ["Service accounts"],
  security: [],
  requestBody: {
    required: true,
    content: {
      "application/x-www-form-urlencoded": {
        schema: {
          type: "object",
          required: ["grant_type", "subject_token", "subject_token_type"],
          properties: {
            grant_type: { type: "string", enum: [GRANT_TYPE] },
            subject_token: { type: "string", description: "The JWT from the issuer; accepted once" },
            subject_token_type: { type: "string", enum: [JWT_TOKEN_TYPE, ID_TOKEN_TYPE] },
            requested_token_type: { type: "string", enum: [ACCESS_TOKEN_TYPE] },
            audience: { type: "string", description: "<tenant>/<service-account>, when trusts of several accounts would accept the token" },
          },
        },
      },
    },
  },
  responses: {
    "200": {
      description: "A bearer token of the service account, acting with its roles until it expires",
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["access_token", "issued_token_type", "token_type", "expires_in"],
            properties: {
              access_token: { type: "string" },
              issued_token_type: { type: "string", enum: [ACCESS_TOKEN_TYPE] },
              token_type: { type: "string", enum: ["Bearer"] },
              expires_in: { type: "integer", description: "Seconds (ALLOT_FEDERATION_TOKEN_MINUTES)" },
            },
          },
        },
      },
    },
    "400": oauthErrorResponse("invalid_request, unsupported_grant_type, invalid_grant (the token was refused) or invalid_target"),
    "429": oauthErrorResponse("Too many failed exchanges from this address; see Retry-After"),
    "503": oauthErrorResponse("temporarily_unavailable: the issuer's keys could not be fetched"),
  },
};

/**
 * The OpenAPI 3.1 document, generated from the routes' own zod schemas (the
 * same ones that validate requests and shape responses), so it cannot drift.
 */
export function buildOpenApiDocument(routes: AnyApiRoute[], serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const success: Record<string, unknown> = { "application/json": { schema: jsonSchema(route.response, "output") } };
    if (route.csv) success["text/csv"] = { schema: { type: "string" } };
    const operation: Record<string, unknown> = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/\/api\/v1/, "").replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
      summary: route.summary,
      tags: [route.tag],
      parameters: [
        ...parameters(route.params, "path"),
        ...parameters(route.query, "query"),
        ...(route.csv ? [{ name: "format", in: "query", required: false, schema: { type: "string", enum: ["json", "csv"] } }] : []),
      ],
      responses: {
        [String(route.status ?? 200)]: { description: "Success", content: success },
        "400": errorResponse("Invalid input; `fields` names each wrong field"),
        "401": errorResponse("Missing, unknown, revoked or expired token"),
        "403": errorResponse("Visible to you, but not yours to change"),
        "404": errorResponse("Does not exist, or outside your reach"),
        "409": errorResponse("Conflicts with the current state (taken, changed meanwhile, last admin …)"),
        "429": errorResponse("Too many failed authentications; see Retry-After"),
      },
    };
    let exampleBody: unknown;
    if (route.body) {
      const schema = withoutProperties(jsonSchema(route.body, "input"), route.bodyFromPath ?? []);
      exampleBody = BODY_EXAMPLES[`${route.method} ${route.path}`] ?? exampleOf(schema);
      operation.requestBody = { required: true, content: { "application/json": { schema, example: exampleBody } } };
    }
    operation["x-codeSamples"] = [{ lang: "Shell", label: "curl", source: curlSample(route.method, route.path, serverUrl, exampleBody) }];
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  paths["/oauth/token"] = { post: { ...tokenExchangeOperation, "x-codeSamples": [{ lang: "Shell", label: "curl", source: tokenExchangeSample(serverUrl) }] } };
  return {
    openapi: "3.1.0",
    info: {
      title: "Allot API",
      version: "1",
      description: gettingATokenMarkdown(serverUrl),
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "A service account token minted in the portal or with the CLI" } },
      schemas: {
        Error: {
          type: "object",
          required: ["error"],
          properties: {
            error: {
              type: "object",
              required: ["code", "message"],
              properties: {
                code: { type: "string", enum: API_ERROR_CODES },
                message: { type: "string" },
                fields: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
                ref: { type: "string", description: "Reference id of an unexpected error, as logged on the server" },
              },
            },
          },
        },
      },
    },
  };
}
