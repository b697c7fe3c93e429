/**
 * Where a redirect that came from input (the sign-in `callbackUrl`) may send
 * the browser: only a path on this portal.
 *
 * A prefix check on the raw string is not enough, because the browser does not
 * follow the raw string: it removes tabs and newlines, reads `\` as `/`, and
 * resolves dot segments, so `/\t/evil.example/` or `/.//evil` become
 * `//evil.example/`, another site. So the target is parsed by the same WHATWG
 * URL parser browsers use, against the portal's origin, and accepted only if it
 * stays on that origin. What is returned is the parser's own serialisation of
 * the path (percent-encoded, no control characters), checked to resolve to the
 * very URL that was judged, so it can go into a Location header as it is.
 */

/**
 * Stands in for the portal's origin when the caller does not know it. No real
 * URL names a `.invalid` host, so against it only paths are accepted.
 */
export const PLACEHOLDER_ORIGIN = "https://portal.invalid";

export const DEFAULT_REDIRECT = "/";

/** Longer targets are not links anyone follows on purpose. */
const MAX_LENGTH = 2048;

// Control characters (tab, CR and LF among them) are refused outright rather
// than dropped as the browser would: no honest link carries them.
const CONTROL = /\p{Cc}/u;

/**
 * The same-origin path (pathname + search + hash) that `raw` leads to when
 * resolved against `origin`, or "/" when it would leave the origin, is not a
 * string, or carries control characters.
 */
export function safeRedirectPath(raw: unknown, origin: string = PLACEHOLDER_ORIGIN): string {
  if (typeof raw !== "string" || raw === "" || raw.length > MAX_LENGTH || CONTROL.test(raw) || !raw.isWellFormed()) return DEFAULT_REDIRECT;
  let base: URL;
  let target: URL;
  try {
    base = new URL(origin);
    target = new URL(raw, base);
  } catch {
    return DEFAULT_REDIRECT;
  }
  if (target.origin !== base.origin || (target.protocol !== "https:" && target.protocol !== "http:")) return DEFAULT_REDIRECT;
  const path = `${target.pathname}${target.search}${target.hash}`;
  // The serialised path is itself followed as a relative URL: a path that
  // begins "//" (from "/.//evil") would be read as another host. Accept only
  // a path that resolves back to exactly the URL judged above.
  if (!path.startsWith("/") || path.startsWith("//")) return DEFAULT_REDIRECT;
  let again: URL;
  try {
    again = new URL(path, base);
  } catch {
    return DEFAULT_REDIRECT;
  }
  return again.href === target.href ? path : DEFAULT_REDIRECT;
}
