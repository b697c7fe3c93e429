"use client";

import type { FormState } from "@/lib/form-state";
import { ActionDialog } from "./action-dialog";
import { Field, inputClass } from "./form";

export function CreateTenantDialog({ action }: { action: (state: FormState, formData: FormData) => Promise<FormState> }) {
  return (
    <ActionDialog
      triggerLabel="New tenant"
      title="New tenant"
      description="A tenant is a team sharing the cluster. Its projects become namespaces named after its slug."
      submitLabel="Create tenant"
      pendingLabel="Creating…"
      action={action}
    >
      {(state) => (
        <>
          <Field name="name" label="Name" errors={state.fieldErrors?.name}>
            {(p) => <input {...p} name="name" className={inputClass} required maxLength={80} placeholder="Vision Lab" />}
          </Field>
          <Field name="slug" label="Slug" hint="Lower-case letters, digits and hyphens, at most 24. Cannot change later." errors={state.fieldErrors?.slug}>
            {(p) => <input {...p} name="slug" className={inputClass} required maxLength={24} placeholder="vision-lab" />}
          </Field>
          <Field name="costCentre" label="Cost centre" hint="Carried as a label on every namespace, for chargeback." errors={state.fieldErrors?.costCentre}>
            {(p) => <input {...p} name="costCentre" className={inputClass} maxLength={64} placeholder="CC-4100" />}
          </Field>
          <Field name="isolationTier" label="Isolation tier" errors={state.fieldErrors?.isolationTier}>
            {(p) => (
              <select {...p} name="isolationTier" className={inputClass} defaultValue="shared">
                <option value="shared">Shared node pools</option>
                <option value="dedicated">Dedicated node pool</option>
              </select>
            )}
          </Field>
        </>
      )}
    </ActionDialog>
  );
}
