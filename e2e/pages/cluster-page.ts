import { expect, type Download, type Locator, type Page } from "@playwright/test";

/** A card of the page (components/ui.tsx Card: a section headed by its title). */
function cardTitled(page: Page, title: string): Locator {
  return page
    .getByRole("main")
    .locator("section")
    .filter({ has: page.getByRole("heading", { level: 2, name: title, exact: true }) });
}

/**
 * The rows that carry the data: each change or object is a row of cells
 * followed by a row holding only its details (one cell across the table).
 */
function dataRows(page: Page, table: Locator): Locator {
  return table.locator("tbody > tr").filter({ has: page.locator("td:nth-child(2)") });
}

/** The details under a data row (its disclosure, in the row that follows it). */
function detailsOf(row: Locator): Locator {
  return row.locator("xpath=following-sibling::tr[1]").locator("details");
}

/** /admin/cluster: the connection, drift, and every cluster change with its attempts. */
export class ClusterPage {
  readonly heading: Locator;
  readonly mode: Locator;
  readonly reconcileEverythingButton: Locator;
  readonly checkDriftButton: Locator;
  readonly drift: Locator;
  readonly changes: Locator;
  readonly statusFilter: Locator;
  readonly changeRows: Locator;
  readonly scheduled: Locator;
  /** "3 changes scheduled." (or "Nothing scheduled."): the count said beside the list. */
  readonly scheduledCount: Locator;
  readonly scheduledRows: Locator;

  constructor(readonly page: Page) {
    const main = page.getByRole("main");
    this.heading = main.getByRole("heading", { level: 1 });
    this.mode = page.getByTestId("cluster-mode");
    this.reconcileEverythingButton = main.getByRole("button", { name: "Reconcile everything", exact: true });
    this.checkDriftButton = main.getByRole("button", { name: "Check drift now", exact: true });
    this.drift = cardTitled(page, "Drift");
    this.changes = cardTitled(page, "Changes");
    this.statusFilter = page.getByRole("navigation", { name: "Filter changes by status" });
    this.changeRows = dataRows(page, page.getByRole("table", { name: /^Cluster changes/ }));
    this.scheduled = cardTitled(page, "Scheduled changes");
    this.scheduledCount = page.getByTestId("scheduled-count");
    this.scheduledRows = page.getByRole("table", { name: "Scheduled cluster changes" }).locator("tbody").getByRole("row");
  }

  async goto(status?: string): Promise<void> {
    await this.page.goto(status ? `/admin/cluster?status=${status}` : "/admin/cluster");
    await expect(this.heading).toHaveText("Cluster");
  }

  /** The status filter link, e.g. "recorded 4". */
  filter(status: string): Locator {
    return this.statusFilter.getByRole("link", { name: new RegExp(`^${status} \\d+$`) });
  }

  /** Change rows whose target cell names this namespace (or "tenant-wide (Kueue)") and, optionally, one of whose reasons matches. */
  changeRowsFor(target: string, reason?: string): Locator {
    let rows = this.changeRows.filter({ has: this.page.getByRole("cell").nth(1).filter({ hasText: target }) });
    if (reason) rows = rows.filter({ has: this.page.getByRole("listitem").filter({ hasText: reason }) });
    return rows;
  }

  /** Open a change row's details (its attempts and the YAML link). */
  async openDetails(row: Locator): Promise<Locator> {
    const details = detailsOf(row);
    await details.locator("summary").click();
    await expect(details).toHaveAttribute("open", "");
    return details;
  }

  async downloadChangeYaml(row: Locator): Promise<Download> {
    const details = await this.openDetails(row);
    const download = this.page.waitForEvent("download");
    await details.getByRole("link", { name: /^YAML of change \d+$/ }).click();
    return download;
  }
}

/** The "Cluster objects" section of a project page: what the project becomes on the cluster. */
export class ProjectClusterSection {
  readonly root: Locator;
  readonly heading: Locator;
  readonly recordOnlyNote: Locator;
  readonly latestChange: Locator;
  readonly scheduled: Locator;
  readonly rows: Locator;
  readonly emptyState: Locator;
  readonly downloadYamlLink: Locator;

  constructor(readonly page: Page) {
    this.root = cardTitled(page, "Cluster objects");
    this.heading = this.root.getByRole("heading", { level: 2 });
    this.recordOnlyNote = this.root.getByRole("note");
    this.latestChange = this.root.getByTestId("latest-cluster-change");
    this.scheduled = this.root.getByTestId("scheduled-cluster-changes");
    this.rows = dataRows(page, this.root.getByRole("table", { name: /^Cluster objects of / }));
    this.emptyState = this.root.getByText("Nothing rendered yet");
    this.downloadYamlLink = this.root.getByRole("link", { name: "Download YAML", exact: true });
  }

  /**
   * The worker renders within a second or two of a change; the page is
   * server-rendered, so reload until the latest change has the status asked
   * for and objects are listed.
   */
  async waitForChange(status: "recorded" | "applied"): Promise<void> {
    await expect(async () => {
      await this.page.reload();
      await expect(this.latestChange).toContainText(` ${status} `, { timeout: 1_000 });
      await expect(this.rows.first()).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
  }

  /** The Kind cell of every row, in table order (apply order). */
  kinds(): Promise<string[]> {
    return this.rows.locator("td:first-child").allTextContents();
  }

  row(kind: string, name?: string): Locator {
    let rows = this.rows.filter({ has: this.page.getByRole("cell", { name: kind, exact: true }) });
    if (name) rows = rows.filter({ has: this.page.getByRole("cell", { name, exact: true }) });
    return rows.first();
  }

  /** Expand a row and return the YAML it shows. */
  async expandYaml(row: Locator): Promise<Locator> {
    const details = detailsOf(row);
    await details.locator("summary").click();
    const pre = details.locator("pre");
    await expect(pre).toBeVisible();
    return pre;
  }

  async downloadYaml(): Promise<Download> {
    const download = this.page.waitForEvent("download");
    await this.downloadYamlLink.click();
    return download;
  }
}
