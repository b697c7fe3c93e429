import { expect, test } from "@playwright/test";
import { PortalHeader } from "./pages/portal-header";
import { ProjectPage } from "./pages/project-page";
import { TenantPage } from "./pages/tenant-page";
import { NARROW, saveScreenshot } from "./support/checks";
import { storageStateOf } from "./support/personas";

/**
 * Finding one's way: the sidebar offers the places the policy lets the person
 * open, the command palette (Ctrl-K) finds only what they may see, the project
 * page opens with its figures and "Request quota" one click away, and on a
 * phone the navigation sits behind "Menu".
 */

test.describe("Dana, member of Vision Lab with a grant on Detector training", () => {
  test.use({ storageState: storageStateOf("dana") });

  test("the sidebar holds her places only, and the project page is Detector training's home", async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const project = new ProjectPage(page);
    await project.goto("vision-lab", "detector-training", "Detector training");
    const header = new PortalHeader(page);
    await expect(header.nav.getByRole("link")).toHaveText(["My tenants", "Notifications", "Vision Lab", "Detector training", "Ask for a tenant", "API reference"]);
    await expect(header.place("Detector training")).toHaveAttribute("aria-current", "page");
    await expect(header.adminLink).toHaveCount(0);

    // The home's figures, record-only: the plan with no use, this month against the budget, requests, the latest change.
    await expect(project.glancePanel("Quota")).toContainText("No cluster connected: this is the quota the portal has planned");
    await expect(project.glancePanel("Quota").getByRole("list", { name: "Quota by resource" }).getByRole("listitem").first()).toContainText(/^CPU\d+(\.\d+)? cores$/);
    // Its figures come from the demo's generated usage, and say so as the spend page does.
    await expect(project.glancePanel("Spend this month").getByText("Demo data", { exact: true })).toBeVisible();
    await expect(project.glancePanel("Open requests")).toBeVisible();
    await expect(project.glancePanel("Latest cluster change")).toContainText(/Latest change #\d+/);
    await saveScreenshot(page, "project-home", testInfo);

    // This month on the home page is the spend page's, to the cent.
    const soFar = (await project.glance.getByTestId("month-to-date").innerText()).split(" (")[0]!;
    const forecast = (await project.glance.getByTestId("month-forecast").innerText()).split(" (")[0]!;
    await project.glancePanel("Spend this month").getByRole("link", { name: "Spend", exact: true }).click();
    const budget = page.getByTestId("budget-panel");
    await expect(budget.getByRole("definition").first()).toHaveText(soFar);
    await expect(budget.locator("dd").nth(2)).toHaveText(forecast);

    // "Request quota" is a button at the top of the home page.
    await page.goBack();
    await project.requestQuotaButton.click();
    await expect(page).toHaveURL(/\/tenants\/vision-lab\/projects\/detector-training\/quota\/new$/);
  });

  test("the palette finds her project and none of Language Models'", async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto("/");
    const header = new PortalHeader(page);
    await header.search("pretraining");
    await expect(header.paletteStatus).toHaveText("Nothing you can open matches “pretraining”.");
    await expect(header.paletteOptions).toHaveCount(0);
    await header.search("detector");
    await expect(header.paletteOptions.first()).toContainText("Detector training");
    await expect(header.paletteInput).toHaveAttribute("aria-activedescendant", (await header.paletteOptions.first().getAttribute("id"))!);
    await saveScreenshot(page, "palette", testInfo);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/tenants\/vision-lab\/projects\/detector-training$/);
    await expect(header.palette).toBeHidden();
  });

  test("on a phone the places sit behind Menu, and the palette fits", async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const project = new ProjectPage(page);
    await project.goto("vision-lab", "detector-training", "Detector training");
    const header = new PortalHeader(page);
    await expect(header.nav).toBeHidden();
    const menu = await header.openMenu();
    await saveScreenshot(page, "menu", testInfo, [NARROW]);
    await menu.getByRole("link", { name: "Vision Lab", exact: true }).click();
    await expect(menu).toBeHidden();
    await expect(page.getByRole("main").getByRole("heading", { level: 1 })).toHaveText("Vision Lab");
    await header.search("detector");
    await expect(header.paletteOptions.first()).toContainText("Detector training");
    await saveScreenshot(page, "palette-tenant", testInfo);
  });
});

test.describe("Alex, tenant admin of Vision Lab", () => {
  test.use({ storageState: storageStateOf("alex") });

  test("the tenant page opens with its envelope, spend, requests and people; the palette finds no other tenant's people", async ({ page }, testInfo) => {
    const tenant = new TenantPage(page);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await tenant.goto("vision-lab", "Vision Lab");
      await expect(tenant.glancePanel("Spend this month")).toBeVisible();
      await expect(tenant.glancePanel("People and projects")).toContainText("Members2");
    }
    await saveScreenshot(page, "tenant-home", testInfo);
    await page.setViewportSize({ width: 1280, height: 900 });
    const header = new PortalHeader(page);
    await header.search("Bo Larsen");
    await expect(header.paletteOptions).toHaveCount(0);
    await header.search("Dana");
    await expect(header.palette.getByRole("group", { name: "People" }).getByRole("option")).toHaveText([/^Dana Okafor/]);
  });
});
