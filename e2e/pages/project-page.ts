import { expect, type Locator, type Page } from "@playwright/test";

/** /tenants/<tenant>/projects/<project>: the project and who has access to it. */
export class ProjectPage {
  readonly heading: Locator;
  readonly subtitle: Locator;
  readonly breadcrumb: Locator;
  readonly accessRows: Locator;

  constructor(readonly page: Page) {
    const main = page.getByRole("main");
    this.heading = main.getByRole("heading", { level: 1 });
    this.subtitle = this.heading.locator("xpath=following-sibling::p[1]");
    this.breadcrumb = page.getByRole("navigation", { name: "Breadcrumb" });
    this.accessRows = page.getByRole("table", { name: /^Access to / }).locator("tbody").getByRole("row");
  }

  async goto(tenant: string, project: string, name: string): Promise<void> {
    await this.page.goto(`/tenants/${tenant}/projects/${project}`);
    await expect(this.heading).toHaveText(name);
  }
}
