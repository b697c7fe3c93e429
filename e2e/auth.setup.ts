import { expect, test as setup } from "@playwright/test";
import { HomePage } from "./pages/home-page";
import { PortalHeader } from "./pages/portal-header";
import { SignInPage } from "./pages/sign-in-page";
import { PERSONA_KEYS, PERSONAS, storageStateOf } from "./support/personas";

// Each persona signs in once through the sign-in page; the journeys reuse the saved session.
for (const key of PERSONA_KEYS) {
  const persona = PERSONAS[key];
  setup(`sign in as ${persona.name}`, async ({ page }) => {
    const signIn = new SignInPage(page);
    await signIn.goto();
    await signIn.signInAs(persona.name);

    await expect(page).toHaveURL("/");
    await expect(new HomePage(page).heading).toHaveText(`Welcome, ${persona.name.split(" ")[0]}`);
    await expect(new PortalHeader(page).accountMenu(persona.name)).toBeVisible();
    await page.context().storageState({ path: storageStateOf(key) });
  });
}
