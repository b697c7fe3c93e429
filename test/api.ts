import path from "node:path";
import type { Database } from "@/db/client";
import { API_ROUTES } from "@/lib/api/registry";
import { createServiceAccountAsOperator, mintTokenAsOperator } from "@/lib/tenancy/operator";

/**
 * Calls the REST API in-process, through the handlers exported by the route
 * files under app/api/v1 (the ones Next serves), the way a client would call
 * them: a URL, a method, a bearer token and a JSON body. The route file and
 * its path parameters are found from the documented path templates.
 */

export type ApiResponse = { method: string; path: string; status: number; headers: Headers; text: string; json: unknown };

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

/**
 * A path parameter as Next hands it to the route: percent-decoded. A segment
 * that is not valid percent-encoded UTF-8 never gets that far: proxy.ts answers
 * it 400 (Next's router alone would fail with a bare 500); here it is passed on
 * undecoded, so the route's own checks still have to refuse it.
 */
function decodeParam(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The route file of a concrete path, and its parameters ("/api/v1/tenants/a" -> tenants/[tenant], { tenant: "a" }); the catch-all for any other. */
export function resolveRoute(pathname: string): { file: string; params: Record<string, string> } {
  for (const template of new Set(API_ROUTES.map((r) => r.path))) {
    const names: string[] = [];
    const pattern = new RegExp(
      `^${template.replace(/\{(\w+)\}/g, (_, name: string) => {
        names.push(name);
        return "([^/]+)";
      })}$`,
    );
    const match = pattern.exec(pathname);
    if (!match) continue;
    const params = Object.fromEntries(names.map((name, i) => [name, decodeParam(match[i + 1]!)]));
    const dir = template.replace(/^\/api\/v1/, "app/api/v1").replace(/\{(\w+)\}/g, "[$1]");
    return { file: path.join(process.cwd(), dir, "route.ts"), params };
  }
  if (pathname === "/api/v1/openapi.json") return { file: path.join(process.cwd(), "app/api/v1/openapi.json/route.ts"), params: {} };
  if (pathname === "/oauth/token") return { file: path.join(process.cwd(), "app/oauth/token/route.ts"), params: {} };
  // What Next serves for a path no route file matches (its catch-all parameter is not used).
  return { file: path.join(process.cwd(), "app/api/v1/[[...unknown]]/route.ts"), params: {} };
}

export async function routeModule(file: string): Promise<Record<string, unknown>> {
  return (await import(/* @vite-ignore */ file)) as Record<string, unknown>;
}

let addresses = 0;
/** A client address no other request of this process has used, so the failure limiter never links tests. */
export function freshAddress(): string {
  addresses += 1;
  return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
}

/** Every response of this process, for checks across all of them (secrets never leak). */
export const responses: ApiResponse[] = [];

export type CallOptions = {
  token?: string | null;
  /** The whole Authorization header, when it is not "Bearer <token>". */
  authorization?: string;
  body?: unknown;
  /** The raw body text (sent as is), e.g. invalid JSON. */
  rawBody?: string;
  contentType?: string;
  address?: string;
};

export async function callApi(method: string, pathAndQuery: string, options: CallOptions = {}): Promise<ApiResponse> {
  const url = new URL(pathAndQuery, "http://localhost");
  const { file, params } = resolveRoute(url.pathname);
  const handler = (await routeModule(file))[method] as Handler | undefined;
  if (typeof handler !== "function") throw new Error(`${file} exports no ${method}`);
  const headers = new Headers({ "x-forwarded-for": options.address ?? freshAddress() });
  if (options.authorization !== undefined) headers.set("authorization", options.authorization);
  else if (options.token) headers.set("authorization", `Bearer ${options.token}`);
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers.set("content-type", options.contentType ?? "application/json");
  const response = await handler(new Request(url, { method, headers, body }), { params: Promise.resolve(params) });
  const text = await response.text();
  let json: unknown = undefined;
  if ((response.headers.get("content-type") ?? "").includes("application/json")) json = JSON.parse(text);
  const recorded = { method, path: url.pathname + url.search, status: response.status, headers: response.headers, text, json };
  responses.push(recorded);
  return recorded;
}

export type OperationCall = { token: string; query?: Record<string, string>; body?: BodyInit; contentType?: string | null; timeoutMs?: number };

/**
 * Calls one operation's real handler with the given path parameters as Next
 * hands them over (already decoded, so a lone surrogate or an undecodable
 * segment can be sent, which a URL cannot carry), bounded in time.
 */
export async function callOperation(method: string, template: string, params: Record<string, string>, call: OperationCall) {
  const { file } = resolveRoute(template.replace(/\{(\w+)\}/g, "x"));
  const handler = (await routeModule(file))[method] as Handler;
  const url = new URL(`http://localhost${template.replace(/\{(\w+)\}/g, "x")}`);
  for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.set(k, v);
  const headers = new Headers({ authorization: `Bearer ${call.token}`, "x-forwarded-for": freshAddress() });
  if (call.body !== undefined && call.contentType !== null) headers.set("content-type", call.contentType ?? "application/json");
  const timeoutMs = call.timeoutMs ?? 5_000;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${method} ${template}: no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  const answer = (async () => {
    const response = await handler(new Request(url, { method, headers, body: call.body }), { params: Promise.resolve(params) });
    return { status: response.status, contentType: response.headers.get("content-type") ?? "", text: await response.text() };
  })();
  try {
    return await Promise.race([answer, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** Paths of every object key in a JSON value ("events.0.hash"). */
export function keyPaths(value: unknown, prefix = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => keyPaths(v, `${prefix}${i}.`));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => [`${prefix}${k}`, ...keyPaths(v, `${prefix}${k}.`)]);
  }
  return [];
}

export const BAD_TOKEN_KINDS = ["missing", "revoked", "expired", "disabled"] as const;
export type BadTokenKind = (typeof BAD_TOKEN_KINDS)[number];

/**
 * Bearer tokens that must be refused, filled by a test's setup. Each is used
 * once: the failure limiter blocks a token prefix after a few failures.
 */
export function badTokenPool() {
  const pool = { revoked: [] as string[], expired: [] as string[], disabled: [] as string[] };
  return Object.assign(pool, {
    take(this: void, kind: BadTokenKind): string | null {
      if (kind === "missing") return null;
      const next = pool[kind].pop();
      if (!next) throw new Error(`out of ${kind} tokens`);
      return next;
    },
  });
}

/** A service account created by the operator CLI's path, with one token. */
export async function operatorAccount(db: Database, at: Date, tenant: string | null, name: string, projectRoles: { project: string; role: "member" | "viewer" }[] = []) {
  const created = await createServiceAccountAsOperator(db, { tenant, name, description: "", projectRoles }, at);
  const minted = await mintTokenAsOperator(db, tenant, name, null, at);
  return { principalId: created.principalId, token: minted.token };
}
