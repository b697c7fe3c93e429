import { describe, expect, it } from "vitest";
import { ScimError } from "./errors";
import { matchesFilter, parseFilter, requiredEquality } from "./filter";

const alex = {
  userName: "Alex@Example.com",
  externalId: "e-1",
  displayName: "Alex Doe",
  active: true,
  name: { givenName: "Alex", familyName: "Doe" },
  emails: [{ value: "alex@example.com", type: "work", primary: true }],
  meta: { lastModified: "2026-12-01T00:00:00.000Z" },
};
const matches = (filter: string, resource: unknown = alex) => matchesFilter(resource, parseFilter(filter));

describe("SCIM filters", () => {
  it("compares userName, externalId and displayName with eq, case-insensitively in names and values", () => {
    expect(matches('userName eq "alex@example.com"')).toBe(true);
    expect(matches('USERNAME EQ "ALEX@EXAMPLE.COM"')).toBe(true);
    expect(matches('userName eq "sam@example.com"')).toBe(false);
    expect(matches('externalId eq "e-1"')).toBe(true);
    expect(matches('displayName eq "Alex Doe"')).toBe(true);
    expect(matches('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "alex@example.com"')).toBe(true);
  });

  it("knows the other operators, and, or, not, grouping and value paths", () => {
    expect(matches('userName sw "alex" and active eq true')).toBe(true);
    expect(matches('userName sw "sam" or name.familyName eq "doe"')).toBe(true);
    expect(matches('not (userName co "example")')).toBe(false);
    expect(matches('(userName ew ".org" or externalId pr) and displayName ne "Sam"')).toBe(true);
    expect(matches('emails[type eq "work" and value eq "alex@example.com"]')).toBe(true);
    expect(matches('emails[type eq "home"]')).toBe(false);
    expect(matches('emails.value eq "alex@example.com"')).toBe(true);
    expect(matches('meta.lastModified gt "2026-11-30T00:00:00Z"')).toBe(true);
    expect(matches("active eq false")).toBe(false);
    expect(matches("title pr")).toBe(false);
  });

  it("reads string booleans as booleans", () => {
    expect(matches("active eq true", { active: "True" })).toBe(true);
  });

  it("refuses a malformed filter as invalidFilter", () => {
    for (const bad of ['userName eq "x', "userName", 'userName like "x"', 'userName eq "x" extra', '(userName eq "x"', "userName eq bare"]) {
      const error = (() => {
        try {
          parseFilter(bad);
        } catch (e) {
          return e;
        }
      })();
      expect(error, bad).toBeInstanceOf(ScimError);
      expect((error as ScimError).scimType).toBe("invalidFilter");
    }
  });

  it("finds the equality a lookup narrows by, alone or in an and, never in an or", () => {
    expect(requiredEquality(parseFilter('userName eq "a@b.c"'), "userName")).toBe("a@b.c");
    expect(requiredEquality(parseFilter('active eq true and userName eq "a@b.c"'), "username")).toBe("a@b.c");
    expect(requiredEquality(parseFilter('userName eq "a@b.c" or userName eq "d@e.f"'), "userName")).toBeNull();
    expect(requiredEquality(parseFilter('userName sw "a"'), "userName")).toBeNull();
  });
});
