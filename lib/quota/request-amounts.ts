import type { quotaRequests } from "@/db/schema";
import { burstFields, type QuotaAmounts } from "./amounts";
import { DEFAULT_FLAVOR, isGpuLine, type QuotaLine } from "./lines";

/**
 * A request as people read it (one GPU model with its guarantee and burst,
 * CPU and memory with theirs, storage) from its row and its lines. The row's
 * columns hold the guarantees (written for the previous release too); bursts
 * live only in the lines.
 */
type RequestRow = Pick<typeof quotaRequests.$inferSelect, "gpuModel" | "gpuCount" | "cpuCores" | "memoryBytes" | "storageBytes">;

export function requestAmountsOf(r: RequestRow, lines: readonly QuotaLine[]): QuotaAmounts {
  const gpu = lines.find((l) => isGpuLine(l) && (r.gpuModel === null || l.flavor === r.gpuModel));
  const gpuBurst = gpu?.burst ?? 0;
  const burstOf = (resource: "cpu" | "memory") => lines.filter((l) => l.flavor === DEFAULT_FLAVOR && l.resource === resource).reduce((s, l) => s + l.burst, 0);
  return {
    gpuModel: r.gpuModel ?? (gpuBurst > 0 ? gpu!.flavor : null),
    gpuCount: r.gpuCount,
    cpuCores: r.cpuCores,
    memoryBytes: r.memoryBytes,
    storageBytes: r.storageBytes,
    ...burstFields({ gpuBurst, cpuBurst: burstOf("cpu"), memoryBurstBytes: burstOf("memory") }),
  };
}

/** What "approve with changes" keeps of what it granted. */
export function grantedColumn(granted: QuotaAmounts, endsAt: Date | null) {
  return {
    gpuCount: granted.gpuCount,
    cpuCores: granted.cpuCores,
    memoryBytes: granted.memoryBytes,
    storageBytes: granted.storageBytes,
    ...burstFields(granted),
    endsAt: endsAt?.toISOString() ?? null,
  };
}

/** Whether two amounts grant the same (an absent burst is none). */
export const sameAmounts = (a: QuotaAmounts, b: QuotaAmounts) =>
  a.gpuModel === b.gpuModel &&
  a.gpuCount === b.gpuCount &&
  (a.gpuBurst ?? 0) === (b.gpuBurst ?? 0) &&
  a.cpuCores === b.cpuCores &&
  (a.cpuBurst ?? 0) === (b.cpuBurst ?? 0) &&
  a.memoryBytes === b.memoryBytes &&
  (a.memoryBurstBytes ?? 0) === (b.memoryBurstBytes ?? 0) &&
  a.storageBytes === b.storageBytes;
