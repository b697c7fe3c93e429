"use client";

import type { ReactNode } from "react";
import { useFormStatus } from "react-dom";
import { formLevelProblems, type FormState } from "@/lib/form-state";
import { buttonClass } from "./button-class";

/** Form pieces that name the failing field beside it (STYLE.md habit 7). */

export function Field({
  name,
  label,
  hint,
  errors,
  children,
}: {
  name: string;
  label: string;
  hint?: string;
  errors?: string[];
  children: (props: { id: string; "aria-invalid": boolean; "aria-describedby"?: string }) => ReactNode;
}) {
  const id = `field-${name}`;
  const describedBy = [hint ? `${id}-hint` : null, errors?.length ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      {children({ id, "aria-invalid": Boolean(errors?.length), "aria-describedby": describedBy })}
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-slate-500">
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} errors={errors} />
    </div>
  );
}

/** A field's problems, apart from its label (which stays the field's name): sentences that say what to enter. */
export function FieldError({ id, errors }: { id: string; errors?: string[] }) {
  if (!errors?.length) return null;
  return (
    <p id={id} role="alert" className="text-xs font-medium text-red-700">
      {errors.join(" ")}
    </p>
  );
}

export const inputClass =
  "block w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm shadow-sm aria-[invalid=true]:border-red-500 focus:border-brand-600 focus:outline-none focus:ring-1 focus:ring-brand-600";

export function SubmitButton({ children, pendingLabel }: { children: ReactNode; pendingLabel: string }) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" disabled={pending} className={buttonClass("primary")}>
      {pending ? pendingLabel : children}
    </button>
  );
}

/** A failed submission's problems that belong to no field shown, at the top of the form. */
export function FormProblems({ state, fields }: { state: FormState; fields: string[] }) {
  const problems = formLevelProblems(state, fields);
  if (problems.length === 0) return null;
  return <FormMessage status="error" message={problems.join("\n")} />;
}

export function FormMessage({ status, message }: { status: "idle" | "ok" | "error"; message?: string }) {
  if (!message) return null;
  return (
    <p role={status === "error" ? "alert" : "status"} className={`whitespace-pre-line rounded-md px-3 py-2 text-sm ${status === "error" ? "bg-red-50 text-red-800" : "bg-emerald-50 text-emerald-800"}`}>
      {message}
    </p>
  );
}
