import { expect, test } from "@playwright/test";
import { expectNotFound } from "./support/checks";
import { storageStateOf, type PersonaKey } from "./support/personas";

// Out of reach means not found (HTTP 404), exactly as for a page that does not exist.

const outOfReach: Record<Exclude<PersonaKey, "priya">, string[]> = {
  alex: ["/admin", "/tenants/language-models", "/tenants/language-models/projects/chat-eval"],
  bo: ["/admin", "/tenants/vision-lab", "/tenants/vision-lab/projects/detector-training"],
  dana: ["/admin", "/tenants/language-models", "/tenants/language-models/projects/chat-eval", "/tenants/vision-lab/projects/segmentation-research"],
  vic: ["/admin", "/tenants/vision-lab", "/tenants/vision-lab/projects/segmentation-research"],
  cleo: ["/admin", "/tenants/language-models", "/tenants/language-models/projects/pretraining", "/tenants/vision-lab/projects/detector-training"],
};

/** What each persona must not see named anywhere on those pages, the navigation included (which lists their own places). */
const neverNamed: Record<Exclude<PersonaKey, "priya">, RegExp> = {
  alex: /Language Models|Chat evaluation|Pretraining/,
  bo: /Vision Lab|Detector training|Segmentation research/,
  dana: /Language Models|Chat evaluation|Pretraining|Segmentation research/,
  vic: /Vision Lab|Detector training|Segmentation research/,
  cleo: /Vision Lab|Detector training|Segmentation research|Pretraining/,
};

for (const [persona, paths] of Object.entries(outOfReach)) {
  test.describe(`${persona}, outside their reach`, () => {
    test.use({ storageState: storageStateOf(persona as PersonaKey) });

    test(`gets not-found for ${paths.join(", ")}`, async ({ page }) => {
      for (const path of paths) {
        await test.step(path, async () => {
          await expectNotFound(page, await page.goto(path));
          // Nothing of what is behind the URL shows through: the page says only "not found"...
          await expect(page.getByRole("main")).not.toContainText(/Chat evaluation|Detector training|Segmentation research|Pretraining|Members|Every tenant/);
          // ...and nothing on it names what is out of reach (the sidebar lists the persona's own places only).
          await expect(page.locator("body")).not.toContainText(neverNamed[persona as Exclude<PersonaKey, "priya">]);
        });
      }
    });
  });
}

test.describe("a platform admin", () => {
  test.use({ storageState: storageStateOf("priya") });

  test("gets the same not-found page for a tenant, project or page that does not exist", async ({ page }) => {
    await expectNotFound(page, await page.goto("/tenants/no-such-tenant"));
    await expectNotFound(page, await page.goto("/tenants/vision-lab/projects/no-such-project"));
    await expectNotFound(page, await page.goto("/no-such-page"));
  });
});
