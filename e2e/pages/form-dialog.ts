import { expect, type Locator, type Page } from "@playwright/test";

/** A Radix dialog holding one form: fields by label, and the error shown beside a field. */
export class FormDialog {
  readonly root: Locator;
  /** The box holding a one-time value (an invitation link, a token) after success. */
  readonly reveal: Locator;

  constructor(
    readonly page: Page,
    title: string,
  ) {
    this.root = page.getByRole("dialog", { name: title });
    this.reveal = this.root.getByTestId("reveal");
  }

  field(label: string): Locator {
    return this.root.getByLabel(label, { exact: true });
  }

  /** The error paragraph of a field: beside the field (components/form.tsx Field), apart from its label. */
  fieldError(label: string): Locator {
    return this.field(label).locator("xpath=ancestor::div[1]").getByRole("alert");
  }

  async submit(label: string): Promise<void> {
    await this.root.getByRole("button", { name: label, exact: true }).click();
  }

  /** The one-time value shown after success, from the read-only input the reveal label names. */
  async revealed(label: string): Promise<string> {
    const input = this.reveal.getByRole("textbox", { name: label, exact: true });
    await expect(input).toHaveAttribute("readonly", "");
    await expect(input).not.toHaveValue("");
    return input.inputValue();
  }

  /** Close a dialog that shows a one-time value; it is not shown again. */
  async done(): Promise<void> {
    await this.root.getByRole("button", { name: "Done", exact: true }).click();
    await expect(this.root).toBeHidden();
  }

  async cancel(): Promise<void> {
    await this.root.getByRole("button", { name: "Cancel", exact: true }).click();
    await expect(this.root).toBeHidden();
  }
}
