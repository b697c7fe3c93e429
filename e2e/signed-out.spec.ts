import { expect, test } from "@playwright/test";
import { HomePage } from "./pages/home-page";
import { SignInPage } from "./pages/sign-in-page";
import { saveScreenshot } from "./support/checks";
import { PERSONAS, SIGNED_OUT } from "./support/personas";

test.use({ storageState: SIGNED_OUT });

test("a signed-out visitor opening / is sent to sign-in, and lands home after signing in", async ({ page }) => {
  const signIn = new SignInPage(page);
  await page.goto("/");
  await signIn.expectRedirectedHere(null);
  // Both ways in are offered: single sign-on and the demo personas.
  await expect(signIn.singleSignOn).toBeVisible();
  for (const persona of Object.values(PERSONAS)) await expect(signIn.personaButton(persona.name)).toBeVisible();
  await saveScreenshot(page, "sign-in");

  await signIn.signInAs(PERSONAS.bo.name);
  await expect(page).toHaveURL("/");
  await expect(new HomePage(page).heading).toHaveText("Welcome, Bo");
});

const deepLinks = [
  { path: "/admin", persona: PERSONAS.priya, heading: "Admin" },
  { path: "/tenants/vision-lab", persona: PERSONAS.alex, heading: "Vision Lab" },
  { path: "/tenants/vision-lab/projects/detector-training", persona: PERSONAS.dana, heading: "Detector training" },
];

for (const link of deepLinks) {
  test(`a signed-out visitor opening ${link.path} signs in and lands on it`, async ({ page }) => {
    const signIn = new SignInPage(page);
    await page.goto(link.path);
    await signIn.expectRedirectedHere(link.path);

    await signIn.signInAs(link.persona.name);
    await expect(page).toHaveURL(link.path);
    await expect(page.getByRole("main").getByRole("heading", { level: 1 })).toHaveText(link.heading);
  });
}

test("the sign-in page refuses to send anyone to another site after signing in", async ({ page }) => {
  const signIn = new SignInPage(page);
  await page.goto(`/sign-in?callbackUrl=${encodeURIComponent("//evil.example/steal")}`);
  await signIn.signInAs(PERSONAS.vic.name);
  await expect(page).toHaveURL("/");
  await expect(new HomePage(page).heading).toHaveText("Welcome, Vic");
});
