import { expect, type Locator, type Page } from "@playwright/test";

/** /tenants/<slug>/collaborators: people outside the tenant with a role on one project (tenant admins only). */
export class CollaboratorsPage {
  readonly heading: Locator;
  /** Person (name and email), project, role, expires, sponsor. */
  readonly rows: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("main").getByRole("heading", { level: 1 });
    this.rows = page.getByRole("table", { name: "External collaborators" }).locator("tbody").getByRole("row");
  }

  async goto(slug: string, tenantName: string): Promise<void> {
    await this.page.goto(`/tenants/${slug}/collaborators`);
    await expect(this.heading).toHaveText(tenantName);
  }
}
