import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Locator, type Page, type Response, type TestInfo } from "@playwright/test";
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

/** The two widths every page is looked at: a laptop and a phone (an iPhone's 390 CSS pixels). */
export const WIDE = { width: 1280, height: 800 };
export const NARROW = { width: 390, height: 844 };

/** Impacts that fail a page; "moderate" and "minor" findings are left to judgement. */
const FAILING_IMPACTS = new Set(["serious", "critical"]);

/**
 * The serious and critical axe findings on the page as it is now, one line each
 * (rule, what it is about, the first elements), empty when there are none.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => FAILING_IMPACTS.has(v.impact ?? ""))
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}${v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ""}; first: ${v.nodes[0]?.html.slice(0, 160)}`);
}

/** Fails the test on any serious or critical axe violation on the page as it is now. */
export async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousAccessibilityViolations(page), `serious or critical accessibility violations on ${page.url()}`).toEqual([]);
}

/** How far the page scrolls sideways (0 when it fits the viewport's width). */
export async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/**
 * What a journey looks at: the page is checked with axe (serious or critical
 * violations fail the test) and kept as full-page screenshots at 1280 and
 * 390 px wide, `<name>-1280.png` and `<name>-390.png` in
 * test-results/screenshots/, attached to the report when `testInfo` is given.
 * The page is left at the width it had. A state only a phone has (the Menu
 * dialog) passes `sizes: [NARROW]`.
 */
export async function saveScreenshot(page: Page, name: string, testInfo?: TestInfo, sizes: readonly { width: number; height: number }[] = [WIDE, NARROW]): Promise<void> {
  // The widths are added here; a name that carries one already would give files such as home-1280-390.png.
  if (/-(1280|390|\d{3,4}px)$/.test(name)) throw new Error(`saveScreenshot adds the widths itself: name it without "${name.slice(name.lastIndexOf("-"))}"`);
  await expectAccessible(page);
  const before = page.viewportSize() ?? WIDE;
  for (const size of sizes) {
    await page.setViewportSize(size);
    const file = path.join(SCREENSHOT_DIR, `${name}-${size.width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    // Attached to the report too when the journey passes its testInfo, so a reviewer sees both widths there.
    if (testInfo) await testInfo.attach(`${name}-${size.width}`, { path: file, contentType: "image/png" });
  }
  await page.setViewportSize(before);
}
