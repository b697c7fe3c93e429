import { expect, type Locator, type Page } from "@playwright/test";

/** /sign-in: one button per demo persona, and single sign-on when OIDC is configured. */
export class SignInPage {
  readonly heading: Locator;
  readonly singleSignOn: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { level: 1, name: "Sign in" });
    this.singleSignOn = page.getByRole("button", { name: "Sign in with Single sign-on" });
  }

  async goto(): Promise<void> {
    await this.page.goto("/sign-in");
    await expect(this.heading).toBeVisible();
  }

  /** The persona's button; its accessible name is "Sign in as <Name>" followed by what the button shows (title, summary). */
  personaButton(name: string): Locator {
    return this.page.getByRole("button", { name: new RegExp(`^Sign in as ${name}\\b`) });
  }

  /** Sign in as a persona and wait until the portal has taken over from the sign-in page. */
  async signInAs(name: string): Promise<void> {
    await this.personaButton(name).click();
    await expect(this.page).not.toHaveURL(/\/sign-in(\?|$)/);
  }

  /** Assert the browser was sent here, keeping `callbackUrl` (null: none, as for "/"). */
  async expectRedirectedHere(callbackUrl: string | null): Promise<void> {
    await expect(this.page).toHaveURL((url) => url.pathname === "/sign-in" && url.searchParams.get("callbackUrl") === callbackUrl);
    await expect(this.heading).toBeVisible();
  }
}
