/**
 * Which subject tokens a trust accepts, beyond issuer and audience: the `sub`
 * claim against an exact value or a glob, and other claims against exact
 * values. Pure, so the rules are tested without an issuer.
 */

export type ClaimConditions = Record<string, string | number | boolean>;

/**
 * `*` matches any run of characters (including none, including `/` and `:`),
 * every other character only itself. GitHub subjects look like
 * `repo:acme/ml:ref:refs/heads/main`, so `repo:acme/ml:*` means "any job of
 * that repository"; the pattern is anchored at both ends.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  const parts = pattern.split("*").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".*")}$`, "s").test(subject);
}

/** The first condition the claims do not meet, or null when all are met. A missing claim never meets one. */
export function unmetCondition(conditions: ClaimConditions, claims: Record<string, unknown>): string | null {
  for (const [name, expected] of Object.entries(conditions)) {
    if (!Object.hasOwn(claims, name) || claims[name] !== expected) return name;
  }
  return null;
}
