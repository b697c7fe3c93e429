import path from "node:path";
import { expect, test } from "@playwright/test";
import { ProjectPage } from "./pages/project-page";
import { ShareNowCard } from "./pages/share-now-card";
import { saveScreenshot } from "./support/checks";
import { SCREENSHOT_DIR } from "./support/env";
import { storageStateOf } from "./support/personas";

/**
 * "Share now" with no cluster connected (the record-only portal): the plan
 * only, said so, and no live column that could be read as "nothing in use".
 * The live side is e2e/share-now.live.spec.ts.
 */
test.describe("Dana, data scientist in Vision Lab, with no cluster connected", () => {
  test.use({ storageState: storageStateOf("dana") });

  test("sees her plan per flavour and that there is no live use to show", async ({ page }, testInfo) => {
    const project = new ProjectPage(page);
    await project.goto("vision-lab", "detector-training", "Detector training");
    const share = new ShareNowCard(page);
    await expect(share.description).toHaveText("What Detector training is planned to hold per flavour.");
    await expect(share.noClusterBadge).toBeVisible();
    await expect(share.headers).toHaveText(["Flavour", "Resource", "Guaranteed", "Burst limit", "Others may borrow"], { ignoreCase: true });
    // The demo's plan (lib/demo/quota.ts): 8 H100 guaranteed, 8 more borrowed at most, none lent apart from what is unused.
    expect(await share.line("H100", "nvidia.com/gpu")).toEqual({ Flavour: "H100", Resource: "nvidia.com/gpu", Guaranteed: "8", "Burst limit": "+8", "Others may borrow": "all unused" });
    await expect(share.pendingHeading).toHaveCount(0);

    await saveScreenshot(page, "share-now-record-only", testInfo);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(share.narrowLine("H100", "nvidia.com/gpu")).toContainText("Guaranteed8Burst limit+8Others may borrowall unused");
    await share.expectNoOverflow();
    await share.root.screenshot({ path: path.join(SCREENSHOT_DIR, "share-now-record-only-390-card.png") });
  });
});
