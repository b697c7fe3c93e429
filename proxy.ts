import { NextResponse, type NextRequest } from "next/server";
import { errorResponse } from "@/lib/api/errors";
import { firstUnsafeString, isSafeEncodedPath } from "@/lib/input/text";
import { buildCsp } from "@/lib/security/csp";

/**
 * Runs before every page and API call: refuses addresses the router or the
 * database cannot take, sets a per-request CSP nonce, and sends visitors
 * without a session cookie to sign-in. The sign-in redirect is only a convenience: the real
 * check (is the session open, is the principal enabled, may it see this) is
 * made by the page through lib/auth on every request.
 */

// /oauth/token is the token exchange (lib/federation): the caller proves itself with the token it sends.
// /scim/ answers with its own bearer token, never a session (lib/scim/http.ts).
const PUBLIC_PATHS = [/^\/sign-in(\/|$)/, /^\/api\//, /^\/oauth\/token$/, /^\/scim\//, /^\/healthz$/, /^\/readyz$/];
const SESSION_COOKIE = /^(__Secure-)?authjs\.session-token(\.\d+)?$/;

const oidcOrigin = (() => {
  try {
    return process.env.OIDC_ISSUER ? [new URL(process.env.OIDC_ISSUER).origin] : [];
  } catch {
    return [];
  }
})();

/**
 * A path segment whose percent-encoding is not UTF-8 (`%C3%28`) or that decodes
 * to a NUL, or a NUL in the query: answered here, so that neither Next's router
 * (which fails to decode the segment) nor a page's query ever sees it.
 */
function refuseBadAddress(request: NextRequest): Response | null {
  const { pathname, searchParams } = request.nextUrl;
  const badPath = !isSafeEncodedPath(pathname);
  const badQuery = !badPath && firstUnsafeString([...searchParams]) !== null;
  if (!badPath && !badQuery) return null;
  const message = badPath
    ? "The path is not valid: a part of it is not UTF-8 text, or contains a NUL character."
    : "Invalid query: a parameter contains a NUL character, which cannot be stored.";
  if (pathname.startsWith("/api/")) return errorResponse("validation", message);
  return new NextResponse(`${message}\n`, { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

export function proxy(request: NextRequest) {
  const refused = refuseBadAddress(request);
  if (refused) return refused;
  const { pathname, search } = request.nextUrl;
  const hasSession = request.cookies.getAll().some((c) => SESSION_COOKIE.test(c.name));
  if (!hasSession && !PUBLIC_PATHS.some((p) => p.test(pathname))) {
    const signIn = new URL("/sign-in", request.url);
    if (pathname !== "/") signIn.searchParams.set("callbackUrl", `${pathname}${search}`);
    return NextResponse.redirect(signIn);
  }

  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const csp = buildCsp(nonce, { dev: process.env.NODE_ENV === "development", formActionOrigins: oidcOrigin });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("Content-Security-Policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

export const config = {
  // Static assets need neither a nonce nor a session.
  matcher: [{ source: "/((?!_next/static|_next/image|favicon.ico|.*\\.(?:png|svg|ico)$).*)" }],
};
