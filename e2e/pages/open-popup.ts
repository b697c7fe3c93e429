import { expect, type Locator } from "@playwright/test";

/**
 * Radix triggers do nothing until React has hydrated the page, which can end
 * after the load event on a busy machine: click until the popup shows, never
 * clicking again once it is open.
 */
export async function openPopup(trigger: Locator, popup: Locator): Promise<void> {
  await expect(async () => {
    if (!(await popup.isVisible())) await trigger.click();
    await expect(popup).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 15_000 });
}
