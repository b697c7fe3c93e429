import { describe, expect, it } from "vitest";
import { ScimError } from "./errors";
import { applyPatch, patchRequest, PATCH_OP_SCHEMA, type PatchOperation } from "./patch";
import { parseGroupInput, parseUserInput } from "./resources";

const user = { userName: "alex@example.com", displayName: "Alex", active: true, name: { givenName: "Alex", familyName: "Doe" }, emails: [{ value: "alex@example.com", type: "work" }] };
const group = { displayName: "ml-team", members: [{ value: "u1" }, { value: "u2" }, { value: "u3" }] };
const ops = (Operations: unknown[]): PatchOperation[] => patchRequest.parse({ schemas: [PATCH_OP_SCHEMA], Operations }).Operations;

describe("SCIM PATCH", () => {
  it("takes Entra ID's capitalised ops and string booleans", () => {
    const patched = applyPatch(user, ops([{ op: "Replace", path: "active", value: "False" }]));
    expect(parseUserInput(patched).active).toBe(false);
    expect(parseUserInput(applyPatch(user, ops([{ op: "replace", path: "active", value: "true" }]))).active).toBe(true);
  });

  it("takes Okta's replace without a path", () => {
    const patched = applyPatch(user, ops([{ op: "replace", value: { active: false, "name.familyName": "Roe", displayName: "Alex Roe" } }]));
    expect(parseUserInput(patched)).toMatchObject({ active: false, familyName: "Roe", givenName: "Alex", displayName: "Alex Roe" });
  });

  it("replaces sub-attributes by dotted and URN-prefixed paths, keeping the others", () => {
    const patched = applyPatch(user, ops([{ op: "replace", path: "urn:ietf:params:scim:schemas:core:2.0:User:name.givenName", value: "Al" }]));
    expect(parseUserInput(patched)).toMatchObject({ givenName: "Al", familyName: "Doe" });
    expect(parseUserInput(applyPatch(user, ops([{ op: "replace", path: "name", value: { familyName: "Poe" } }])))).toMatchObject({ givenName: "Alex", familyName: "Poe" });
  });

  it("sets a value inside a filtered multi-valued attribute, adding the element when none matches", () => {
    const patched = applyPatch(user, ops([{ op: "Add", path: 'emails[type eq "home"].value', value: "alex@home.example" }]));
    expect(patched.emails).toEqual([
      { value: "alex@example.com", type: "work" },
      { type: "home", value: "alex@home.example" },
    ]);
    const replaced = applyPatch(user, ops([{ op: "replace", path: 'emails[type eq "work"].value', value: "new@example.com" }]));
    expect(replaced.emails).toEqual([{ value: "new@example.com", type: "work" }]);
  });

  it("adds members without duplicates and removes them by filter or by value list", () => {
    const added = applyPatch(group, ops([{ op: "add", path: "members", value: [{ value: "u3" }, { value: "u4" }] }]));
    expect(parseGroupInput(added).memberIds).toEqual(["u1", "u2", "u3", "u4"]);
    const byFilter = applyPatch(group, ops([{ op: "remove", path: 'members[value eq "u2"]' }]));
    expect(parseGroupInput(byFilter).memberIds).toEqual(["u1", "u3"]);
    const byValue = applyPatch(group, ops([{ op: "Remove", path: "members", value: [{ value: "u1" }, { value: "u3" }] }]));
    expect(parseGroupInput(byValue).memberIds).toEqual(["u2"]);
    const all = applyPatch(group, ops([{ op: "remove", path: "members" }]));
    expect(parseGroupInput(all).memberIds).toEqual([]);
    const replaced = applyPatch(group, ops([{ op: "replace", path: "members", value: [{ value: "u9" }] }]));
    expect(parseGroupInput(replaced).memberIds).toEqual(["u9"]);
  });

  it("leaves its input alone", () => {
    applyPatch(group, ops([{ op: "remove", path: "members" }]));
    expect(group.members).toHaveLength(3);
  });

  it("refuses what it cannot apply, with the SCIM error type", () => {
    const scimType = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof ScimError ? e.scimType : "not a ScimError";
      }
      return "no error";
    };
    expect(scimType(() => applyPatch(user, ops([{ op: "remove" }])))).toBe("noTarget");
    expect(scimType(() => applyPatch(user, ops([{ op: "replace", value: "x" }])))).toBe("invalidValue");
    expect(scimType(() => applyPatch(user, ops([{ op: "replace", path: "emails[type eq", value: "x" }])))).toBe("invalidPath");
    expect(scimType(() => parseUserInput(applyPatch(user, ops([{ op: "replace", path: "active", value: "maybe" }]))))).toBe("invalidValue");
    expect(patchRequest.safeParse({ schemas: [PATCH_OP_SCHEMA], Operations: [{ op: "move" }] }).success).toBe(false);
    expect(patchRequest.safeParse({ schemas: [], Operations: [{ op: "add" }] }).success).toBe(false);
  });
});
