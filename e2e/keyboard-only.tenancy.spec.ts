import { expect, test, type Browser, type Page } from "@playwright/test";
import { QuotaRequestForm } from "./pages/quota-request-form";
import { QuotaRequestPage } from "./pages/quota-request-page";
import { tabTo } from "./support/keyboard";
import { storageStateOf, type PersonaKey } from "./support/personas";

// The central loop without a mouse: Dana asks for quota and Priya approves it
// with Tab, Enter, Space and the arrow keys only, seeing where the focus is at
// every step. Runs with the tenancy journeys, after those that assert the
// project's H100 quota exactly.

const TENANT = "vision-lab";
const PROJECT = "detector-training";
const JUSTIFICATION = "Evaluating the detector on the night-time footage, asked for without a mouse.";

async function pageAs(browser: Browser, persona: PersonaKey): Promise<Page> {
  const context = await browser.newContext({ storageState: storageStateOf(persona) });
  return context.newPage();
}

test("a data scientist asks for quota and a platform admin approves it, both with the keyboard only", async ({ browser }) => {
  test.setTimeout(90_000);

  // Dana: from the project's quota page to the form, by Tab and Enter.
  const dana = await pageAs(browser, "dana");
  await dana.goto(`/tenants/${TENANT}/projects/${PROJECT}/quota`);
  await tabTo(dana, dana.getByRole("main").getByRole("link", { name: "Request quota", exact: true }).first());
  await dana.keyboard.press("Enter");
  const form = new QuotaRequestForm(dana);
  await expect(form.heading).toHaveText("Request quota");

  // The GPU model with the arrow keys, the count typed.
  const model = form.field("GPU model 1");
  await tabTo(dana, model);
  for (let i = 0; i < 10 && (await model.inputValue()) !== "H100"; i++) await dana.keyboard.press("ArrowDown");
  await expect(model).toHaveValue("H100");
  await tabTo(dana, form.field("Number of GPUs, model 1"));
  await dana.keyboard.type("4");

  // A radio group is one tab stop: the arrow keys move between its choices.
  const permanent = form.form.getByRole("radio", { name: "Permanent" });
  await tabTo(dana, permanent);
  await dana.keyboard.press("ArrowDown");
  await expect(form.form.getByRole("radio", { name: "Until a date" })).toBeChecked();
  await expect(form.field("Ends on")).toBeVisible();
  await dana.keyboard.press("ArrowUp");
  await expect(permanent).toBeChecked();
  await expect(form.field("Ends on")).toHaveCount(0);

  await tabTo(dana, form.field("Justification"));
  await dana.keyboard.type(JUSTIFICATION);
  await tabTo(dana, form.form.getByRole("button", { name: "Submit request", exact: true }));
  await dana.keyboard.press("Enter");
  await expect(dana).toHaveURL(new RegExp(`/tenants/${TENANT}/projects/${PROJECT}/quota/requests/[0-9a-f-]{36}\\?submitted=pending$`));
  const requestUrl = dana.url().replace(/\?.*$/, "");
  await dana.context().close();

  // Priya: the request, Approve opened with Enter, the note typed, the dialog's Approve pressed with Space.
  const priya = await pageAs(browser, "priya");
  await priya.goto(requestUrl);
  const decision = new QuotaRequestPage(priya);
  await decision.expectLoaded();
  await tabTo(priya, decision.decide.getByRole("button", { name: "Approve", exact: true }));
  await priya.keyboard.press("Enter");
  const dialog = priya.getByRole("dialog", { name: "Approve this request?" });
  await expect(dialog).toBeVisible();
  await tabTo(priya, dialog.getByLabel("Note to the requester", { exact: true }));
  await priya.keyboard.type("Approved from the keyboard.");
  await tabTo(priya, dialog.getByRole("button", { name: "Approve", exact: true }));
  await priya.keyboard.press("Space");
  await expect(dialog).toBeHidden();
  await expect(decision.item("Status")).toContainText("approved");
  await expect(decision.decisionNote).toHaveText("Approved from the keyboard.");
  await priya.context().close();
});
