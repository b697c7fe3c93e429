"use client";

import { startTransition, useActionState, useEffect, useRef, useState, type FormEvent } from "react";
import { initialFormState, type FormState } from "@/lib/form-state";
import { buttonClass } from "./button-class";
import { Field, FieldError, FormMessage, FormProblems, inputClass, SubmitButton } from "./form";

/**
 * Forms described as data, so server components can declare them: each field
 * is a plain object, the action is a server action, and errors appear beside
 * the field they concern. One-time values (tokens, links) come back in
 * `reveal` and stay on screen until the dialog is closed.
 */
export type FieldSpec =
  | { kind: "hidden"; name: string; value: string }
  | { kind: "text" | "email" | "date" | "number" | "textarea"; name: string; label: string; hint?: string; placeholder?: string; defaultValue?: string; required?: boolean; min?: string; max?: string }
  | { kind: "select"; name: string; label: string; hint?: string; options: { value: string; label: string }[]; defaultValue?: string }
  | { kind: "checkbox"; name: string; label: string; hint?: string };

export type Action = (state: FormState, formData: FormData) => Promise<FormState>;

export function Fields({ fields, state }: { fields: FieldSpec[]; state: FormState }) {
  return (
    <>
      {fields.map((f) => {
        if (f.kind === "hidden") return <input key={f.name} type="hidden" name={f.name} value={f.value} />;
        const errors = state.fieldErrors?.[f.name];
        if (f.kind === "checkbox") {
          const id = `field-${f.name}`;
          const describedBy = [f.hint ? `${id}-hint` : null, errors?.length ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
          return (
            <div key={f.name} className="space-y-1">
              <label className="flex items-start gap-2 text-sm text-slate-800">
                <input type="checkbox" id={id} name={f.name} className="mt-0.5" aria-invalid={Boolean(errors?.length)} aria-describedby={describedBy} />
                <span>{f.label}</span>
              </label>
              {f.hint && (
                <p id={`${id}-hint`} className="text-xs text-slate-500">
                  {f.hint}
                </p>
              )}
              <FieldError id={`${id}-error`} errors={errors} />
            </div>
          );
        }
        return (
          <Field key={f.name} name={f.name} label={f.label} hint={f.hint} errors={errors}>
            {(p) =>
              f.kind === "select" ? (
                <select {...p} name={f.name} className={inputClass} defaultValue={f.defaultValue}>
                  {f.options.map((o) => (
                    <option key={o.value} value={o.value}>
                      {o.label}
                    </option>
                  ))}
                </select>
              ) : f.kind === "textarea" ? (
                <textarea {...p} name={f.name} className={inputClass} rows={2} defaultValue={f.defaultValue} placeholder={f.placeholder} />
              ) : (
                <input {...p} type={f.kind} name={f.name} className={inputClass} defaultValue={f.defaultValue} placeholder={f.placeholder} required={f.required} min={f.min} max={f.max} />
              )
            }
          </Field>
        );
      })}
    </>
  );
}

/** The fields that show their own problems: a hidden field's problem is the form's. */
export function shownFieldNames(fields: FieldSpec[]): string[] {
  return fields.filter((f) => f.kind !== "hidden").map((f) => f.name);
}

export function Reveal({ reveal }: { reveal: NonNullable<FormState["reveal"]> }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="rounded-md border border-amber-300 bg-amber-50 p-3" data-testid="reveal">
      <p className="text-sm font-medium text-amber-900">{reveal.label}</p>
      <div className="mt-2 flex gap-2">
        <input readOnly value={reveal.value} aria-label={reveal.label} className={`${inputClass} font-mono text-xs`} onFocus={(e) => e.currentTarget.select()} />
        <button
          type="button"
          className={buttonClass()}
          onClick={() => {
            void navigator.clipboard?.writeText(reveal.value).then(() => setCopied(true));
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      {reveal.note && <p className="mt-2 text-xs text-amber-800">{reveal.note}</p>}
      {reveal.example && (
        <figure className="mt-2">
          <figcaption className="text-xs font-medium text-amber-900">Try it</figcaption>
          <pre tabIndex={0} className="mt-1 overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-900 p-2 font-mono text-xs text-slate-100" data-testid="reveal-example">
            {reveal.example}
          </pre>
        </figure>
      )}
    </div>
  );
}

/**
 * React resets a form after every action it runs, which would wipe what the
 * person typed when the answer is a field error. Submitting through a
 * transition keeps the values (useFormStatus still reports pending); the form
 * is cleared only after a success. Without JavaScript the form still posts.
 */
export function useSubmitKeepingInput(formAction: (data: FormData) => void, state: FormState) {
  const ref = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state.status === "ok") ref.current?.reset();
  }, [state]);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    startTransition(() => formAction(data));
  };
  return { ref, onSubmit };
}

/** A form inline on the page. */
export function ActionForm({ action, fields, submitLabel, pendingLabel, className = "" }: { action: Action; fields: FieldSpec[]; submitLabel: string; pendingLabel?: string; className?: string }) {
  const [state, formAction] = useActionState(action, initialFormState);
  const submit = useSubmitKeepingInput(formAction, state);
  return (
    <form action={formAction} {...submit} className={`space-y-2 ${className}`} noValidate>
      <FormProblems state={state} fields={shownFieldNames(fields)} />
      <Fields fields={fields} state={state} />
      <div className="flex items-center gap-2">
        <SubmitButton pendingLabel={pendingLabel ?? "Saving…"}>{submitLabel}</SubmitButton>
      </div>
      {state.status === "ok" && <FormMessage status="ok" message={state.message} />}
      {state.reveal && <Reveal reveal={state.reveal} />}
    </form>
  );
}
