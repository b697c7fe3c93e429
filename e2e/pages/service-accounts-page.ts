import { expect, type Locator, type Page } from "@playwright/test";
import { FormDialog } from "./form-dialog";
import { openPopup } from "./open-popup";
import { ServiceAccountPage } from "./service-account-page";

/** /tenants/<slug>/service-accounts: one compact row per account, its name a link to its own page. */
export class ServiceAccountsPage {
  readonly heading: Locator;
  readonly newAccountButton: Locator;
  readonly newAccountDialog: FormDialog;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("main").getByRole("heading", { level: 1 });
    this.newAccountButton = page.getByRole("button", { name: "New service account", exact: true });
    this.newAccountDialog = new FormDialog(page, "New service account");
  }

  async goto(slug: string, tenantName: string): Promise<void> {
    await this.page.goto(`/tenants/${slug}/service-accounts`);
    await expect(this.heading).toHaveText(tenantName);
  }

  async openNewAccount(): Promise<FormDialog> {
    await openPopup(this.newAccountButton, this.newAccountDialog.root);
    return this.newAccountDialog;
  }

  row(name: string): Locator {
    return this.page
      .getByRole("list", { name: "Service accounts", exact: true })
      .getByRole("listitem")
      .filter({ has: this.page.getByRole("heading", { level: 2, name, exact: true }) });
  }

  /** Follow the account's name to its own page. */
  async openAccount(name: string): Promise<ServiceAccountPage> {
    await this.row(name).getByRole("link", { name, exact: true }).click();
    const account = new ServiceAccountPage(this.page);
    await expect(account.heading).toHaveText(name);
    return account;
  }
}
