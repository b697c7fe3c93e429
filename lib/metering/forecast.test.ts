import { describe, expect, it } from "vitest";
import { forecastMonth } from "./forecast";

const days = (from: string, n: number, cost: (i: number) => number) =>
  Array.from({ length: n }, (_, i) => ({ day: new Date(Date.parse(`${from}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10), cost: cost(i) }));

describe("month-end forecast", () => {
  it("adds the last seven complete days' average over the time left in the month", () => {
    // March has 31 days. At noon on the 11th: ten full days of 100 and half a day of 50 so far.
    const daily = [...days("2026-02-20", 19, () => 100), { day: "2026-03-11", cost: 50 }];
    const f = forecastMonth(daily, new Date("2026-03-11T12:00:00Z"), 2);
    expect(f.monthToDate).toBe(1050);
    expect(f.dailyRate).toBe(100);
    expect(f.forecast).toBeCloseTo(1050 + 100 * 20.5, 9);
    expect(f.daysInMonth).toBe(31);
  });

  it("weights recent days: a jump last week moves the forecast", () => {
    const daily = [...days("2026-03-01", 7, () => 10), ...days("2026-03-08", 7, () => 70)];
    const f = forecastMonth(daily, new Date("2026-03-15T00:00:00Z"), 2);
    expect(f.dailyRate).toBe(70);
    expect(f.forecast).toBeCloseTo(7 * 10 + 7 * 70 + 70 * 17, 9);
  });

  it("uses the days it has for a young project, and forecasts zero with no history", () => {
    const young = forecastMonth(days("2026-03-13", 2, () => 30), new Date("2026-03-15T00:00:00Z"), 2);
    expect(young.dailyRate).toBe(30);
    const none = forecastMonth([], new Date("2026-03-15T06:00:00Z"), 2);
    expect(none).toMatchObject({ monthToDate: 0, forecast: 0, dailyRate: 0 });
  });

  it("on the 1st, forecasts from the end of the month before", () => {
    const f = forecastMonth(days("2026-02-22", 7, () => 20), new Date("2026-03-01T00:00:00Z"), 2);
    expect(f.monthToDate).toBe(0);
    expect(f.forecast).toBeCloseTo(20 * 31, 9);
  });

  it("is the same all through an hour, so pages read seconds apart agree to the cent", () => {
    const daily = [...days("2026-02-20", 19, () => 100.37), { day: "2026-03-11", cost: 50 }];
    const early = forecastMonth(daily, new Date("2026-03-11T12:00:01.000Z"), 2);
    const late = forecastMonth(daily, new Date("2026-03-11T12:59:59.999Z"), 2);
    expect(late.forecast).toBe(early.forecast);
    expect(forecastMonth(daily, new Date("2026-03-11T13:00:00.000Z"), 2).forecast).toBeLessThan(early.forecast);
  });
});
