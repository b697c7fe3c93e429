"use client";

import type { Action, FieldSpec } from "./action-form";
import { buttonClass } from "./button-class";
import { useOnDemandDialog } from "./on-demand";

const loadDialogContent = () => import("./action-dialog-content").then((m) => m.ActionDialogContent);

export type ActionDialogBody = { submitLabel: string; pendingLabel?: string; action: Action; fields: FieldSpec[] };

/**
 * A button that opens a dialog with the form; closes on success unless there is something to
 * reveal. The dialog's code (Radix, action-dialog-content.tsx) is fetched when the person first
 * points at, focuses or presses the button, so a page of such buttons does not load it up front.
 */
export function ActionDialog({
  triggerLabel,
  triggerKind = "primary",
  danger = false,
  title,
  description,
  ...body
}: ActionDialogBody & {
  triggerLabel: string;
  triggerKind?: "primary" | "secondary" | "link";
  danger?: boolean;
  title: string;
  description: string;
}) {
  const { Dialog: Content, buttonProps, dialogProps } = useOnDemandDialog(loadDialogContent);
  const triggerClass =
    triggerKind === "link" ? `text-sm font-medium ${danger ? "text-red-700" : "text-brand-700"} hover:underline` : buttonClass(triggerKind);
  return (
    <>
      <button {...buttonProps} className={triggerClass}>
        {triggerLabel}
      </button>
      {Content && <Content {...dialogProps} title={title} description={description} body={body} />}
    </>
  );
}
