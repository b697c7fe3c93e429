import { describe, expect, it } from "vitest";
import { dueThreshold, REMINDER_HORIZON_MS, timeLeftWords } from "./thresholds";

const NOW = new Date("2026-12-02T12:00:00Z");
const DAY = 86_400_000;
const at = (ms: number) => new Date(NOW.getTime() + ms);

describe("expiry reminder thresholds", () => {
  it.each([
    [30 * DAY, null],
    [14 * DAY + 1, null],
    [14 * DAY, 14],
    [10 * DAY, 14],
    [7 * DAY + 1, 14],
    [7 * DAY, 7],
    [2 * DAY, 7],
    [DAY + 1, 7],
    [DAY, 1],
    [60_000, 1],
    [1, 1],
    [0, null],
    [-DAY, null],
  ])("expiring %i ms from now: threshold %s", (left, expected) => {
    expect(dueThreshold(at(left), NOW)).toBe(expected);
  });

  it("looks 14 days ahead", () => {
    expect(REMINDER_HORIZON_MS).toBe(14 * DAY);
  });

  it("says the time left in days, hours or minutes", () => {
    expect(timeLeftWords(at(13 * DAY + 5 * 3_600_000), NOW)).toBe("in 13 days");
    expect(timeLeftWords(at(DAY + 3_600_000), NOW)).toBe("in 25 hours");
    expect(timeLeftWords(at(3_600_000), NOW)).toBe("in 1 hour");
    expect(timeLeftWords(at(90_000), NOW)).toBe("in 1 minute");
  });
});
