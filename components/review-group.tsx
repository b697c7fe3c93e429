"use client";

import { useActionState, useEffect, useState, type ReactNode } from "react";
import { useFormStatus } from "react-dom";
import type { InstantLabel } from "@/lib/format";
import { initialFormState, type FormState } from "@/lib/form-state";
import { buttonClass } from "./button-class";
import { FormMessage } from "./form";
import { useOnDemandDialog } from "./on-demand";
import { TimeLabel } from "./time-label";

/** One item as the page hands it over (dates as ISO strings: this crosses to the browser). */
export type ReviewRow = {
  id: string;
  principal: string;
  email: string | null;
  kind: string;
  access: string;
  expires: InstantLabel | null;
  decision: "keep" | "revoke" | null;
  flagged: boolean;
  decidedAt: InstantLabel | null;
  decidedBy: string | null;
  note: string | null;
  canDecide: boolean;
  own: boolean;
};

type Action = (state: FormState, formData: FormData) => Promise<FormState>;

/**
 * A reviewer's group of items on the review page: keep or revoke each, or
 * select several and decide them at once. Revoking asks first; keeping does
 * not (it changes nothing). The selection travels as one comma-separated field.
 */
export function ReviewGroup({ reviewId, title, progress, rows, action }: { reviewId: string; title: string; progress: ReactNode; rows: ReviewRow[]; action: Action }) {
  const [state, formAction] = useActionState(action, initialFormState);
  const [selected, setSelected] = useState<string[]>([]);
  useEffect(() => {
    if (state.status === "ok") setSelected([]);
  }, [state]);
  const decidable = rows.filter((r) => r.canDecide);
  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  const allSelected = decidable.length > 0 && selected.length === decidable.length;

  return (
    <section aria-label={`Items for ${title}`} className="rounded-lg border border-slate-200 bg-white shadow-sm">
      <header className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-100 px-4 py-3 sm:px-5">
        <div>
          <h2 className="text-base font-semibold text-slate-900">{title}</h2>
          <div className="mt-0.5 text-sm text-slate-500">{progress}</div>
        </div>
        {decidable.length > 0 && (
          <div className="flex flex-wrap items-center gap-2">
            <label className="flex items-center gap-2 text-sm text-slate-700">
              <input type="checkbox" checked={allSelected} onChange={() => setSelected(allSelected ? [] : decidable.map((r) => r.id))} aria-label={`Select every undecided item for ${title}`} />
              {selected.length} selected
            </label>
            <DecisionForm action={formAction} reviewId={reviewId} ids={selected} decision="keep" label="Keep selected" disabled={selected.length === 0} />
            <ConfirmRevoke action={formAction} reviewId={reviewId} ids={selected} label="Revoke selected" disabled={selected.length === 0} what={`${selected.length} selected item${selected.length === 1 ? "" : "s"}`} />
          </div>
        )}
      </header>
      {state.message && (
        <div className="px-4 pt-3 sm:px-5">
          <FormMessage status={state.status} message={state.message} />
        </div>
      )}
      <ul className="divide-y divide-slate-100">
        {rows.map((r) => (
          <li key={r.id} className="flex flex-wrap items-start gap-x-4 gap-y-2 px-4 py-3 sm:px-5" data-testid="review-item">
            <div className="w-5 pt-0.5">
              {r.canDecide && <input type="checkbox" checked={selected.includes(r.id)} onChange={() => toggle(r.id)} aria-label={`Select ${r.principal}: ${r.access}`} />}
            </div>
            <div className="min-w-0 flex-1 basis-56">
              <p className="font-medium text-slate-900">
                {r.principal} <span className="ml-1 text-xs font-normal text-slate-500">{r.kind}</span>
              </p>
              {r.email && <p className="truncate text-xs text-slate-500">{r.email}</p>}
              <p className="text-sm text-slate-700">
                {r.access}
                {r.expires && <span className="text-slate-500"> · expires <TimeLabel label={r.expires} /></span>}
              </p>
            </div>
            <div className="flex flex-wrap items-center gap-2 sm:justify-end">
              <Status row={r} />
              {r.canDecide && (
                <>
                  <DecisionForm action={formAction} reviewId={reviewId} ids={[r.id]} decision="keep" label="Keep" accessibleLabel={`Keep ${r.principal}: ${r.access}`} />
                  <ConfirmRevoke action={formAction} reviewId={reviewId} ids={[r.id]} label="Revoke" accessibleLabel={`Revoke ${r.principal}: ${r.access}`} what={`${r.principal}: ${r.access}`} />
                </>
              )}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Status({ row }: { row: ReviewRow }) {
  if (row.decision === null) {
    return <span className="text-xs font-medium text-slate-500">{row.own ? "Your own access: another admin decides" : row.canDecide ? "Not decided" : "Not decided yet"}</span>;
  }
  const tone = row.decision === "revoke" ? "bg-red-50 text-red-700 ring-red-200" : row.flagged ? "bg-amber-50 text-amber-800 ring-amber-200" : "bg-emerald-50 text-emerald-700 ring-emerald-200";
  const word = row.decision === "revoke" ? "Revoked" : row.flagged ? "Kept, flagged" : "Kept";
  return (
    <span className="text-right text-xs text-slate-500">
      <span className={`inline-flex rounded-full px-2 py-0.5 font-medium ring-1 ring-inset ${tone}`}>{word}</span>
      <span className="ml-1">
        {row.decidedAt && <TimeLabel label={row.decidedAt} />} by {row.decidedBy}
      </span>
      {row.note && <span className="block">{row.note}</span>}
    </span>
  );
}

export function Hidden({ reviewId, ids, decision }: { reviewId: string; ids: string[]; decision: "keep" | "revoke" }) {
  return (
    <>
      <input type="hidden" name="reviewId" value={reviewId} />
      <input type="hidden" name="itemIds" value={ids.join(",")} />
      <input type="hidden" name="decision" value={decision} />
    </>
  );
}

export function Submit({ label, accessibleLabel, danger, disabled }: { label: string; accessibleLabel?: string; danger?: boolean; disabled?: boolean }) {
  const { pending } = useFormStatus();
  const look = danger ? "inline-flex items-center justify-center rounded-md bg-red-600 px-3 py-1.5 text-sm font-medium text-white shadow-sm hover:bg-red-700 disabled:opacity-60" : buttonClass();
  return (
    <button type="submit" className={look} disabled={pending || disabled} aria-label={accessibleLabel}>
      {pending ? "Working…" : label}
    </button>
  );
}

function DecisionForm(p: { action: (data: FormData) => void; reviewId: string; ids: string[]; decision: "keep"; label: string; accessibleLabel?: string; disabled?: boolean }) {
  return (
    <form action={p.action}>
      <Hidden reviewId={p.reviewId} ids={p.ids} decision={p.decision} />
      <Submit label={p.label} accessibleLabel={p.accessibleLabel} disabled={p.disabled} />
    </form>
  );
}

const loadRevokeDialog = () => import("./review-revoke-dialog").then((m) => m.ReviewRevokeDialog);

/** "Revoke" asks first, in a dialog whose code (Radix) arrives on first intent: most visits decide nothing. */
function ConfirmRevoke(p: { action: (data: FormData) => void; reviewId: string; ids: string[]; label: string; accessibleLabel?: string; disabled?: boolean; what: string }) {
  const { Dialog, buttonProps, dialogProps } = useOnDemandDialog(loadRevokeDialog);
  return (
    <>
      <button {...buttonProps} className={`${buttonClass()} text-red-700 disabled:opacity-60`} disabled={p.disabled} aria-label={p.accessibleLabel}>
        {p.label}
      </button>
      {Dialog && <Dialog {...dialogProps} action={p.action} reviewId={p.reviewId} ids={p.ids} what={p.what} />}
    </>
  );
}
