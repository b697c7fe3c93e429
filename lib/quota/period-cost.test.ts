import { describe, expect, it } from "vitest";
import { costOverPeriod, describePeriod, HOURS_PER_MONTH } from "./cost";
import { periodCostPhrase } from "./view-helpers";

const FROM = new Date("2026-12-05T00:00:00.000Z");
const at = (hours: number) => new Date(FROM.getTime() + hours * 3_600_000);

describe("cost over a time-bound period", () => {
  it("prorates the monthly rate by the hours of the period: a 14-day request costs 336/730 of its month", () => {
    expect(costOverPeriod(11_972, FROM, at(14 * 24))).toEqual({ cost: 5510.4, hours: 336 });
    expect(costOverPeriod(1000, FROM, at(HOURS_PER_MONTH))).toEqual({ cost: 1000, hours: 730 });
  });

  it("has no period cost when permanent or already over", () => {
    expect(costOverPeriod(1000, FROM, null)).toBeNull();
    expect(costOverPeriod(1000, FROM, FROM)).toBeNull();
    expect(costOverPeriod(1000, FROM, at(-1))).toBeNull();
  });

  it("says the period as people do", () => {
    expect(describePeriod(1)).toBe("1 hour");
    expect(describePeriod(0.2)).toBe("1 hour");
    expect(describePeriod(36)).toBe("36 hours");
    expect(describePeriod(48)).toBe("2 days");
    expect(describePeriod(14 * 24)).toBe("14 days");
    expect(describePeriod(13.7 * 24)).toBe("13.7 days");
  });

  it("writes the phrase shown beside the monthly rate", () => {
    expect(periodCostPhrase(11_972, FROM, at(14 * 24), "USD")).toBe("$5,510.40 for its 14 days");
    expect(periodCostPhrase(11_972, FROM, null, "USD")).toBeNull();
  });
});
