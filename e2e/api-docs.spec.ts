import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { BASE_URL, SCREENSHOT_DIR } from "./support/env";
import { storageStateOf } from "./support/personas";

// The API reference: drawn in the browser from /api/v1/openapi.json by a
// self-hosted renderer, under the portal's nonce CSP (no CSP violation, no
// request to another origin), searchable, with how to get a token and a curl
// example per operation. The time until the reference shows its operations
// is printed and attached to the report (navigation start to the first
// operation's heading, Performance API, on this machine).

/** What the window shows: the reference holds every operation, so a full-page picture is tens of thousands of pixels tall. */
async function viewportScreenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

test.describe("Sam, an automation engineer of Vision Lab (as Alex, tenant admin)", () => {
  test.use({ storageState: storageStateOf("alex") });

  test("finds the token exchange in the API reference by searching, and copies its curl example", async ({ page }, testInfo) => {
    test.setTimeout(90_000);
    const violations: string[] = [];
    const foreign: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to (load|execute|apply|connect)/i.test(m.text())) violations.push(m.text());
    });
    page.on("pageerror", (e) => violations.push(`page error: ${e.message}`));
    page.on("request", (r) => {
      const url = new URL(r.url());
      if (!["data:", "blob:"].includes(url.protocol) && url.origin !== new URL(BASE_URL).origin) foreign.push(r.url());
    });

    await page.goto("/api-docs");
    const reference = page.getByTestId("api-reference");
    await expect(reference.getByRole("heading", { name: "Getting a token" })).toBeVisible({ timeout: 30_000 });
    const loadMs = await page.evaluate(() => Math.round(performance.now()));
    console.log(`API reference: operations visible ${loadMs} ms after navigation start`);
    testInfo.annotations.push({ type: "api-reference-load-ms", description: String(loadMs) });
    await expect(reference).toContainText("POST /oauth/token");
    await viewportScreenshot(page, "api-docs");
    await testInfo.attach("api-docs", { path: path.join(SCREENSHOT_DIR, "api-docs.png"), contentType: "image/png" });

    // Search: the operation by words of its summary, then its example.
    await page.keyboard.press("Control+k");
    const search = page.getByRole("combobox").or(page.getByPlaceholder(/search/i)).first();
    await expect(search).toBeVisible();
    await search.fill("exchange an external OIDC token");
    const hit = page.getByRole("option").filter({ hasText: /Exchange an external OIDC token/ }).first();
    await expect(hit).toBeVisible();
    await hit.click();
    await expect(page.getByText('--data-urlencode "grant_type=urn:ietf:params:oauth:grant-type:token-exchange"').first()).toBeVisible();

    await page.keyboard.press("Control+k");
    await search.fill("Move guaranteed quota");
    await page.getByRole("option").filter({ hasText: /Move guaranteed quota/ }).first().click();
    await expect(page.getByText(`-d '{"quota":"gpu:H100","amount":"2","to":"detector-training"}'`).first()).toBeVisible();
    await viewportScreenshot(page, "api-docs-search");
    await page.setViewportSize({ width: 390, height: 844 });
    await viewportScreenshot(page, "api-docs-390");

    expect(violations).toEqual([]);
    expect(foreign).toEqual([]);
  });
});
