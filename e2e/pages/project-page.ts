import { expect, type Download, type Locator, type Page } from "@playwright/test";
import { FormDialog } from "./form-dialog";
import { openPopup } from "./open-popup";

/** /tenants/<tenant>/projects/<project>: the project and who has access to it. */
export class ProjectPage {
  readonly heading: Locator;
  readonly subtitle: Locator;
  readonly breadcrumb: Locator;
  readonly accessRows: Locator;
  readonly exportCsvLink: Locator;
  readonly grantAccessButton: Locator;
  readonly grantAccessDialog: FormDialog;
  readonly inviteCollaboratorButton: Locator;
  readonly inviteCollaboratorDialog: FormDialog;
  /** The home's figures at the top: quota, spend this month, open requests, latest cluster change. */
  readonly glance: Locator;
  readonly requestQuotaButton: Locator;

  constructor(readonly page: Page) {
    const main = page.getByRole("main");
    this.heading = main.getByRole("heading", { level: 1 });
    this.subtitle = this.heading.locator("xpath=following-sibling::p[1]");
    this.breadcrumb = page.getByRole("navigation", { name: "Breadcrumb" });
    this.accessRows = page.getByRole("table", { name: /^Access to / }).locator("tbody").getByRole("row");
    this.exportCsvLink = main.getByRole("link", { name: "Export CSV", exact: true });
    this.grantAccessButton = page.getByRole("button", { name: "Grant access", exact: true });
    this.grantAccessDialog = new FormDialog(page, "Grant a project role");
    this.inviteCollaboratorButton = page.getByRole("button", { name: "Invite collaborator", exact: true });
    this.inviteCollaboratorDialog = new FormDialog(page, "Invite an external collaborator");
    this.glance = main.getByTestId("project-at-a-glance");
    this.requestQuotaButton = main.getByRole("link", { name: "Request quota", exact: true });
  }

  /** One block of the home's figures, by its heading: "Quota", "Spend this month", "Open requests", "Latest cluster change". */
  glancePanel(title: string): Locator {
    return this.glance.locator("section").filter({ has: this.page.getByRole("heading", { level: 2, name: title, exact: true }) });
  }

  async goto(tenant: string, project: string, name: string): Promise<void> {
    await this.page.goto(`/tenants/${tenant}/projects/${project}`);
    await expect(this.heading).toHaveText(name);
  }

  /** The access row of one person or service account, by the name in its first cell. */
  accessRow(name: string): Locator {
    return this.accessRows.filter({ has: this.page.getByRole("cell").first().getByText(name, { exact: true }) });
  }

  async openGrantAccess(): Promise<FormDialog> {
    await openPopup(this.grantAccessButton, this.grantAccessDialog.root);
    return this.grantAccessDialog;
  }

  async openInviteCollaborator(): Promise<FormDialog> {
    await openPopup(this.inviteCollaboratorButton, this.inviteCollaboratorDialog.root);
    return this.inviteCollaboratorDialog;
  }

  /** Click "Export CSV" and return the file the browser downloads. */
  async exportCsv(): Promise<Download> {
    const download = this.page.waitForEvent("download");
    await this.exportCsvLink.click();
    return download;
  }
}
