"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useActionState, useState, type ReactNode } from "react";
import { initialFormState, type FormState } from "@/lib/form-state";
import { buttonClass, FormMessage, SubmitButton } from "./form";

/**
 * A button that opens a dialog holding one form bound to a server action. The
 * fields render from the last result, so errors appear beside their field.
 */
export function ActionDialog({
  triggerLabel,
  title,
  description,
  submitLabel,
  pendingLabel,
  action,
  children,
}: {
  triggerLabel: string;
  title: string;
  description: string;
  submitLabel: string;
  pendingLabel: string;
  action: (state: FormState, formData: FormData) => Promise<FormState>;
  children: (state: FormState) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const [state, formAction] = useActionState(action, initialFormState);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger className={buttonClass("primary")}>{triggerLabel}</Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-slate-900/40" />
        <Dialog.Content className="fixed left-1/2 top-1/2 z-50 w-[min(32rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 rounded-lg bg-white p-6 shadow-xl">
          <Dialog.Title className="text-lg font-semibold text-slate-900">{title}</Dialog.Title>
          <Dialog.Description className="mt-1 text-sm text-slate-600">{description}</Dialog.Description>
          <form action={formAction} className="mt-4 space-y-4" noValidate>
            <FormMessage status={state.status} message={state.message} />
            {children(state)}
            <div className="flex justify-end gap-2 pt-2">
              <Dialog.Close className={buttonClass()}>Cancel</Dialog.Close>
              <SubmitButton pendingLabel={pendingLabel}>{submitLabel}</SubmitButton>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
