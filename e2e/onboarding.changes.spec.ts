import { expect, test } from "@playwright/test";
import { AdminPage } from "./pages/admin-page";
import { ProjectPage } from "./pages/project-page";
import { TenantPage } from "./pages/tenant-page";
import { expectCells, expectRows } from "./support/checks";
import { storageStateOf } from "./support/personas";

// These add a tenant and a project, so they run after the journeys that assert exact lists.

test.describe("Priya, platform admin", () => {
  test.use({ storageState: storageStateOf("priya") });

  test("creates a tenant from the admin area; an invalid slug is named beside the field and creates nothing", async ({ page }) => {
    const admin = new AdminPage(page);
    await admin.goto();
    await expect(admin.tenantRows).toHaveCount(3);

    const dialog = await admin.openNewTenant();
    await dialog.field("Name").fill("Speech Lab");
    await dialog.field("Slug").fill("Bad Slug");
    await dialog.field("Cost centre").fill("CC-4400");
    await dialog.field("Isolation tier").selectOption("dedicated");
    await dialog.submit("Create tenant");

    const slugError = dialog.fieldError("Slug");
    await expect(slugError).toHaveText(/^Use lower-case letters, digits and hyphens/);
    await expect(dialog.field("Slug")).toHaveAttribute("aria-invalid", "true");
    await expect(dialog.field("Slug")).toHaveAccessibleDescription(/Use lower-case letters/);
    // Only the slug is wrong: the other fields keep what was typed and carry no error.
    await expect(dialog.fieldError("Name")).toHaveCount(0);
    await expect(dialog.field("Name")).toHaveValue("Speech Lab");
    await expect(dialog.field("Cost centre")).toHaveValue("CC-4400");
    await expect(dialog.field("Isolation tier")).toHaveValue("dedicated");
    // Nothing was created: another tab (the modal hides this page's table) still lists three.
    const otherTab = new AdminPage(await page.context().newPage());
    await otherTab.goto();
    await expect(otherTab.tenantRows.getByRole("link")).toHaveText(["Language Models", "Robotics", "Vision Lab"]);
    await otherTab.page.close();

    await dialog.field("Slug").fill("speech-lab");
    await dialog.submit("Create tenant");
    await expect(dialog.root).toBeHidden();
    await expectCells(admin.tenantRow("speech-lab"), ["Speech Lab", "speech-lab", "dedicated", "CC-4400", "0", "0", "active", /\d{4}$/]);

    // It is stored, not just shown: a fresh load lists the four tenants.
    await admin.goto();
    await expect(admin.tenantRows.getByRole("link")).toHaveText(["Language Models", "Robotics", "Speech Lab", "Vision Lab"]);
  });
});

test.describe("Alex, tenant admin of Vision Lab", () => {
  test.use({ storageState: storageStateOf("alex") });

  test("creates a project and lands on it; a taken slug is refused beside the field", async ({ page }) => {
    const tenant = new TenantPage(page);
    await tenant.goto("vision-lab", "Vision Lab");
    const dialog = await tenant.openNewProject();
    await dialog.field("Name").fill("Depth estimation");
    await dialog.field("Slug").fill("depth-estimation");
    await dialog.field("Description").fill("Monocular depth for the loading docks.");
    await dialog.submit("Create project");

    await expect(page).toHaveURL("/tenants/vision-lab/projects/depth-estimation");
    const project = new ProjectPage(page);
    await expect(project.heading).toHaveText("Depth estimation");
    await expect(project.subtitle).toHaveText("Vision Lab · namespace vision-lab--depth-estimation · your role: Tenant admin");
    await expect(page.getByText("Monocular depth for the loading docks.")).toBeVisible();
    await expectRows(project.accessRows, [[/^Alex Chen/, "tenant admin", "tenant membership", "never", "—"]]);

    await tenant.goto("vision-lab", "Vision Lab");
    await expect(tenant.projectRows.getByRole("link")).toHaveText(["Depth estimation", "Detector training", "Segmentation research"]);

    const again = await tenant.openNewProject();
    await again.field("Name").fill("Detector training two");
    await again.field("Slug").fill("detector-training");
    await again.submit("Create project");
    await expect(again.fieldError("Slug")).toHaveText("Choose another slug: this one is taken.");
    await expect(again.field("Slug")).toHaveAttribute("aria-invalid", "true");
    await expect(again.field("Name")).toHaveValue("Detector training two");
    await expect(page).toHaveURL("/tenants/vision-lab");

    await tenant.goto("vision-lab", "Vision Lab");
    await expect(tenant.projectRows).toHaveCount(3);
  });
});
