import type { Locator, Page } from "@playwright/test";

/** "/": the tenants and projects the signed-in person reaches, one card per tenant. */
export class HomePage {
  readonly heading: Locator;
  /** One level-2 heading per tenant card, in the order shown. */
  readonly tenantNames: Locator;
  readonly adminBanner: Locator;
  readonly noTenants: Locator;

  constructor(readonly page: Page) {
    const main = page.getByRole("main");
    this.heading = main.getByRole("heading", { level: 1 });
    this.tenantNames = main.getByRole("heading", { level: 2 });
    this.adminBanner = main.getByText("You are a platform admin.");
    this.noTenants = main.getByText("You are not part of any tenant yet");
  }

  async goto(): Promise<void> {
    await this.page.goto("/");
  }

  tenantCard(name: string): Locator {
    return this.page
      .getByRole("main")
      .locator("section")
      .filter({ has: this.page.getByRole("heading", { level: 2, name, exact: true }) });
  }

  /** The badge in a tenant card's header: how the person belongs to the tenant. */
  tenantBadge(tenant: string, label: string): Locator {
    return this.tenantCard(tenant).locator("header").getByText(label, { exact: true });
  }

  projectList(tenant: string): Locator {
    return this.page.getByRole("list", { name: `Projects in ${tenant}` });
  }

  /** The project links in a tenant's card. */
  projectLinks(tenant: string): Locator {
    return this.projectList(tenant).getByRole("link");
  }

  projectItem(tenant: string, project: string): Locator {
    return this.projectList(tenant)
      .getByRole("listitem")
      .filter({ has: this.page.getByRole("link", { name: project, exact: true }) });
  }
}
