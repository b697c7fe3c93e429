import { expect, type Locator, type Page } from "@playwright/test";
import { FormDialog } from "./form-dialog";
import { openPopup } from "./open-popup";

/** /tenants/<slug>/service-accounts: one card per account, with its tokens. */
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

  card(name: string): Locator {
    return this.page
      .getByRole("main")
      .locator("section")
      .filter({ has: this.page.getByRole("heading", { level: 2, name, exact: true }) });
  }

  tokenRows(name: string): Locator {
    return this.card(name).getByRole("table", { name: `Tokens of ${name}` }).locator("tbody").getByRole("row");
  }

  /** A token's row, by the public prefix shown as `allot_<prefix>_…`. */
  tokenRow(name: string, prefix: string): Locator {
    return this.tokenRows(name).filter({ has: this.page.getByRole("cell", { name: `allot_${prefix}_…`, exact: true }) });
  }

  async openMintToken(name: string): Promise<FormDialog> {
    const dialog = new FormDialog(this.page, `New token for ${name}`);
    await openPopup(this.card(name).getByRole("button", { name: "Mint token", exact: true }), dialog.root);
    return dialog;
  }

  async openRevokeToken(name: string, prefix: string): Promise<FormDialog> {
    const dialog = new FormDialog(this.page, `Revoke token ${prefix}?`);
    await openPopup(this.tokenRow(name, prefix).getByRole("button", { name: "Revoke", exact: true }), dialog.root);
    return dialog;
  }
}
