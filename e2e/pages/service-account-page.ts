import { expect, type Locator, type Page } from "@playwright/test";
import { FormDialog } from "./form-dialog";
import { openPopup } from "./open-popup";

/** /tenants/<slug>/service-accounts/<name>: the account, its project roles, tokens, the curl example and its history. */
export class ServiceAccountPage {
  readonly heading: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("main").getByRole("heading", { level: 1 });
  }

  async goto(slug: string, name: string): Promise<void> {
    await this.page.goto(`/tenants/${slug}/service-accounts/${name}`);
    await expect(this.heading).toHaveText(name);
  }

  /** A card of the page by its title: "Project roles", "Tokens", "Use a token", "Recent activity". */
  section(title: string): Locator {
    return this.page
      .getByRole("main")
      .locator("section")
      .filter({ has: this.page.getByRole("heading", { level: 2, name: title, exact: true }) });
  }

  get example(): Locator {
    return this.section("Use a token").getByTestId("token-example");
  }

  tokenRows(name: string): Locator {
    return this.section("Tokens").getByRole("table", { name: `Tokens of ${name}` }).locator("tbody").getByRole("row");
  }

  /** A token's row, by the public prefix shown as `allot_<prefix>_…`. */
  tokenRow(name: string, prefix: string): Locator {
    return this.tokenRows(name).filter({ has: this.page.getByRole("cell", { name: `allot_${prefix}_…`, exact: true }) });
  }

  async openMintToken(name: string): Promise<FormDialog> {
    const dialog = new FormDialog(this.page, `New token for ${name}`);
    await openPopup(this.section("Tokens").getByRole("button", { name: "Mint token", exact: true }), dialog.root);
    return dialog;
  }

  async openSetRole(name: string): Promise<FormDialog> {
    const dialog = new FormDialog(this.page, `Set a project role for ${name}`);
    await openPopup(this.section("Project roles").getByRole("button", { name: "Set project role", exact: true }), dialog.root);
    return dialog;
  }

  async openRevokeToken(name: string, prefix: string): Promise<FormDialog> {
    const dialog = new FormDialog(this.page, `Revoke token ${prefix}?`);
    await openPopup(this.tokenRow(name, prefix).getByRole("button", { name: "Revoke", exact: true }), dialog.root);
    return dialog;
  }
}
