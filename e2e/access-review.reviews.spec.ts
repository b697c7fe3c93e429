import fs from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { expectNotFound, saveScreenshot } from "./support/checks";
import { PERSONAS, storageStateOf } from "./support/personas";

// A review end to end: Bo, tenant admin of Language Models, opens a review, keeps Cleo's
// collaboration (he sponsors it), revokes Vic's viewer membership; Vic's access is gone and
// the CSV lists both decisions. It runs last (project "reviews"): it takes away an access
// that the other journeys assert.

test.describe("a review end to end", () => {
  test("Bo opens a review, keeps one item, revokes another; the revoked access is gone and the CSV lists both", async ({ browser }) => {
    const bo = await browser.newContext({ storageState: storageStateOf("bo") });
    const page = await bo.newPage();
    await page.goto("/tenants/language-models");
    await page.getByRole("navigation", { name: "Tenant" }).getByRole("link", { name: "Access reviews", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Access reviews" })).toBeVisible();

    await page.getByRole("button", { name: "Open a review" }).click();
    const dialog = page.getByRole("dialog", { name: "Open an access review of Language Models" });
    await dialog.getByLabel("Title", { exact: true }).fill("Quarterly review of Language Models");
    await dialog.getByLabel("At the deadline, items nobody reviewed are").selectOption("keep_and_flag");
    await dialog.getByRole("button", { name: "Open review", exact: true }).click();

    await expect(page.getByRole("heading", { name: "Quarterly review of Language Models" })).toBeVisible();
    const sponsorGroup = page.getByRole("region", { name: `Items for Sponsor: ${PERSONAS.bo.name}` });
    const adminsGroup = page.getByRole("region", { name: "Items for Tenant admins" });
    await expect(sponsorGroup.getByTestId("review-item")).toHaveCount(1);
    await expect(sponsorGroup.getByTestId("review-item")).toContainText(`${PERSONAS.cleo.name}`);
    const total = await page.getByTestId("review-item").count();
    await expect(page.getByTestId("review-progress")).toHaveText(`0 of ${total} decided`);
    // His own membership is for another admin to decide.
    await expect(adminsGroup.getByTestId("review-item").filter({ hasText: PERSONAS.bo.email })).toContainText("Your own access: another admin decides");

    await sponsorGroup.getByRole("button", { name: `Keep ${PERSONAS.cleo.name}: member on Chat evaluation` }).click();
    await expect(sponsorGroup.getByTestId("review-item")).toContainText(`Kept`);
    await adminsGroup.getByRole("button", { name: `Revoke ${PERSONAS.vic.name}: viewer of the tenant` }).click();
    await page.getByRole("dialog", { name: `Revoke ${PERSONAS.vic.name}: viewer of the tenant?` }).getByRole("button", { name: "Revoke access" }).click();
    await expect(adminsGroup.getByTestId("review-item").filter({ hasText: PERSONAS.vic.email })).toContainText("Revoked");
    await expect(page.getByTestId("review-progress")).toHaveText(`2 of ${total} decided`);
    await saveScreenshot(page, "access-review");
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: "/work/shots/lane-reviews/review-1280.png", fullPage: true }).catch(() => undefined);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: "/work/shots/lane-reviews/review-390.png", fullPage: true }).catch(() => undefined);
    await page.setViewportSize({ width: 1280, height: 720 });

    const downloading = page.waitForEvent("download");
    await page.getByRole("link", { name: "Export CSV" }).click();
    const lines = (await fs.readFile(await (await downloading).path(), "utf8")).trim().split(/\r?\n/);
    expect(lines[0]).toBe("Item,Principal,Email,Kind,Reviewer,Decision,Decided at,By whom,Note");
    expect(lines).toHaveLength(total + 1);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^member on Chat evaluation,${PERSONAS.cleo.name},${PERSONAS.cleo.email},external collaborator,Sponsor: ${PERSONAS.bo.name},kept,\\d{4}-\\d\\d-\\d\\dT[^,]+,${PERSONAS.bo.email},$`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^viewer of the tenant,${PERSONAS.vic.name},${PERSONAS.vic.email},membership,Tenant admins,revoked,\\d{4}-\\d\\d-\\d\\dT[^,]+,${PERSONAS.bo.email},$`)));
    await bo.close();

    // Vic's access to Language Models is gone: the tenant is no longer in reach.
    const vic = await browser.newContext({ storageState: storageStateOf("vic") });
    const vicPage = await vic.newPage();
    await expectNotFound(vicPage, await vicPage.goto("/tenants/language-models"));
    await vic.close();
  });
});
