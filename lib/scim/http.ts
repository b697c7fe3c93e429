import "server-only";
import { db, type Database } from "@/db/client";
import type { AuditActor } from "@/lib/audit/record";
import { addressRetryAfter, clientAddress, prefixRetryAfter, recordAuthFailure } from "@/lib/api/rate-limit";
import { decide, scimClientActor } from "@/lib/auth/policy";
import { systemClock } from "@/lib/clock";
import { reportUnexpectedError } from "@/lib/errors";
import { firstUnsafeString } from "@/lib/input/text";
import { badRequest, scimErrorBody, ScimError } from "./errors";
import { authenticateScimToken } from "./token";

/**
 * The HTTP side of /scim/v2: the SCIM bearer token (and nothing else: a
 * browser session or a service account token is refused), the shared failure
 * limiter of the REST API, JSON bodies, and answers as application/scim+json.
 */
export const SCIM_CONTENT_TYPE = "application/scim+json";

export type ScimRequest = {
  db: Database;
  now: Date;
  actor: AuditActor;
  baseUrl: string;
  request: Request;
  params: Record<string, string>;
};

type RouteContext = { params: Promise<Record<string, string>> };

export function scimJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": SCIM_CONTENT_TYPE, "Cache-Control": "no-store", ...headers } });
}

export function scimError(error: ScimError, headers: Record<string, string> = {}): Response {
  return scimJson(scimErrorBody(error), error.status, headers);
}

const BEARER = /^Bearer\s+(\S+)$/i;
const unauthenticated = (detail: string) => scimError(new ScimError(401, detail), { "WWW-Authenticate": 'Bearer realm="allot-scim"' });

async function authenticate(request: Request, now: Date): Promise<AuditActor | Response> {
  const token = BEARER.exec(request.headers.get("authorization") ?? "")?.[1];
  if (!token) return unauthenticated("Send the SCIM token: Authorization: Bearer <token> (made by `allot scim-token`).");
  const address = clientAddress(request.headers);
  const limited = (seconds: number) => scimError(new ScimError(429, "Too many failed authentications. Try again later."), { "Retry-After": String(seconds) });
  const addressWait = await addressRetryAfter(db(), address, now);
  if (addressWait > 0) return limited(addressWait);
  const result = await authenticateScimToken(db(), token, now);
  if (!result.ok) {
    const prefixWait = await prefixRetryAfter(db(), result.prefix, now);
    await recordAuthFailure(db(), address, result.prefix, now);
    if (prefixWait > 0) return limited(prefixWait);
    return unauthenticated({ malformed: "Malformed SCIM token.", unknown: "Unknown SCIM token.", revoked: "This SCIM token was revoked.", expired: "This SCIM token has expired." }[result.reason]);
  }
  // The token says who calls; what that caller may do is the policy's decision, like everywhere else.
  if (!decide(scimClientActor(result.prefix), "scim.provision", { kind: "platform" }, now).allowed) {
    return scimError(new ScimError(403, "This token may not provision through SCIM."));
  }
  return { principalId: null, label: `scim:${result.prefix}` };
}

/** The JSON body; not JSON, not UTF-8 or holding a NUL is a 400 invalidSyntax. */
export async function scimBody(request: Request): Promise<unknown> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await request.arrayBuffer());
  } catch {
    throw badRequest("invalidSyntax", "The body is not UTF-8 text.");
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest("invalidSyntax", "The body is not JSON.");
  }
  const unsafe = firstUnsafeString(body);
  if (unsafe) throw badRequest("invalidValue", `${unsafe.path || "body"} ${unsafe.message}.`);
  return body;
}

/** One SCIM endpoint: authenticated, errors in the SCIM format, anything unexpected logged and answered 500 with a reference. */
export function scimRoute(handler: (r: ScimRequest) => Promise<Response>) {
  return async (request: Request, context: RouteContext): Promise<Response> => {
    try {
      const now = systemClock();
      const actor = await authenticate(request, now);
      if (actor instanceof Response) return actor;
      const url = new URL(request.url);
      const baseUrl = `${url.origin}/scim/v2`;
      const unsafe = firstUnsafeString([...url.searchParams]);
      if (unsafe) throw badRequest("invalidValue", `A query parameter ${unsafe.message}.`);
      return await handler({ db: db(), now, actor, baseUrl, request, params: await context.params });
    } catch (error) {
      if (error instanceof ScimError) return scimError(error);
      const ref = reportUnexpectedError(error, "scim");
      return scimError(new ScimError(500, `Something went wrong. Reference ${ref}.`));
    }
  };
}
