import { expect, test, type Browser, type Page } from "@playwright/test";
import { ApprovalQueuePage } from "./pages/approval-queue-page";
import { FormDialog } from "./pages/form-dialog";
import { openPopup } from "./pages/open-popup";
import { ProjectPage } from "./pages/project-page";
import { QuotaRequestForm } from "./pages/quota-request-form";
import { QuotaRequestPage } from "./pages/quota-request-page";
import { formatDay, saveScreenshot } from "./support/checks";
import { utcDayFromNow } from "./support/clock";
import { storageStateOf, type PersonaKey } from "./support/personas";

// Alex holds 2 more cores on Segmentation research for 20 days (small enough to be approved by
// rule), then asks from the project home to keep them 20 days longer. The dialog prices the added
// days at the grant's monthly rate; Priya sees the same figures in the queue and approves; the
// grant's end moves. The grant writes a cluster change, so this runs with the other changes.

const TENANT = "vision-lab";
const PROJECT = "segmentation-research";
const NAME = "Segmentation research";

async function pageAs(browser: Browser, persona: PersonaKey): Promise<Page> {
  const context = await browser.newContext({ storageState: storageStateOf(persona) });
  return context.newPage();
}

/** "$45.26" out of "… $45.26 a month …": the figure the next page must agree with. */
async function monthlyIn(text: Promise<string>): Promise<string> {
  const m = /(\$[\d,]+\.\d{2}) a month/.exec(await text);
  expect(m, "a monthly figure").not.toBeNull();
  return m![1]!;
}

test("a tenant admin extends a time-bound grant from the project home, and a platform admin approves it at the same cost", async ({ browser }) => {
  test.setTimeout(90_000);
  const endsOn = utcDayFromNow(20);
  const extendedTo = utcDayFromNow(40);
  const endsDay = formatDay(new Date(`${endsOn}T00:00:00Z`));
  const extendedDay = formatDay(new Date(`${extendedTo}T00:00:00Z`));

  // Alex: 2 cores until a date, approved automatically by the small-request rule.
  const alex = await pageAs(browser, "alex");
  const form = new QuotaRequestForm(alex);
  await form.goto(TENANT, PROJECT);
  await form.field("CPU cores").fill("2");
  await form.endsOn(endsOn);
  await form.field("Justification").fill("Two more cores for the annotation tool this month.");
  await form.submit();
  const request = new QuotaRequestPage(alex);
  await request.expectLoaded();
  await expect(request.item("Status")).toContainText("auto-approved");
  const monthly = await monthlyIn(request.item("Estimate when asked").innerText());

  // The project home lists the grant under Time-bound quota, with Extend one click away.
  const project = new ProjectPage(alex);
  await project.goto(TENANT, PROJECT, NAME);
  const panel = project.glancePanel("Time-bound quota");
  await expect(panel).toContainText(`2 cores until ${endsDay}`);
  const dialog = new FormDialog(alex, "Extend this grant");
  await openPopup(panel.getByRole("button", { name: "Extend 2 cores", exact: true }), dialog.root);
  await expect(dialog.root).toContainText(`2 cores, now ending ${endsDay}, 00:00 UTC`);
  await dialog.field("New end").fill(extendedTo);
  // The added days at the grant's monthly rate, the rate the request page showed.
  const cost = alex.getByTestId("extension-cost");
  await expect(cost).toContainText(new RegExp(`^Adds 20 days: about \\$[\\d,]+\\.\\d{2} at ${monthly.replace(/[$.]/g, "\\$&")} a month\\.$`));
  const added = /about (\$[\d,]+\.\d{2})/.exec(await cost.innerText())![1]!;

  // A reason too short is refused beside its field, and nothing is sent.
  await dialog.field("Why it is still needed").fill("short");
  await dialog.submit("Ask to extend");
  await expect(dialog.fieldError("Why it is still needed")).toHaveText("Say in a sentence what the resources are for, at least 10 characters.");
  await dialog.field("Why it is still needed").fill("The annotation tool runs until the end of January.");
  await saveScreenshot(alex, "grant-extension-dialog");
  await dialog.submit("Ask to extend");

  await request.expectLoaded();
  await expect(request.item("Status")).toContainText("pending");
  await expect(request.item("Estimate when asked")).toContainText(`${monthly} a month`);
  await expect(request.item("Estimate when asked")).toContainText(`${added} for the added 20 days`);
  await saveScreenshot(alex, "grant-extension-requested");
  // Back home, the grant shows its waiting extension instead of a second Extend.
  await project.goto(TENANT, PROJECT, NAME);
  await expect(panel.getByRole("link", { name: "Extension waiting" })).toBeVisible();
  await expect(panel.getByRole("button", { name: /^Extend/ })).toHaveCount(0);

  // Priya: the queue says what it is and what it costs, with the same figures.
  const priya = await pageAs(browser, "priya");
  const queue = new ApprovalQueuePage(priya);
  await queue.goto();
  const entry = queue.entry(`Extend 2 cores for ${TENANT}/${NAME}`);
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText("Extension of a grant");
  await expect(entry).toContainText(`from ${endsDay}, 00:00 UTC to ${extendedDay}, 00:00 UTC`);
  await expect(entry).toContainText(`about ${monthly} a month, ${added} for the added 20 days`);
  await saveScreenshot(priya, "grant-extension-queue");
  const approve = new FormDialog(priya, "Approve this extension?");
  await openPopup(entry.getByRole("button", { name: "Approve", exact: true }), approve.root);
  await expect(approve.root).toContainText(`about ${monthly} a month, ${added} for the added 20 days`);
  await approve.submit("Approve");
  await expect(approve.root).toBeHidden();
  await expect(queue.entry(`Extend 2 cores for ${TENANT}/${NAME}`)).toHaveCount(0);
  await priya.context().close();

  // Alex: the grant now ends at the new date, and can be extended again.
  await project.goto(TENANT, PROJECT, NAME);
  await expect(panel).toContainText(`2 cores until ${extendedDay}`);
  await expect(panel.getByRole("button", { name: "Extend 2 cores", exact: true })).toBeVisible();
  await saveScreenshot(alex, "grant-extension-extended");
  await alex.context().close();
});
