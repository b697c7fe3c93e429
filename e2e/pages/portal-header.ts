import { expect, type Locator, type Page } from "@playwright/test";
import { openPopup } from "./open-popup";

/**
 * What every portal page shares: the main navigation (a sidebar on wide
 * screens, a "Menu" panel on narrow ones), the search palette and the account menu.
 */
export class PortalHeader {
  readonly nav: Locator;
  readonly adminLink: Locator;
  readonly menuButton: Locator;
  readonly menu: Locator;
  readonly searchButton: Locator;
  readonly palette: Locator;
  readonly paletteInput: Locator;
  readonly paletteOptions: Locator;
  readonly paletteStatus: Locator;

  constructor(readonly page: Page) {
    this.nav = page.getByRole("navigation", { name: "Main" });
    this.adminLink = this.nav.getByRole("link", { name: "Admin", exact: true });
    this.menuButton = page.getByRole("banner").getByRole("button", { name: "Menu", exact: true });
    this.menu = page.getByRole("dialog", { name: "Menu" });
    this.searchButton = page.getByRole("banner").getByRole("button", { name: "Search", exact: true });
    this.palette = page.getByRole("dialog", { name: "Search the portal" });
    this.paletteInput = this.palette.getByRole("combobox");
    this.paletteOptions = this.palette.getByRole("option");
    this.paletteStatus = this.palette.getByRole("status");
  }

  /** A place in the main navigation, by its exact name. */
  place(name: string): Locator {
    return this.nav.getByRole("link", { name, exact: true });
  }

  /** On a narrow screen the navigation sits behind "Menu": open it. */
  async openMenu(): Promise<Locator> {
    await openPopup(this.menuButton, this.menu);
    return this.menu;
  }

  /** Ctrl-K, then type: resolves once the palette has answered for this query. */
  async search(query: string): Promise<void> {
    // The shortcut does nothing until React has hydrated the page: press until the palette shows, never once it is open.
    await expect(async () => {
      if (!(await this.palette.isVisible())) await this.page.keyboard.press("Control+k");
      await expect(this.palette).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 15_000 });
    await this.paletteInput.fill(query);
    await expect(this.paletteStatus).not.toHaveText(/^(Searching…|Type a name.*)$/);
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
