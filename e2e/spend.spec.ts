import fs from "node:fs";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { TenantPage } from "./pages/tenant-page";
import { expectNotFound, saveScreenshot } from "./support/checks";
import { storageStateOf } from "./support/personas";
import { formatMoney, sumMinor, toMinor } from "../lib/money";

// Cost out: a tenant admin follows a project's spend over time, switches the
// window without leaving the page, sets (and removes) a budget and exports
// the figures; the tenant and platform pages add projects, tenants and idle
// capacity; a member without tenant.spend.view sees neither the tab nor the
// page. The demo seed generates 90 days of usage (lib/demo/usage.ts), so the
// charts have figures; the budget is removed again at the end, because the
// quota-request journey expects Detector training without one.

const TENANT = "vision-lab";
const PROJECT = "detector-training";
const PROJECT_SPEND = `/tenants/${TENANT}/projects/${PROJECT}/spend`;

/** A spend page: the range picker and window, the figures, the chart and its table, the budget. */
class SpendPage {
  readonly heading: Locator;
  readonly range: Locator;
  readonly window: Locator;
  readonly updating: Locator;
  readonly demoBadge: Locator;
  readonly exportCsvLink: Locator;
  readonly chart: Locator;
  readonly chartColumns: Locator;
  readonly budgetLine: Locator;
  readonly totalTile: Locator;
  readonly previousTile: Locator;
  readonly showAsTable: Locator;
  readonly costTableRows: Locator;
  readonly budgetPanel: Locator;
  readonly budgetAmount: Locator;
  readonly budgetField: Locator;
  readonly saveBudget: Locator;
  readonly error: Locator;
  readonly empty: Locator;

  constructor(readonly page: Page) {
    const main = page.getByRole("main");
    this.heading = main.getByRole("heading", { level: 1 });
    this.range = main.getByRole("group", { name: "Range" });
    this.window = page.getByTestId("spend-window");
    this.updating = main.getByRole("status").filter({ hasText: "Updating…" });
    this.demoBadge = main.getByText("Demo data", { exact: true });
    this.exportCsvLink = main.getByRole("link", { name: "Export CSV", exact: true });
    this.chart = main.getByRole("figure", { name: /cost by resource, USD$/ });
    this.chartColumns = this.chart.getByTestId("cost-chart").locator("[data-period]");
    this.budgetLine = this.chart.getByTestId("budget-line");
    this.totalTile = page.getByTestId("tile-total").locator("dd").first();
    this.previousTile = page.getByTestId("tile-previous");
    this.showAsTable = main.getByText("Show as table", { exact: true });
    this.costTableRows = main.getByRole("table", { name: /cost by resource \(USD\)$/ }).locator("tbody").getByRole("row");
    this.budgetPanel = page.getByTestId("budget-panel");
    this.budgetAmount = page.getByTestId("budget-amount");
    this.budgetField = main.getByLabel("Monthly budget (USD)", { exact: true });
    this.saveBudget = main.getByRole("button", { name: "Save budget", exact: true });
    this.error = page.getByTestId("spend-error");
    this.empty = main.getByText("No usage in this window", { exact: true });
  }

  rangeButton(label: string): Locator {
    return this.range.getByRole("button", { name: label, exact: true });
  }

  /** Pick a named range; the first time in a page, its figures come from the data route. */
  async pickRange(label: string, range: string, { cached = false } = {}): Promise<void> {
    const answered = cached ? null : this.page.waitForResponse((r) => r.url().includes(`/spend/data?range=${range}`) && r.status() === 200);
    await this.rangeButton(label).click();
    await answered;
    await expect(this.rangeButton(label)).toHaveAttribute("aria-pressed", "true");
  }

  async expectWindowOfDays(days: number): Promise<void> {
    await expect(this.window).toContainText(`· ${days} days, by day (UTC)`);
    await expect(this.updating).toHaveCount(0);
  }
}

type SpendJson = { currency: string; totalCost: number; series: { cost: number }[]; previous: { totalCost: number } };

/**
 * The page's figures are the report's, to the cent: the window's tile is the
 * total of the data route (the same report the API answers, checked against
 * it in lib/api/metering-api.int.test.ts), the chart's columns add up to it,
 * and the previous period's tile is the report's previous period.
 */
async function expectFiguresAgree(spend: SpendPage, dataUrl: string): Promise<void> {
  const search = new URL(spend.page.url()).search;
  const data = (await (await spend.page.request.get(`${dataUrl}${search}`)).json()) as SpendJson;
  await expect(spend.totalTile).toHaveText(formatMoney(data.totalCost, data.currency));
  const columns = await spend.chartColumns.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-total"))));
  expect(sumMinor(columns.map((v) => toMinor(v, 2)))).toBe(toMinor(data.totalCost, 2));
  expect(sumMinor(data.series.map((p) => toMinor(p.cost, 2)))).toBe(toMinor(data.totalCost, 2));
  await expect(spend.previousTile.locator("dd").first()).toHaveText(formatMoney(data.previous.totalCost, data.currency));
}


test.describe("Alex, tenant admin of Vision Lab", () => {
  test.use({ storageState: storageStateOf("alex") });

  test("follows Detector training's spend, switches the range in place, sets a budget and exports CSV", async ({ page }, testInfo) => {
    test.setTimeout(90_000);
    await page.goto(`/tenants/${TENANT}/projects/${PROJECT}`);
    await page.getByRole("main").getByRole("link", { name: "Spend", exact: true }).click();
    await expect(page).toHaveURL(PROJECT_SPEND);
    const spend = new SpendPage(page);
    await expect(spend.heading).toHaveText("Spend");
    await expect(page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link")).toHaveText(["My tenants", "Vision Lab", "Detector training"]);

    // The last 30 days by default, from generated demo usage, stacked by resource.
    await expect(spend.rangeButton("30 days")).toHaveAttribute("aria-pressed", "true");
    await spend.expectWindowOfDays(30);
    await expect(spend.demoBadge).toBeVisible();
    await expect(spend.chart).toBeVisible();
    await expect(spend.chartColumns).toHaveCount(30);
    await expect(spend.chartColumns.last().locator("div").first()).toBeVisible();
    await expectFiguresAgree(spend, `${PROJECT_SPEND}/data`);
    await expect(page.getByRole("table", { name: "Cost by resource" }).locator("tbody tr").first()).toContainText(/^H100 GPUs[\d,.]+ GPU-hours\$[\d,]+\.\d{2}/);
    await spend.showAsTable.click();
    await expect(spend.costTableRows).toHaveCount(31); // 30 days and the total
    await expect(spend.costTableRows.last()).toContainText(/^Total/);
    await saveScreenshot(page, "spend-project", testInfo);

    // Another window without leaving the page: a value set on this document survives, the address follows.
    await page.evaluate(() => ((window as unknown as { spendMarker: string }).spendMarker = "same document"));
    await spend.pickRange("7 days", "7d");
    await spend.expectWindowOfDays(7);
    await expect(page).toHaveURL(`${PROJECT_SPEND}?range=7d`);
    await spend.pickRange("90 days", "90d");
    await spend.expectWindowOfDays(90);
    await expect(page).toHaveURL(`${PROJECT_SPEND}?range=90d`);
    expect(await page.evaluate(() => (window as unknown as { spendMarker?: string }).spendMarker)).toBe("same document");
    await expect(spend.costTableRows).toHaveCount(91);

    // A reload keeps the window.
    await page.reload();
    await expect(spend.rangeButton("90 days")).toHaveAttribute("aria-pressed", "true");
    await spend.expectWindowOfDays(90);

    // A window that cannot be: the error names the field and the figures stay.
    await spend.rangeButton("Custom…").click();
    await page.getByLabel("From", { exact: true }).fill("2026-03-10");
    await page.getByLabel("To", { exact: true }).fill("2026-03-01");
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await expect(spend.error).toContainText("Could not load spend for this range.");
    await expect(page.getByText("Enter a last day on or after the first.", { exact: true })).toBeVisible();
    await expect(spend.chart).toBeVisible();
    await saveScreenshot(page, "spend-project-error", testInfo);

    // A window before any usage: the empty state.
    await page.getByLabel("From", { exact: true }).fill("2020-01-01");
    await page.getByLabel("To", { exact: true }).fill("2020-01-31");
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await expect(spend.empty).toBeVisible();
    await expect(spend.window).toContainText("1 Jan 2020 – 31 Jan 2020 · 31 days");
    await expect(page).toHaveURL(`${PROJECT_SPEND}?range=custom&from=2020-01-01&to=2020-01-31`);
    await saveScreenshot(page, "spend-project-empty", testInfo);
    await spend.pickRange("90 days", "90d", { cached: true });

    // A budget well above the month's forecast: on track. It is this month's, whatever the window.
    await expect(spend.budgetAmount).toHaveText("none set");
    await expect(spend.budgetLine).toHaveCount(0);
    await spend.budgetField.fill("25000");
    await spend.saveBudget.click();
    await expect(spend.budgetPanel.getByRole("status")).toHaveText("Budget saved: $25,000.00 a month.");
    await expect(spend.budgetAmount).toHaveText("$25,000.00");
    await expect(spend.budgetPanel).toContainText("on track");
    await expect(spend.budgetPanel).toContainText(/\d+(\.\d)?% of the budget spent; \d+(\.\d)?% forecast by month end\./);
    // The chart draws the budget's share of each day (25,000 ÷ the days of that day's month).
    await expect(spend.budgetLine).toHaveCount(90);
    const perDay = await spend.budgetLine.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-budget"))));
    expect(perDay.every((v) => [25000 / 28, 25000 / 29, 25000 / 30, 25000 / 31].some((d) => Math.abs(v - d) < 0.006))).toBe(true);
    await expect(spend.chart).toContainText("Budget ($25,000.00 a month");
    await saveScreenshot(page, "spend-project-budget", testInfo);

    // The figures of the window on screen, as FinOps FOCUS CSV.
    await expect(spend.exportCsvLink).toHaveAttribute("href", `${PROJECT_SPEND}/export?range=90d`);
    const downloaded = page.waitForEvent("download");
    await spend.exportCsvLink.click();
    const download = await downloaded;
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const csv = fs.readFileSync(await download.path(), "utf8");
    expect(csv.split("\n")[0]).toContain("BilledCost");
    expect(csv.trim().split("\n").length).toBeGreaterThan(1);

    // Removing the budget: the project is as the seed left it.
    await spend.budgetField.fill("");
    await spend.saveBudget.click();
    await expect(spend.budgetPanel.getByRole("status")).toHaveText("Budget removed.");
    await expect(spend.budgetAmount).toHaveText("none set");
  });

  test("Vision Lab's spend tab shows each project's spend, GPU utilisation and idle cost", async ({ page }, testInfo) => {
    const tenant = new TenantPage(page);
    await tenant.goto(TENANT, "Vision Lab");
    await tenant.tab("Spend").click();
    await expect(page).toHaveURL(`/tenants/${TENANT}/spend`);
    await expect(tenant.tab("Spend")).toHaveAttribute("aria-current", "page");
    const spend = new SpendPage(page);
    await spend.expectWindowOfDays(30);
    await expect(spend.demoBadge).toBeVisible();
    const projects = page.getByRole("table", { name: "Spend by project (USD)" }).locator("tbody").getByRole("row");
    await expect(projects).toHaveCount(2);
    // Segmentation research holds L4 GPUs that sit idle (demo utilisation around 5%).
    const segmentation = projects.filter({ hasText: "Segmentation research" });
    await expect(segmentation).toContainText("idle GPUs");
    await expect(segmentation.getByRole("cell").nth(4)).toHaveText(/^\d(\.\d)?%$/);
    await expect(segmentation.getByRole("cell").nth(5)).toHaveText(/^\$[\d,]+\.\d{2}$/);
    await expect(projects.filter({ hasText: "Detector training" })).not.toContainText("idle GPUs");
    // No range in the address: the page's default window, which the export shares.
    await expect(spend.exportCsvLink).toHaveAttribute("href", `/tenants/${TENANT}/spend/export`);
    await expectFiguresAgree(spend, `/tenants/${TENANT}/spend/data`);
    await saveScreenshot(page, "spend-tenant", testInfo);

    await projects.getByRole("link", { name: "Detector training", exact: true }).click();
    await expect(page).toHaveURL(PROJECT_SPEND);
    await expect(spend.heading).toHaveText("Spend");
  });
});

test.describe("Priya, platform admin", () => {
  test.use({ storageState: storageStateOf("priya") });

  test("platform spend shows tenants, idle capacity as its own line, pool utilisation and idle GPUs", async ({ page }, testInfo) => {
    await page.goto("/admin");
    await page.getByRole("main").getByRole("link", { name: "Spend", exact: true }).click();
    await expect(page).toHaveURL("/admin/spend");
    const spend = new SpendPage(page);
    await expect(spend.heading).toHaveText("Platform spend");
    await spend.expectWindowOfDays(30);
    await expect(page.getByTestId("cluster-equation")).toHaveText(/^Sum of projects \+ idle = cluster cost: \$[\d,.]+ \+ -?\$[\d,.]+ = \$[\d,.]+\.$/);
    const tenants = page.getByRole("table", { name: "Spend by tenant and idle capacity (USD)" }).locator("tbody").getByRole("row");
    await expect(tenants.locator("td:first-child")).toHaveText(["Language Models", "Vision Lab", "Idle capacity", "Cluster cost"]);
    await expect(page.getByRole("table", { name: "Pool utilisation per resource" }).locator("tbody tr").first()).toContainText(/^CPU/);
    await expect(page.getByRole("table", { name: "Projects with idle GPUs (USD)" }).locator("tbody tr")).toHaveText([/^vision-lab\/segmentation-research/]);
    await expect(spend.exportCsvLink).toHaveAttribute("href", "/admin/spend/export");
    await expectFiguresAgree(spend, "/admin/spend/data");
    await saveScreenshot(page, "spend-platform", testInfo);
  });
});

test.describe("Dana, member of Vision Lab without tenant.spend.view", () => {
  test.use({ storageState: storageStateOf("dana") });

  test("sees no Spend tab and gets not-found for the tenant's spend, but sees her project's spend without the budget form", async ({ page }) => {
    const tenant = new TenantPage(page);
    await tenant.goto(TENANT, "Vision Lab");
    await expect(tenant.tabs.getByRole("link")).toHaveText(["Overview", "Quota requests", "Service accounts"]);
    await expect(tenant.tab("Spend")).toHaveCount(0);
    await expectNotFound(page, await page.goto(`/tenants/${TENANT}/spend`));
    expect((await page.request.get(`/tenants/${TENANT}/spend/data?range=7d`)).status()).toBe(404);

    await page.goto(PROJECT_SPEND);
    const spend = new SpendPage(page);
    await expect(spend.heading).toHaveText("Spend");
    await expect(spend.budgetPanel).toBeVisible();
    await expect(spend.budgetField).toHaveCount(0);
  });
});
