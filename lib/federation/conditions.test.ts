import { describe, expect, it } from "vitest";
import { subjectMatches, unmetCondition } from "./conditions";

describe("subject patterns", () => {
  it.each([
    ["repo:acme/ml:ref:refs/heads/main", "repo:acme/ml:ref:refs/heads/main", true],
    ["repo:acme/ml:ref:refs/heads/main", "repo:acme/ml:ref:refs/heads/mainx", false],
    ["repo:acme/ml:*", "repo:acme/ml:ref:refs/heads/main", true],
    ["repo:acme/ml:*", "repo:acme/ml-evil:ref:refs/heads/main", false],
    ["repo:acme/*:environment:prod", "repo:acme/ml:environment:prod", true],
    ["repo:acme/*:environment:prod", "repo:acme/ml:environment:staging", false],
    ["system:serviceaccount:ml-*:pusher", "system:serviceaccount:ml-vision:pusher", true],
    ["system:serviceaccount:ml-*:pusher", "xsystem:serviceaccount:ml-vision:pusher", false],
    // Regex characters in a pattern are literal.
    ["a.b", "axb", false],
    ["a.b", "a.b", true],
    ["*", "anything at all", true],
  ])("%s against %s: %s", (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});

describe("claim conditions", () => {
  it("passes when every condition equals its claim exactly", () => {
    expect(unmetCondition({ repository_owner: "acme", ref_protected: true }, { repository_owner: "acme", ref_protected: true, other: 1 })).toBeNull();
  });
  it("names the first condition not met, a missing claim included", () => {
    expect(unmetCondition({ repository_owner: "acme" }, { repository_owner: "Acme" })).toBe("repository_owner");
    expect(unmetCondition({ ref_protected: true }, { ref_protected: "true" })).toBe("ref_protected");
    expect(unmetCondition({ environment: "prod" }, {})).toBe("environment");
  });
  it("does not read inherited properties as claims", () => {
    expect(unmetCondition({ toString: "x" }, {})).toBe("toString");
  });
});
