import fs from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { parseAllDocuments } from "yaml";
import { AdminPage } from "./pages/admin-page";
import { ClusterPage, ProjectClusterSection } from "./pages/cluster-page";
import { ProjectPage } from "./pages/project-page";
import { TenantPage } from "./pages/tenant-page";
import { expectNotFound, saveScreenshot } from "./support/checks";
import { SIGNED_OUT, storageStateOf } from "./support/personas";

// The portal runs without a cluster here (record-only): every change is rendered
// by the in-process worker (it polls every second) and stored as a plan.
// These add a project and queue changes, so they run with the other changes.

const SEEDED_NAMESPACES = ["vision-lab--detector-training", "vision-lab--segmentation-research", "language-models--chat-eval", "language-models--pretraining"];

/** The documents of a multi-document YAML file, parsed. */
function yamlDocuments(text: string): { kind?: string; metadata?: { name?: string; namespace?: string } }[] {
  return parseAllDocuments(text).map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJS() as { kind?: string; metadata?: { name?: string; namespace?: string } };
  });
}

test.describe("Priya, platform admin", () => {
  test.use({ storageState: storageStateOf("priya") });

  test("opens the cluster page from Admin: record-only mode, drift not checked, and the seeded tenants' changes recorded as plans", async ({ page }) => {
    const admin = new AdminPage(page);
    await admin.goto();
    await page.getByRole("main").getByRole("link", { name: "Cluster", exact: true }).click();
    await expect(page).toHaveURL("/admin/cluster");

    const cluster = new ClusterPage(page);
    await expect(cluster.heading).toHaveText("Cluster");
    await expect(cluster.mode).toHaveText(/^record-only: no cluster connected\. Changes are rendered, validated and stored as plans/);
    await expect(cluster.reconcileEverythingButton).toBeVisible();
    // Nothing to compare with without a cluster.
    await expect(cluster.checkDriftButton).toHaveCount(0);
    // Record-only never compares with a cluster, so it says so instead of "No drift found".
    await expect(cluster.drift.getByText("Drift not checked", { exact: true })).toBeVisible();
    await expect(cluster.drift.getByText("Record-only mode: no cluster is connected, so drift is never checked.", { exact: false })).toBeVisible();
    await expect(cluster.drift.getByText("No drift found")).toHaveCount(0);

    // Changes waiting for an instant are "scheduled for" it, and the count is the list's length:
    // Cleo's access to Chat evaluation ends 60 days after the demo data was seeded.
    const cleo = cluster.scheduledRows.filter({ hasText: "language-models--chat-eval" }).filter({ hasText: "access expires" });
    await expect(cleo).toHaveCount(1);
    await expect(cleo.getByRole("cell").nth(2)).toHaveText(/^scheduled for \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC$/);
    const scheduled = await cluster.scheduledRows.count();
    await expect(cluster.scheduledCount).toHaveText(`${scheduled} change${scheduled === 1 ? "" : "s"} scheduled.`);
    await expect(cluster.scheduled).not.toContainText("within seconds");

    // Each seeded project got a change at seeding, which the worker recorded at start.
    await cluster.filter("recorded").click();
    await expect(page).toHaveURL("/admin/cluster?status=recorded");
    await expect(cluster.filter("recorded")).toHaveAttribute("aria-current", "page");
    for (const namespace of SEEDED_NAMESPACES) {
      const row = cluster.changeRowsFor(namespace, "demo data seeded");
      await expect(row, namespace).toHaveCount(1);
      await expect(row.getByRole("cell").nth(3)).toHaveText("recorded");
      await expect(row.getByRole("cell").nth(4)).toHaveText("1");
    }
    // The filter shows recorded changes only, as many as its count and the card say.
    const recorded = await cluster.changeRows.count();
    await expect(cluster.changeRows.locator("td:nth-child(4)")).toHaveText(Array(recorded).fill("recorded"));
    await expect(cluster.filter("recorded")).toHaveText(`recorded ${recorded}`);
    await expect(cluster.changes).toContainText(`Newest first; showing ${recorded} recorded change${recorded === 1 ? "" : "s"}.`);

    // A change's details: its attempts, and its objects as YAML.
    const detector = cluster.changeRowsFor("vision-lab--detector-training", "demo data seeded");
    const details = await cluster.openDetails(detector);
    await expect(details.getByRole("listitem").filter({ hasText: /^Attempt 1 · recorded/ })).toHaveCount(1);
    const changeId = (await detector.getByRole("cell").first().textContent())!.trim();
    await details.locator("summary").click(); // closed again; downloadChangeYaml opens it
    const download = await cluster.downloadChangeYaml(detector);
    expect(download.suggestedFilename()).toBe(`allot-change-${changeId}.yaml`);
    const text = await fs.readFile(await download.path(), "utf8");
    expect(text.split("\n").slice(0, 3)).toEqual([
      `# Allot cluster change #${changeId}`,
      "# Target: vision-lab / vision-lab--detector-training",
      "# Mode: record-only (no cluster connected: a plan, not live objects)",
    ]);
    expect(text).toContain("# Deletions: none\n");
    expect(yamlDocuments(text).map((d) => d.kind)).toEqual(expect.arrayContaining(["Namespace", "ResourceQuota", "LimitRange", "NetworkPolicy"]));

    // The project's own panel says the same of its scheduled expiry.
    await new ProjectPage(page).goto("language-models", "chat-eval", "Chat evaluation");
    const section = new ProjectClusterSection(page);
    await expect(section.scheduled).toHaveText(/^1 change scheduled:\s*access expires, scheduled for \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC$/);
  });

  test("reconciles everything: a change per tenant and per project, recorded within seconds", async ({ page }) => {
    const cluster = new ClusterPage(page);
    await cluster.goto();
    await cluster.reconcileEverythingButton.click();
    await expect(page.getByRole("status")).toHaveText(/^Queued a reconcile of \d+ tenants and all their projects\.$/);

    // The tenant-wide change of Robotics (no projects) and a project of Language Models, each recorded.
    await expect(async () => {
      await cluster.goto("recorded");
      await expect(cluster.changeRowsFor("tenant-wide (Kueue)", "reconcile of everything requested").filter({ hasText: "robotics" })).toHaveCount(1, { timeout: 1_000 });
      await expect(cluster.changeRowsFor("language-models--pretraining", "reconcile of everything requested")).toHaveCount(1, { timeout: 1_000 });
    }).toPass({ timeout: 20_000 });

    await cluster.goto();
    await expect(cluster.filter("all")).toHaveAttribute("aria-current", "page");
    await expect(cluster.filter("failed")).toHaveText("failed 0");

    // Older changes are a page by the id of the newest one shown: that page leaves the newest out and links back.
    const newest = (await cluster.changeRows.first().getByRole("cell").first().textContent())!.trim();
    await page.goto(`/admin/cluster?before=${newest}`);
    await expect(cluster.changes).toContainText(new RegExp(`showing \\d+ changes? older than #${newest}, of \\d+\\.`));
    const firstOlder = Number((await cluster.changeRows.first().getByRole("cell").first().textContent())!.trim());
    expect(firstOlder).toBeLessThan(Number(newest));
    await page.getByRole("navigation", { name: "Pages of changes" }).getByRole("link", { name: "Back to the newest" }).click();
    await expect(page).toHaveURL("/admin/cluster");
    await saveScreenshot(page, "cluster-admin");

    await cluster.goto("failed");
    await expect(cluster.changes.getByText("No failed changes", { exact: true })).toBeVisible();
  });
});

test.describe("Bo, tenant admin of Language Models", () => {
  test.use({ storageState: storageStateOf("bo") });

  test("creates a project; its page lists the planned objects, shows their YAML and downloads them", async ({ page }) => {
    const tenant = new TenantPage(page);
    await tenant.goto("language-models", "Language Models");
    const dialog = await tenant.openNewProject();
    await dialog.field("Name").fill("Reward models");
    await dialog.field("Slug").fill("reward-models");
    await dialog.submit("Create project");
    await expect(page).toHaveURL("/tenants/language-models/projects/reward-models");
    await expect(new ProjectPage(page).heading).toHaveText("Reward models");

    const cluster = new ProjectClusterSection(page);
    await expect(cluster.heading).toHaveText("Cluster objects");
    await expect(cluster.recordOnlyNote).toHaveText(
      "No cluster connected: these are plans, not live objects. Download the YAML to apply them with kubectl or a GitOps tool.",
    );
    await cluster.waitForChange("recorded");

    // Apply order: the namespace first, then what lives in it.
    const kinds = await cluster.kinds();
    expect(kinds[0]).toBe("Namespace");
    expect(kinds).toEqual(expect.arrayContaining(["ResourceQuota", "LimitRange", "NetworkPolicy"]));
    expect(kinds.indexOf("ResourceQuota")).toBeLessThan(kinds.indexOf("LimitRange"));
    expect(kinds.indexOf("LimitRange")).toBeLessThan(kinds.indexOf("NetworkPolicy"));
    await expect(cluster.rows.locator("td:nth-child(3)")).toHaveText(Array(kinds.length).fill("planned"));
    await expect(cluster.latestChange).toHaveText(/^Latest change #\d+ recorded · 1 attempt · finished /);

    const namespace = cluster.row("Namespace", "language-models--reward-models");
    const yaml = await cluster.expandYaml(namespace);
    await expect(yaml).toContainText("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: language-models--reward-models\n");
    await expect(yaml).toContainText("pod-security.kubernetes.io/enforce: restricted");
    await saveScreenshot(page, "cluster-project");

    const download = await cluster.downloadYaml();
    expect(download.suggestedFilename()).toBe("language-models--reward-models.yaml");
    const text = await fs.readFile(await download.path(), "utf8");
    expect(text).toMatch(/^# Allot: cluster objects of namespace language-models--reward-models \(tenant language-models, project reward-models\), in apply order\.\n# Mode: record-only/);
    const docs = yamlDocuments(text);
    expect(docs.map((d) => d.kind)).toEqual(kinds);
    expect(docs[0]!.metadata?.name).toBe("language-models--reward-models");
    for (const doc of docs.slice(1)) expect(doc.metadata?.namespace).toBe("language-models--reward-models");
  });
});

test.describe("Dana, data scientist", () => {
  test.use({ storageState: storageStateOf("dana") });

  test("cannot open the cluster page, a change's YAML, or another tenant's project YAML: all not found", async ({ page }) => {
    await expectNotFound(page, await page.goto("/admin/cluster"));
    await expect(page.locator("body")).not.toContainText(/record-only|Reconcile|Changes/);
    expect((await page.request.get("/admin/cluster/changes/1/yaml")).status()).toBe(404);
    const foreign = await page.request.get("/tenants/language-models/projects/chat-eval/cluster.yaml");
    expect(foreign.status()).toBe(404);
    expect(await foreign.text()).not.toContain("kind:");

    // Her own project's plan she may download.
    const own = await page.request.get("/tenants/vision-lab/projects/detector-training/cluster.yaml");
    expect(own.status()).toBe(200);
    expect(own.headers()["content-type"]).toBe("application/yaml; charset=utf-8");
    expect(yamlDocuments(await own.text())[0]!.kind).toBe("Namespace");
  });
});

test.describe("a signed-out visitor", () => {
  test.use({ storageState: SIGNED_OUT });

  test("gets no YAML: sent to sign in", async ({ request }) => {
    const response = await request.get("/tenants/vision-lab/projects/detector-training/cluster.yaml", { maxRedirects: 0 });
    expect(response.status()).toBe(307);
    expect(response.headers().location).toMatch(/\/sign-in\?callbackUrl=/);
    expect(await response.text()).not.toContain("kind:");
  });
});
