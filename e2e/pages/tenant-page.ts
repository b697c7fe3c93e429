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
  readonly inviteMemberButton: Locator;
  readonly inviteMemberDialog: FormDialog;
  readonly openInvitationRows: Locator;
  /** Overview, Collaborators, Service accounts, Audit log: the tabs the person may use. */
  readonly tabs: Locator;
  /** The figures at the top: envelope allocated, spend this month, open requests, people and projects. */
  readonly glance: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("main").getByRole("heading", { level: 1 });
    this.projects = page.getByRole("table", { name: /^Projects of / });
    this.projectRows = this.projects.locator("tbody").getByRole("row");
    this.memberRows = page.getByRole("table", { name: /^Members of / }).locator("tbody").getByRole("row");
    this.newProjectButton = page.getByRole("button", { name: "New project", exact: true });
    this.newProjectDialog = new FormDialog(page, "New project");
    this.inviteMemberButton = page.getByRole("button", { name: "Invite member", exact: true });
    this.inviteMemberDialog = new FormDialog(page, "Invite a member");
    this.openInvitationRows = page.getByRole("table", { name: "Open invitations" }).locator("tbody").getByRole("row");
    this.tabs = page.getByRole("navigation", { name: "Tenant" });
    this.glance = page.getByRole("main").getByTestId("tenant-at-a-glance");
  }

  glancePanel(title: string): Locator {
    return this.glance.locator("section").filter({ has: this.page.getByRole("heading", { level: 2, name: title, exact: true }) });
  }

  async goto(slug: string, name: string): Promise<void> {
    await this.page.goto(`/tenants/${slug}`);
    await expect(this.heading).toHaveText(name);
  }

  projectRow(name: string): Locator {
    return this.projectRows.filter({ has: this.page.getByRole("cell").filter({ hasText: name }) });
  }

  tab(label: string): Locator {
    return this.tabs.getByRole("link", { name: label, exact: true });
  }

  async openInviteMember(): Promise<FormDialog> {
    await openPopup(this.inviteMemberButton, this.inviteMemberDialog.root);
    return this.inviteMemberDialog;
  }

  async openNewProject(): Promise<FormDialog> {
    await openPopup(this.newProjectButton, this.newProjectDialog.root);
    return this.newProjectDialog;
  }
}
