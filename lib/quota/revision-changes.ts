import { formatDateTime } from "@/lib/format";
import type { QuotaAmounts } from "./amounts";
import { formatBytes, formatCores, formatMoney, periodCostPhrase } from "./view-helpers";

/** What one revision of a quota request says: what an edit may change. */
export interface RequestContent {
  amounts: QuotaAmounts;
  endsAt: Date | null;
  justification: string;
  /** The estimate at the rate card when that revision was written. */
  monthlyCost: number;
  /** When the revision was written: the period it asks for starts there. */
  writtenAt: Date;
}

export interface ContentChange {
  /** A GPU row's field names its model: "gpus.H100.count", "gpus.L4.burst". */
  field: `gpus.${string}.count` | `gpus.${string}.burst` | "cpuCores" | "cpuBurst" | "memory" | "memoryBurst" | "storage" | "endsAt" | "justification" | "estimate";
  label: string;
  before: string;
  after: string;
  /** For the end: the instants themselves, so a page shows them in its viewer's zone (the text is UTC, for notices). */
  instants?: { before: Date | null; after: Date | null };
}

const gpus = (n: number) => (n > 0 ? String(n) : "none");
const sizes = (f: (n: number) => string) => (n: number) => (n > 0 ? f(n) : "none");
const end = (d: Date | null) => (d ? `until ${formatDateTime(d)}` : "permanent");

/**
 * The fields that differ between two revisions, as an approver reads them
 * (before and after, formatted the way the request page shows them; each GPU
 * model's guarantee and burst apart, named by the model). The
 * estimate is listed with the period's cost when either revision has an end,
 * so a shorter or longer time reads in money too.
 */
export function contentChanges(before: RequestContent, after: RequestContent, currency: string): ContentChange[] {
  const a = before.amounts;
  const b = after.amounts;
  const rows: ContentChange[] = [];
  const add = (field: ContentChange["field"], label: string, x: string, y: string) => {
    if (x !== y) rows.push({ field, label, before: x, after: y });
  };
  // Each GPU model's line on its own, models in order: one added reads "none" before, one dropped "none" after.
  const models = [...new Set([...a.gpus, ...b.gpus].map((g) => g.model))].sort();
  for (const model of models) {
    const x = a.gpus.find((g) => g.model === model);
    const y = b.gpus.find((g) => g.model === model);
    add(`gpus.${model}.count`, `${model} GPUs`, gpus(x?.count ?? 0), gpus(y?.count ?? 0));
    add(`gpus.${model}.burst`, `Burst ${model} GPUs`, gpus(x?.burst ?? 0), gpus(y?.burst ?? 0));
  }
  add("cpuCores", "CPU cores", sizes(formatCores)(a.cpuCores), sizes(formatCores)(b.cpuCores));
  add("cpuBurst", "Burst CPU cores", sizes(formatCores)(a.cpuBurst ?? 0), sizes(formatCores)(b.cpuBurst ?? 0));
  add("memory", "Memory", sizes(formatBytes)(a.memoryBytes), sizes(formatBytes)(b.memoryBytes));
  add("memoryBurst", "Burst memory", sizes(formatBytes)(a.memoryBurstBytes ?? 0), sizes(formatBytes)(b.memoryBurstBytes ?? 0));
  add("storage", "Storage", sizes(formatBytes)(a.storageBytes), sizes(formatBytes)(b.storageBytes));
  add("endsAt", "Until", end(before.endsAt), end(after.endsAt));
  const endChange = rows.find((r) => r.field === "endsAt");
  if (endChange) endChange.instants = { before: before.endsAt, after: after.endsAt };
  add("justification", "Justification", before.justification, after.justification);
  const estimate = (c: RequestContent) => {
    const period = periodCostPhrase(c.monthlyCost, c.writtenAt, c.endsAt, currency);
    return `${formatMoney(c.monthlyCost, currency)} a month${period ? ` (${period})` : ""}`;
  };
  if (before.monthlyCost !== after.monthlyCost || rows.some((r) => r.field === "endsAt")) add("estimate", "Estimate", estimate(before), estimate(after));
  return rows;
}
