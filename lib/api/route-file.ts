import "server-only";
import { errorResponse } from "./errors";
import { REGISTERED_ROUTES, type RouteHandler } from "./registry";

/**
 * What each app/api/v1/** route file exports: a handler for every method Next
 * serves, so that no request falls through to Next's empty 405 or HTML 404.
 * The methods a path implements come from the registry (the same list the
 * OpenAPI document is built from); every other method answers 405 with the
 * API's error body and an Allow header, OPTIONS answers 204 with Allow, and
 * HEAD is GET without its body.
 */

export const HTTP_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export type RouteFileHandlers = Record<HttpMethod, RouteHandler>;

/** The methods a path answers, in the order of HTTP_METHODS, for the Allow header. */
function allowOf(implemented: Partial<Record<HttpMethod, unknown>>): string {
  const allowed = new Set<HttpMethod>([...(Object.keys(implemented) as HttpMethod[]), "OPTIONS"]);
  if (implemented.GET) allowed.add("HEAD");
  return HTTP_METHODS.filter((m) => allowed.has(m)).join(", ");
}

const withoutBody = (response: Response) => new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });

/** Handlers for every method, from the ones a path implements. */
export function methodHandlers(path: string, implemented: Partial<Record<HttpMethod, RouteHandler>>): RouteFileHandlers {
  const allow = allowOf(implemented);
  const notAllowed: RouteHandler = (request) =>
    Promise.resolve(errorResponse("method_not_allowed", `${request.method} is not allowed on ${path}. Allowed: ${allow}.`, { headers: { Allow: allow } }));
  const get = implemented.GET;
  const fallback: Record<HttpMethod, RouteHandler> = {
    GET: notAllowed,
    HEAD: get ? async (request, context) => withoutBody(await get(request, context)) : notAllowed,
    OPTIONS: () => Promise.resolve(new Response(null, { status: 204, headers: { Allow: allow, "Cache-Control": "no-store" } })),
    POST: notAllowed,
    PUT: notAllowed,
    PATCH: notAllowed,
    DELETE: notAllowed,
  };
  return { ...fallback, ...implemented };
}

/** Everything a route file of a documented path exports: `export const { GET, HEAD, … } = routeFile("/api/v1/…")`. */
export function routeFile(path: string): RouteFileHandlers {
  const routes = REGISTERED_ROUTES.filter((r) => r.spec.path === path);
  if (routes.length === 0) throw new Error(`No API route is registered for ${path}`);
  return methodHandlers(path, Object.fromEntries(routes.map((r) => [r.spec.method, r.handle])));
}

/** The catch-all under /api/v1: every method of a path that names no endpoint is a 404 with the error body. */
export function unknownPathHandlers(): RouteFileHandlers {
  const notFound: RouteHandler = (request) => {
    // The path is echoed to help a caller spot a typo, cut short so a huge one is not sent back whole.
    const pathname = new URL(request.url).pathname;
    const shown = pathname.length > 200 ? `${pathname.slice(0, 200)}…` : pathname;
    return Promise.resolve(errorResponse("not_found", `No API endpoint at ${shown}. The endpoints are listed at /api/v1/openapi.json.`));
  };
  return Object.fromEntries(HTTP_METHODS.map((m) => [m, notFound])) as RouteFileHandlers;
}
