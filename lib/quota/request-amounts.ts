import type { quotaRequests } from "@/db/schema";
import type { QuotaAmounts } from "./amounts";
import { isGpuLine, type QuotaLine } from "./lines";

/**
 * A request as people read it (one GPU model, its guarantee and burst, CPU,
 * memory, storage) from its row and its lines. The row's columns hold the
 * guarantees (written for the previous release too); burst lives only in the
 * lines.
 */
type RequestRow = Pick<typeof quotaRequests.$inferSelect, "gpuModel" | "gpuCount" | "cpuCores" | "memoryBytes" | "storageBytes">;

export function requestAmountsOf(r: RequestRow, lines: readonly QuotaLine[]): QuotaAmounts {
  const gpu = lines.find((l) => isGpuLine(l) && (r.gpuModel === null || l.flavor === r.gpuModel));
  const gpuBurst = gpu?.burst ?? 0;
  return {
    gpuModel: r.gpuModel ?? (gpuBurst > 0 ? gpu!.flavor : null),
    gpuCount: r.gpuCount,
    cpuCores: r.cpuCores,
    memoryBytes: r.memoryBytes,
    storageBytes: r.storageBytes,
    ...withBurst(gpuBurst),
  };
}

/** The gpuBurst field of QuotaAmounts, present only when there is burst (so amounts without it compare equal to older ones). */
export const withBurst = (n: number): { gpuBurst?: number } => (n > 0 ? { gpuBurst: n } : {});

/** What "approve with changes" keeps of what it granted. */
export function grantedColumn(granted: QuotaAmounts, endsAt: Date | null) {
  return {
    gpuCount: granted.gpuCount,
    ...withBurst(granted.gpuBurst ?? 0),
    cpuCores: granted.cpuCores,
    memoryBytes: granted.memoryBytes,
    storageBytes: granted.storageBytes,
    endsAt: endsAt?.toISOString() ?? null,
  };
}

/** Whether two amounts grant the same (an absent burst is none). */
export const sameAmounts = (a: QuotaAmounts, b: QuotaAmounts) =>
  a.gpuModel === b.gpuModel && a.gpuCount === b.gpuCount && (a.gpuBurst ?? 0) === (b.gpuBurst ?? 0) && a.cpuCores === b.cpuCores && a.memoryBytes === b.memoryBytes && a.storageBytes === b.storageBytes;
