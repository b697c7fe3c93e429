import { expect, test, type Page } from "@playwright/test";
import { formatDate, formatDateTime, parseTimeZone } from "../lib/format";
import { saveScreenshot } from "./support/checks";
import { BASE_URL } from "./support/env";
import { storageStateOf } from "./support/personas";

/**
 * A browser in Kolkata (UTC+5:30 all year, so no figure of it can pass for
 * UTC by chance) sees every instant on a page in its own time, with the UTC
 * time on hover. The first page is rendered in UTC (the server does not know
 * the zone yet), then the browser's zone is stored and the page refreshed once.
 */

const ZONE = "Asia/Kolkata";

test.use({ storageState: storageStateOf("priya"), timezoneId: ZONE });

/** Every <time> of the main area: its words must be the formatter's in `zone`, its title the UTC time. */
async function expectTimesIn(page: Page, zone: string): Promise<number> {
  const times = await page
    .getByRole("main")
    .locator("time[datetime]")
    .evaluateAll((els) => els.map((el) => ({ iso: el.getAttribute("datetime")!, text: el.textContent.trim(), title: el.getAttribute("title") })));
  for (const t of times) {
    const at = new Date(t.iso);
    expect(t.title, `title of ${t.iso}`).toBe(formatDateTime(at));
    // A relative phrase ("3 days ago") keeps its words; the others are the day or the minute in the zone.
    // Cluster changes put the day over the minute on two lines, so spacing is compared loosely.
    const words = (s: string) => s.replace(/[,\s]/g, "");
    if (!/ago|today|yesterday|in \d/.test(t.text)) expect([formatDateTime(at, zone), formatDate(at, zone)].map(words), `words of ${t.iso}`).toContain(words(t.text));
  }
  return times.length;
}

test("the audit log shows times in the browser's zone, UTC on hover", async ({ page, context }, testInfo) => {
  await page.goto("/admin/audit");
  // After the one refresh, the times carry the zone's offset.
  await expect(page.getByRole("main").locator("time[datetime]").first()).toContainText("GMT+5:30");
  const cookie = (await context.cookies()).find((c) => c.name === "allot-tz");
  expect(parseTimeZone(cookie?.value)).toBe(parseTimeZone(ZONE));
  expect(await expectTimesIn(page, parseTimeZone(ZONE))).toBeGreaterThan(5);
  await saveScreenshot(page, "audit-log-kolkata", testInfo);

  // The next page knows the zone from its first byte: no refresh needed.
  const html = await (await page.request.get("/admin/cluster")).text();
  expect(html).toContain("GMT+5:30");
  await page.goto("/admin/cluster");
  expect(await expectTimesIn(page, parseTimeZone(ZONE))).toBeGreaterThan(0);
});

test("the exports stay in UTC whatever the browser's zone", async ({ page }) => {
  await page.goto("/admin/audit");
  await expect(page.getByRole("main").locator("time[datetime]").first()).toContainText("GMT+5:30");
  const csv = await (await page.request.get("/admin/audit/export")).text();
  const [header, firstRow] = csv.split("\n");
  expect(header).toMatch(/^seq,at,/);
  expect(firstRow!.split(",")[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(csv).not.toContain("GMT+5:30");
});

test("a forged zone cookie renders in UTC, written as such", async ({ page, context }) => {
  // Only the server reads it here: a page in the browser would put the real zone back.
  await context.addCookies([{ name: "allot-tz", value: "Mars/Olympus_Mons", url: BASE_URL }]);
  const html = await (await page.request.get("/admin/audit")).text();
  expect(html).toMatch(/\d\d:\d\d UTC/);
  expect(html).not.toContain("GMT+5:30");
});
