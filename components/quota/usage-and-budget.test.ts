import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ProjectUsageSummary } from "@/lib/metering/project-summaries";
import { checkBudget } from "@/lib/quota/view-helpers";
import { BudgetCheckNote } from "./budget-check";
import { UsageSummary } from "./usage-summary";

/** The text a person reads: tags dropped, entities decoded, spaces collapsed. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();

const month = { monthStart: "2026-03-01", monthToDate: 4012.5, forecast: 8900.25, dailyRate: 340, daysInMonth: 31 };
const summary: ProjectUsageSummary = {
  projectId: "p",
  lastUsageDay: "2026-03-20",
  budget: { monthlyAmount: 8000, month, usedShare: 4012.5 / 8000, forecastShare: 8900.25 / 8000 },
  last30Days: {
    from: "2026-02-19",
    lastDay: "2026-03-20",
    totalCost: 7200,
    byResource: [
      { resource: "gpu:H100", quantity: 1600, cost: 6560, unpricedQuantity: 0, gpuUtilization: 0.42 },
      { resource: "cpu", quantity: 19_000.4, cost: 589, unpricedQuantity: 0, gpuUtilization: null },
      { resource: "storage", quantity: 73_000, cost: 51, unpricedQuantity: 0, gpuUtilization: null },
      { resource: "memory", quantity: 1000, cost: 0, unpricedQuantity: 0, gpuUtilization: null },
    ],
    unpricedResources: [],
  },
  gpuUtilization: 0.42,
  demo: false,
};

const render = (s: ProjectUsageSummary) => text(renderToStaticMarkup(createElement(UsageSummary, { summary: s, currency: "USD", projectName: "Detector training" })));

describe("the use and spend of a project", () => {
  it("shows the month against the budget with its forecast, the last 30 days, the top resources and the GPU utilisation", () => {
    const t = render(summary);
    expect(t).toContain("This month so far $4,012.50 (50% of the budget)");
    expect(t).toContain("Forecast for the month $8,900.25 (over the budget by $900.25)");
    expect(t).toContain("Budget $8,000.00 a month");
    expect(t).toContain("Last 30 days $7,200.00");
    expect(t).toContain("GPU utilisation 42% of GPU-hours busy (30 days)");
    expect(t).toContain("H100 GPUs 42% busy 1,600 GPU-hours $6,560.00 CPU 19,000 core-hours $589.00 Storage 73,000 GiB-hours $51.00");
    // Only the top three.
    expect(t).not.toContain("Memory");
  });

  it("says when no budget is set and when GPU use was not measured", () => {
    const t = render({ ...summary, budget: { ...summary.budget, monthlyAmount: null, usedShare: null, forecastShare: null }, gpuUtilization: null });
    expect(t).toContain("This month so far $4,012.50 Forecast for the month $8,900.25 Budget none set");
    expect(t).toContain("GPU utilisation not measured");
  });

  it("says there is no usage yet, with no figures, for a project nothing was metered for", () => {
    const t = render({ ...summary, lastUsageDay: null, budget: { monthlyAmount: null, month: { ...month, monthToDate: 0, forecast: 0, dailyRate: 0 }, usedShare: null, forecastShare: null }, last30Days: { ...summary.last30Days, totalCost: 0, byResource: [] }, gpuUtilization: null });
    expect(t).toBe("No usage recorded yet for Detector training: nothing has been metered, so there is no spend to show. Budget: none set.");
  });
});

describe("the budget warning", () => {
  const note = (monthlyAmount: number | null, forecast: number, added: number, usageRecorded = true) =>
    renderToStaticMarkup(createElement(BudgetCheckNote, { check: checkBudget({ monthlyAmount, monthToDate: 100, forecast, usageRecorded }, added), currency: "USD" }));

  it("warns with the figures when the forecast and the request go over the budget", () => {
    const html = note(15_000, 4000, 11_972);
    expect(html).toContain('role="alert"');
    expect(html).toContain('data-testid="budget-warning"');
    expect(text(html)).toBe("Over the monthly budget of $15,000.00: this month's forecast $4,000.00 plus this request's $11,972.00 a month comes to $15,972.00, $972.00 more than the budget.");
    expect(text(note(3000, 4000, 10))).toContain("The forecast alone is already over it.");
    expect(text(note(3000, 4000, 0))).toBe("This month's forecast of $4,000.00 is already over the monthly budget of $3,000.00, by $1,000.00.");
  });

  it("notes the room left when within, and says plainly when no budget is set", () => {
    const within = note(15_000, 4000, 5986);
    expect(within).not.toContain('role="alert"');
    expect(text(within)).toBe("Within the monthly budget of $15,000.00: this month's forecast $4,000.00 plus this request's $5,986.00 a month comes to $9,986.00 ($5,014.00 left).");
    expect(text(note(null, 55.5, 5986))).toBe("No monthly budget is set for this project, so the estimate is not checked against one. This month's spend forecast: $55.50.");
  });

  it("shows no spend figures for a project with no usage recorded yet", () => {
    expect(text(note(null, 0, 500, false))).toBe("No monthly budget is set for this project, so the estimate is not checked against one. No usage recorded yet.");
    expect(text(note(1000, 0, 500, false))).toBe("Within the monthly budget of $1,000.00: no usage recorded yet, so this request's $500.00 a month is all of it ($500.00 left).");
    expect(text(note(1000, 0, 0, false))).toBe("Monthly budget $1,000.00; no usage recorded yet.");
    const over = note(1000, 0, 1500, false);
    expect(over).toContain('data-testid="budget-warning"');
    expect(text(over)).toBe("Over the monthly budget of $1,000.00: this request alone is $1,500.00 a month, $500.00 more than the budget (no usage recorded yet).");
  });
});
