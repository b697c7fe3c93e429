"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { startTransition, useActionState, useState, type FormEvent } from "react";
import { buttonClass } from "../button-class";
import { Field, FormProblems, inputClass, SubmitButton } from "../form";
import { OnDemandDialog, type OnDemandDialogProps } from "../on-demand-dialog";
import { TimeLabel } from "../time-label";
import { initialFormState } from "@/lib/form-state";
import { costOverPeriod, describePeriod } from "@/lib/quota/cost";
import { formatMoney } from "@/lib/quota/view-helpers";
import type { ExtendAction, ExtendOffer } from "./extend-grant";

const DAY = 86_400_000;
const dateValue = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** ExtendGrant's dialog (extend-grant.tsx), loaded when the person first reaches for "Extend"; on close focus goes back to it. */
export function ExtendGrantDialog({ what, action, tenant, project, offer, currency, ...dialog }: OnDemandDialogProps & { what: string; action: ExtendAction; tenant: string; project: string; offer: ExtendOffer; currency: string }) {
  return (
    <OnDemandDialog
      {...dialog}
      className="fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[min(34rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg bg-white p-6 shadow-xl"
    >
      <Dialog.Title className="text-lg font-semibold text-slate-900">Extend this grant</Dialog.Title>
      <Dialog.Description className="mt-1 text-sm text-slate-600">
        {what}, now ending <TimeLabel label={offer.ends} />. A platform admin decides; until then the grant ends as it does now.
      </Dialog.Description>
      <ExtendForm action={action} tenant={tenant} project={project} offer={offer} currency={currency} />
    </OnDemandDialog>
  );
}

function ExtendForm({ action, tenant, project, offer, currency }: { action: ExtendAction; tenant: string; project: string; offer: ExtendOffer; currency: string }) {
  const [state, formAction] = useActionState(action, initialFormState);
  const end = Date.parse(offer.endsAt);
  const [date, setDate] = useState(dateValue(end + 30 * DAY));
  const added = date ? costOverPeriod(offer.monthly, new Date(end), new Date(`${date}T00:00:00Z`)) : null;
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    startTransition(() => formAction(data));
  };
  return (
    <form action={formAction} onSubmit={onSubmit} className="mt-4 space-y-4" noValidate aria-label="Extend the grant">
      <input type="hidden" name="tenant" value={tenant} />
      <input type="hidden" name="project" value={project} />
      <input type="hidden" name="grantId" value={offer.grantId} />
      <FormProblems state={state} fields={["endsAt", "justification"]} />
      <Field name="endsAt" label="New end" hint="The grant then ends at 00:00 UTC that day." errors={state.fieldErrors?.endsAt}>
        {(p) => <input {...p} type="date" name="endsAt" className={inputClass} value={date} min={dateValue(end + DAY)} onChange={(e) => setDate(e.currentTarget.value)} />}
      </Field>
      <p className="rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700" data-testid="extension-cost" aria-live="polite">
        {added ? (
          <>
            Adds {describePeriod(added.hours)}: about <strong className="font-medium text-slate-900">{formatMoney(added.cost, currency)}</strong> at {formatMoney(offer.monthly, currency)} a month.
          </>
        ) : (
          "Pick a date after the current end."
        )}
      </p>
      <Field name="justification" label="Why it is still needed" errors={state.fieldErrors?.justification}>
        {(p) => <textarea {...p} name="justification" rows={3} className={inputClass} placeholder="What the extra time is for" />}
      </Field>
      <div className="flex justify-end gap-2 pt-2">
        <Dialog.Close className={buttonClass()}>Cancel</Dialog.Close>
        <SubmitButton pendingLabel="Sending…">Ask to extend</SubmitButton>
      </div>
    </form>
  );
}
