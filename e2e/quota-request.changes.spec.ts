import { expect, test, type Browser, type Page } from "@playwright/test";
import { ApprovalQueuePage } from "./pages/approval-queue-page";
import { NotificationsPage } from "./pages/notifications-page";
import { ProjectPage } from "./pages/project-page";
import { ProjectQuotaPage } from "./pages/quota-page";
import { QuotaRequestForm } from "./pages/quota-request-form";
import { QuotaRequestPage } from "./pages/quota-request-page";
import { expectCells, formatDay, saveScreenshot } from "./support/checks";
import { storageStateOf, type PersonaKey } from "./support/personas";

// The portal's central loop: Dana asks for H100s and sees the estimate, Priya
// decides with the full picture and grants less, Dana sees the decision and
// the quota it gives her project. The demo seed holds the node pools (an
// H100 pool of 4 nodes × 8 GPUs present, 6 at the autoscaler maximum) and the rate card ($4.10 per
// H100-hour). The approval queues a cluster change, so this runs with the
// other changes.

const DAY = 86_400_000;
const TENANT = "vision-lab";
const PROJECT = "detector-training";
const ENTRY = "4 × H100, 2 × L4 for vision-lab/Detector training";

async function pageAs(browser: Browser, persona: PersonaKey): Promise<Page> {
  const context = await browser.newContext({ storageState: storageStateOf(persona) });
  return context.newPage();
}

test("a data scientist asks for 4 H100s and 2 L4s for 14 days, a platform admin grants 2 of the H100s, the data scientist sees the decision and the quota", async ({ browser }) => {
  test.setTimeout(90_000);
  const endsOn = new Date(Date.now() + 14 * DAY).toISOString().slice(0, 10);
  const endsDay = formatDay(new Date(`${endsOn}T00:00:00Z`));

  // Dana: from her project to its quota, then the form.
  const dana = await pageAs(browser, "dana");
  await new ProjectPage(dana).goto(TENANT, PROJECT, "Detector training");
  await dana.getByRole("link", { name: "Quota and requests", exact: true }).click();
  const quota = new ProjectQuotaPage(dana);
  await expect(quota.heading).toHaveText("Quota");
  // Use and spend from metering: figures when the project has usage (the demo data gives it some), else the empty state.
  await expect(quota.usageNote).toContainText(/^Use and spend\s*(No usage recorded yet for Detector training|This month so far\s*\$[\d,]+\.\d{2})/);
  // The demo project holds the 8 H100 its demo usage runs on (lib/demo/quota.ts).
  await expectCells(quota.quotaRow("H100 GPUs"), ["H100 GPUs", "8"]);
  await quota.requestQuotaButton.click();

  const form = new QuotaRequestForm(dana);
  await expect(form.heading).toHaveText("Request quota");
  await expect(form.estimate).toContainText("Enter amounts to see the monthly cost");
  // MIG profiles are listed apart from whole GPUs.
  await expect(form.field("GPU model 1").locator("optgroup")).toHaveCount(2);
  await expect(form.field("GPU model 1").locator('optgroup[label^="MIG"] option')).toHaveText(["A100 1g.10gb"]);

  // Live validation names the field.
  await form.field("CPU cores").fill("-2");
  await expect(form.fieldError("CPU cores")).toHaveText("Enter a number of cores such as 4 or 500m.");
  await form.field("CPU cores").fill("");
  await expect(form.fieldError("CPU cores")).toHaveCount(0);

  await form.field("GPU model 1").selectOption("H100");
  await form.field("Number of GPUs, model 1").fill("4");
  // A second model in the same request: training on H100s, serving on L4s.
  await form.form.getByRole("button", { name: "Add a GPU model", exact: true }).click();
  await expect(form.field("GPU model 2").locator('option[value="H100"]')).toBeDisabled();
  await form.field("GPU model 2").selectOption("L4");
  await form.field("Number of GPUs, model 2").fill("2");
  await form.endsOn(endsOn);
  await form.field("Justification").fill("Fine-tuning the detector on the new warehouse footage for two weeks.");

  // The estimate as she types, each model at its rate: 4 × $4.10 and 2 × $0.80, × 730 hours.
  await expect(form.estimateRows).toHaveCount(3);
  await expectCells(form.estimateRows.nth(0), ["H100 GPUs", /^4 × \$4\.10\s*per GPU-hour$/, "$11,972.00"]);
  await expectCells(form.estimateRows.nth(1), ["L4 GPUs", /^2 × \$0\.80\s*per GPU-hour$/, "$1,168.00"]);
  await expectCells(form.estimateRows.nth(2), ["Per month", "", "$13,140.00"]);
  await expect(form.estimate).toContainText(/Over the 1[34](\.\d)? days asked: about \$[56],\d{3}\.\d{2}\./);
  // The demo project has no budget: the form says so plainly (the warning over a budget is covered by the unit tests).
  await expect(dana.getByTestId("budget-note")).toHaveText(/^No monthly budget is set for this project, so the estimate is not checked against one\. This month's spend forecast: \$[\d,]+\.\d{2}\.$/);
  await expect(dana.getByTestId("budget-warning")).toHaveCount(0);
  await expectCells(form.afterApprovalRows.filter({ hasText: "H100 GPUs" }), ["H100 GPUs", "8", "12"]);
  await expect(form.afterApprovalRows.filter({ hasText: "L4 GPUs" }).getByRole("cell").last()).toHaveText("2");
  await expect(form.capacityWarning).toHaveCount(0);
  await expect(form.decisionHint).toHaveText("A platform admin decides, because it is larger than the automatic approval rules allow.");
  await saveScreenshot(dana, "quota-request-form");

  await form.submit();
  await expect(dana).toHaveURL(new RegExp(`/tenants/${TENANT}/projects/${PROJECT}/quota/requests/[0-9a-f-]{36}\\?submitted=pending$`));
  const requestUrl = dana.url().replace(/\?.*$/, "");
  const request = new QuotaRequestPage(dana);
  await request.expectLoaded();
  await expect(request.banner).toHaveText("Your request was sent to the platform admins. You will see their decision here and in your notifications.");
  await expect(request.item("Status")).toHaveText("pending");
  await expect(request.item("Asked")).toHaveText(`4 × H100, 2 × L4until ${endsDay}, 00:00 UTC`);
  // The monthly rate, and what the two weeks asked cost at it (the figure the form showed).
  await expect(request.item("Estimate when asked")).toHaveText(/^\$13,140\.00 a month\$[56],\d{3}\.\d{2} for its 1[34](\.\d)? days$/);
  await expect(dana.getByRole("button", { name: "Cancel request" })).toBeVisible();
  await expect(request.decide).toHaveCount(0);

  // Priya: the queue, from the admin page, with the capacity impact and the diff.
  const priya = await pageAs(browser, "priya");
  await priya.goto("/admin");
  await priya.getByRole("main").getByRole("link", { name: "Approval queue", exact: true }).click();
  const queue = new ApprovalQueuePage(priya);
  await expect(queue.heading).toHaveText("Approval queue");
  await expect(priya.getByRole("link", { name: /^Approval queue: \d+ waiting$/ })).toBeVisible();
  const entry = queue.entry(ENTRY);
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText("asked by Dana Okafor");
  await expect(entry).toContainText(/about \$13,140\.00 a month, \$[56],\d{3}\.\d{2} for its 1[34](\.\d)? days/);
  await expect(entry).toContainText("Fine-tuning the detector on the new warehouse footage for two weeks.");
  await expect(entry.getByRole("region", { name: "Use and spend" })).toContainText(/^Use and spend of Detector training\s*(No usage recorded yet|This month so far\s*\$[\d,]+\.\d{2})/);
  await expect(entry.getByRole("region", { name: "Cost estimate" }).getByTestId("budget-note")).toContainText("No monthly budget is set for this project");
  // Each model's capacity apart.
  await expect(queue.capacityRows(entry)).toHaveCount(2);
  await expect(queue.capacityRows(entry).filter({ hasText: "L4 GPUs" })).toHaveCount(1);
  await expectCells(queue.capacityRows(entry).filter({ hasText: "H100 GPUs" }), ["H100 GPUs", /^32\s*overcommit ×1\s*up to 48 at the autoscaler maximum$/, /^24\s*75%$/, /^28\s*87\.5%$/]);
  // Across all tenants: the guarantees after approval against the pools at their minimum (4 nodes), now and maximum, and what bursts could reach.
  await expect(queue.sharing(entry).getByRole("note").filter({ hasText: /^L4: / })).toHaveCount(1);
  await expect(queue.sharing(entry).getByRole("note").filter({ hasText: /^H100: / })).toHaveText(
    "H100: 28 H100 GPUs guaranteed across all tenants after approval (24 now): the pools hold them at their minimum (32), now (32) and at their maximum (48). With every burst limit used, 36 H100 GPUs could be asked for: borrowing alone could make the autoscaler grow h100-pool to 5 nodes (max 6), 4 more within the maximum.",
  );
  const diff = queue.diff(entry);
  await expect(diff).toContainText("+++ ResourceQuota vision-lab--detector-training/project-quota (after approval)");
  await expect(diff).toContainText('-    requests.nvidia.com/gpu: "8"');
  // The demo serves H100 and L4 both as nvidia.com/gpu: the cap holds the 8 held, 4 H100 and 2 L4.
  await expect(diff).toContainText('+    requests.nvidia.com/gpu: "14"');
  await saveScreenshot(priya, "quota-request-queue");

  // The filters keep it (GPU model H100, size "asks for GPUs") or leave it out (no GPUs).
  await queue.goto("?gpuModel=H100&size=gpu");
  await expect(queue.entry(ENTRY)).toHaveCount(1);
  await queue.goto("?size=small");
  await expect(queue.entry(ENTRY)).toHaveCount(0);
  await queue.goto();

  await queue.entry(ENTRY).getByRole("heading", { level: 2 }).getByRole("link").click();
  await expect(priya).toHaveURL(requestUrl);
  const decision = new QuotaRequestPage(priya);
  await decision.expectLoaded();
  await expect(priya.getByRole("region", { name: "Capacity impact" })).toBeVisible();
  await expect(priya.getByRole("region", { name: "Change to the cluster" })).toContainText('+    requests.nvidia.com/gpu: "14"');
  await saveScreenshot(priya, "quota-request-decision");
  const dialog = await decision.openApproveWithChanges();
  // A row per model asked for.
  await expect(dialog.field("H100 GPUs")).toHaveValue("4");
  await expect(dialog.field("L4 GPUs")).toHaveValue("2");
  await expect(dialog.field("Grant ends")).toHaveValue(endsOn);
  await dialog.field("H100 GPUs").fill("5");
  await dialog.submit("Approve with changes");
  await expect(dialog.fieldError("H100 GPUs")).toHaveText("Enter at most what was asked for.");
  await dialog.field("H100 GPUs").fill("2");
  await dialog.field("Note to the requester").fill("Two now; ask again when the H100 pool grows.");
  await dialog.submit("Approve with changes");
  await expect(dialog.root).toBeHidden();
  await expect(decision.item("Status")).toContainText("approved");
  await expect(decision.item("Granted")).toHaveText(`2 × H100, 2 × L4until ${endsDay}, 00:00 UTCless or shorter than asked`);
  await expect(decision.decisionNote).toHaveText("Two now; ask again when the H100 pool grows.");
  await expect(decision.decide).toHaveCount(0);
  await expect(decision.timelineEntries().last()).toContainText("Approved with changes by priya@platform.allot.demo");
  await saveScreenshot(priya, "quota-request-decided");
  await priya.context().close();

  // Dana: told in the header, then the decision and her project's quota.
  await dana.goto(`/tenants/${TENANT}/projects/${PROJECT}/quota`);
  await expect(NotificationsPage.bell(dana)).toHaveAccessibleName(/^Notifications: \d+ unread$/);
  await NotificationsPage.bell(dana).click();
  const notifications = new NotificationsPage(dana);
  await expect(notifications.heading).toHaveText("Notifications");
  const notice = notifications.items.filter({ hasText: "Quota request for Detector training approved with changes (2 × H100, 2 × L4)" });
  await expect(notice).toHaveCount(1);
  await expect(notice).toContainText("Two now; ask again when the H100 pool grows.");
  await notice.getByRole("link").click();
  await expect(dana).toHaveURL(requestUrl);
  await expect(request.item("Status")).toContainText("approved");
  await expect(request.item("Granted")).toContainText("2 × H100, 2 × L4");
  await expect(request.decisionNote).toHaveText("Two now; ask again when the H100 pool grows.");
  await expect(dana.getByRole("button", { name: "Cancel request" })).toHaveCount(0);

  await dana.getByRole("link", { name: "Quota of Detector training now" }).click();
  await expect(quota.heading).toHaveText("Quota");
  await expectCells(quota.quotaRow("H100 GPUs"), ["H100 GPUs", "10"]);
  const grant = quota.grantRows.filter({ hasText: "2 × H100, 2 × L4" });
  await expect(grant).toHaveCount(1);
  await expectCells(grant, [/^Request/, "2 × H100, 2 × L4", "—", "—", "—", "—", /^\d{1,2} \w{3} \d{4}$/, endsDay, "in force"]);
  await expectCells(quota.requestRows.filter({ hasText: "4 × H100, 2 × L4" }), [/^\d{1,2} \w{3} \d{4}/, "4 × H100, 2 × L4", endsDay, "Dana Okafor", "$13,140.00", "approved"]);
  await saveScreenshot(dana, "quota-request-project-quota");

  // The grant reaches the cluster: the project's ResourceQuota (a plan here, record-only) holds the demo's 8 H100s and these 2 H100 and 2 L4.
  await expect(async () => {
    const yaml = await (await dana.request.get(`/tenants/${TENANT}/projects/${PROJECT}/cluster.yaml`)).text();
    expect(yaml).toContain('requests.nvidia.com/gpu: "12"');
  }).toPass({ timeout: 20_000 });

  await notifications.goto();
  await notifications.markAllRead.click();
  await expect(notifications.unread()).toHaveCount(0);
  await expect(NotificationsPage.bell(dana)).toHaveAccessibleName("Notifications");
  await dana.context().close();
});
