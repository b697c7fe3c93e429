import { expect, type Locator, type Page } from "@playwright/test";
import { IdpPages } from "./idp-pages";
import { SignInPage } from "./sign-in-page";

/** /invite/<token>: what the invitation offers, and accepting it as the signed-in person. */
export class InvitationPage {
  readonly heading: Locator;
  readonly offer: Locator;
  readonly acceptButton: Locator;
  /** Why the link cannot be used (already used, withdrawn, expired, someone else's). */
  readonly problem: Locator;

  constructor(readonly page: Page) {
    const main = page.getByRole("main");
    this.heading = main.getByRole("heading", { level: 1 });
    this.offer = main.getByText(/^You are invited to /);
    this.acceptButton = main.getByRole("button", { name: "Accept invitation", exact: true });
    this.problem = main.getByRole("alert");
  }

  /**
   * Open an invitation link in a browser with no session: the portal sends it
   * to sign-in keeping the link as callbackUrl, the person signs in at the
   * identity provider, and lands back on the invitation.
   */
  async openSignedOutAndSignIn(link: string, idpLogin: string): Promise<void> {
    const path = new URL(link).pathname;
    await this.page.goto(link);
    const signIn = new SignInPage(this.page);
    await signIn.expectRedirectedHere(path);
    await signIn.singleSignOn.click();
    const idp = new IdpPages(this.page);
    await idp.logIn(idpLogin);
    await idp.consent();
    await expect(this.page).toHaveURL((url) => url.pathname === path);
    await expect(this.heading).toHaveText("Invitation");
  }
}
