import { z } from "zod";
import { quantity, wholeNumber } from "@/lib/input/numbers";
import { burstFields, GiB, MAX, type QuotaAmounts } from "./amounts";
import { atMostChars } from "@/lib/input/messages";

/**
 * The amount fields of the request form and the API, as zod schemas: the commands parse with
 * them, and the request form parses with the same schemas as the person types (its preview).
 * Kept apart from amounts.ts so that only the code that reads input carries the schema library.
 */

// Amount fields (lib/input/numbers.ts): Kubernetes notation ("500m", "64Gi")
// or a plain decimal in the field's unit (cores, GiB); empty means 0.
export const cpuInput = quantity("CPU cores", { unit: 1, max: MAX.cpuCores, empty: 0, example: "a number of cores such as 4 or 500m" });
export const memoryInput = quantity("Memory (GiB)", { unit: GiB, max: MAX.memoryBytes, empty: 0, whole: true, example: "a number of GiB such as 64, or a quantity such as 64Gi" });
export const storageInput = quantity("Storage (GiB)", { unit: GiB, max: MAX.storageBytes, empty: 0, whole: true, example: "a number of GiB such as 500, or a quantity such as 2Ti" });
export const gpuCountInput = wholeNumber("GPUs", { max: MAX.gpuCount, empty: 0 });
export const gpuBurstInput = wholeNumber("Burst GPUs", { max: MAX.gpuCount, empty: 0 });
export const cpuBurstInput = quantity("Burst CPU cores", { unit: 1, max: MAX.cpuCores, empty: 0, example: "a number of cores such as 16 or 500m" });
export const memoryBurstInput = quantity("Burst memory (GiB)", { unit: GiB, max: MAX.memoryBytes, empty: 0, whole: true, example: "a number of GiB such as 128, or a quantity such as 128Gi" });

/** The amount fields of a request form or API body (merge into a command's input object). */
export const amountFields = {
  gpuModel: z
    .string()
    .trim()
    .max(100, atMostChars(100))
    .optional()
    .transform((v) => (v ? v : null)),
  gpuCount: gpuCountInput,
  gpuBurst: gpuBurstInput.optional().transform((v) => v ?? 0),
  cpuCores: cpuInput,
  cpuBurst: cpuBurstInput.optional().transform((v) => v ?? 0),
  memory: memoryInput,
  memoryBurst: memoryBurstInput.optional().transform((v) => v ?? 0),
  storage: storageInput,
};

export interface AmountInputs {
  gpuModel: string;
  gpuCount: string;
  /** The burst fields are shown only when the cluster runs Kueue; absent or empty: none. */
  gpuBurst?: string;
  cpuCores: string;
  cpuBurst?: string;
  memory: string;
  memoryBurst?: string;
  storage: string;
}

/**
 * The form's amounts as the command would read them (same field schemas), and
 * the problem of each field that does not parse. Invalid fields count as 0.
 */
export function parseAmountInputs(v: AmountInputs): { amounts: QuotaAmounts; problems: Partial<Record<keyof AmountInputs, string>> } {
  const problems: Partial<Record<keyof AmountInputs, string>> = {};
  const read = (field: keyof AmountInputs, schema: typeof cpuInput) => {
    const r = schema.safeParse(v[field]);
    if (r.success) return r.data;
    problems[field] = r.error.issues[0]?.message ?? "Enter a valid amount.";
    return 0;
  };
  const gpuCount = read("gpuCount", gpuCountInput);
  const gpuBurst = v.gpuBurst === undefined ? 0 : read("gpuBurst", gpuBurstInput);
  const cpuCores = read("cpuCores", cpuInput);
  const cpuBurst = v.cpuBurst === undefined ? 0 : read("cpuBurst", cpuBurstInput);
  const memoryBytes = read("memory", memoryInput);
  const memoryBurstBytes = v.memoryBurst === undefined ? 0 : read("memoryBurst", memoryBurstInput);
  const storageBytes = read("storage", storageInput);
  const model = v.gpuModel.trim() || null;
  const anyGpu = gpuCount > 0 || gpuBurst > 0;
  if (anyGpu && !model) problems.gpuModel = "Choose a GPU model for the GPUs.";
  return { amounts: { gpuModel: anyGpu ? model : null, gpuCount, cpuCores, memoryBytes, storageBytes, ...burstFields({ gpuBurst, cpuBurst, memoryBurstBytes }) }, problems };
}

