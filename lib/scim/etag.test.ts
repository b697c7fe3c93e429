import { describe, expect, it } from "vitest";
import { checkIfMatch, etagOf, notModified } from "./etag";
import { ScimError } from "./errors";
import { listResponse, parseListQuery } from "./list";

describe("SCIM ETags", () => {
  it("are weak tags of the version; If-Match must name the current one", () => {
    expect(etagOf(3)).toBe('W/"3"');
    expect(() => checkIfMatch(null, 3)).not.toThrow();
    expect(() => checkIfMatch("*", 3)).not.toThrow();
    expect(() => checkIfMatch('W/"3"', 3)).not.toThrow();
    expect(() => checkIfMatch('"1", W/"3"', 3)).not.toThrow();
    expect(() => checkIfMatch('W/"2"', 3)).toThrow(ScimError);
    try {
      checkIfMatch('W/"2"', 3);
    } catch (e) {
      expect((e as ScimError).status).toBe(412);
    }
    expect(notModified('W/"3"', 3)).toBe(true);
    expect(notModified('W/"2"', 3)).toBe(false);
    expect(notModified(null, 3)).toBe(false);
  });
});

describe("SCIM pagination", () => {
  const all = Array.from({ length: 7 }, (_, i) => i + 1);
  it("pages from a 1-based startIndex, clamping what is out of range", () => {
    expect(listResponse(all, parseListQuery(new URLSearchParams("startIndex=3&count=2")))).toMatchObject({ totalResults: 7, startIndex: 3, itemsPerPage: 2, Resources: [3, 4] });
    expect(listResponse(all, parseListQuery(new URLSearchParams("startIndex=0&count=-5")))).toMatchObject({ totalResults: 7, startIndex: 1, itemsPerPage: 0, Resources: [] });
    expect(listResponse(all, parseListQuery(new URLSearchParams("startIndex=7")))).toMatchObject({ Resources: [7] });
    expect(listResponse(all, parseListQuery(new URLSearchParams("")))).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], itemsPerPage: 7 });
    expect(() => parseListQuery(new URLSearchParams("count=ten"))).toThrow(/count must be a whole number/);
  });
});
