import { expect, type Locator, type Page } from "@playwright/test";

/** /tenants/<tenant>/projects/<project>/quota/new: the request form and its live preview. */
export class QuotaRequestForm {
  readonly heading: Locator;
  readonly form: Locator;
  readonly preview: Locator;
  readonly estimate: Locator;
  readonly estimateRows: Locator;
  readonly capacityWarning: Locator;
  readonly decisionHint: Locator;
  readonly afterApprovalRows: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("main").getByRole("heading", { level: 1 });
    this.form = page.getByRole("form", { name: "Quota request" });
    this.preview = page.getByRole("complementary", { name: "Preview of the request" });
    this.estimate = page.getByTestId("estimate");
    this.estimateRows = this.estimate.getByRole("table").locator("tbody").getByRole("row");
    this.capacityWarning = page.getByTestId("capacity-warning");
    this.decisionHint = page.getByTestId("decision-hint");
    this.afterApprovalRows = this.preview.getByRole("table", { name: /now and after approval$/ }).locator("tbody").getByRole("row");
  }

  async goto(tenant: string, project: string): Promise<void> {
    await this.page.goto(`/tenants/${tenant}/projects/${project}/quota/new`);
    await expect(this.heading).toHaveText("Request quota");
  }

  field(label: string): Locator {
    return this.form.getByLabel(label, { exact: true });
  }

  /** The error paragraph of a field: beside the field, apart from its label. */
  fieldError(label: string): Locator {
    return this.field(label).locator("xpath=ancestor::div[1]").getByRole("alert");
  }

  async endsOn(date: string): Promise<void> {
    await this.form.getByRole("radio", { name: "Until a date" }).check();
    await this.field("Ends on").fill(date);
  }

  /** Editing a pending request: the form saves it as the next revision. */
  async saveAsRevision(revision: number): Promise<void> {
    await this.form.getByRole("button", { name: `Save as revision ${revision}`, exact: true }).click();
  }

  async submit(): Promise<void> {
    await this.form.getByRole("button", { name: "Submit request", exact: true }).click();
  }
}
