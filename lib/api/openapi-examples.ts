import { GRANT_TYPE, JWT_TOKEN_TYPE } from "@/lib/federation/token-types";

/**
 * Examples for the OpenAPI document: a request body made from each
 * operation's own JSON schema, and a ready `curl` line per operation
 * (`x-codeSamples`, which the reference page shows beside the operation).
 * Built from the schemas, so an example cannot name a field the API refuses.
 */

type JsonSchema = Record<string, unknown>;

/** A value that fits a schema: its example or default, the first enum value, else a placeholder of its type and format. */
export function exampleOf(schema: JsonSchema | undefined, name = "value", depth = 0): unknown {
  if (!schema || depth > 6) return null;
  if (schema.examples && Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key] as JsonSchema[] | undefined;
    if (branches?.length) return exampleOf(branches.find((b) => b.type !== "null") ?? branches[0], name, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...(schema.allOf as JsonSchema[]).map((part) => exampleOf(part, name, depth + 1) as object));
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== "null") : (schema.type as string | undefined);
  switch (type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      // Required fields only: the smallest body the API accepts, which is what a first call needs.
      const keys = Object.keys(properties).filter((k) => required.has(k));
      return Object.fromEntries(keys.map((k) => [k, exampleOf(properties[k], k, depth + 1)]));
    }
    case "array":
      return (schema.minItems as number | undefined) ? [exampleOf(schema.items as JsonSchema, name, depth + 1)] : [];
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : 1;
    case "boolean":
      return false;
    case "string":
      return stringExample(schema, name);
    default:
      return null;
  }
}

function stringExample(schema: JsonSchema, name: string): string {
  switch (schema.format) {
    case "date-time":
      return "2026-12-01T00:00:00Z";
    case "date":
      return "2026-12-01";
    case "email":
      return "ada@example.com";
    case "uuid":
      return "00000000-0000-4000-8000-000000000000";
    case "uri":
      return "https://issuer.example.com";
  }
  const min = (schema.minLength as number | undefined) ?? 0;
  const text = /slug|name$/i.test(name) ? "example" : `${name}`;
  return text.length >= min ? text : text.padEnd(min, "x");
}

/**
 * Bodies the schema alone cannot make valid (a field that must match a
 * pattern, a choice between two fields, a price written as text), written
 * out by operation. openapi-examples.test.ts checks every body example
 * against the route's own validation.
 */
export const BODY_EXAMPLES: Record<string, unknown> = {
  "PATCH /api/v1/tenants/{tenant}/service-accounts/{serviceAccount}": { description: "Deploys the training images from CI" },
  "POST /api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/tokens": { expiresInDays: 30 },
  "POST /api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/tokens/{prefix}/rotate": { expiresInDays: 30 },
  "POST /api/v1/rates": { resource: "gpu:H100", unitPrice: "4.10" },
  "PUT /api/v1/tenants/{tenant}/quota-envelope": { quota: "gpu:H100", guarantee: "8" },
  "POST /api/v1/tenants/{tenant}/quota-moves": { quota: "gpu:H100", amount: "2", to: "detector-training" },
  "POST /api/v1/tenants/{tenant}/projects/{project}/quota-requests": {
    gpus: [
      { model: "H100", count: "2", burst: "2" },
      { model: "L4", count: "4" },
    ],
    cpuCores: "16",
    cpuBurst: "32",
    memory: "128Gi",
    memoryBurst: "256Gi",
    justification: "Fine-tuning on H100s with preemptible sweeps on idle ones, and serving on L4s.",
  },
  "POST /api/v1/tenants/{tenant}/projects/{project}/quota-grants/{grant}/extension": { endsAt: "2027-03-31", justification: "The detector's training run needs four more weeks on the new camera data." },
  "POST /api/v1/usage": { samples: [{ tenant: "vision-lab", project: "detector-training", resource: "gpu:H100", hour: "2026-12-01T10:00:00Z", quantity: 2 }] },
};

/** `{tenant}` → `vision-lab`: the demo's names, so the example runs against the demo as written. */
export const PATH_EXAMPLES: Record<string, string> = { tenant: "vision-lab", project: "detector-training" };

function examplePath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => PATH_EXAMPLES[name] ?? `<${name}>`);
}

/** One shell line per operation, with the token from the environment ($ALLOT_TOKEN, never pasted into history). */
export function curlSample(method: string, path: string, serverUrl: string, body?: unknown): string {
  const lines = [`curl${method === "GET" ? "" : ` -X ${method}`} "${serverUrl}${examplePath(path)}"`, `  -H "Authorization: Bearer $ALLOT_TOKEN"`];
  if (body !== undefined) {
    lines.push(`  -H "Content-Type: application/json"`);
    lines.push(`  -d '${JSON.stringify(body)}'`);
  }
  return lines.join(" \\\n");
}

/** The token exchange takes a form and no bearer token. */
export function tokenExchangeSample(serverUrl: string): string {
  return [
    `curl -X POST "${serverUrl}/oauth/token"`,
    `  --data-urlencode "grant_type=${GRANT_TYPE}"`,
    `  --data-urlencode "subject_token_type=${JWT_TOKEN_TYPE}"`,
    `  --data-urlencode "subject_token=$OIDC_TOKEN"`,
    `  --data-urlencode "audience=vision-lab/ci-bot"`,
  ].join(" \\\n");
}

/** The reference's introduction: where a token comes from, before the first call. */
export function gettingATokenMarkdown(serverUrl: string): string {
  return [
    "Self-service quota, access and cost for the shared ML platform. Tenants and projects are addressed by slug.",
    "",
    "## Getting a token",
    "",
    "Every call carries a service account's token: `Authorization: Bearer allot_…`. The token acts with the account's roles, nothing more: an account with no role sees no tenant or project.",
    "",
    "1. **A service account token.** A tenant admin opens the tenant's *Service accounts* page, creates an account, gives it project or tenant roles, and mints a token. It is shown once; keep it in your secret store. Operators can mint one with the CLI: `allot mint-token --tenant vision-lab --service-account ci-bot --expires-days 30`.",
    "2. **Keyless, from your CI or cluster (token exchange).** If the account trusts an OIDC issuer (GitHub Actions, GitLab, a Kubernetes projected service account token), exchange the issuer's JWT for a short-lived token at `POST /oauth/token` (RFC 8693), no stored secret needed:",
    "",
    "```sh",
    tokenExchangeSample(serverUrl),
    "```",
    "",
    "The answer's `access_token` is used like any other token until `expires_in` seconds have passed.",
    "",
    "Then, for example:",
    "",
    "```sh",
    `export ALLOT_TOKEN=allot_…`,
    curlSample("GET", "/api/v1/me", serverUrl),
    "```",
    "",
    "Errors are `{ \"error\": { \"code\", \"message\", \"fields\"? } }`; `fields` names each wrong field.",
  ].join("\n");
}
