import path from "node:path";
import { expect, type Locator, type Page, type Response } from "@playwright/test";
import { SCREENSHOT_DIR } from "./env";

/**
 * Every row of a table body, in order and nothing more, compared cell by cell
 * from the first; cells after the expected ones (row actions) are not compared.
 */
export async function expectRows(rows: Locator, expected: (string | RegExp)[][]): Promise<void> {
  await expect(rows).toHaveCount(expected.length);
  for (const [i, cells] of expected.entries()) await expectCells(rows.nth(i), cells);
}

/** The leading cells of one table row. */
export async function expectCells(row: Locator, expected: (string | RegExp)[]): Promise<void> {
  for (const [j, text] of expected.entries()) {
    await expect(row.getByRole("cell").nth(j), `cell ${j + 1}`).toHaveText(text);
  }
}

/**
 * The not-found page, answered with HTTP 404 for the document itself: a page
 * out of the person's reach is indistinguishable from one that does not exist.
 */
export async function expectNotFound(page: Page, response: Response | null): Promise<void> {
  expect(response, "the navigation has a document response").not.toBeNull();
  expect(response?.status(), `status of ${response?.url()}`).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Not found");
  await expect(page.getByRole("main"), "one main landmark, not one nested in another").toHaveCount(1);
  await expect(page.getByText("This page does not exist, or you do not have access to it.")).toBeVisible();
}

const DAY = 86_400_000;

/** The page's date format (components/ui.tsx formatDate). */
export function formatDay(date: Date): string {
  return date.toLocaleDateString("en-GB", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
}

/**
 * Cleo's grant ends 60 days after the demo data was seeded, i.e. when this
 * run's server started: within the last half hour. That window spans at most
 * two calendar days, so accept exactly those.
 */
export function collaboratorExpiry(prefix = ""): RegExp {
  const now = Date.now();
  const days = new Set([formatDay(new Date(now - 30 * 60_000 + 60 * DAY)), formatDay(new Date(now + 60 * DAY))]);
  return new RegExp(`^${prefix}(${[...days].join("|")})$`);
}

/** A full-page screenshot kept as part of the test output, in test-results/screenshots/. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
