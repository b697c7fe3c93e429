import { describe, expect, it } from "vitest";
import { collaboratorExpiryProblem, invitationProblem, type InvitationState } from "./invitation-rules";

const NOW = new Date("2026-12-02T12:00:00Z");
const open: InvitationState = { email: "ann@example.com", acceptedAt: null, revokedAt: null, expiresAt: new Date("2026-12-09T12:00:00Z"), tenantStatus: "active" };

describe("invitationProblem", () => {
  it("lets the addressee accept an open invitation, whatever the case of their email", () => {
    expect(invitationProblem(open, "Ann@Example.com", NOW)).toBeNull();
  });

  it("answers anyone else with forbidden before saying anything about the invitation's state", () => {
    const used = { ...open, acceptedAt: NOW };
    const problem = invitationProblem(used, "bob@example.com", NOW);
    expect(problem?.code).toBe("forbidden");
    expect(problem?.message).not.toContain("ann@example.com");
    expect(problem?.message).not.toMatch(/used|withdrawn|expired/);
  });

  it.each([
    [{ acceptedAt: NOW }, /already been used/],
    [{ revokedAt: NOW }, /withdrawn/],
    [{ expiresAt: NOW }, /expired/],
    [{ tenantStatus: "disabled" as const }, /disabled/],
  ])("refuses the addressee with conflict when %o", (change, message) => {
    const problem = invitationProblem({ ...open, ...change }, "ann@example.com", NOW);
    expect(problem?.code).toBe("conflict");
    expect(problem?.message).toMatch(message);
  });
});

describe("collaboratorExpiryProblem", () => {
  const DAY = 86_400_000;
  it("accepts an end in the future up to the maximum, to the millisecond", () => {
    expect(collaboratorExpiryProblem(new Date(NOW.getTime() + 1), NOW, 90)).toBeNull();
    expect(collaboratorExpiryProblem(new Date(NOW.getTime() + 90 * DAY), NOW, 90)).toBeNull();
  });
  it("refuses an end now or past, and one beyond the maximum", () => {
    expect(collaboratorExpiryProblem(NOW, NOW, 90)).toBe("Enter a date in the future.");
    expect(collaboratorExpiryProblem(new Date(NOW.getTime() + 90 * DAY + 1), NOW, 90)).toBe("Enter a date at most 90 days from now.");
    expect(collaboratorExpiryProblem(new Date(NOW.getTime() + 31 * DAY), NOW, 30)).toBe("Enter a date at most 30 days from now.");
  });
});
