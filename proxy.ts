import { NextResponse, type NextRequest } from "next/server";
import { buildCsp } from "@/lib/security/csp";

/**
 * Runs before every page: sets a per-request CSP nonce, and sends visitors
 * without a session cookie to sign-in. This is only a convenience: the real
 * check (is the session open, is the principal enabled, may it see this) is
 * made by the page through lib/auth on every request.
 */

const PUBLIC_PATHS = [/^\/sign-in(\/|$)/, /^\/api\//, /^\/healthz$/, /^\/readyz$/];
const SESSION_COOKIE = /^(__Secure-)?authjs\.session-token(\.\d+)?$/;

const oidcOrigin = (() => {
  try {
    return process.env.OIDC_ISSUER ? [new URL(process.env.OIDC_ISSUER).origin] : [];
  } catch {
    return [];
  }
})();

export function proxy(request: NextRequest) {
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
