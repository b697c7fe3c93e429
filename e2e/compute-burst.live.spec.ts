import { expect, test, type Browser, type Page } from "@playwright/test";
import { QuotaRequestForm } from "./pages/quota-request-form";
import { QuotaRequestPage } from "./pages/quota-request-page";
import { SignInPage } from "./pages/sign-in-page";
import { saveScreenshot } from "./support/checks";
import { PERSONAS, SIGNED_OUT } from "./support/personas";

// With Kueue on (the live portal), a request asks to borrow CPU and memory
// beside GPUs: the form shows the burst fields, warns while burst GPUs have no
// CPU or memory to run on and says what to enter, and the platform admin sees
// the CPU and memory lines in the cohort and across all tenants. Priya rejects
// it at the end, so the live cohort the other journey reads is unchanged.

const TENANT = "vision-lab";
const PROJECT = "segmentation-research";

async function signedIn(browser: Browser, name: string): Promise<Page> {
  const page = await (await browser.newContext({ storageState: SIGNED_OUT })).newPage();
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signInAs(name);
  return page;
}

test("a tenant admin asks to borrow L4 GPUs with CPU and memory, and the platform admin sees every line it borrows on", async ({ browser }) => {
  test.setTimeout(120_000);
  const alex = await signedIn(browser, PERSONAS.alex.name);
  const form = new QuotaRequestForm(alex);
  await form.goto(TENANT, PROJECT);
  await form.field("GPU model 1").selectOption("L4");
  await form.field("Burst GPUs, model 1").fill("2");
  // Borrowed GPUs without CPU and memory burst: Kueue would admit none of their pods.
  const hint = alex.getByTestId("compute-burst-hint");
  await expect(hint).toContainText("Pods on the 2 borrowed L4 GPUs need CPU and memory too");
  await expect(hint).toContainText(/Enter Burst CPU cores and Burst memory \(GiB\): \d+ cores and [\d,.]+ GiB is what the \S+ nodes give 2 GPUs\./);
  await form.field("Burst CPU cores").fill("lots");
  await expect(form.fieldError("Burst CPU cores")).toHaveText("Enter a number of cores such as 16 or 500m.");
  await form.field("Burst CPU cores").fill("16");
  await expect(hint).toContainText("Enter Burst memory (GiB)");
  await form.field("Burst memory (GiB)").fill("64");
  await expect(hint).toHaveCount(0);
  await form.field("Justification").fill("Preemptible augmentation sweeps on idle L4s.");
  await expect(form.afterApprovalRows.filter({ hasText: "Burst CPU cores" })).toContainText("16");
  await expect(form.decisionHint).toHaveText("A platform admin decides, because it asks for burst GPUs, CPU and memory, which a platform admin decides.");
  await saveScreenshot(alex, "quota-request-form-compute-burst");

  await form.submit();
  await expect(alex).toHaveURL(new RegExp(`/tenants/${TENANT}/projects/${PROJECT}/quota/requests/[0-9a-f-]{36}\\?submitted=pending$`));
  const requestPath = new URL(alex.url()).pathname;

  const priya = await signedIn(browser, PERSONAS.priya.name);
  await priya.goto(requestPath);
  const request = new QuotaRequestPage(priya);
  await request.expectLoaded();
  const sharing = priya.getByRole("region", { name: "Guarantees and bursts across all tenants" });
  await expect(sharing.getByRole("note")).toHaveCount(3);
  await expect(sharing.getByRole("note").nth(0)).toContainText(/^CPU: [\d,.]+ cores? granted across all tenants after approval \([\d,.]+ now, starting quotas aside\)/);
  await expect(sharing.getByRole("note").nth(0)).toContainText(/Burst limits go from [\d,.]+ to [\d,.]+\./);
  await expect(sharing.getByRole("note").nth(1)).toContainText(/^Memory: /);
  await expect(sharing.getByRole("note").nth(2)).toContainText(/^L4: /);
  await expect(priya.getByRole("table", { name: /^Cohort of vision-lab on CPU, before and after approval$/ })).toBeVisible();
  await saveScreenshot(priya, "quota-request-decision-compute-burst");

  await request.decide.getByRole("button", { name: "Reject", exact: true }).click();
  await request.rejectDialog.field("Reason").fill("Shown in a test journey; nothing to grant.");
  await request.rejectDialog.submit("Reject");
  await expect(request.item("Status")).toHaveText("rejected");
  await alex.context().close();
  await priya.context().close();
});
