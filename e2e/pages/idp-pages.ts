import { expect, type Page } from "@playwright/test";
import { OIDC_ISSUER } from "../support/env";

/** The test identity provider's development login and consent pages (oidc-provider devInteractions). */
export class IdpPages {
  constructor(readonly page: Page) {}

  async logIn(login: string): Promise<void> {
    await expect(this.page).toHaveURL((url) => url.origin === OIDC_ISSUER && url.pathname.startsWith("/interaction/"));
    await this.page.getByPlaceholder("Enter any login").fill(login);
    await this.page.getByPlaceholder("and password").fill("any password: the test provider does not check it");
    await this.page.getByRole("button", { name: "Sign-in" }).click();
  }

  async consent(): Promise<void> {
    await expect(this.page.getByRole("button", { name: "Continue" })).toBeVisible();
    await this.page.getByRole("button", { name: "Continue" }).click();
  }
}
