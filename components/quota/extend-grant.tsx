"use client";

import * as Dialog from "@radix-ui/react-dialog";
import Link from "next/link";
import { startTransition, useActionState, useState, type FormEvent } from "react";
import { buttonClass } from "../button-class";
import { Field, FormProblems, inputClass, SubmitButton } from "../form";
import { formatDateTime } from "@/lib/format";
import { initialFormState, type FormState } from "@/lib/form-state";
import type { QuotaAmounts } from "@/lib/quota/amounts";
import { costOverPeriod, describePeriod } from "@/lib/quota/cost";
import { describeAmounts, formatMoney } from "@/lib/quota/view-helpers";

type Action = (state: FormState, formData: FormData) => Promise<FormState>;
const DAY = 86_400_000;
const dateValue = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * "Extend" beside a time-bound grant: asks for a new end and a reason, and
 * shows as the date changes what the added days cost at the grant's monthly
 * rate (the approver sees the same figure). When an extension already waits,
 * a link to it instead. The page decides whether to offer it
 * (lib/quota/extension-offers.ts); the command decides again.
 */
export function ExtendGrant({
  action,
  tenant,
  project,
  offer,
  currency,
  requestHref,
}: {
  action: Action;
  tenant: string;
  project: string;
  offer: { grantId: string; amounts: QuotaAmounts; endsAt: string; monthly: number; pendingRequestId: string | null };
  currency: string;
  /** Where a request of this project lives, by id. */
  requestHref: string;
}) {
  const [open, setOpen] = useState(false);
  if (offer.pendingRequestId) {
    return (
      <Link href={`${requestHref}/${offer.pendingRequestId}`} className="text-sm font-medium text-brand-700 underline hover:no-underline" data-testid="extension-waiting">
        Extension waiting
      </Link>
    );
  }
  const what = describeAmounts(offer.amounts);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger className="text-sm font-medium text-brand-700 hover:underline" data-testid="extend-grant">
        Extend<span className="sr-only"> {what}</span>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-slate-900/40" />
        <Dialog.Content className="fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[min(34rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg bg-white p-6 shadow-xl">
          <Dialog.Title className="text-lg font-semibold text-slate-900">Extend this grant</Dialog.Title>
          <Dialog.Description className="mt-1 text-sm text-slate-600">
            {what}, now ending {formatDateTime(new Date(offer.endsAt))}. A platform admin decides; until then the grant ends as it does now.
          </Dialog.Description>
          <ExtendForm action={action} tenant={tenant} project={project} offer={offer} currency={currency} />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function ExtendForm({ action, tenant, project, offer, currency }: { action: Action; tenant: string; project: string; offer: { grantId: string; endsAt: string; monthly: number }; currency: string }) {
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
