import type { Locator, Page } from "@playwright/test";

/** A Radix dialog holding one form: fields by label, and the error shown beside a field. */
export class FormDialog {
  readonly root: Locator;

  constructor(
    readonly page: Page,
    title: string,
  ) {
    this.root = page.getByRole("dialog", { name: title });
  }

  field(label: string): Locator {
    return this.root.getByLabel(label, { exact: true });
  }

  /** The error paragraph of a field; it starts with the field's label. */
  fieldError(label: string): Locator {
    return this.root.getByRole("alert").filter({ hasText: new RegExp(`^${label} `) });
  }

  async submit(label: string): Promise<void> {
    await this.root.getByRole("button", { name: label, exact: true }).click();
  }
}
