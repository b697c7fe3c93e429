import { describe, expect, it } from "vitest";
import { noDriftWording, shownWording, waitingWording } from "./status-wording";

const NOW = new Date("2026-12-03T12:00:00.000Z");
const fmt = (d: Date) => d.toISOString();

describe("cluster status wording", () => {
  it("a pending change due later is scheduled for its instant; one due now is taken within seconds", () => {
    const later = new Date("2027-01-31T00:00:00.000Z");
    expect(waitingWording({ status: "pending", nextAttemptAt: later }, NOW, fmt)).toBe("scheduled for 2027-01-31T00:00:00.000Z");
    expect(waitingWording({ status: "pending", nextAttemptAt: NOW }, NOW, fmt)).toBe("the worker takes it within seconds");
    expect(waitingWording({ status: "applying", nextAttemptAt: later }, NOW, fmt)).toBe("being applied now");
    for (const status of ["recorded", "applied", "failed", "superseded"]) expect(waitingWording({ status, nextAttemptAt: later }, NOW, fmt)).toBeNull();
  });

  it("record-only mode never says drift was found or not found", () => {
    expect(noDriftWording("live").title).toBe("No drift found");
    const recordOnly = noDriftWording("record-only");
    expect(recordOnly.title).toBe("Drift not checked");
    expect(`${recordOnly.title} ${recordOnly.body}`).not.toMatch(/no drift found|matched/i);
    expect(recordOnly.body).toContain("never checked");
  });

  it("states how much of a list is shown with the list's own count", () => {
    expect(shownWording(3, 3, "change")).toBe("3 changes");
    expect(shownWording(1, 1, "change")).toBe("1 change");
    expect(shownWording(0, 0, "change")).toBe("0 changes");
    expect(shownWording(100, 250, "change")).toBe("the newest 100 of 250 changes");
    expect(shownWording(50, 250, "failed change", 201)).toBe("50 failed changes older than #201, of 250");
    expect(shownWording(1, 250, "change", 2)).toBe("1 change older than #2, of 250");
  });
});
