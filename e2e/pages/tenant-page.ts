import { expect, type Locator, type Page } from "@playwright/test";
import { FormDialog } from "./form-dialog";
import { openPopup } from "./open-popup";

/** /tenants/<slug>: the tenant's projects (with the viewer's access to each) and its members. */
export class TenantPage {
  readonly heading: Locator;
  readonly projects: Locator;
  readonly projectRows: Locator;
  readonly memberRows: Locator;
  readonly newProjectButton: Locator;
  readonly newProjectDialog: FormDialog;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("main").getByRole("heading", { level: 1 });
    this.projects = page.getByRole("table", { name: /^Projects of / });
    this.projectRows = this.projects.locator("tbody").getByRole("row");
    this.memberRows = page.getByRole("table", { name: /^Members of / }).locator("tbody").getByRole("row");
    this.newProjectButton = page.getByRole("button", { name: "New project", exact: true });
    this.newProjectDialog = new FormDialog(page, "New project");
  }

  async goto(slug: string, name: string): Promise<void> {
    await this.page.goto(`/tenants/${slug}`);
    await expect(this.heading).toHaveText(name);
  }

  projectRow(name: string): Locator {
    return this.projectRows.filter({ has: this.page.getByRole("cell").filter({ hasText: name }) });
  }

  async openNewProject(): Promise<FormDialog> {
    await openPopup(this.newProjectButton, this.newProjectDialog.root);
    return this.newProjectDialog;
  }
}
