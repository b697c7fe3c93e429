import { ScimError } from "./errors";

/** Weak ETags from a resource's version (RFC 7644 3.14); every SCIM write bumps the version. */
export const etagOf = (version: number) => `W/"${version}"`;

/**
 * If-Match on a write: absent or `*` lets it through; otherwise one of the
 * listed tags must be the current one (weak comparison), else 412.
 */
export function checkIfMatch(header: string | null, version: number): void {
  if (header === null || header.trim() === "*") return;
  const current = String(version);
  const tags = header.split(",").map((t) => t.trim().replace(/^W\//, "").replace(/^"|"$/g, ""));
  if (!tags.includes(current)) throw new ScimError(412, `The resource has changed: its version is ${etagOf(version)}, the request was made against ${header.trim()}.`);
}

/** If-None-Match on a read: true when the client's copy is current (answer 304). */
export function notModified(header: string | null, version: number): boolean {
  if (header === null) return false;
  return header.split(",").some((t) => t.trim() === "*" || t.trim().replace(/^W\//, "").replace(/^"|"$/g, "") === String(version));
}
