import { z } from "zod";
import { quantity, wholeNumber } from "@/lib/input/numbers";
import { amountProblems, amountsOf, burstFields, GiB, gpuRowProblems, MAX, MAX_GPU_MODELS, type GpuRow, type QuotaAmounts } from "./amounts";
import { atMostChars, atMostItems } from "@/lib/input/messages";

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

export const gpuModelInput = z
  .string()
  .trim()
  .max(100, atMostChars(100))
  .optional()
  .transform((v) => (v ? v : null));

/** One GPU line of a request: a model with its guaranteed and burst GPUs. */
export const gpuRowInput = z.object({
  model: gpuModelInput.describe("The GPU model as the node pools name it (H100, or a MIG profile such as A100 1g.10gb)"),
  count: gpuCountInput.describe("Guaranteed GPUs of the model (MIG instances for a MIG profile)"),
  burst: gpuBurstInput.optional().transform((v) => v ?? 0).describe("GPUs of the model the project may borrow beyond its guarantee for preemptible work (Kueue); absent: none"),
});

export const gpuRowsInput = z
  .array(gpuRowInput, { message: "Enter the GPUs as a list of { model, count, burst }." })
  .max(MAX_GPU_MODELS, atMostItems(MAX_GPU_MODELS, "GPU models"))
  .describe("The GPUs asked for, one entry per GPU model (a model at most once)");

/**
 * The amount fields of a request form or API body (merge into a command's
 * input object, and wrap the object in withGpuRows). `gpus` is the list; the
 * single gpuModel, gpuCount and gpuBurst of earlier releases stay accepted as
 * a shorthand for a list of one, never together with it.
 */
export const amountFields = {
  gpus: gpuRowsInput.optional(),
  gpuModel: gpuModelInput.describe("Shorthand for one GPU line (gpus with one entry): its model. Not together with gpus"),
  gpuCount: gpuCountInput.optional().describe("Shorthand for one GPU line: its guaranteed GPUs. Not together with gpus"),
  gpuBurst: gpuBurstInput.optional().describe("Shorthand for one GPU line: its burst GPUs. Not together with gpus"),
  cpuCores: cpuInput,
  cpuBurst: cpuBurstInput.optional().transform((v) => v ?? 0),
  memory: memoryInput,
  memoryBurst: memoryBurstInput.optional().transform((v) => v ?? 0),
  storage: storageInput,
};

const FLAT_ROW_FIELD = /^gpus\.(\d{1,3})\.(model|count|burst)$/;

/**
 * A form posts its GPU rows as flat fields ("gpus.0.model", "gpus.0.count"):
 * FormData has no lists. They become the `gpus` list, row by row in the order
 * of their numbers, so that a problem's key ("gpus.1.model") is the name of
 * the field that shows it. Anything else passes through as it is.
 */
export function gatherGpuRows(input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const rows = new Map<number, Record<string, unknown>>();
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    const match = FLAT_ROW_FIELD.exec(key);
    if (!match) {
      rest[key] = value;
      continue;
    }
    const index = Number(match[1]);
    rows.set(index, { ...(rows.get(index) ?? {}), [match[2]!]: value });
  }
  if (rows.size === 0) return input;
  const last = Math.max(...rows.keys());
  const gpus: Record<string, unknown>[] = Array.from({ length: last + 1 }, (_, i) => rows.get(i) ?? {});
  return { ...rest, gpus };
}

type ShorthandFields = { gpus?: unknown; gpuModel?: unknown; gpuCount?: unknown; gpuBurst?: unknown };
const SHORTHAND = ["gpuModel", "gpuCount", "gpuBurst"] as const;

/** Either the list or the shorthand: given both, which would count is a guess, so the first shorthand field given is refused. */
function oneWayOfGivingGpus(v: ShorthandFields, ctx: z.RefinementCtx) {
  if (v.gpus === undefined) return;
  // gpuModel's schema turns an absent model into null: only a model actually named counts as given.
  const given = SHORTHAND.find((f) => v[f] !== undefined && v[f] !== null);
  if (given) ctx.addIssue({ code: "custom", path: [given], message: "Give the GPUs either as gpus (a list of models) or as the one-model shorthand gpuModel, gpuCount and gpuBurst, not both." });
}

/** A command's input object with the GPU rows gathered from a form and the shorthand refused beside the list. */
export function withGpuRows<T extends z.ZodType<ShorthandFields>>(schema: T) {
  return z.preprocess(gatherGpuRows, schema.superRefine(oneWayOfGivingGpus));
}

/** The GPU rows of a parsed input: the list, or the shorthand as a list of one. */
export function gpuRowsOf(v: { gpus?: GpuRow[]; gpuModel?: string | null; gpuCount?: number; gpuBurst?: number }): GpuRow[] {
  if (v.gpus) return v.gpus;
  const count = v.gpuCount ?? 0;
  const burst = v.gpuBurst ?? 0;
  return v.gpuModel || count > 0 || burst > 0 ? [{ model: v.gpuModel ?? null, count, burst }] : [];
}

type ParsedAmounts = { gpus?: GpuRow[]; gpuModel?: string | null; gpuCount?: number; gpuBurst?: number; cpuCores: number; cpuBurst?: number; memory: number; memoryBurst?: number; storage: number };

const SHORTHAND_FIELD = { model: "gpuModel", count: "gpuCount", burst: "gpuBurst" } as const;

/**
 * The amounts of a parsed input and their problems (amountProblems), each
 * keyed by the field the caller sent: "gpus.1.model" for the list,
 * "gpuModel" when the one-model shorthand was used. `modelField` names the
 * field of a model for problems found later (no pool offers it).
 */
export function readAmounts(v: ParsedAmounts, options: { burstAllowed: boolean }): { amounts: QuotaAmounts; problems: Record<string, string[]> | null; modelField: (model: string) => string } {
  const rows = gpuRowsOf(v);
  const amounts = amountsOf({ ...v, gpus: rows });
  const shorthand = v.gpus === undefined;
  const field = (key: string) => {
    const match = /^gpus\.(\d+)\.(model|count|burst)$/.exec(key);
    return shorthand && match ? SHORTHAND_FIELD[match[2] as keyof typeof SHORTHAND_FIELD] : key;
  };
  const problems = amountProblems(amounts, { ...options, rows });
  return {
    amounts,
    problems: problems && Object.fromEntries(Object.entries(problems).map(([k, m]) => [field(k), m])),
    modelField: (model) => field(`gpus.${Math.max(0, rows.findIndex((r) => r.model === model))}.model`),
  };
}

/** One GPU row of the form, as typed. */
export interface GpuRowInputs {
  model: string;
  count: string;
  /** Shown only when the cluster runs Kueue; absent or empty: none. */
  burst?: string;
}

export interface AmountInputs {
  gpus: GpuRowInputs[];
  cpuCores: string;
  /** The burst fields are shown only when the cluster runs Kueue; absent or empty: none. */
  cpuBurst?: string;
  memory: string;
  memoryBurst?: string;
  storage: string;
}

/** The form's field name of a GPU row's part: what the server's problems are keyed by too. */
export const gpuFieldName = (index: number, part: keyof GpuRowInputs) => `gpus.${index}.${part}`;

/**
 * The form's amounts as the command would read them (same field schemas), and
 * the problem of each field that does not parse, keyed by field name
 * ("cpuCores", "gpus.1.count"). Invalid fields count as 0.
 */
export function parseAmountInputs(v: AmountInputs): { amounts: QuotaAmounts; problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const read = (field: string, text: string | undefined, schema: typeof cpuInput) => {
    if (text === undefined) return 0;
    const r = schema.safeParse(text);
    if (r.success) return r.data;
    problems[field] = r.error.issues[0]?.message ?? "Enter a valid amount.";
    return 0;
  };
  const rows: GpuRow[] = v.gpus.map((g, i) => ({
    model: g.model.trim() || null,
    count: read(gpuFieldName(i, "count"), g.count, gpuCountInput),
    burst: read(gpuFieldName(i, "burst"), g.burst, gpuBurstInput),
  }));
  for (const [field, messages] of Object.entries(gpuRowProblems(rows) ?? {})) problems[field] ??= messages[0]!;
  const cpuCores = read("cpuCores", v.cpuCores, cpuInput);
  const cpuBurst = read("cpuBurst", v.cpuBurst, cpuBurstInput);
  const memory = read("memory", v.memory, memoryInput);
  const memoryBurst = read("memoryBurst", v.memoryBurst, memoryBurstInput);
  const storage = read("storage", v.storage, storageInput);
  return { amounts: { ...amountsOf({ gpus: rows, cpuCores, memory, storage }), ...burstFields({ cpuBurst, memoryBurstBytes: memoryBurst }) }, problems };
}

