/**
 * Quota amounts as the model holds them, free of input parsing so that client components (cost
 * previews, descriptions) can import them without the schema library: the form and API field
 * schemas are in amount-inputs.ts.
 */

export const GiB = 2 ** 30;

/** Resources a request adds to a project (or a grant holds). GPUs are of one model per request. */
export interface QuotaAmounts {
  gpuModel: string | null;
  gpuCount: number;
  cpuCores: number;
  memoryBytes: number;
  storageBytes: number;
  /**
   * GPUs of the same model the project may borrow beyond its guarantee when
   * they are idle in its cohort, for preemptible work only (Kueue). Absent: 0.
   */
  gpuBurst?: number;
  /**
   * Cores and bytes the project may borrow beyond its CPU and memory
   * guarantees, likewise (the burst queue's borrowingLimit for cpu and
   * memory): pods on borrowed GPUs need CPU and memory too. Absent: 0.
   */
  cpuBurst?: number;
  memoryBurstBytes?: number;
}

/** Limits beyond which a number is a typo, not a request. */
export const MAX = { gpuCount: 4096, cpuCores: 100_000, memoryBytes: 2 ** 50, storageBytes: 2 ** 53 - 1 } as const;

/** The burst fields of QuotaAmounts, each present only when above 0 (so amounts without burst compare equal to older ones). */
export function burstFields(b: { gpuBurst?: number; cpuBurst?: number; memoryBurstBytes?: number }): Pick<QuotaAmounts, "gpuBurst" | "cpuBurst" | "memoryBurstBytes"> {
  return {
    ...((b.gpuBurst ?? 0) > 0 ? { gpuBurst: b.gpuBurst } : {}),
    ...((b.cpuBurst ?? 0) > 0 ? { cpuBurst: b.cpuBurst } : {}),
    ...((b.memoryBurstBytes ?? 0) > 0 ? { memoryBurstBytes: b.memoryBurstBytes } : {}),
  };
}

/** Whether amounts ask to borrow anything (GPUs, CPU or memory). */
export const hasBurst = (a: QuotaAmounts) => (a.gpuBurst ?? 0) > 0 || (a.cpuBurst ?? 0) > 0 || (a.memoryBurstBytes ?? 0) > 0;

export function amountsOf(v: { gpuModel: string | null; gpuCount: number; gpuBurst?: number; cpuCores: number; cpuBurst?: number; memory: number; memoryBurst?: number; storage: number }): QuotaAmounts {
  const anyGpu = v.gpuCount > 0 || (v.gpuBurst ?? 0) > 0;
  return {
    gpuModel: anyGpu ? v.gpuModel : null,
    gpuCount: v.gpuCount,
    cpuCores: v.cpuCores,
    memoryBytes: v.memory,
    storageBytes: v.storage,
    ...burstFields({ gpuBurst: v.gpuBurst, cpuBurst: v.cpuBurst, memoryBurstBytes: v.memoryBurst }),
  };
}

/**
 * Field problems of a request's amounts that the field schemas cannot see
 * alone. Burst is borrowed through Kueue, which alone can reclaim it: without
 * Kueue nothing would stop non-preemptible pods from holding it.
 */
export function amountProblems(a: QuotaAmounts, options: { burstAllowed: boolean } = { burstAllowed: false }): Record<string, string[]> | null {
  const burst = a.gpuBurst ?? 0;
  if ((a.gpuCount > 0 || burst > 0) && !a.gpuModel) return { gpuModel: ["Choose a GPU model for the GPUs."] };
  if (!options.burstAllowed) {
    const kueue = "Burst needs Kueue on the cluster, which this portal is not set up for";
    const problems: Record<string, string[]> = {};
    if (burst > 0) problems.gpuBurst = [`${kueue}: ask for guaranteed GPUs instead.`];
    if ((a.cpuBurst ?? 0) > 0) problems.cpuBurst = [`${kueue}: leave it empty and ask for guaranteed CPU cores instead.`];
    if ((a.memoryBurstBytes ?? 0) > 0) problems.memoryBurst = [`${kueue}: leave it empty and ask for guaranteed memory instead.`];
    if (Object.keys(problems).length > 0) return problems;
  }
  // A problem of the request as a whole: shown at the form, not on its first amount field.
  if (isEmpty(a)) return { _form: ["Ask for at least one resource: GPUs, CPU, memory or storage."] };
  return null;
}

export const isEmpty = (a: QuotaAmounts) => a.gpuCount === 0 && a.cpuCores === 0 && a.memoryBytes === 0 && a.storageBytes === 0 && !hasBurst(a);
