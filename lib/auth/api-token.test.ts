import { describe, expect, it } from "vitest";
import { apiTokenMatches, apiTokenPrefix, hashApiToken, newApiToken } from "./api-token";

describe("API tokens", () => {
  it("mints well-formed, distinct tokens whose prefix can be read back", () => {
    const a = newApiToken();
    const b = newApiToken();
    expect(a.token).not.toBe(b.token);
    expect(apiTokenPrefix(a.token)).toBe(a.prefix);
    expect(a.hash).toBe(hashApiToken(a.token));
    expect(a.token).not.toContain(a.hash);
  });

  it("matches only the exact token", () => {
    const { token, hash } = newApiToken();
    expect(apiTokenMatches(token, hash)).toBe(true);
    expect(apiTokenMatches(`${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`, hash)).toBe(false);
  });

  it.each(["", "Bearer x", "allot_short_secret", "allot_ABCDEFGHIJKL_" + "a".repeat(43), "xallot_abcdefghijkl_" + "a".repeat(43)])("rejects malformed token %j", (t) => {
    expect(apiTokenPrefix(t)).toBeNull();
  });
});
