import { expect, test } from "@playwright/test";
import { AdminPage } from "./pages/admin-page";
import { HomePage } from "./pages/home-page";
import { PortalHeader } from "./pages/portal-header";
import { TenantPage } from "./pages/tenant-page";
import { collaboratorExpiry, expectRows, saveScreenshot } from "./support/checks";
import { storageStateOf } from "./support/personas";

// What each demo persona reaches from the home page, and nothing else (seed: db/seed.ts).

test.describe("Priya, platform admin without memberships", () => {
  test.use({ storageState: storageStateOf("priya") });

  test("home shows the admin banner and no tenants of her own", async ({ page }) => {
    const home = new HomePage(page);
    await home.goto();
    await expect(home.heading).toHaveText("Welcome, Priya");
    await expect(home.adminBanner).toBeVisible();
    await expect(home.noTenants).toBeVisible();
    await expect(home.tenantNames).toHaveCount(0);
    await expect(new PortalHeader(page).adminLink).toBeVisible();
    await saveScreenshot(page, "home-priya-platform-admin");
  });

  test("the admin area lists all three tenants", async ({ page }) => {
    const admin = new AdminPage(page);
    await admin.goto();
    // Tenant, slug, tier, cost centre, projects, members, status, created.
    await expectRows(admin.tenantRows, [
      ["Language Models", "language-models", "dedicated", "CC-4200", "2", "2", "active", /\d{4}$/],
      ["Robotics", "robotics", "shared", "CC-4300", "0", "0", "active", /\d{4}$/],
      ["Vision Lab", "vision-lab", "shared", "CC-4100", "2", "2", "active", /\d{4}$/],
    ]);
    await saveScreenshot(page, "admin");
  });
});

test.describe("Alex, tenant admin of Vision Lab", () => {
  test.use({ storageState: storageStateOf("alex") });

  test("sees Vision Lab and both its projects, nothing of other tenants", async ({ page }) => {
    const home = new HomePage(page);
    await home.goto();
    await expect(home.tenantNames).toHaveText(["Vision Lab"]);
    await expect(home.tenantBadge("Vision Lab", "Tenant admin")).toBeVisible();
    await expect(home.tenantCard("Vision Lab").getByRole("link", { name: "Open tenant" })).toHaveAttribute("href", "/tenants/vision-lab");
    await expect(home.projectLinks("Vision Lab")).toHaveText(["Detector training", "Segmentation research"]);
    await expect(home.adminBanner).toHaveCount(0);
    await expect(new PortalHeader(page).adminLink).toHaveCount(0);
    await saveScreenshot(page, "home-alex-tenant-admin");
  });
});

test.describe("Bo, tenant admin of Language Models", () => {
  test.use({ storageState: storageStateOf("bo") });

  test("sees Language Models and both its projects, nothing of other tenants", async ({ page }) => {
    const home = new HomePage(page);
    await home.goto();
    await expect(home.tenantNames).toHaveText(["Language Models"]);
    await expect(home.tenantBadge("Language Models", "Tenant admin")).toBeVisible();
    await expect(home.projectLinks("Language Models")).toHaveText(["Chat evaluation", "Pretraining"]);
    await expect(new PortalHeader(page).adminLink).toHaveCount(0);
  });
});

test.describe("Dana, member of Vision Lab with a grant on Detector training", () => {
  test.use({ storageState: storageStateOf("dana") });

  test("home shows Vision Lab with only Detector training", async ({ page }) => {
    const home = new HomePage(page);
    await home.goto();
    await expect(home.tenantNames).toHaveText(["Vision Lab"]);
    await expect(home.tenantBadge("Vision Lab", "Member")).toBeVisible();
    await expect(home.projectLinks("Vision Lab")).toHaveText(["Detector training"]);
    // Her access to it is a member's (through her grant; the label may name the grant or the membership).
    await expect(home.projectItem("Vision Lab", "Detector training").getByText(/^Project member$/)).toBeVisible();
    await expect(new PortalHeader(page).adminLink).toHaveCount(0);
    await saveScreenshot(page, "home-dana-member");
  });

  test("the tenant page lists Segmentation research without a link: no access", async ({ page }) => {
    const tenant = new TenantPage(page);
    await tenant.goto("vision-lab", "Vision Lab");
    await expectRows(tenant.projectRows, [
      [/^Detector training/, "vision-lab--detector-training", /^Project member$/],
      [/^Segmentation research/, "vision-lab--segmentation-research", "No access — ask a tenant admin"],
    ]);
    await expect(tenant.projectRow("Detector training").getByRole("link", { name: "Detector training" })).toBeVisible();
    await expect(tenant.projectRow("Segmentation research").getByRole("link")).toHaveCount(0);
    // Only tenant admins create projects.
    await expect(tenant.newProjectButton).toHaveCount(0);
    await saveScreenshot(page, "tenant-vision-lab-as-dana");
  });
});

test.describe("Vic, viewer of Language Models", () => {
  test.use({ storageState: storageStateOf("vic") });

  test("sees Language Models and both its projects as a viewer", async ({ page }) => {
    const home = new HomePage(page);
    await home.goto();
    await expect(home.tenantNames).toHaveText(["Language Models"]);
    await expect(home.projectLinks("Language Models")).toHaveText(["Chat evaluation", "Pretraining"]);
    await expect(home.tenantBadge("Language Models", "Viewer")).toBeVisible();
    await expect(home.projectItem("Language Models", "Chat evaluation")).toContainText("Viewer");
    await expect(home.projectItem("Language Models", "Pretraining")).toContainText("Viewer");
  });
});

test.describe("Cleo, external collaborator on Chat evaluation", () => {
  test.use({ storageState: storageStateOf("cleo") });

  test("sees only Chat evaluation, as a collaborator until the grant expires", async ({ page }) => {
    const home = new HomePage(page);
    await home.goto();
    await expect(home.tenantNames).toHaveText(["Language Models"]);
    const card = home.tenantCard("Language Models");
    await expect(home.tenantBadge("Language Models", "Collaborator")).toBeVisible();
    await expect(card).toContainText("You reach this tenant only through a project grant.");
    await expect(card.getByRole("link", { name: "Open tenant" })).toHaveCount(0);
    await expect(home.projectLinks("Language Models")).toHaveText(["Chat evaluation"]);
    const item = home.projectItem("Language Models", "Chat evaluation");
    await expect(item).toContainText("Collaborator (member)");
    await expect(item.getByText(/^until /)).toHaveText(collaboratorExpiry("until "));
    await saveScreenshot(page, "home-cleo-collaborator");
  });
  // That /tenants/language-models is not found for her is checked in isolation.spec.ts.
});
