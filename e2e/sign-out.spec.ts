import { expect, test } from "@playwright/test";
import { HomePage } from "./pages/home-page";
import { PortalHeader } from "./pages/portal-header";
import { SignInPage } from "./pages/sign-in-page";
import { PERSONAS, SIGNED_OUT } from "./support/personas";

// A session of its own: ending one of the saved persona sessions would break the other journeys.
test.use({ storageState: SIGNED_OUT });

test("signing out ends the session on the server: the old cookie is refused afterwards", async ({ page, browser }) => {
  const { name, email } = PERSONAS.vic;
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signInAs(name);
  await expect(new HomePage(page).heading).toHaveText("Welcome, Vic");
  const cookies = await page.context().cookies();
  expect(cookies.map((c) => c.name)).toContain("authjs.session-token");

  // While the session is open, the same cookie works from another browser.
  const replay = await browser.newContext({ storageState: SIGNED_OUT });
  await replay.addCookies(cookies);
  const replayPage = await replay.newPage();
  await replayPage.goto("/");
  await expect(new HomePage(replayPage).heading).toHaveText("Welcome, Vic");

  await new PortalHeader(page).signOut(name);
  await signIn.expectRedirectedHere(null);
  await page.goto("/");
  await signIn.expectRedirectedHere(null);
  expect((await page.context().cookies()).map((c) => c.name)).not.toContain("authjs.session-token");

  // The cookie is still well-signed and unexpired, but its server-side session has ended.
  await replayPage.goto("/");
  await expect(replayPage).toHaveURL((url) => url.pathname === "/sign-in");
  await expect(new SignInPage(replayPage).heading).toBeVisible();
  await replayPage.goto("/tenants/language-models");
  await expect(replayPage).toHaveURL((url) => url.pathname === "/sign-in");
  await expect(replayPage.getByText(email)).toHaveCount(0);
  await replay.close();
});
