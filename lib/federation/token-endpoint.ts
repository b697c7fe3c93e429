import "server-only";
import { addressRetryAfter, clientAddress, recordAuthFailure } from "@/lib/api/rate-limit";
import { reportUnexpectedError } from "@/lib/errors";
import { exchangeToken, type ExchangeDeps } from "./exchange";

/**
 * POST /oauth/token: the token exchange endpoint (RFC 8693 §2), public (the
 * subject token is the credential). Form-encoded in, JSON out, with RFC 6749
 * §5.2 errors. Failed exchanges count against the caller's address like
 * failed bearer tokens, so guessing is slow and refusals cannot flood the
 * audit log.
 */

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error, error_description: description }, { status, headers: { ...NO_STORE, ...headers } });
}

export async function handleTokenRequest(request: Request, deps: ExchangeDeps): Promise<Response> {
  if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return oauthError(400, "invalid_request", "Send the parameters as application/x-www-form-urlencoded (RFC 8693 §2.1).");
  }
  const address = clientAddress(request.headers);
  try {
    const wait = await addressRetryAfter(deps.db, address, deps.now);
    if (wait > 0) return oauthError(429, "invalid_request", "Too many failed exchanges from this address. Try again later.", { "Retry-After": String(wait) });
    const text = await request.text();
    if (text.length > 32_768) return oauthError(400, "invalid_request", "The request is too large.");
    const form = new URLSearchParams(text);
    const params: Record<string, string> = {};
    for (const [key, value] of form) {
      // RFC 6749 §3.2: parameters must not be repeated.
      if (Object.hasOwn(params, key)) return oauthError(400, "invalid_request", `${key.slice(0, 40)} is sent more than once.`);
      params[key] = value;
    }
    const result = await exchangeToken(deps, params);
    if (result.ok) return Response.json(result.body, { headers: NO_STORE });
    if (result.reason) await recordAuthFailure(deps.db, address, null, deps.now);
    return oauthError(result.status, result.error, result.description);
  } catch (error) {
    const ref = reportUnexpectedError(error, "POST /oauth/token");
    return oauthError(500, "server_error", `Something went wrong. Reference ${ref}.`);
  }
}
