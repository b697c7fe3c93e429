"use client";

import { useActionState } from "react";
import { FormMessage, SubmitButton } from "@/components/form";
import { initialFormState, type FormState } from "@/lib/form-state";

type Mode = "apart" | "chargeback";

const CHOICES: { mode: Mode; label: string; consequence: string }[] = [
  {
    mode: "apart",
    label: "Show idle apart",
    consequence: "Idle capacity stays its own line beside the tenants; tenants and projects see only what they used.",
  },
  {
    mode: "chargeback",
    label: "Charge idle back to tenants",
    consequence:
      "Each day's idle capacity cost is added to the tenants' bills in proportion to the value of their guarantees that day, and within a tenant to its projects; budgets and spend totals keep counting use only, and the idle charged back is shown beside them.",
  },
];

/**
 * The platform's idle cost rule. A change rules from the start of the next
 * UTC day, so days already reported keep the rule they were reported under.
 */
export function IdleCostForm({ action, current, tomorrow, effectiveFrom }: { action: (state: FormState, data: FormData) => Promise<FormState>; current: Mode; tomorrow: Mode; effectiveFrom: string }) {
  const [state, formAction] = useActionState(action, initialFormState);
  return (
    <form action={formAction} className="space-y-3" aria-label="Idle cost rule">
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium text-slate-900">Idle cost rule from {effectiveFrom} (UTC)</legend>
        {CHOICES.map((c) => (
          <label key={c.mode} className="flex items-start gap-2 rounded-md border border-slate-200 px-3 py-2 text-sm has-[:checked]:border-brand-600 has-[:checked]:bg-brand-50">
            <input type="radio" name="mode" value={c.mode} defaultChecked={tomorrow === c.mode} className="mt-1" />
            <span>
              <span className="font-medium text-slate-900">{c.label}</span>
              {c.mode === current && <span className="ml-2 text-xs text-slate-700">(in force today)</span>}
              <span className="block text-slate-600">{c.consequence}</span>
            </span>
          </label>
        ))}
        {state.fieldErrors?.mode && <p className="text-sm text-red-700">{state.fieldErrors.mode.join(" ")}</p>}
      </fieldset>
      <p className="text-xs text-slate-500">
        The change takes effect at the start of the next UTC day ({effectiveFrom}); today and earlier days keep the rule they were reported under, so every figure already shown stays as it was. Recorded in the
        audit log.
      </p>
      <SubmitButton pendingLabel="Saving…">Save rule</SubmitButton>
      <FormMessage status={state.status} message={state.message} />
    </form>
  );
}
