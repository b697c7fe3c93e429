import { expect, test, type Browser, type Page } from "@playwright/test";
import { NotificationsPage } from "./pages/notifications-page";
import { QuotaRequestForm } from "./pages/quota-request-form";
import { QuotaRequestPage } from "./pages/quota-request-page";
import { saveScreenshot } from "./support/checks";
import { storageStateOf, type PersonaKey } from "./support/personas";

// The conversation around a request: Dana asks for two MIG slices, Priya
// opens it, Dana edits it down to one before Priya decides; Priya's approval
// of what she saw is refused, she reloads, sees what changed and asks a
// question; Dana answers; Priya rejects with a reason. Nothing is granted, so
// the figures of the other journeys stay as the demo data has them.

const TENANT = "vision-lab";
const PROJECT = "detector-training";
const MIG = "A100 1g.10gb";

async function pageAs(browser: Browser, persona: PersonaKey): Promise<Page> {
  const context = await browser.newContext({ storageState: storageStateOf(persona) });
  return context.newPage();
}

/** The page at the desktop width and at a phone's, each kept as a screenshot (saveScreenshot takes both). */
async function screenshotsOf(page: Page, name: string): Promise<void> {
  await saveScreenshot(page, name);
}

test("a requester edits a pending request and talks with the approver, whose approval of the earlier revision is refused", async ({ browser }) => {
  test.setTimeout(120_000);
  const dana = await pageAs(browser, "dana");
  const form = new QuotaRequestForm(dana);
  await form.goto(TENANT, PROJECT);
  await form.field("GPU model 1").selectOption(MIG);
  await form.field("Number of GPUs, model 1").fill("2");
  await form.field("Justification").fill("Two MIG slices for the labelling model's evaluation runs.");
  await form.submit();
  await expect(dana).toHaveURL(/\/quota\/requests\/[0-9a-f-]{36}\?submitted=pending$/);
  const requestUrl = dana.url().replace(/\?.*$/, "");
  const asked = new QuotaRequestPage(dana);
  await expect(asked.item("Asked")).toHaveText(`2 × ${MIG}permanent`);
  await expect(asked.conversation).toContainText("No comments yet.");

  // Priya opens it to decide: the version she sees is revision 1.
  const priya = await pageAs(browser, "priya");
  await priya.goto(requestUrl);
  const decision = new QuotaRequestPage(priya);
  await decision.expectLoaded();
  await expect(decision.editedSection).toHaveCount(0);
  await expect(priya.getByRole("heading", { name: "Earlier requests of the tenant" })).toBeVisible();
  await expect(priya.getByRole("heading", { name: "Grants of Detector training" })).toBeVisible();

  // Meanwhile Dana edits it: one slice, a new justification.
  await dana.getByRole("link", { name: "Edit request", exact: true }).click();
  await expect(form.heading).toHaveText("Edit quota request");
  await expect(form.field("Number of GPUs, model 1")).toHaveValue("2");
  await expect(form.decisionHint).toHaveText("An edit is never approved automatically: a platform admin decides, and sees what you changed.");
  await form.field("Number of GPUs, model 1").fill("1");
  await form.field("Justification").fill("One MIG slice is enough for the evaluation runs.");
  await form.saveAsRevision(2);
  await expect(dana).toHaveURL(`${requestUrl}?edited=2`);
  await expect(asked.banner).toHaveText("Saved as revision 2. The platform admin deciding sees what you changed.");
  await expect(asked.item("Revision")).toHaveText("2edited by the requester since it was asked");
  await expect(asked.item("Asked")).toHaveText(`1 × ${MIG}permanent`);

  // Priya approves what she saw: refused, because it is no longer what the request says.
  await decision.decide.getByRole("button", { name: "Approve", exact: true }).click();
  await priya.getByRole("dialog", { name: "Approve this request?" }).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(priya.getByRole("dialog", { name: "Approve this request?" })).toContainText("This request changed since you opened it (the requester edited it, or another admin acted on it). Reload and decide again.");
  await priya.reload();
  await expect(decision.item("Status")).toHaveText("pending");
  await expect(decision.change(decision.editedSection, `${MIG} GPUs`)).toHaveText(/^was 2\s*→\s*, now 1$/);
  await expect(decision.change(decision.editedSection, "Justification")).toContainText("One MIG slice is enough");
  await decision.writeComment("Is one slice enough for the nightly runs as well?");
  await expect(decision.comments()).toHaveCount(1);
  await expect(decision.comments().first()).toContainText("Priya Raman (deciding side)");
  await screenshotsOf(priya, "quota-request-edited-decision");

  // Dana is told, and answers in the thread.
  await dana.goto("/notifications");
  await expect(new NotificationsPage(dana).items.filter({ hasText: "Priya Raman commented on the quota request for Detector training" }).first()).toBeVisible();
  await dana.goto(requestUrl);
  await expect(asked.comments().first()).toContainText("Is one slice enough for the nightly runs as well?");
  await asked.writeComment("Yes: the nightly runs share it.");
  await expect(asked.comments()).toHaveCount(2);
  await expect(asked.comments().nth(1)).toContainText("Dana Okafor (requester)");
  await expect(dana.getByRole("heading", { name: "Revisions", level: 2 })).toBeVisible();
  await screenshotsOf(dana, "quota-request-conversation");

  // Priya sees the answer, and rejects (the pool is for another tenant this month): nothing is granted.
  await priya.reload();
  await expect(decision.comments().nth(1)).toContainText("Yes: the nightly runs share it.");
  await decision.decide.getByRole("button", { name: "Reject", exact: true }).click();
  await decision.rejectDialog.field("Reason").fill("The MIG pool is reserved for the language tenant this month.");
  await decision.rejectDialog.submit("Reject");
  await expect(decision.item("Status")).toHaveText("rejected");
  await expect(decision.conversation.getByLabel("Your comment", { exact: true })).toBeVisible();
  await priya.context().close();
  await dana.context().close();
});
