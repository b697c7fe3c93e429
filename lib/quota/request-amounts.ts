import type { quotaRequests, tenantRequests } from "@/db/schema";
import { burstFields, gpuAmountsOf, type GpuAmount, type QuotaAmounts } from "./amounts";
import { DEFAULT_FLAVOR, gpuAmountsOfLines, type QuotaLine } from "./lines";

/**
 * A request as people read it (its GPU models with their guarantees and
 * bursts, CPU and memory with theirs, storage) from its row and its lines.
 * The lines are the truth for GPUs: every request has them (migration 0011
 * wrote them for the requests before it, and its trigger for any row the
 * previous release inserts with columns only). The row's columns hold the
 * CPU, memory and storage guarantees, written for the previous release too;
 * its gpu_model and gpu_count hold one model only (columnGpuOfLines) and are
 * not read here.
 */
type RequestRow = Pick<typeof quotaRequests.$inferSelect, "cpuCores" | "memoryBytes" | "storageBytes">;

export function requestAmountsOf(r: RequestRow, lines: readonly QuotaLine[]): QuotaAmounts {
  const burstOf = (resource: "cpu" | "memory") => lines.filter((l) => l.flavor === DEFAULT_FLAVOR && l.resource === resource).reduce((s, l) => s + l.burst, 0);
  return {
    gpus: gpuAmountsOfLines(lines),
    cpuCores: r.cpuCores,
    memoryBytes: r.memoryBytes,
    storageBytes: r.storageBytes,
    ...burstFields({ cpuBurst: burstOf("cpu"), memoryBurstBytes: burstOf("memory") }),
  };
}

/** What the `granted` column of a request holds (approve with changes). */
export type GrantedColumn = NonNullable<(typeof quotaRequests.$inferSelect)["granted"]>;

/**
 * What "approve with changes" keeps of what it granted: every GPU model's
 * line in `gpus`, and, for the previous release, gpuCount and gpuBurst of the
 * one model the request row's columns name (the largest guarantee).
 */
export function grantedColumn(granted: QuotaAmounts, endsAt: Date | null, columnModel: string | null): GrantedColumn {
  const column = columnModel ? granted.gpus.find((g) => g.model === columnModel) : undefined;
  return {
    gpus: granted.gpus.map(({ model, count, burst }) => ({ model, count, burst })),
    gpuCount: column?.count ?? 0,
    ...((column?.burst ?? 0) > 0 ? { gpuBurst: column!.burst } : {}),
    cpuCores: granted.cpuCores,
    memoryBytes: granted.memoryBytes,
    storageBytes: granted.storageBytes,
    ...burstFields(granted),
    endsAt: endsAt?.toISOString() ?? null,
  };
}

/**
 * The amounts a `granted` column holds. One written before requests named
 * several models has no `gpus`: its gpuCount and gpuBurst were of the one
 * model the request asked for, which `asked` (the request's own lines) names.
 */
export function grantedAmountsOf(g: GrantedColumn, asked: QuotaAmounts): QuotaAmounts {
  const gpus: GpuAmount[] = g.gpus ? gpuAmountsOf(g.gpus) : asked.gpus[0] ? gpuAmountsOf([{ model: asked.gpus[0].model, count: g.gpuCount, burst: g.gpuBurst ?? 0 }]) : [];
  return { gpus, cpuCores: g.cpuCores, memoryBytes: g.memoryBytes, storageBytes: g.storageBytes, ...burstFields(g) };
}

const sameGpus = (a: readonly GpuAmount[], b: readonly GpuAmount[]) => a.length === b.length && a.every((g, i) => g.model === b[i]!.model && g.count === b[i]!.count && g.burst === b[i]!.burst);

/** Whether two amounts grant the same (an absent burst is none; GPU entries are sorted by model). */
export const sameAmounts = (a: QuotaAmounts, b: QuotaAmounts) =>
  sameGpus(a.gpus, b.gpus) &&
  a.cpuCores === b.cpuCores &&
  (a.cpuBurst ?? 0) === (b.cpuBurst ?? 0) &&
  a.memoryBytes === b.memoryBytes &&
  (a.memoryBurstBytes ?? 0) === (b.memoryBurstBytes ?? 0) &&
  a.storageBytes === b.storageBytes;

/** What the `quota` column of a tenant request holds. */
export type TenantQuotaColumn = (typeof tenantRequests.$inferSelect)["quota"];

/** A tenant request's quota as written: every model in `gpus`, and the largest guarantee's model in the single columns the previous release reads. */
export function tenantQuotaColumn(q: QuotaAmounts): TenantQuotaColumn {
  const column = [...q.gpus].sort((a, b) => b.count - a.count || (a.model < b.model ? -1 : 1))[0];
  return {
    gpus: q.gpus.map(({ model, count, burst }) => ({ model, count, burst })),
    gpuModel: column && column.count > 0 ? column.model : null,
    gpuCount: column?.count ?? 0,
    cpuCores: q.cpuCores,
    memoryBytes: q.memoryBytes,
    storageBytes: q.storageBytes,
  };
}

/** A tenant request's quota as amounts; one written before several models could be asked has its one model in gpuModel and gpuCount. */
export function tenantQuotaOf(q: TenantQuotaColumn): QuotaAmounts {
  const gpus = q.gpus ?? (q.gpuModel ? [{ model: q.gpuModel, count: q.gpuCount, burst: 0 }] : []);
  return { gpus: gpuAmountsOf(gpus), cpuCores: q.cpuCores, memoryBytes: q.memoryBytes, storageBytes: q.storageBytes };
}

/**
 * The amounts an event's `granted` detail holds (approved with changes, first
 * approval). Events are never rewritten: one recorded before requests named
 * several models has gpuModel, gpuCount and gpuBurst of its one model instead
 * of `gpus`.
 */
export function eventGrantedAmountsOf(g: Record<string, unknown>): QuotaAmounts {
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  const listed = Array.isArray(g.gpus)
    ? (g.gpus as unknown[]).filter((x): x is { model: string; count?: unknown; burst?: unknown } => typeof x === "object" && x !== null && typeof (x as { model?: unknown }).model === "string")
    : null;
  const gpus = listed
    ? listed.map((x) => ({ model: x.model, count: n(x.count), burst: n(x.burst) }))
    : typeof g.gpuModel === "string"
      ? [{ model: g.gpuModel, count: n(g.gpuCount), burst: n(g.gpuBurst) }]
      : [];
  return { gpus: gpuAmountsOf(gpus), cpuCores: n(g.cpuCores), memoryBytes: n(g.memoryBytes), storageBytes: n(g.storageBytes), ...burstFields({ cpuBurst: n(g.cpuBurst), memoryBurstBytes: n(g.memoryBurstBytes) }) };
}
