import { expect, type Locator, type Page } from "@playwright/test";

/** A card of the page (components/ui.tsx Card: a section headed by its title). */
function cardTitled(page: Page, title: string): Locator {
  return page
    .getByRole("main")
    .locator("section")
    .filter({ has: page.getByRole("heading", { level: 2, name: title, exact: true }) });
}

/** /tenants/<tenant>/projects/<project>/quota: the quota now, the grants it is made of, and the project's requests. */
export class ProjectQuotaPage {
  readonly heading: Locator;
  readonly requestQuotaButton: Locator;
  readonly usageNote: Locator;
  /** Resource and value of each line of the quota now. */
  readonly quotaRows: Locator;
  readonly grantRows: Locator;
  readonly requestRows: Locator;

  constructor(readonly page: Page) {
    const main = page.getByRole("main");
    this.heading = main.getByRole("heading", { level: 1 });
    this.requestQuotaButton = page.getByRole("main").getByRole("link", { name: "Request quota", exact: true }).first();
    this.usageNote = page.getByTestId("usage-note");
    this.quotaRows = cardTitled(page, "Quota now").getByRole("table").locator("tbody").getByRole("row");
    this.grantRows = page.getByRole("table", { name: /^Grants of / }).locator("tbody").getByRole("row");
    this.requestRows = page.getByRole("table", { name: /^Quota requests of / }).locator("tbody").getByRole("row");
  }

  async goto(tenant: string, project: string): Promise<void> {
    await this.page.goto(`/tenants/${tenant}/projects/${project}/quota`);
    await expect(this.heading).toHaveText("Quota");
  }

  quotaRow(resource: string): Locator {
    return this.quotaRows.filter({ has: this.page.getByRole("cell", { name: resource, exact: true }) });
  }
}
