"use client";

import { useQueryClient } from "@tanstack/react-query";
import { startTransition, useActionState, useEffect, type FormEvent } from "react";
import { Field, FormMessage, inputClass, SubmitButton } from "@/components/form";
import { initialFormState, type FormState } from "@/lib/form-state";

/**
 * A project's monthly budget: one amount, empty to remove it. The version is
 * the budget the page showed (0: none), so a budget changed meanwhile is
 * refused rather than overwritten. After a save the spend figures are fetched
 * again, so the budget panel shows the new budget at once.
 */
export function BudgetForm({
  action,
  tenant,
  project,
  currency,
  monthlyAmount,
  version,
}: {
  action: (state: FormState, data: FormData) => Promise<FormState>;
  tenant: string;
  project: string;
  currency: string;
  /** The budget now, as decimal text, or null. */
  monthlyAmount: string | null;
  version: number;
}) {
  const [state, formAction] = useActionState(action, initialFormState);
  const queryClient = useQueryClient();
  useEffect(() => {
    if (state.status === "ok") void queryClient.invalidateQueries({ queryKey: ["spend"] });
  }, [state, queryClient]);
  // Submitting in a transition keeps what was typed when the answer is a field error.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    startTransition(() => formAction(data));
  };
  return (
    <form action={formAction} onSubmit={onSubmit} className="space-y-3" noValidate aria-label="Monthly budget">
      <input type="hidden" name="tenant" value={tenant} />
      <input type="hidden" name="project" value={project} />
      <input type="hidden" name="version" value={String(version)} />
      <div className="flex flex-wrap items-start gap-3">
        <div className="w-72">
          <Field name="monthlyAmount" label={`Monthly budget (${currency})`} hint="For each calendar month (UTC). Empty removes the budget." errors={state.fieldErrors?.monthlyAmount}>
            {(p) => <input {...p} key={monthlyAmount ?? ""} name="monthlyAmount" inputMode="decimal" placeholder="5000" defaultValue={monthlyAmount ?? ""} className={`${inputClass} tabular-nums`} />}
          </Field>
        </div>
        <div className="pt-6">
          <SubmitButton pendingLabel="Saving…">Save budget</SubmitButton>
        </div>
      </div>
      <FormMessage status={state.status} message={state.message} />
    </form>
  );
}
