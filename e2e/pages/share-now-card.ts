import { expect, type Locator, type Page } from "@playwright/test";

/** The "Share now" card on a project's page: the plan per flavour, live use beside it, and the workloads that wait. */
export class ShareNowCard {
  readonly root: Locator;
  /** The sentence under the title: where and when the figures were read, or that they are the plan. */
  readonly description: Locator;
  readonly noClusterBadge: Locator;
  readonly table: Locator;
  readonly headers: Locator;
  readonly pendingHeading: Locator;
  readonly pendingItems: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByRole("main").locator("section").filter({ has: page.getByRole("heading", { level: 2, name: "Share now", exact: true }) });
    this.description = this.root.locator("header p");
    this.noClusterBadge = this.root.getByText("No cluster connected", { exact: true });
    this.table = this.root.getByRole("table", { name: /^Share of .* now, by flavour$/ });
    this.headers = this.table.getByRole("columnheader");
    this.pendingHeading = this.root.getByRole("heading", { level: 3, name: /^Waiting workloads/ });
    this.pendingItems = this.root.getByTestId("pending-workloads").getByRole("listitem");
  }

  /** One flavour's row as { column header: cell text }, e.g. { Flavour: "H100", "In use": "12", … }. */
  async line(flavour: string, resource: string): Promise<Record<string, string>> {
    const headers = (await this.headers.allInnerTexts()).map((h) => h.trim());
    const rows = this.table.locator("tbody tr");
    for (const row of await rows.all()) {
      const cells = (await row.getByRole("cell").allInnerTexts()).map((c) => c.trim());
      if (cells[0] === flavour && cells[1] === resource) return Object.fromEntries(headers.map((h, i) => [normaliseHeader(h), cells[i] ?? ""]));
    }
    throw new Error(`no "${flavour}" "${resource}" line in the Share now table`);
  }

  /** A line as a narrow screen shows it (a short list instead of the table), by its flavour and resource as written. */
  narrowLine(flavour: string, resource: string): Locator {
    return this.root
      .getByTestId("share-lines")
      .getByRole("listitem")
      .filter({ has: this.page.getByText(`${flavour} · ${resource}`, { exact: true }) });
  }

  /** Nothing inside the card is wider than the card (a table left to scroll sideways would hide the live figures). */
  async expectNoOverflow(): Promise<void> {
    const widest = await this.root.evaluate((card) => {
      const right = card.getBoundingClientRect().right;
      return Math.max(0, ...[...card.querySelectorAll("*")].filter((e) => (e as HTMLElement).offsetParent !== null).map((e) => e.getBoundingClientRect().right - right));
    });
    expect(widest, "pixels past the card's right edge").toBeLessThanOrEqual(0.5);
  }

  /** A waiting workload's item, by its name. */
  pendingItem(name: string): Locator {
    return this.pendingItems.filter({ has: this.page.getByText(name, { exact: true }) });
  }
}

/** Headers are shown upper case by CSS; innerText gives them so. Back to how the page writes them. */
function normaliseHeader(text: string): string {
  const known = ["Flavour", "Resource", "Guaranteed", "Burst limit", "Others may borrow", "In use", "Borrowed", "Lent (est.)", "Lent"];
  return known.find((k) => k.toUpperCase() === text.toUpperCase()) ?? text;
}
