/**
 * Quota amounts as the model holds them, free of input parsing so that client components (cost
 * previews, descriptions) can import them without the schema library: the form and API field
 * schemas are in amount-inputs.ts.
 */

export const GiB = 2 ** 30;

/**
 * The GPUs of one model a request asks for (or a grant holds): its line.
 * `model` is the flavour as the node pools name it ("H100", "A100 1g.10gb").
 */
export interface GpuAmount {
  model: string;
  /** Guaranteed GPUs (MIG instances for a MIG profile, slices for a time-sliced pool). */
  count: number;
  /**
   * GPUs of the same model the project may borrow beyond its guarantee when
   * they are idle in its cohort, for preemptible work only (Kueue).
   */
  burst: number;
}

/** Resources a request adds to a project (or a grant holds). */
export interface QuotaAmounts {
  /** One entry per GPU model, no model twice, sorted by model; entries of 0 guaranteed and 0 burst are left out. */
  gpus: GpuAmount[];
  cpuCores: number;
  memoryBytes: number;
  storageBytes: number;
  /**
   * Cores and bytes the project may borrow beyond its CPU and memory
   * guarantees, likewise (the burst queue's borrowingLimit for cpu and
   * memory): pods on borrowed GPUs need CPU and memory too. Absent: 0.
   */
  cpuBurst?: number;
  memoryBurstBytes?: number;
}

/** A GPU row as a form or API body gives it, before it is checked: the model may be missing, and rows may repeat a model. */
export interface GpuRow {
  model: string | null;
  count: number;
  burst: number;
}

/** Limits beyond which a number is a typo, not a request. */
export const MAX = { gpuCount: 4096, cpuCores: 100_000, memoryBytes: 2 ** 50, storageBytes: 2 ** 53 - 1 } as const;

/** How many GPU models one request may name: more than the pools of any cluster offer, fewer than a page can show. */
export const MAX_GPU_MODELS = 32;

/** The CPU and memory burst fields of QuotaAmounts, each present only when above 0 (so amounts without burst compare equal to older ones). */
export function burstFields(b: { cpuBurst?: number; memoryBurstBytes?: number }): Pick<QuotaAmounts, "cpuBurst" | "memoryBurstBytes"> {
  return {
    ...((b.cpuBurst ?? 0) > 0 ? { cpuBurst: b.cpuBurst } : {}),
    ...((b.memoryBurstBytes ?? 0) > 0 ? { memoryBurstBytes: b.memoryBurstBytes } : {}),
  };
}

const byModel = (a: { model: string }, b: { model: string }) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0);

/**
 * GPU entries as QuotaAmounts holds them: rows without a model or without any
 * GPUs left out, one entry per model (rows naming a model twice are summed:
 * the checks of gpuRowProblems refuse them where a person typed them), sorted.
 */
export function gpuAmountsOf(rows: readonly GpuRow[]): GpuAmount[] {
  const out = new Map<string, GpuAmount>();
  for (const r of rows) {
    if (!r.model || (r.count === 0 && r.burst === 0)) continue;
    const seen = out.get(r.model);
    if (seen) {
      seen.count += r.count;
      seen.burst += r.burst;
    } else out.set(r.model, { model: r.model, count: r.count, burst: r.burst });
  }
  return [...out.values()].sort(byModel);
}

/** Guaranteed GPUs of every model together. */
export const gpuTotal = (a: Pick<QuotaAmounts, "gpus">) => a.gpus.reduce((s, g) => s + g.count, 0);

/** Burst GPUs of every model together. */
export const gpuBurstTotal = (a: Pick<QuotaAmounts, "gpus">) => a.gpus.reduce((s, g) => s + g.burst, 0);

/** Whether amounts ask to borrow anything (GPUs, CPU or memory). */
export const hasBurst = (a: QuotaAmounts) => gpuBurstTotal(a) > 0 || (a.cpuBurst ?? 0) > 0 || (a.memoryBurstBytes ?? 0) > 0;

export function amountsOf(v: { gpus: readonly GpuRow[]; cpuCores: number; cpuBurst?: number; memory: number; memoryBurst?: number; storage: number }): QuotaAmounts {
  return {
    gpus: gpuAmountsOf(v.gpus),
    cpuCores: v.cpuCores,
    memoryBytes: v.memory,
    storageBytes: v.storage,
    ...burstFields({ cpuBurst: v.cpuBurst, memoryBurstBytes: v.memoryBurst }),
  };
}

/** "GPU model 2": how a problem names a row of the form (and of an API body's gpus, counted from 1). */
export const gpuRowLabel = (index: number) => `GPU model ${index + 1}`;

/**
 * Problems of the GPU rows as given, keyed by the row's field ("gpus.1.model",
 * the form's field name and the API body's path): a row with GPUs but no
 * model, and a model named in two rows (which would otherwise be two lines of
 * one flavour, and the person meant one).
 */
export function gpuRowProblems(rows: readonly GpuRow[]): Record<string, string[]> | null {
  const problems: Record<string, string[]> = {};
  const first = new Map<string, number>();
  rows.forEach((r, i) => {
    const model = r.model?.trim() || null;
    if (!model) {
      if (r.count > 0 || r.burst > 0) problems[`gpus.${i}.model`] = [`${gpuRowLabel(i)}: choose a model for the GPUs.`];
      return;
    }
    const earlier = first.get(model);
    if (earlier === undefined) first.set(model, i);
    else problems[`gpus.${i}.model`] = [`${gpuRowLabel(i)}: ${model} is already asked for as ${gpuRowLabel(earlier)}; change the amounts there, or choose another model.`];
  });
  return Object.keys(problems).length > 0 ? problems : null;
}

/**
 * Field problems of a request's amounts that the field schemas cannot see
 * alone. Burst is borrowed through Kueue, which alone can reclaim it: without
 * Kueue nothing would stop non-preemptible pods from holding it. `rows` are
 * the GPU rows as given, so that a problem names the row the person typed.
 */
export function amountProblems(a: QuotaAmounts, options: { burstAllowed: boolean; rows?: readonly GpuRow[] } = { burstAllowed: false }): Record<string, string[]> | null {
  const rowProblems = gpuRowProblems(options.rows ?? a.gpus);
  if (rowProblems) return rowProblems;
  if (!options.burstAllowed) {
    const kueue = "Burst needs Kueue on the cluster, which this portal is not set up for";
    const problems: Record<string, string[]> = {};
    (options.rows ?? a.gpus).forEach((g, i) => {
      if (g.burst > 0) problems[`gpus.${i}.burst`] = [`${gpuRowLabel(i)}: ${kueue}: ask for guaranteed GPUs instead.`];
    });
    if ((a.cpuBurst ?? 0) > 0) problems.cpuBurst = [`${kueue}: leave it empty and ask for guaranteed CPU cores instead.`];
    if ((a.memoryBurstBytes ?? 0) > 0) problems.memoryBurst = [`${kueue}: leave it empty and ask for guaranteed memory instead.`];
    if (Object.keys(problems).length > 0) return problems;
  }
  // A problem of the request as a whole: shown at the form, not on its first amount field.
  if (isEmpty(a)) return { _form: ["Ask for at least one resource: GPUs, CPU, memory or storage."] };
  return null;
}

export const isEmpty = (a: QuotaAmounts) => gpuTotal(a) === 0 && a.cpuCores === 0 && a.memoryBytes === 0 && a.storageBytes === 0 && !hasBurst(a);

