import { z } from "zod";
import { parseQuantity } from "@/lib/cluster/quantity";

export const GiB = 2 ** 30;

/** Resources a request adds to a project (or a grant holds). GPUs are of one model per request. */
export interface QuotaAmounts {
  gpuModel: string | null;
  gpuCount: number;
  cpuCores: number;
  memoryBytes: number;
  storageBytes: number;
}

/** Limits beyond which a number is a typo, not a request. */
export const MAX = { gpuCount: 4096, cpuCores: 100_000, memoryBytes: 2 ** 50, storageBytes: 2 ** 53 - 1 } as const;

/**
 * A quantity field: Kubernetes notation ("500m", "64Gi") or a plain number in
 * the field's unit (cores, GiB). Empty means 0. Negative, non-finite,
 * malformed and absurdly large values are refused with a message the form
 * shows under the field.
 */
function quantityField(unit: number, max: number, describe: string, options: { integer?: boolean } = {}) {
  return z
    .union([z.string(), z.number()])
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return 0;
      const text = String(raw).trim();
      const plain = /^[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text);
      const value = plain ? Number(text) * unit : parseQuantity(text);
      if (value === null || !Number.isFinite(value)) {
        ctx.addIssue({ code: "custom", message: `must be ${describe}` });
        return z.NEVER;
      }
      if (value > max) {
        ctx.addIssue({ code: "custom", message: "is larger than any cluster could grant" });
        return z.NEVER;
      }
      const rounded = options.integer ? Math.round(value) : value;
      if (options.integer && Math.abs(rounded - value) > 1e-9) {
        ctx.addIssue({ code: "custom", message: "must be a whole number" });
        return z.NEVER;
      }
      return rounded;
    });
}

export const cpuInput = quantityField(1, MAX.cpuCores, "a number of cores such as 4 or 500m");
export const memoryInput = quantityField(GiB, MAX.memoryBytes, "GiB such as 64, or a quantity such as 64Gi", { integer: true });
export const storageInput = quantityField(GiB, MAX.storageBytes, "GiB such as 500, or a quantity such as 2Ti", { integer: true });
export const gpuCountInput = quantityField(1, MAX.gpuCount, "a whole number of GPUs", { integer: true });

/** The amount fields of a request form or API body (merge into a command's input object). */
export const amountFields = {
  gpuModel: z
    .string()
    .trim()
    .max(100, "must be at most 100 characters")
    .optional()
    .transform((v) => (v ? v : null)),
  gpuCount: gpuCountInput,
  cpuCores: cpuInput,
  memory: memoryInput,
  storage: storageInput,
};

export function amountsOf(v: { gpuModel: string | null; gpuCount: number; cpuCores: number; memory: number; storage: number }): QuotaAmounts {
  return { gpuModel: v.gpuCount > 0 ? v.gpuModel : null, gpuCount: v.gpuCount, cpuCores: v.cpuCores, memoryBytes: v.memory, storageBytes: v.storage };
}

/** Field problems of a request's amounts that the field schemas cannot see alone. */
export function amountProblems(a: QuotaAmounts & { gpuModelGiven?: string | null }): Record<string, string[]> | null {
  if (a.gpuCount > 0 && !a.gpuModel) return { gpuModel: ["choose a GPU model for the GPUs"] };
  if (isEmpty(a)) return { cpuCores: ["ask for at least one resource: GPUs, CPU, memory or storage"] };
  return null;
}

export const isEmpty = (a: QuotaAmounts) => a.gpuCount === 0 && a.cpuCores === 0 && a.memoryBytes === 0 && a.storageBytes === 0;
