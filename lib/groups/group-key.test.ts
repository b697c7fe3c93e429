import { describe, expect, it } from "vitest";
import { claimGroupNames, groupKey, groupNameInput } from "./group-key";

describe("group matching key", () => {
  it("ignores surrounding spaces and the case of A-Z, and nothing else", () => {
    expect(groupKey("  ML-Platform Admins ")).toBe("ml-platform admins");
    expect(groupKey("ml-platform admins")).toBe(groupKey("ML-PLATFORM ADMINS"));
    expect(groupKey("ml_platform")).not.toBe(groupKey("ml-platform"));
    // Only ASCII letters fold, so SQL's translate() gives the same key on every collation.
    expect(groupKey("Équipe")).toBe("Équipe");
    expect(groupKey("/vision/admins")).toBe("/vision/admins");
  });

  it("takes a group as typed, naming what is wrong", () => {
    expect(groupNameInput.parse("  vision-admins ")).toBe("vision-admins");
    expect(groupNameInput.safeParse("   ").error?.issues[0]?.message).toBe("Fill in this field.");
    expect(groupNameInput.safeParse("a".repeat(257)).error?.issues[0]?.message).toBe("Enter at most 256 characters.");
    expect(groupNameInput.safeParse("a\u0000b").error?.issues[0]?.message).toBe("Enter the group name without control characters.");
  });
});

describe("groups claim", () => {
  it("takes an array of names or one name, one per key, and nothing else", () => {
    expect(claimGroupNames(["vision-admins", " Vision-Admins ", "ml", 42, null, "", "a\u0001b", "x".repeat(257)])).toEqual(["vision-admins", "ml"]);
    expect(claimGroupNames("ml")).toEqual(["ml"]);
    expect(claimGroupNames(undefined)).toEqual([]);
    expect(claimGroupNames({ ml: true })).toEqual([]);
  });
});
