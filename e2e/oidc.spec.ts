import { expect, test, type Page } from "@playwright/test";
import { AdminPage } from "./pages/admin-page";
import { HomePage } from "./pages/home-page";
import { IdpPages } from "./pages/idp-pages";
import { PortalHeader } from "./pages/portal-header";
import { SignInPage } from "./pages/sign-in-page";
import { expectNotFound } from "./support/checks";
import { IDP_ACCOUNTS, runOidcProviderForThisFile } from "./support/oidc-provider";
import { SIGNED_OUT } from "./support/personas";

// Sign-in through a real OpenID provider on loopback, all the way to an ID token the portal trusts.

runOidcProviderForThisFile();

test.use({ storageState: SIGNED_OUT });

async function signInThroughProvider(page: Page, login: keyof typeof IDP_ACCOUNTS): Promise<void> {
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.singleSignOn.click();
  const idp = new IdpPages(page);
  await idp.logIn(login);
  await idp.consent();
}

test("a member of the admin group signs in with single sign-on and becomes a platform admin", async ({ page }) => {
  const olivia = IDP_ACCOUNTS["oidc-user-1"];
  await signInThroughProvider(page, "oidc-user-1");

  await expect(page).toHaveURL("/");
  const home = new HomePage(page);
  await expect(home.heading).toHaveText("Welcome, Olivia");
  const header = new PortalHeader(page);
  await header.expectSignedInAs(olivia.name, olivia.email);
  await expect(home.adminBanner).toBeVisible();

  await header.adminLink.click();
  const admin = new AdminPage(page);
  await expect(admin.heading).toHaveText("Admin");
  await expect(admin.tenantRows.getByRole("link")).toHaveText(["Language Models", "Robotics", "Vision Lab"]);
});

test("someone outside the admin group signs in with single sign-on as an ordinary user", async ({ page }) => {
  const noah = IDP_ACCOUNTS["oidc-user-2"];
  await signInThroughProvider(page, "oidc-user-2");

  await expect(page).toHaveURL("/");
  const home = new HomePage(page);
  await expect(home.heading).toHaveText("Welcome, Noah");
  const header = new PortalHeader(page);
  await header.expectSignedInAs(noah.name, noah.email);
  await expect(home.noTenants).toBeVisible();
  await expect(header.adminLink).toHaveCount(0);
  await expectNotFound(page, await page.goto("/admin"));
});
