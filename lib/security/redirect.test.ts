import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PLACEHOLDER_ORIGIN, safeRedirectPath } from "./redirect";

const ORIGIN = "https://allot.example.com";

// The pieces open-redirect tricks are made of, and some unicode (fullwidth
// solidus, a combining mark, an astral character, a right-to-left mark, a lone surrogate).
const PIECES = ["/", "\\", "\t", "\n", "\r", "@", ":", "%2F", "%5C", "%09", "%2f", "%5c", ".", "..", "?", "#", " ", "evil.example", "http", "https", "javascript", "a", "\uff0f", "\u0301", "😀", "\u200f", "\ud800", "\u0000", "\u007f"];
const hostile = fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((parts) => parts.join(""));
const mixed = fc.oneof(hostile, fc.string({ unit: "grapheme", maxLength: 20 }), fc.string({ unit: "binary", maxLength: 20 }), fc.webUrl(), fc.webPath());

describe("safeRedirectPath", () => {
  it("always answers a path that the browser resolves on the portal's own origin", () => {
    for (const origin of [ORIGIN, PLACEHOLDER_ORIGIN]) {
      fc.assert(
        fc.property(mixed, (raw) => {
          const result = safeRedirectPath(raw, origin);
          expect(result.startsWith("/")).toBe(true);
          expect(new URL(result, origin).origin).toBe(new URL(origin).origin);
          // What goes into a Location header: printable ASCII only.
          expect(result).toMatch(/^[\x21-\x7e]+$/);
          // Stable: judging the answer again changes nothing.
          expect(safeRedirectPath(result, origin)).toBe(result);
        }),
        { numRuns: 1500 },
      );
    }
  }, 30_000); // generous: the machines running the suite are often busy

  it("also holds against another site's origin resolving the answer (a path has no host of its own)", () => {
    fc.assert(
      fc.property(hostile, (raw) => {
        const result = safeRedirectPath(raw, ORIGIN);
        expect(new URL(result, "https://other.example").host).toBe("other.example");
      }),
    );
  });

  it.each([
    ["/\t/evil.example/", "tab between slashes: the browser reads //evil.example/"],
    ["/\n/evil.example", "newline between slashes"],
    ["/\r\n/evil.example", "CR LF between slashes"],
    ["\\\\evil", "two backslashes: the browser reads //evil"],
    ["/\\evil", "slash backslash"],
    ["\\/evil", "backslash slash"],
    ["https://evil", "an absolute URL elsewhere"],
    ["//evil", "protocol-relative"],
    ["///evil", "three slashes"],
    ["/.//evil", "a dot segment that leaves //evil"],
    ["/./\\evil", "a dot segment then a backslash"],
    ["javascript:alert(1)", "javascript:"],
    ["JaVaScRiPt:alert(1)", "javascript: in mixed case"],
    [" javascript:alert(1)", "javascript: after a leading space"],
    ["data:text/html,<script>alert(1)</script>", "data:"],
    ["http:evil", "a scheme with no slashes"],
    ["https:/\\evil", "scheme, slash, backslash"],
    ["/x\u0000", "a NUL byte"],
    ["/x\ud800", "a lone surrogate"],
    ["", "empty"],
  ])("refuses %j (%s)", (raw) => {
    expect(safeRedirectPath(raw, ORIGIN)).toBe("/");
  });

  it("refuses what is not a string, and absurdly long targets", () => {
    expect(safeRedirectPath(undefined)).toBe("/");
    expect(safeRedirectPath(null)).toBe("/");
    expect(safeRedirectPath(["/admin", "/evil"])).toBe("/");
    expect(safeRedirectPath(`/${"a".repeat(3000)}`)).toBe("/");
  });

  it("keeps encoded slashes and tabs as they are: inside one path segment they name no host", () => {
    expect(safeRedirectPath("/%5Cevil", ORIGIN)).toBe("/%5Cevil");
    expect(safeRedirectPath("/%2F%2Fevil", ORIGIN)).toBe("/%2F%2Fevil");
    expect(safeRedirectPath("/%09/evil.example/", ORIGIN)).toBe("/%09/evil.example/");
  });

  it.each([
    ["/", "/"],
    ["/admin", "/admin"],
    ["/tenants/vision-lab/projects/detector-training?range=30d#spend", "/tenants/vision-lab/projects/detector-training?range=30d#spend"],
    ["/invite/abc%2Bdef", "/invite/abc%2Bdef"],
    ["/a/../admin", "/admin"],
    ["/a\\b", "/a/b"],
    ["/caf\u00e9", "/caf%C3%A9"],
    ["admin", "/admin"],
  ])("accepts %j as %j", (raw, expected) => {
    expect(safeRedirectPath(raw, ORIGIN)).toBe(expected);
  });

  it("accepts an absolute URL only on the portal's own configured origin", () => {
    expect(safeRedirectPath(`${ORIGIN}/admin?x=1`, ORIGIN)).toBe("/admin?x=1");
    expect(safeRedirectPath(`${ORIGIN}/admin`, PLACEHOLDER_ORIGIN)).toBe("/");
    expect(safeRedirectPath("https://allot.example.com.evil.example/admin", ORIGIN)).toBe("/");
    expect(safeRedirectPath("https://user@allot.example.com@evil.example/", ORIGIN)).toBe("/");
    expect(safeRedirectPath("http://allot.example.com/admin", ORIGIN)).toBe("/");
  });
});
