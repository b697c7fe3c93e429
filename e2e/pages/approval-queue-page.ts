import { expect, type Locator, type Page } from "@playwright/test";

/** /admin/requests: quota requests waiting for a platform admin, oldest first, each with the full picture. */
export class ApprovalQueuePage {
  readonly heading: Locator;
  readonly count: Locator;
  readonly entries: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("main").getByRole("heading", { level: 1 });
    this.count = page.getByTestId("queue-count");
    this.entries = page.getByTestId("queue-entry");
  }

  async goto(query = ""): Promise<void> {
    await this.page.goto(`/admin/requests${query}`);
    await expect(this.heading).toHaveText("Approval queue");
  }

  /** The entry whose heading reads e.g. "4 × H100 for vision-lab/Detector training". */
  entry(heading: string): Locator {
    return this.entries.filter({ has: this.page.getByRole("heading", { level: 2, name: heading, exact: true }) });
  }

  capacityRows(entry: Locator): Locator {
    return entry.getByRole("table", { name: "Capacity before and after approval" }).locator("tbody").getByRole("row");
  }

  /** Per GPU line the request touches: guarantees and bursts across all tenants against the pools at minimum, now and maximum. */
  sharing(entry: Locator): Locator {
    return entry.getByRole("region", { name: "Guarantees and bursts across all tenants" });
  }

  diff(entry: Locator): Locator {
    return entry.getByLabel(/^Diff of the cluster objects for /);
  }
}
