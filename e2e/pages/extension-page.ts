import { expect, type Locator, type Page } from "@playwright/test";

/** /tenants/<t>/projects/<p>/extension: where a reminder leads the person whose access ends. */
export class ExtensionPage {
  readonly heading: Locator;
  readonly subtitle: Locator;
  readonly until: Locator;
  readonly reason: Locator;
  readonly submit: Locator;
  readonly pending: Locator;
  /** Asked, until, reason, answer. */
  readonly requests: Locator;

  constructor(readonly page: Page) {
    const main = page.getByRole("main");
    this.heading = main.getByRole("heading", { level: 1 });
    this.subtitle = this.heading.locator("xpath=following-sibling::p[1]");
    this.until = main.getByLabel("Keep access until", { exact: true });
    this.reason = main.getByLabel("Why you need it", { exact: true });
    this.submit = main.getByRole("button", { name: "Ask for an extension", exact: true });
    this.pending = main.getByTestId("pending-request");
    this.requests = main.getByRole("table", { name: "Your extension requests" }).locator("tbody").getByRole("row");
  }

  /** The error paragraph of a field: beside the field (components/form.tsx Field), apart from its label. */
  fieldError(label: string): Locator {
    return this.page.getByRole("main").getByLabel(label, { exact: true }).locator("xpath=ancestor::div[1]").getByRole("alert");
  }

  async expectLoaded(): Promise<void> {
    await expect(this.heading).toHaveText("Ask for more time");
  }
}
