import { expect, type Locator, type Page } from "@playwright/test";

/** Tab stops tried before giving up on reaching a control: more than any page here has before its main action. */
const MAX_TABS = 60;

/**
 * Presses Tab (Shift+Tab with `backwards`) until `target` has the focus, as a
 * person without a mouse does, then checks the focus can be seen on it.
 */
export async function tabTo(page: Page, target: Locator, { backwards = false } = {}): Promise<void> {
  for (let i = 0; i < MAX_TABS; i++) {
    if (await target.evaluate((el) => el === document.activeElement).catch(() => false)) {
      await expectVisibleFocus(target);
      return;
    }
    await page.keyboard.press(backwards ? "Shift+Tab" : "Tab");
  }
  throw new Error(`${MAX_TABS} presses of Tab did not reach ${target.toString()}`);
}

/** The element has the keyboard focus, matches :focus-visible, and shows it: an outline or a ring (box-shadow). */
export async function expectVisibleFocus(target: Locator): Promise<void> {
  await expect(target).toBeFocused();
  const look = await target.evaluate((el) => {
    const style = getComputedStyle(el);
    return { focusVisible: el.matches(":focus-visible"), outline: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0, ring: style.boxShadow !== "none" };
  });
  expect(look.focusVisible, "the focus is shown as keyboard focus (:focus-visible)").toBe(true);
  expect(look.outline || look.ring, "the focused control has an outline or a ring").toBe(true);
}
