/**
 * The Content-Security-Policy for one response. Scripts run only with this
 * request's nonce ('strict-dynamic' lets Next's own loader add chunks);
 * 'unsafe-eval' is allowed only in development, where React needs it for
 * debugging. `formActionOrigins` lists identity providers a sign-in form may
 * redirect to.
 */
export function buildCsp(nonce: string, options: { dev: boolean; formActionOrigins: string[] }): string {
  const directives: Record<string, string[]> = {
    "default-src": ["'self'"],
    "script-src": ["'self'", `'nonce-${nonce}'`, "'strict-dynamic'", ...(options.dev ? ["'unsafe-eval'"] : [])],
    // Inline style attributes come from React and Radix positioning; styles cannot run code.
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:", "blob:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'", ...options.formActionOrigins],
    "frame-ancestors": ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(" ")}`)
    .join("; ");
}
