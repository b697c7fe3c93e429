import { expect, type Locator, type Page } from "@playwright/test";

/** /notifications, and the bell in the header that leads there. */
export class NotificationsPage {
  readonly heading: Locator;
  readonly items: Locator;
  readonly markAllRead: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("main").getByRole("heading", { level: 1 });
    this.items = page.getByRole("list", { name: "Notifications" }).getByRole("listitem");
    this.markAllRead = page.getByRole("button", { name: "Mark all read", exact: true });
  }

  /** The bell in the header; its name says how many are unread. */
  static bell(page: Page): Locator {
    return page.getByTestId("notification-bell");
  }

  async goto(): Promise<void> {
    await this.page.goto("/notifications");
    await expect(this.heading).toHaveText("Notifications");
  }

  unread(): Locator {
    return this.items.and(this.page.locator("[data-unread=true]"));
  }
}
