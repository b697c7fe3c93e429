import { expect, type Locator, type Page } from "@playwright/test";
import { FormDialog } from "./form-dialog";
import { openPopup } from "./open-popup";

/** /tenants/<tenant>/projects/<project>/quota/requests/<id>: one request, its timeline, and for deciders the full picture. */
export class QuotaRequestPage {
  readonly heading: Locator;
  readonly banner: Locator;
  readonly summary: Locator;
  readonly timeline: Locator;
  readonly decisionNote: Locator;
  readonly decide: Locator;
  readonly approveWithChangesDialog: FormDialog;
  readonly rejectDialog: FormDialog;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("main").getByRole("heading", { level: 1 });
    this.banner = page.getByRole("main").getByRole("status");
    this.summary = page.getByTestId("request-summary");
    this.timeline = page.getByRole("list", { name: "Timeline of the request" });
    this.decisionNote = page.getByTestId("decision-note");
    this.decide = page.getByTestId("decision-actions");
    this.approveWithChangesDialog = new FormDialog(page, "Approve with changes");
    this.rejectDialog = new FormDialog(page, "Reject this request?");
  }

  async expectLoaded(): Promise<void> {
    await expect(this.heading).toHaveText("Quota request");
  }

  /** A line of the summary ("Status", "Asked", "Granted", …): its value. */
  item(label: string): Locator {
    return this.summary.locator("div").filter({ has: this.page.locator("dt", { hasText: new RegExp(`^${label}$`) }) }).locator("dd");
  }

  timelineEntries(): Locator {
    return this.timeline.getByRole("listitem");
  }

  /** The conversation between the requester and the deciding side (absent for anyone else). */
  get conversation(): Locator {
    return this.page.getByRole("region", { name: "Conversation" });
  }

  comments(): Locator {
    return this.page.getByRole("list", { name: "Comments" }).getByRole("listitem");
  }

  async writeComment(text: string): Promise<void> {
    await this.conversation.getByLabel("Your comment", { exact: true }).fill(text);
    await this.conversation.getByRole("button", { name: "Send comment", exact: true }).click();
  }

  /** For the decider: what the latest edit changed, field by field. */
  get editedSection(): Locator {
    return this.page.getByRole("region", { name: /^Edited: revision \d+ changed this/ });
  }

  /** One changed field of a change list: "GPUs" -> its before and after. */
  change(within: Locator, label: string): Locator {
    return within.getByTestId("revision-changes").locator("div").filter({ has: this.page.locator("dt", { hasText: new RegExp(`^${label}$`) }) }).locator("dd");
  }

  async openApproveWithChanges(): Promise<FormDialog> {
    await openPopup(this.decide.getByRole("button", { name: "Approve with changes", exact: true }), this.approveWithChangesDialog.root);
    return this.approveWithChangesDialog;
  }
}
