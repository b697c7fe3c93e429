import "server-only";
import { z } from "zod";
import { db } from "@/db/client";
import type { CommandContext } from "@/lib/auth/context";
import { identifyToken, noteTokenUse } from "@/lib/auth/token-auth";
import { systemClock } from "@/lib/clock";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { fieldErrorsOf } from "@/lib/auth/command";
import { refuseUnsafeText } from "@/lib/input/refuse";
import { errorResponse, errorToResponse } from "./errors";
import { addressRetryAfter, clientAddress, prefixRetryAfter, recordAuthFailure } from "./rate-limit";
import { parseInput } from "@/lib/input/messages";

/**
 * One REST endpoint: its documentation (for /api/v1/openapi.json) and its
 * handler, from the same zod schemas. Handlers receive the caller's context and
 * the parsed path, query and JSON body, and mostly just run a command.
 */
export type ApiRouteSpec<Params extends z.ZodType, Query extends z.ZodType, Response extends z.ZodType> = {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  summary: string;
  description?: string;
  tag: string;
  params: Params;
  query?: Query;
  /** The request body schema, as documented; the command behind it validates it. */
  body?: z.ZodType;
  /** Body properties that come from the path instead (removed from the documented body). */
  bodyFromPath?: string[];
  response: Response;
  status?: number;
  /** Returns text/csv instead of JSON when ?format=csv is asked (documented separately). */
  csv?: boolean;
  handler: (ctx: CommandContext, request: { params: z.output<Params>; query: z.output<Query>; body: Record<string, unknown>; format: "json" | "csv" }) => Promise<unknown>;
};

export type AnyApiRoute = ApiRouteSpec<z.ZodType, z.ZodType, z.ZodType>;

/** A CSV answer: text, or a stream of it (a FOCUS export is written part by part). */
export type CsvResult = { csv: string | ReadableStream<Uint8Array>; filename: string };
export function isCsvResult(value: unknown): value is CsvResult {
  return typeof value === "object" && value !== null && "csv" in value && "filename" in value;
}

const BEARER = /^Bearer\s+(\S+)$/i;

async function authenticate(request: Request): Promise<CommandContext | Response> {
  const address = clientAddress(request.headers);
  const header = request.headers.get("authorization");
  const token = header ? BEARER.exec(header)?.[1] : undefined;
  const limited = (seconds: number) =>
    errorResponse("rate_limited", "Too many failed authentications. Try again later.", { headers: { "Retry-After": String(seconds) } });
  // No token, nothing to guess with: answered before the shared failure counts are read.
  if (!token) {
    return errorResponse("unauthenticated", "Send a service account token: Authorization: Bearer <token>.", { headers: { "WWW-Authenticate": 'Bearer realm="allot"' } });
  }
  const now = systemClock();
  // The address's failure count and the token (with its actor, one statement) are read side by side; nothing is written unless the token is accepted.
  const [addressWait, result] = await Promise.all([addressRetryAfter(db(), address, now), identifyToken(db(), token, now, config().platformAdminEmails)]);
  if (addressWait > 0) return limited(addressWait);
  if (!result.ok) {
    // A prefix under attack answers 429 to wrong tokens only: the holder of the
    // right token (the prefix is public) is never locked out by someone else.
    const prefixWait = await prefixRetryAfter(db(), result.prefix, now);
    await recordAuthFailure(db(), address, result.prefix, now);
    if (prefixWait > 0) return limited(prefixWait);
    const message = { malformed: "Malformed token.", unknown: "Unknown token.", revoked: "This token was revoked.", expired: "This token has expired.", disabled: "This service account is disabled." }[result.reason];
    return errorResponse("unauthenticated", message, { headers: { "WWW-Authenticate": 'Bearer realm="allot", error="invalid_token"' } });
  }
  await noteTokenUse(db(), result.token, now);
  return { actor: result.actor, db: db(), now };
}

/**
 * The body as UTF-8 text, or a validation error. `request.text()` would turn
 * bytes that are not UTF-8 into U+FFFD and let them be stored as if sent; a
 * fatal decoder refuses them instead.
 */
async function bodyText(request: Request): Promise<string> {
  const bytes = await request.arrayBuffer();
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("validation", "The body is not valid UTF-8: send JSON encoded as UTF-8.");
  }
}

async function readBody(request: Request): Promise<Record<string, unknown>> {
  if (request.method === "GET" || request.method === "DELETE") return {};
  const text = await bodyText(request);
  if (!text.trim()) return {};
  if (!(request.headers.get("content-type") ?? "").includes("application/json")) {
    throw new AppError("validation", "Send the body as JSON with Content-Type: application/json.");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError("validation", "The body is not valid JSON.");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new AppError("validation", "The body must be a JSON object.");
  return parsed as Record<string, unknown>;
}

function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const result = parseInput(schema, value);
  if (!result.success) throw new AppError("validation", `Invalid ${where}.`, fieldErrorsOf(result.error));
  return result.data;
}

export function apiRoute<Params extends z.ZodType, Query extends z.ZodType, Response extends z.ZodType>(spec: ApiRouteSpec<Params, Query, Response>) {
  const handle = async (request: Request, context?: { params?: Promise<Record<string, string | string[]>> }): Promise<globalThis.Response> => {
    try {
      const ctx = await authenticate(request);
      if (ctx instanceof Response) return ctx;
      const url = new URL(request.url);
      const rawQuery = Object.fromEntries(url.searchParams);
      // ?format is documented (json or csv) only where CSV is offered; there anything else is refused, not read as json.
      if (spec.csv && rawQuery.format !== undefined && rawQuery.format !== "json" && rawQuery.format !== "csv") {
        throw new AppError("validation", "Invalid query: format must be json or csv.", { format: ["Enter json or csv."] });
      }
      const format = rawQuery.format === "csv" && spec.csv ? "csv" : "json";
      delete rawQuery.format;
      // Routes without dynamic segments get no params from Next.
      const rawParams = (await context?.params) ?? {};
      const body = await readBody(request);
      refuseUnsafeText({ path: rawParams, query: rawQuery, body });
      const params = parseOrThrow(spec.params, rawParams, "path");
      const query = parseOrThrow(spec.query ?? z.object({}), rawQuery, "query") as z.output<Query>;
      const result = await spec.handler(ctx, { params, query, body, format });
      if (isCsvResult(result)) {
        return new Response(result.csv, {
          status: 200,
          headers: { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="${result.filename}"`, "Cache-Control": "no-store" },
        });
      }
      // Dates become ISO strings, then the response schema drops anything undocumented (hashes never leak).
      const shaped = spec.response.parse(JSON.parse(JSON.stringify(result ?? null)));
      return Response.json(shaped, { status: spec.status ?? 200, headers: { "Cache-Control": "no-store" } });
    } catch (error) {
      return errorToResponse(error, `${spec.method} ${spec.path}`);
    }
  };
  return { spec: spec as unknown as AnyApiRoute, handle };
}

/** Merge path parameters over the JSON body: the path decides which tenant, never the body. */
export function commandInput(body: Record<string, unknown>, fromPath: Record<string, unknown>): Record<string, unknown> {
  return { ...body, ...fromPath };
}
