"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useActionState, useEffect, useRef } from "react";
import { initialFormState, type FormState } from "@/lib/form-state";
import type { ActionDialogBody } from "./action-dialog";
import { Fields, Reveal, shownFieldNames, useSubmitKeepingInput, type Action, type FieldSpec } from "./action-form";
import { buttonClass } from "./button-class";
import { FormMessage, FormProblems, SubmitButton } from "./form";
import { OnDemandDialog, type OnDemandDialogProps } from "./on-demand-dialog";

/** ActionDialog's dialog (action-dialog.tsx), loaded when first reached for; on close focus goes back to its button. */
export function ActionDialogContent({ title, description, body, ...dialog }: OnDemandDialogProps & { title: string; description: string; body: ActionDialogBody }) {
  return (
    <OnDemandDialog
      {...dialog}
      className="fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[min(34rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg bg-white p-6 shadow-xl"
    >
      <Dialog.Title className="text-lg font-semibold text-slate-900">{title}</Dialog.Title>
      <Dialog.Description className="mt-1 text-sm text-slate-600">{description}</Dialog.Description>
      {/* Mounted only while open: closing forgets the result, so a secret is shown once. */}
      <DialogForm {...body} onSuccess={() => dialog.onOpenChange(false)} />
    </OnDemandDialog>
  );
}

function DialogForm({ action, fields, submitLabel, pendingLabel, onSuccess }: { action: Action; fields: FieldSpec[]; submitLabel: string; pendingLabel?: string; onSuccess: () => void }) {
  const [state, formAction] = useActionState(action, initialFormState);
  const submit = useSubmitKeepingInput(formAction, state);
  const handled = useRef<FormState>(initialFormState);
  useEffect(() => {
    if (state !== handled.current && state.status === "ok" && !state.reveal) onSuccess();
    handled.current = state;
  }, [state, onSuccess]);
  if (state.reveal) {
    return (
      <div className="mt-4 space-y-4">
        {state.message && <FormMessage status="ok" message={state.message} />}
        <Reveal reveal={state.reveal} />
        <div className="flex justify-end">
          <Dialog.Close className={buttonClass("primary")}>Done</Dialog.Close>
        </div>
      </div>
    );
  }
  return (
    <form action={formAction} {...submit} className="mt-4 space-y-4" noValidate>
      <FormProblems state={state} fields={shownFieldNames(fields)} />
      <Fields fields={fields} state={state} />
      <div className="flex justify-end gap-2 pt-2">
        <Dialog.Close className={buttonClass()}>Cancel</Dialog.Close>
        <SubmitButton pendingLabel={pendingLabel ?? "Working…"}>{submitLabel}</SubmitButton>
      </div>
    </form>
  );
}
