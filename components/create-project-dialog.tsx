"use client";

import type { FormState } from "@/lib/form-state";
import { ActionDialog } from "./action-dialog";
import { Field, inputClass } from "./form";

export function CreateProjectDialog({ tenantSlug, action }: { tenantSlug: string; action: (state: FormState, formData: FormData) => Promise<FormState> }) {
  return (
    <ActionDialog
      triggerLabel="New project"
      title="New project"
      description="A project is one Kubernetes namespace with its own quota, access and spend."
      submitLabel="Create project"
      pendingLabel="Creating…"
      action={action}
    >
      {(state) => (
        <>
          <input type="hidden" name="tenant" value={tenantSlug} />
          <Field name="name" label="Name" errors={state.fieldErrors?.name}>
            {(p) => <input {...p} name="name" className={inputClass} required maxLength={80} placeholder="Detector training" />}
          </Field>
          <Field name="slug" label="Slug" hint={`Lower-case letters, digits and hyphens. Becomes the namespace ${tenantSlug}--<slug> and cannot change.`} errors={state.fieldErrors?.slug}>
            {(p) => <input {...p} name="slug" className={inputClass} required maxLength={32} placeholder="detector-training" />}
          </Field>
          <Field name="description" label="Description" errors={state.fieldErrors?.description}>
            {(p) => <textarea {...p} name="description" className={inputClass} rows={2} maxLength={500} />}
          </Field>
        </>
      )}
    </ActionDialog>
  );
}
