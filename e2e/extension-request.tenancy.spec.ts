import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { CollaboratorsPage } from "./pages/collaborators-page";
import { ExtensionPage } from "./pages/extension-page";
import { FormDialog } from "./pages/form-dialog";
import { ProjectPage } from "./pages/project-page";
import { formatDay, saveScreenshot } from "./support/checks";
import { utcDayFromNow } from "./support/clock";
import { storageStateOf } from "./support/personas";

// Cleo's access to Chat evaluation ends 60 days after the demo was seeded. She
// asks for more time from the project page (where a reminder also leads); Bo,
// her sponsor and Language Models' admin, grants it in one step.

test.describe.serial("Cleo asks for more time on Chat evaluation and Bo grants it", () => {
  test.use({ storageState: storageStateOf("bo") });
  const untilDay = utcDayFromNow(75);
  const until = formatDay(new Date(untilDay));
  let cleoContext: BrowserContext | undefined;
  let cleo: Page;

  test.afterAll(async () => {
    await cleoContext?.close();
  });

  test("Cleo finds the way from the project page and is told which field is wrong", async ({ browser }) => {
    cleoContext = await browser.newContext({ storageState: storageStateOf("cleo") });
    cleo = await cleoContext.newPage();
    const project = new ProjectPage(cleo);
    await project.goto("language-models", "chat-eval", "Chat evaluation");
    await expect(project.subtitle).toContainText(/your access ends \d{1,2} \w{3} \d{4} · Ask for more time/);
    await cleo.getByRole("main").getByRole("link", { name: "Ask for more time", exact: true }).click();

    const page = new ExtensionPage(cleo);
    await page.expectLoaded();
    await expect(page.subtitle).toContainText("Your access to Chat evaluation (Language Models) ends in 59 days");
    await expect(page.subtitle).toContainText("Your sponsor is Bo Larsen.");
    await page.until.fill(untilDay);
    await page.reason.fill("short");
    await page.submit.click();
    await expect(page.fieldError("Why you need it")).toHaveText("Say why, in at least 10 characters.");
    await page.reason.fill("The evaluation of the new checkpoints runs until the end of the quarter.");
    await saveScreenshot(cleo, "extension-request");
    await page.submit.click();
    await expect(page.pending).toContainText(`Until ${until}, 00:00 UTC`);
    await expect(page.requests).toHaveCount(1);
    await expect(page.requests.first()).toContainText("pending");
  });

  test("Bo sees the request on the Collaborators tab and grants it in one step", async ({ page }) => {
    const collaborators = new CollaboratorsPage(page);
    await collaborators.goto("language-models", "Language Models");
    const requests = page.getByTestId("extension-request");
    await expect(requests).toHaveCount(1);
    await expect(requests.first()).toContainText("Cleo Park");
    await expect(requests.first()).toContainText(`${until}, 00:00 UTC`);
    await expect(requests.first()).toContainText("The evaluation of the new checkpoints runs until the end of the quarter.");
    await saveScreenshot(page, "extension-requests-sponsor");

    await requests.first().getByRole("button", { name: "Grant", exact: true }).click();
    const dialog = new FormDialog(page, "Extend Cleo Park's access to Chat evaluation");
    await expect(dialog.field("Access until")).toHaveValue(untilDay);
    await dialog.field("Note to them (optional)").fill("Granted for the quarter.");
    await saveScreenshot(page, "extension-grant-dialog");
    await dialog.submit("Grant extension");
    await expect(dialog.root).toBeHidden();
    await expect(requests).toHaveCount(0);
    await expect(collaborators.rows.filter({ hasText: "Cleo Park" }).getByRole("cell").nth(3)).toHaveText(until);
  });

  test("Cleo sees the new end and the answer", async () => {
    const page = new ExtensionPage(cleo);
    await cleo.reload();
    await page.expectLoaded();
    await expect(page.subtitle).toContainText(`at ${until}, 00:00 UTC`);
    await expect(page.requests.first()).toContainText("granted");
    await expect(page.requests.first()).toContainText("Granted for the quarter.");
    // The project page agrees.
    const project = new ProjectPage(cleo);
    await project.goto("language-models", "chat-eval", "Chat evaluation");
    await expect(project.subtitle).toContainText(`your access ends ${until}`);
  });
});
