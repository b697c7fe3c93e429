import { expect, test } from "@playwright/test";
import { ProjectPage } from "./pages/project-page";
import { TenantPage } from "./pages/tenant-page";
import { collaboratorExpiry, expectRows, saveScreenshot } from "./support/checks";
import { storageStateOf } from "./support/personas";

// Tenant and project pages say who holds which role, and how the access came.

test.describe("Alex, tenant admin of Vision Lab", () => {
  test.use({ storageState: storageStateOf("alex") });

  test("the Vision Lab page lists its projects and members with their roles", async ({ page }) => {
    const tenant = new TenantPage(page);
    await tenant.goto("vision-lab", "Vision Lab");
    await expect(page.getByRole("main")).toContainText("Your role: Tenant admin");
    await expectRows(tenant.projectRows, [
      [/^Detector training/, "vision-lab--detector-training", "Tenant admin"],
      [/^Segmentation research/, "vision-lab--segmentation-research", "Tenant admin"],
    ]);
    await expectRows(tenant.memberRows, [
      ["Alex Chen", "alex@vision.allot.demo", "Tenant admin"],
      ["Dana Okafor", "dana@vision.allot.demo", "Member"],
    ]);
    await expect(tenant.newProjectButton).toBeVisible();
    await saveScreenshot(page, "tenant-vision-lab-as-alex");
  });
});

test.describe("Bo, tenant admin of Language Models", () => {
  test.use({ storageState: storageStateOf("bo") });

  test("the Language Models page lists its members with their roles", async ({ page }) => {
    const tenant = new TenantPage(page);
    await tenant.goto("language-models", "Language Models");
    await expectRows(tenant.memberRows, [
      ["Bo Larsen", "bo@language.allot.demo", "Tenant admin"],
      ["Vic Moreau", "vic@language.allot.demo", "Viewer"],
    ]);
  });

  test("Chat evaluation lists the tenant admin, the viewer and the expiring collaborator", async ({ page }) => {
    const project = new ProjectPage(page);
    await project.goto("language-models", "chat-eval", "Chat evaluation");
    await expect(project.subtitle).toHaveText("Language Models · namespace language-models--chat-eval · your role: Tenant admin");
    // Name (and email), role, through, expires, granted by.
    await expectRows(project.accessRows, [
      [/^Bo Larsen/, "tenant admin", "tenant membership", "never", "—"],
      [/^Cleo Park/, "member external collaborator", "project grant", collaboratorExpiry(), "Bo Larsen"],
      [/^Vic Moreau/, "viewer", "tenant membership", "never", "—"],
    ]);
    await saveScreenshot(page, "project-chat-eval-as-bo");
  });
});

test.describe("Dana, member with a grant on Detector training", () => {
  test.use({ storageState: storageStateOf("dana") });

  test("Detector training lists her grant beside the tenant admin", async ({ page }) => {
    const project = new ProjectPage(page);
    await project.goto("vision-lab", "detector-training", "Detector training");
    await expect(project.subtitle).toContainText(/your role: Project member$/);
    await expect(project.breadcrumb.getByRole("link")).toHaveText(["My tenants", "Vision Lab"]);
    await expectRows(project.accessRows, [
      [/^Alex Chen/, "tenant admin", "tenant membership", "never", "—"],
      [/^Dana Okafor/, "member", "project grant", "never", "Alex Chen"],
    ]);
  });
});

test.describe("Cleo, external collaborator", () => {
  test.use({ storageState: storageStateOf("cleo") });

  test("Chat evaluation names her a collaborator and leads nowhere else in the tenant", async ({ page }) => {
    const project = new ProjectPage(page);
    await project.goto("language-models", "chat-eval", "Chat evaluation");
    await expect(project.subtitle).toContainText("your role: Collaborator (member)");
    await expect(project.breadcrumb.getByRole("link")).toHaveText(["My tenants"]);
    await saveScreenshot(page, "project-chat-eval-as-cleo");
  });
});
