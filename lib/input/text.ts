/**
 * Text that must never get past the door: strings the database cannot store
 * (PostgreSQL refuses NUL in text and jsonb) or that are not Unicode at all
 * (a lone UTF-16 surrogate, which drivers silently turn into U+FFFD, so what
 * was stored is not what was sent), and path segments whose percent-encoding
 * is not UTF-8. Requests are checked once where they enter (the REST route
 * wrapper, the server-action wrapper, the proxy), so no command, query or
 * router ever sees such a string.
 */

export type UnsafeTextKind = "nul" | "lone_surrogate";

export const UNSAFE_TEXT_MESSAGES: Record<UnsafeTextKind, string> = {
  nul: "contains a NUL character, which cannot be stored",
  lone_surrogate: "contains an unpaired surrogate, which is not valid Unicode",
};

/** What is wrong with one string, or null when it is fine. */
export function unsafeTextKind(text: string): UnsafeTextKind | null {
  if (text.includes("\u0000")) return "nul";
  if (!text.isWellFormed()) return "lone_surrogate";
  return null;
}

export type UnsafeString = {
  /** Where in the value, as dotted keys ("resources.gpu", "names.2"); "" for the value itself. */
  path: string;
  kind: UnsafeTextKind;
  message: string;
};

/**
 * The first string in a JSON-like value (object keys included) that must not
 * be stored, or null. Walks with its own stack, so a deeply nested body cannot
 * overflow the call stack.
 */
export function firstUnsafeString(value: unknown): UnsafeString | null {
  const stack: { value: unknown; path: string }[] = [{ value, path: "" }];
  const join = (path: string, key: string | number) => (path === "" ? String(key) : `${path}.${key}`);
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === "string") {
      const kind = unsafeTextKind(current);
      if (kind) return { path, kind, message: UNSAFE_TEXT_MESSAGES[kind] };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: join(path, i) });
    } else if (current !== null && typeof current === "object") {
      const entries = Object.entries(current);
      for (const [i, [key]] of entries.entries()) {
        const kind = unsafeTextKind(key);
        // A bad key is reported by its position, since the key itself cannot be shown.
        if (kind) return { path: join(path, `[key ${i}]`), kind, message: UNSAFE_TEXT_MESSAGES[kind] };
      }
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], path: join(path, entries[i]![0]) });
    }
  }
  return null;
}

/**
 * A percent-encoded path segment decoded as UTF-8, or null when its encoding
 * is not UTF-8 (`%C3%28`), its escapes are malformed (`%G1`), or it decodes to
 * a string that must not be stored.
 */
export function decodePathSegment(segment: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return null;
  }
  return unsafeTextKind(decoded) ? null : decoded;
}

/** True when every segment of a raw (still encoded) URL path decodes to safe text. */
export function isSafeEncodedPath(pathname: string): boolean {
  return pathname.split("/").every((segment) => decodePathSegment(segment) !== null);
}
