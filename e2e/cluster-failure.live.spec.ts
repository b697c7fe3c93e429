import { expect, test } from "@playwright/test";
import { ClusterPage } from "./pages/cluster-page";
import { SignInPage } from "./pages/sign-in-page";
import { saveScreenshot } from "./support/checks";
import { KUBE_API_URL } from "./support/env";
import { PERSONAS, SIGNED_OUT } from "./support/personas";

// A change the API server refuses, on the live portal: the stand-in answers one
// RoleBinding PATCH in Language Models' pretraining namespace with a 403, as a
// cluster whose ClusterRole lacks a verb would. Priya sees the API server's
// message and what to do on the cluster page, the project's home says what
// happened, and once the cause is gone her Retry applies the change.

const NAMESPACE = "language-models--pretraining";
const FORBIDDEN = `rolebindings.rbac.authorization.k8s.io "allot-members" is forbidden: User "system:serviceaccount:allot:allot" cannot patch resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "${NAMESPACE}"`;
const FAULTS = `${KUBE_API_URL}/stand-in/faults`;

test.use({ storageState: SIGNED_OUT });

test.afterEach(async ({ request }) => {
  await request.delete(FAULTS);
});

test("a change the API server refuses shows its message and what to do, and a retry applies it once the cause is fixed", async ({ page, request }, testInfo) => {
  test.setTimeout(90_000);
  expect((await request.post(FAULTS, { data: { status: 403, message: FORBIDDEN, match: { method: "PATCH", kind: "RoleBinding", namespace: NAMESPACE } } })).status()).toBe(201);

  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signInAs(PERSONAS.priya.name);
  const cluster = new ClusterPage(page);
  await cluster.goto();
  await cluster.reconcileEverythingButton.click();
  await expect(page.getByRole("status")).toHaveText(/^Queued a reconcile of \d+ tenants and all their projects\.$/);

  // A 403 is not retried: the change fails at once, with the API server's words and what to do.
  const failed = cluster.changeRowsFor(NAMESPACE, "reconcile of everything requested");
  await expect(async () => {
    await cluster.goto("failed");
    await expect(failed).toHaveCount(1, { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(cluster.filter("failed")).toHaveText("failed 1");
  await expect(failed.getByRole("cell").nth(5)).toContainText(`RoleBinding ${NAMESPACE}/`);
  await expect(failed.getByTestId("change-advice")).toHaveText(
    /^What to do: The API server refused the portal's service account, or an admission policy .* apply deploy\/base\/clusterrole\.yaml .*, then press Retry on the change\.$/,
  );
  const details = await cluster.openDetails(failed);
  await expect(details).toContainText(FORBIDDEN);
  await expect(details.getByText("What to do", { exact: true })).toBeVisible();
  await saveScreenshot(page, "cluster-failed-change", testInfo);

  // The project's home says what happened and who acts on it.
  await page.goto("/tenants/language-models/projects/pretraining");
  const latest = page.getByTestId("project-at-a-glance").getByTestId("latest-cluster-change");
  await expect(latest).toContainText("failed");
  await expect(latest.getByTestId("latest-change-advice")).toHaveText(
    /^The API server refused the portal's service account, .* the message says which\. Platform admins see what to do on the Cluster page and retry it there once its cause is fixed\.$/,
  );

  // The fault was answered once; nothing stands in the way now, so a retry applies the change.
  await cluster.goto("failed");
  await failed.getByRole("button", { name: "Retry" }).click();
  // The same change, with the retry among its reasons, applied by the worker.
  const retried = cluster.changeRowsFor(NAMESPACE, "retried by an admin");
  await expect(async () => {
    await cluster.goto("applied");
    await expect(retried.getByRole("cell").nth(3)).toHaveText("applied", { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await cluster.goto("failed");
  await expect(cluster.filter("failed")).toHaveText("failed 0");
});
