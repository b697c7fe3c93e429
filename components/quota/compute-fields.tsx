import { Field, inputClass } from "@/components/form";
import { formatBytes, formatCores, type ComputeBurstHint } from "@/lib/quota/view-helpers";

/** The form fields of CPU, memory and storage, with their burst beside them when the cluster runs Kueue. */
export type ComputeFieldName = "cpuCores" | "cpuBurst" | "memory" | "memoryBurst" | "storage";

/**
 * The quota request form's CPU, memory and storage: a guarantee each, and,
 * where Kueue lends and borrows, how much more CPU and memory the project's
 * preemptible work may borrow. Beside them, when GPUs could be borrowed
 * without the CPU and memory to run them, what to enter. Controlled by the
 * form (values, change handler, each field's errors); presentation only.
 */
export function ComputeFields({
  values,
  onChange,
  errorsOf,
  burstAvailable,
  hint,
}: {
  values: Record<ComputeFieldName, string>;
  onChange: (name: ComputeFieldName) => (e: { currentTarget: { value: string } }) => void;
  errorsOf: (name: ComputeFieldName) => string[] | undefined;
  burstAvailable: boolean;
  hint: ComputeBurstHint | null;
}) {
  // The render prop of a Field: the input, controlled by the form.
  const input = (name: ComputeFieldName, decimal = false) => (p: { id: string; "aria-invalid": boolean; "aria-describedby"?: string }) => (
    <input {...p} name={name} inputMode={decimal ? "decimal" : undefined} autoComplete="off" className={inputClass} placeholder="0" value={values[name]} onChange={onChange(name)} />
  );
  return (
    <fieldset className="space-y-3">
      <legend className="text-sm font-semibold text-slate-900">CPU, memory and storage</legend>
      <div className="grid gap-4 sm:grid-cols-3">
        <Field name="cpuCores" label="CPU cores" hint="e.g. 16, or 500m" errors={errorsOf("cpuCores")}>
          {input("cpuCores", true)}
        </Field>
        <Field name="memory" label="Memory (GiB)" hint="e.g. 64, or 64Gi" errors={errorsOf("memory")}>
          {input("memory")}
        </Field>
        <Field name="storage" label="Storage (GiB)" hint="e.g. 500, or 2Ti" errors={errorsOf("storage")}>
          {input("storage")}
        </Field>
        {burstAvailable && (
          <>
            <Field name="cpuBurst" label="Burst CPU cores" hint="More cores preemptible work may borrow when idle, e.g. 32" errors={errorsOf("cpuBurst")}>
              {input("cpuBurst", true)}
            </Field>
            <Field name="memoryBurst" label="Burst memory (GiB)" hint="More memory it may borrow, e.g. 256, or 256Gi" errors={errorsOf("memoryBurst")}>
              {input("memoryBurst")}
            </Field>
          </>
        )}
      </div>
      {burstAvailable && hint && (
        <p role="note" className="rounded-md bg-amber-50 px-3 py-2 text-xs text-amber-900" data-testid="compute-burst-hint">
          {computeBurstHintWords(hint)}
        </p>
      )}
      <p className="text-xs text-slate-500">
        Each amount is added to the project&apos;s quota. Leave a field empty for none.
        {burstAvailable && " Burst is borrowed from idle guarantees for preemptible work only, reclaimed when their owners need them, and charged as used."}
      </p>
    </fieldset>
  );
}

/** What the hint says: which burst field is missing and what to enter there. */
export function computeBurstHintWords(h: ComputeBurstHint): string {
  const fields = h.missing.map((m) => (m === "cpuBurst" ? "Burst CPU cores" : "Burst memory (GiB)")).join(" and ");
  const start = `Pods on the ${h.gpus} borrowed ${h.gpuModel} GPU${h.gpus === 1 ? "" : "s"} need CPU and memory too, and Kueue admits them only within the project's CPU and memory burst, which would be 0.`;
  if (!h.suggested) return `${start} Enter ${fields}.`;
  const amounts = h.missing.map((m) => (m === "cpuBurst" ? `${formatCores(h.suggested!.cores)} cores` : formatBytes(h.suggested!.memoryBytes))).join(" and ");
  return `${start} Enter ${fields}: ${amounts} is what the ${h.suggested.pool} nodes give ${h.gpus} GPU${h.gpus === 1 ? "" : "s"}.`;
}
