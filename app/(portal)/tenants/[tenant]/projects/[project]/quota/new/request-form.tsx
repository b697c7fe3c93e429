"use client";

import Link from "next/link";
import { startTransition, useActionState, useMemo, useState, type FormEvent, type ReactNode } from "react";
import { buttonClass } from "@/components/button-class";
import { Field, FormProblems, inputClass } from "@/components/form";
import { BudgetCheckNote } from "@/components/quota/budget-check";
import { ComputeFields } from "@/components/quota/compute-fields";
import { CapacityTable, CostLines, QuotaComparison } from "@/components/quota/quota-tables";
import { initialFormState, type FormState } from "@/lib/form-state";
import { fitNote } from "@/lib/quota/capacity";
import { costOverPeriod, describePeriod } from "@/lib/quota/cost";
import { isEmpty } from "@/lib/quota/amounts";
import { gpuFieldName, parseAmountInputs, type AmountInputs } from "@/lib/quota/amount-inputs";
import { GpuRows } from "@/components/quota/gpu-rows";
import { computeBurstHint, formatCapacityValue, formatMoney, previewRequest, type PreviewBasis } from "@/lib/quota/view-helpers";
import { FUTURE_DATE } from "@/lib/input/messages";

export type Values = AmountInputs & { duration: "permanent" | "until"; endsAt: string; justification: string };
type FieldName = Exclude<keyof Values, "gpus">;

const EMPTY: Values = { gpus: [{ model: "", count: "", burst: "" }], cpuCores: "", cpuBurst: "", memory: "", memoryBurst: "", storage: "", duration: "permanent", endsAt: "", justification: "" };

/** The value of a field by its name ("cpuCores", "gpus.1.count"): what was sent is compared with it to keep a server error in place. */
function valueOf(v: Values, name: string): string | undefined {
  const row = /^gpus\.(\d+)\.(model|count|burst)$/.exec(name);
  if (row) return v.gpus[Number(row[1])]?.[row[2] as "model" | "count" | "burst"];
  const value = v[name as FieldName];
  return typeof value === "string" ? value : undefined;
}

/**
 * The quota request form. Beside it, computed here as the person types from
 * what the server loaded once (quota now, prices in force, capacity and what
 * is allocated, the project's month against its budget): the quota after
 * approval, the monthly estimate, whether it fits the budget, whether the
 * pools could hold it and whether the rules would approve it. The server
 * runs the same arithmetic on submit.
 */
export function RequestForm({
  action,
  tenant,
  project,
  projectName,
  models,
  burstAvailable,
  basis,
  usage,
  currency,
  now,
  minDate,
  defaultDate,
  editing,
}: {
  action: (state: FormState, data: FormData) => Promise<FormState>;
  tenant: string;
  project: string;
  projectName: string;
  models: { model: string; resource: string; mig: boolean }[];
  /** Burst is borrowed through Kueue: the field is there only when the cluster runs it. */
  burstAvailable: boolean;
  basis: PreviewBasis;
  /** The project's use and spend, rendered by the server page; null when the person may not see its spend. */
  usage: ReactNode;
  currency: string;
  now: string;
  minDate: string;
  defaultDate: string;
  /** Editing a pending request: what it says now, and the request and version the edit is of. */
  editing?: { values: Values; requestId: string; version: number; nextRevision: number; cancelHref: string };
}) {
  const [state, formAction, pending] = useActionState(action, initialFormState);
  const [values, setValues] = useState<Values>(editing?.values ?? { ...EMPTY, endsAt: defaultDate });
  // What was sent with the last submit: a server error stays under its field until the field changes.
  const [sent, setSent] = useState<Values | null>(null);
  const setGpus = (gpus: Values["gpus"]) => setValues((v) => ({ ...v, gpus }));
  const set = (name: FieldName) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setValues((v) => ({ ...v, [name]: value }));
  };

  const { amounts, problems } = useMemo(() => parseAmountInputs(burstAvailable ? values : { ...values, gpus: values.gpus.map((g) => ({ ...g, burst: undefined })), cpuBurst: undefined, memoryBurst: undefined }), [values, burstAvailable]);
  const preview = useMemo(() => previewRequest(basis, amounts), [basis, amounts]);
  const anything = !isEmpty(amounts);
  const days = values.duration === "until" && values.endsAt ? Math.max(0, (Date.parse(`${values.endsAt}T00:00:00Z`) - Date.parse(now)) / 86_400_000) : null;
  const askedPeriod = days === null ? null : costOverPeriod(preview.estimate.monthly, new Date(now), new Date(`${values.endsAt}T00:00:00Z`));
  const exceeded = preview.capacity.filter((l) => l.exceeds);

  const errorsOf = (name: string, live?: string): string[] | undefined => {
    const server = state.status === "error" && sent && valueOf(sent, name) === valueOf(values, name) ? state.fieldErrors?.[name] : undefined;
    if (server?.length) return server;
    return live ? [live] : undefined;
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSent(values);
    const data = new FormData(event.currentTarget);
    startTransition(() => formAction(data));
  };

  // The fields whose problems show beside them; any other problem shows at the top of the form.
  const shownFields = [...Object.keys(EMPTY).filter((k) => k !== "gpus"), ...values.gpus.flatMap((_, i) => (["model", "count", "burst"] as const).map((part) => gpuFieldName(i, part)))];

  return (
    <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,1fr)_26rem]">
      <form action={formAction} onSubmit={onSubmit} noValidate className="min-w-0 space-y-5 rounded-lg border border-slate-200 bg-white p-5 shadow-sm" aria-label="Quota request">
        <input type="hidden" name="tenant" value={tenant} />
        <input type="hidden" name="project" value={project} />
        {editing && (
          <>
            <input type="hidden" name="requestId" value={editing.requestId} />
            <input type="hidden" name="version" value={editing.version} />
          </>
        )}
        {/* Problems the fields do not show (a bad slug in the address, "_form"). */}
        <FormProblems state={state} fields={shownFields} />

        <GpuRows
          rows={values.gpus}
          onChange={setGpus}
          models={models}
          burstAvailable={burstAvailable}
          // A missing model is said live only once the row asks for GPUs; a duplicate at once.
          errorsOf={(name) => errorsOf(name, problems[name])}
        />

        <ComputeFields
          values={{ cpuCores: values.cpuCores, cpuBurst: values.cpuBurst ?? "", memory: values.memory, memoryBurst: values.memoryBurst ?? "", storage: values.storage }}
          onChange={set}
          errorsOf={(name) => errorsOf(name, problems[name])}
          burstAvailable={burstAvailable}
          hint={computeBurstHint(basis, amounts, preview.after.quota)}
        />

        <fieldset className="space-y-2">
          <legend className="text-sm font-semibold text-slate-900">For how long</legend>
          <label className="flex items-center gap-2 text-sm text-slate-800">
            <input type="radio" name="duration" value="permanent" checked={values.duration === "permanent"} onChange={set("duration")} />
            Permanent
          </label>
          <label className="flex items-center gap-2 text-sm text-slate-800">
            <input type="radio" name="duration" value="until" checked={values.duration === "until"} onChange={set("duration")} />
            Until a date
          </label>
          {values.duration === "until" && (
            <div className="max-w-xs pl-6">
              <Field
                name="endsAt"
                label="Ends on"
                hint={`The grant ends at 00:00 UTC on this date${days !== null && days > 0 ? ` (in ${Math.round(days * 10) / 10} days)` : ""}.`}
                errors={errorsOf("endsAt", values.endsAt && values.endsAt < minDate ? FUTURE_DATE : undefined)}
              >
                {(p) => <input {...p} type="date" name="endsAt" className={inputClass} min={minDate} value={values.endsAt} onChange={set("endsAt")} />}
              </Field>
            </div>
          )}
        </fieldset>

        <Field
          name="justification"
          label="Justification"
          hint="What the resources are for, for the platform admins who decide. At least 10 characters."
          errors={errorsOf("justification")}
        >
          {(p) => (
            <textarea
              {...p}
              name="justification"
              rows={3}
              className={inputClass}
              placeholder="e.g. Fine-tuning the detector on the new warehouse footage: 4 GPUs for two weeks."
              value={values.justification}
              onChange={set("justification")}
            />
          )}
        </Field>

        <div className="flex items-center gap-2 border-t border-slate-100 pt-4">
          <button type="submit" disabled={pending} className={buttonClass("primary")}>
            {pending ? "Submitting…" : editing ? `Save as revision ${editing.nextRevision}` : "Submit request"}
          </button>
          <Link href={editing?.cancelHref ?? `/tenants/${tenant}/projects/${project}/quota`} className={buttonClass()}>
            Cancel
          </Link>
        </div>
      </form>

      <aside aria-label="Preview of the request" className="min-w-0 space-y-4 lg:sticky lg:top-4">
        <section className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" aria-labelledby="preview-quota">
          <h2 id="preview-quota" className="text-sm font-semibold text-slate-900">
            Quota of {projectName}
          </h2>
          <QuotaComparison caption={`Quota of ${projectName} now and after approval`} now={basis.current} after={preview.after} />
        </section>

        {usage && (
          <section className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" aria-labelledby="preview-usage">
            <h2 id="preview-usage" className="mb-1 text-sm font-semibold text-slate-900">
              Use and spend
            </h2>
            {usage}
          </section>
        )}

        <section className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" aria-labelledby="preview-cost" data-testid="estimate">
          <h2 id="preview-cost" className="text-sm font-semibold text-slate-900">
            Estimated cost
          </h2>
          {anything ? (
            <>
              <CostLines caption="Estimated monthly cost at the rate card" estimate={preview.estimate} currency={currency} totalLabel="Per month" />
              {askedPeriod && (
                <p className="mt-2 text-xs text-slate-600">
                  Over the {describePeriod(askedPeriod.hours)} asked: about <strong>{formatMoney(askedPeriod.cost, currency)}</strong>.
                </p>
              )}
            </>
          ) : (
            <p className="text-sm text-slate-500">Enter amounts to see the monthly cost at the rate card.</p>
          )}
          <p className="mt-2 text-xs text-slate-500">At the prices in force today; what you pay follows what runs.</p>
          {preview.budget && <BudgetCheckNote className="mt-2" check={preview.budget} currency={currency} />}
        </section>

        {anything && (
          <section className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" aria-labelledby="preview-capacity">
            <h2 id="preview-capacity" className="text-sm font-semibold text-slate-900">
              Cluster capacity
            </h2>
            {exceeded.length > 0 && (
              <p role="alert" className="mb-2 rounded-md bg-red-50 px-3 py-2 text-xs font-medium text-red-800" data-testid="capacity-warning">
                The nodes present cannot hold this:{" "}
                {exceeded.map((l) => `${l.label} would be ${formatCapacityValue(l.resource, l.after)} of ${formatCapacityValue(l.resource, l.capacity)} (${fitNote(l)})`).join("; ")}. A platform admin may
                grant less.
              </p>
            )}
            <CapacityTable caption="Cluster capacity before and after this request" lines={preview.capacity} policy={basis.policy} />
          </section>
        )}

        {anything && editing && (
          <p className="rounded-md bg-slate-100 px-3 py-2 text-xs text-slate-700" data-testid="decision-hint">
            An edit is never approved automatically: a platform admin decides, and sees what you changed.
          </p>
        )}
        {anything && !editing && (
          <p className={`rounded-md px-3 py-2 text-xs ${preview.auto.auto ? "bg-emerald-50 text-emerald-800" : "bg-slate-100 text-slate-700"}`} data-testid="decision-hint">
            {preview.auto.auto ? <>Likely approved automatically on submit ({preview.auto.rule}).</> : <>A platform admin decides, because {preview.auto.reason}.</>}
          </p>
        )}
      </aside>
    </div>
  );
}
