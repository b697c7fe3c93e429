"use client";

import { buttonClass } from "@/components/button-class";
import { Field, inputClass } from "@/components/form";
import { gpuFieldName, type GpuRowInputs } from "@/lib/quota/amount-inputs";

/**
 * The GPU rows of the request form: one row per GPU model, each with its
 * model, guaranteed GPUs and (with Kueue) burst GPUs, and buttons to add a
 * model and remove a row. Field names are the rows' ("gpus.0.model"), which
 * the command gathers into its list and names in its problems.
 */
export function GpuRows({
  rows,
  onChange,
  models,
  burstAvailable,
  errorsOf,
}: {
  rows: GpuRowInputs[];
  onChange: (rows: GpuRowInputs[]) => void;
  models: { model: string; resource: string; mig: boolean }[];
  burstAvailable: boolean;
  errorsOf: (name: string) => string[] | undefined;
}) {
  const standard = models.filter((m) => !m.mig);
  const mig = models.filter((m) => m.mig);
  const set = (index: number, part: keyof GpuRowInputs) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    onChange(rows.map((r, i) => (i === index ? { ...r, [part]: value } : r)));
  };
  // A model already chosen in another row is not offered again: one line per model.
  const takenElsewhere = (index: number) => new Set(rows.filter((_, i) => i !== index).map((r) => r.model).filter(Boolean));
  const options = (list: typeof models, taken: Set<string>) =>
    list.map((m) => (
      <option key={m.model} value={m.model} disabled={taken.has(m.model)}>
        {m.model}
      </option>
    ));
  const canAdd = rows.length < models.length;

  return (
    <fieldset className="space-y-3">
      <legend className="text-sm font-semibold text-slate-900">GPUs</legend>
      {rows.length === 0 && <p className="text-sm text-slate-600">No GPUs asked for.</p>}
      <ol className="space-y-3">
        {rows.map((row, i) => {
          const n = i + 1;
          const taken = takenElsewhere(i);
          return (
            <li key={i} className="rounded-md border border-slate-200 p-3" data-testid="gpu-row">
              <div className={`grid gap-3 ${burstAvailable ? "sm:grid-cols-[minmax(0,1.4fr)_minmax(0,1fr)_minmax(0,1fr)_auto]" : "sm:grid-cols-[minmax(0,1.4fr)_minmax(0,1fr)_auto]"} sm:items-start`}>
                <Field name={gpuFieldName(i, "model")} label={`GPU model ${n}`} errors={errorsOf(gpuFieldName(i, "model"))}>
                  {(p) => (
                    <select {...p} name={gpuFieldName(i, "model")} className={inputClass} value={row.model} onChange={set(i, "model")}>
                      <option value="">Choose a model</option>
                      {standard.length > 0 && <optgroup label="Whole GPUs">{options(standard, taken)}</optgroup>}
                      {mig.length > 0 && <optgroup label="MIG profiles (a slice of a GPU)">{options(mig, taken)}</optgroup>}
                    </select>
                  )}
                </Field>
                <Field name={gpuFieldName(i, "count")} label={burstAvailable ? `Guaranteed GPUs, model ${n}` : `Number of GPUs, model ${n}`} errors={errorsOf(gpuFieldName(i, "count"))}>
                  {(p) => <input {...p} name={gpuFieldName(i, "count")} inputMode="numeric" autoComplete="off" className={inputClass} placeholder="0" value={row.count} onChange={set(i, "count")} />}
                </Field>
                {burstAvailable && (
                  <Field name={gpuFieldName(i, "burst")} label={`Burst GPUs, model ${n}`} errors={errorsOf(gpuFieldName(i, "burst"))}>
                    {(p) => <input {...p} name={gpuFieldName(i, "burst")} inputMode="numeric" autoComplete="off" className={inputClass} placeholder="0" value={row.burst ?? ""} onChange={set(i, "burst")} />}
                  </Field>
                )}
                <button type="button" className={`${buttonClass()} sm:mt-6`} aria-label={`Remove GPU model ${n}${row.model ? ` (${row.model})` : ""}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
                  Remove
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      <p className="text-xs text-slate-500">
        Whole GPUs, or MIG instances for a MIG profile; one row per model.
        {burstAvailable && " Burst GPUs are more of that model the project may borrow when others leave them idle, for preemptible work only: reclaimed when their owners need them, and charged as used."}
      </p>
      {models.length === 0 ? (
        <p className="text-xs text-slate-500">No node pool offers GPUs yet.</p>
      ) : (
        <button type="button" className={buttonClass()} disabled={!canAdd} onClick={() => onChange([...rows, { model: "", count: "", ...(burstAvailable ? { burst: "" } : {}) }])}>
          Add a GPU model
        </button>
      )}
    </fieldset>
  );
}
