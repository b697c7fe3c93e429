import { expect, type Locator, type Page } from "@playwright/test";
import { FormDialog } from "./form-dialog";
import { openPopup } from "./open-popup";

/** /admin: every tenant on the platform, and onboarding a new one. */
export class AdminPage {
  readonly heading: Locator;
  readonly tenantRows: Locator;
  readonly newTenantButton: Locator;
  readonly newTenantDialog: FormDialog;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("main").getByRole("heading", { level: 1 });
    this.tenantRows = page.getByRole("table", { name: "All tenants" }).locator("tbody").getByRole("row");
    this.newTenantButton = page.getByRole("button", { name: "New tenant", exact: true });
    this.newTenantDialog = new FormDialog(page, "New tenant");
  }

  async goto(): Promise<void> {
    await this.page.goto("/admin");
    await expect(this.heading).toHaveText("Admin");
  }

  tenantRow(slug: string): Locator {
    return this.tenantRows.filter({ has: this.page.getByRole("cell", { name: slug, exact: true }) });
  }

  async openNewTenant(): Promise<FormDialog> {
    await openPopup(this.newTenantButton, this.newTenantDialog.root);
    return this.newTenantDialog;
  }
}
