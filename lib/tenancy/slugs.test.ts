import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { namespaceFor, projectSlug, slugify, tenantSlug, PROJECT_SLUG_MAX, TENANT_SLUG_MAX } from "./slugs";

const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

describe("slugs", () => {
  it("accepts ordinary slugs", () => {
    expect(tenantSlug.parse("vision-lab")).toBe("vision-lab");
    expect(projectSlug.parse("detector-training2")).toBe("detector-training2");
  });

  it.each([
    ["", /at least 2/],
    ["Vision", /lower-case/],
    ["-vision", /lower-case/],
    ["vision-", /lower-case/],
    ["9lives", /starting with a letter/],
    ["a--b", /one hyphen in a row/],
    ["kube", /reserved/],
    ["a".repeat(TENANT_SLUG_MAX + 1), /at most 24/],
  ])("refuses tenant slug %j", (slug, message) => {
    const result = tenantSlug.safeParse(slug);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message).join(" ")).toMatch(message);
  });

  it("builds namespaces that are DNS-1123 labels and cannot collide across slug pairs", () => {
    const slugArb = (max: number) =>
      fc.stringMatching(/^[a-z][a-z0-9-]*[a-z0-9]$/).filter((s) => s.length <= max && !s.includes("--"));
    fc.assert(
      fc.property(slugArb(TENANT_SLUG_MAX), slugArb(PROJECT_SLUG_MAX), slugArb(TENANT_SLUG_MAX), slugArb(PROJECT_SLUG_MAX), (t1, p1, t2, p2) => {
        const ns = namespaceFor(t1, p1);
        expect(ns).toMatch(DNS_1123_LABEL);
        expect(ns.length).toBeLessThanOrEqual(63);
        if (t1 !== t2 || p1 !== p2) expect(namespaceFor(t2, p2)).not.toBe(ns);
      }),
    );
  });

  it("suggests slugs from names", () => {
    expect(slugify("Vision Lab", 24)).toBe("vision-lab");
    expect(slugify("  Ünïcode   Räsearch!! ", 24)).toBe("unicode-rasearch");
    expect(slugify("42 Robots", 24)).toBe("robots");
  });
});
