import { expect, type Locator, type Page } from "@playwright/test";
import { openPopup } from "./open-popup";

/** The header every portal page shares: main navigation and the account menu. */
export class PortalHeader {
  readonly nav: Locator;
  readonly adminLink: Locator;

  constructor(readonly page: Page) {
    this.nav = page.getByRole("navigation", { name: "Main" });
    this.adminLink = this.nav.getByRole("link", { name: "Admin", exact: true });
  }

  accountMenu(name: string): Locator {
    return this.page.getByRole("button", { name: `Account menu for ${name}` });
  }

  async openAccountMenu(name: string): Promise<Locator> {
    const menu = this.page.getByRole("menu");
    await openPopup(this.accountMenu(name), menu);
    return menu;
  }

  async expectSignedInAs(name: string, email: string): Promise<void> {
    const menu = await this.openAccountMenu(name);
    await expect(menu).toContainText(name);
    await expect(menu).toContainText(email);
    await this.page.keyboard.press("Escape");
    await expect(menu).toBeHidden();
  }

  async signOut(name: string): Promise<void> {
    const menu = await this.openAccountMenu(name);
    await menu.getByRole("menuitem", { name: "Sign out" }).click();
  }
}
