import { describe, expect, it } from "vitest";
import { budgetAlertMessage, dueBudgetAlerts, gpuIdleMessage, gpuIdleVerdict, highestThresholdReached, monthPeriod, weekPeriod } from "./budget-rules";

const figures = (budget: number | null, monthToDate: number, forecast = monthToDate) => ({ budget, monthToDate, forecast });

describe("budget thresholds", () => {
  it("sends each threshold as month to date reaches it", () => {
    expect(dueBudgetAlerts(figures(1000, 499.99), [])).toEqual([]);
    expect(dueBudgetAlerts(figures(1000, 500), [])).toEqual(["budget_50"]);
    expect(dueBudgetAlerts(figures(1000, 650), ["budget_50"])).toEqual([]);
    expect(dueBudgetAlerts(figures(1000, 800), ["budget_50"])).toEqual(["budget_80"]);
    expect(dueBudgetAlerts(figures(1000, 999), ["budget_50", "budget_80"])).toEqual([]);
    expect(dueBudgetAlerts(figures(1000, 1000), ["budget_50", "budget_80"])).toEqual(["budget_100"]);
    expect(dueBudgetAlerts(figures(1000, 5000), ["budget_50", "budget_80", "budget_100"])).toEqual([]);
  });

  it("sends only the highest threshold reached when several are reached at once", () => {
    expect(highestThresholdReached(figures(1000, 1200))).toBe("budget_100");
    expect(dueBudgetAlerts(figures(1000, 1200), [])).toEqual(["budget_100"]);
    expect(dueBudgetAlerts(figures(1000, 850), [])).toEqual(["budget_80"]);
    // …and the lower ones never follow.
    expect(dueBudgetAlerts(figures(1000, 1300), ["budget_100"])).toEqual([]);
  });

  it("sends nothing with no budget or a zero budget", () => {
    expect(dueBudgetAlerts(figures(null, 5000, 9000), [])).toEqual([]);
    expect(dueBudgetAlerts(figures(0, 5000, 9000), [])).toEqual([]);
    expect(dueBudgetAlerts(figures(0, 0, 0), [])).toEqual([]);
    expect(highestThresholdReached(figures(0, 10))).toBeNull();
  });

  it("takes a budget changed mid-month as it is now", () => {
    // Lowered: 400 spent was 40% of 1000, is 80% of 500.
    expect(dueBudgetAlerts(figures(500, 400), [])).toEqual(["budget_80"]);
    // Lowered after 50% was sent: the next higher threshold fires at once.
    expect(dueBudgetAlerts(figures(300, 400), ["budget_50"])).toEqual(["budget_100"]);
    // Raised after 80% was sent: nothing now, 100% of the new budget later.
    expect(dueBudgetAlerts(figures(2000, 900), ["budget_50", "budget_80"])).toEqual([]);
    expect(dueBudgetAlerts(figures(2000, 1700), ["budget_50", "budget_80"])).toEqual([]);
    expect(dueBudgetAlerts(figures(2000, 2000), ["budget_50", "budget_80"])).toEqual(["budget_100"]);
    // Raised after 100% was sent: no lower alert this month.
    expect(dueBudgetAlerts(figures(5000, 3000), ["budget_100"])).toEqual([]);
  });
});

describe("forecast alert", () => {
  it("fires once when the forecast exceeds the budget before the month to date does", () => {
    expect(dueBudgetAlerts(figures(1000, 200, 1000), [])).toEqual([]); // exactly on budget is not over it
    expect(dueBudgetAlerts(figures(1000, 200, 1000.01), [])).toEqual(["forecast"]);
    expect(dueBudgetAlerts(figures(1000, 300, 1500), ["forecast"])).toEqual([]);
    expect(dueBudgetAlerts(figures(1000, 600, 1500), [])).toEqual(["budget_50", "forecast"]);
  });

  it("says nothing once the budget is spent (the 100% alert does)", () => {
    expect(dueBudgetAlerts(figures(1000, 1000, 2000), ["budget_50", "budget_80"])).toEqual(["budget_100"]);
    expect(dueBudgetAlerts(figures(1000, 1100, 2000), ["budget_100"])).toEqual([]);
  });

  it("fires after a raise only if the new budget is forecast to be exceeded", () => {
    expect(dueBudgetAlerts(figures(3000, 1100, 2000), ["budget_100"])).toEqual([]);
    expect(dueBudgetAlerts(figures(1500, 1100, 2000), ["budget_100"])).toEqual(["forecast"]);
  });
});

describe("periods", () => {
  it("a month is its first day, a week its Monday (UTC)", () => {
    expect(monthPeriod(new Date("2026-03-31T23:59:59Z"))).toBe("2026-03-01");
    expect(monthPeriod(new Date("2026-12-01T00:00:00Z"))).toBe("2026-12-01");
    expect(weekPeriod(new Date("2026-03-09T00:00:00Z"))).toBe("2026-03-09"); // a Monday
    expect(weekPeriod(new Date("2026-03-15T23:59:59Z"))).toBe("2026-03-09"); // its Sunday
    expect(weekPeriod(new Date("2026-03-16T00:00:00Z"))).toBe("2026-03-16");
    expect(weekPeriod(new Date("2027-01-01T12:00:00Z"))).toBe("2026-12-28"); // across a year
  });
});

describe("idle GPUs", () => {
  const settings = { threshold: 0.2, minMeasuredHours: 24 };
  it("flags low utilisation over enough measured GPU-hours", () => {
    expect(gpuIdleVerdict({ measuredHours: 168, busyHours: 8.4 }, settings)).toEqual({ idle: true, utilization: 0.05 });
    expect(gpuIdleVerdict({ measuredHours: 168, busyHours: 100.8 }, settings)).toEqual({ idle: false, utilization: 0.6 });
    expect(gpuIdleVerdict({ measuredHours: 168, busyHours: 33.6 }, settings).idle).toBe(false); // exactly at the threshold
  });

  it("does not judge a short test or unmeasured GPUs", () => {
    expect(gpuIdleVerdict({ measuredHours: 23, busyHours: 0 }, settings)).toEqual({ idle: false, utilization: 0 });
    expect(gpuIdleVerdict({ measuredHours: 0, busyHours: 0 }, settings)).toEqual({ idle: false, utilization: null });
    expect(gpuIdleVerdict({ measuredHours: 24, busyHours: 0 }, settings).idle).toBe(true);
    expect(gpuIdleVerdict({ measuredHours: 500, busyHours: 0 }, { threshold: 0, minMeasuredHours: 0 }).idle).toBe(false);
  });
});

describe("messages", () => {
  const project = { tenantSlug: "vision-lab", projectSlug: "detector-training", projectName: "Detector training" };
  it("name the project, the figures and the currency", () => {
    // Written as on every page (lib/money.ts formatMoney), never a second way for messages.
    expect(budgetAlertMessage("budget_80", project, { budget: 1000, monthToDate: 816.4, forecast: 1290, currency: "EUR", period: "2026-03-01" }).text).toContain("has spent €816.40");
    const threshold = budgetAlertMessage("budget_80", project, { budget: 1000, monthToDate: 816.4, forecast: 1290, currency: "USD", period: "2026-03-01" });
    expect(threshold.title).toBe("Detector training reached 80% of its budget");
    expect(threshold.text).toBe(
      "Detector training (vision-lab/detector-training) has spent $816.40 in March 2026, 81% of its $1,000.00 budget (forecast to month end: $1,290.00).",
    );
    const forecast = budgetAlertMessage("forecast", project, { budget: 1000, monthToDate: 300, forecast: 1450, currency: "USD", period: "2026-03-01" });
    expect(forecast.text).toBe("Detector training (vision-lab/detector-training) is forecast to spend $1,450.00 in March 2026, 145% of its $1,000.00 budget ($300.00 spent so far).");
    // 99.6% does not read as 100%.
    expect(budgetAlertMessage("budget_80", project, { budget: 1000, monthToDate: 996, forecast: 1100, currency: "USD", period: "2026-03-01" }).text).toContain(", 99% of");
  });

  it("an idle GPU flag says how busy, over how long and what the idle share cost", () => {
    const m = gpuIdleMessage(project, { utilization: 0.05, measuredHours: 168, gpuCost: 688.8, gpuIdleCost: 654.36, currency: "USD", threshold: 0.2 });
    expect(m.title).toBe("Detector training leaves its GPUs mostly idle");
    expect(m.text).toContain("busy 5% of the time over the last 7 days (168 GPU-hours measured, below 20%)");
    expect(m.text).toContain("the idle share cost $654.36 of $688.80 in GPU spend");
  });
});
