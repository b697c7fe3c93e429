import type { EffectiveQuota } from "@/lib/cluster/desired-state";
import type { QuotaAmounts } from "./amounts";

/** A grant as the effective-quota arithmetic needs it. */
export interface GrantSpan extends QuotaAmounts {
  gpuResource: string | null;
  startsAt: Date;
  endsAt: Date | null;
}

export const grantInForce = (g: { startsAt: Date; endsAt: Date | null }, at: Date) => g.startsAt.getTime() <= at.getTime() && (g.endsAt === null || at.getTime() < g.endsAt.getTime());

export interface BaseQuota {
  cpuCores: number;
  memoryBytes: number;
  storageBytes: number;
  pvcCount: number;
}

/**
 * The quota a project holds at `at`: the platform's starting quota plus every
 * grant in force then. GPUs add up per extended resource name, as the
 * ResourceQuota counts them.
 */
export function effectiveQuotaAt(base: BaseQuota, grants: readonly GrantSpan[], at: Date, knownGpuResources: readonly string[] = []): EffectiveQuota {
  // Every GPU resource the cluster has is listed, at 0 when not granted: a
  // ResourceQuota that does not name a resource does not limit it at all.
  const quota: EffectiveQuota = { ...base, gpus: Object.fromEntries(knownGpuResources.map((r) => [r, 0])) };
  for (const g of grants) {
    if (!grantInForce(g, at)) continue;
    quota.cpuCores += g.cpuCores;
    quota.memoryBytes += g.memoryBytes;
    quota.storageBytes += g.storageBytes;
    if (g.gpuCount > 0 && g.gpuResource) quota.gpus[g.gpuResource] = (quota.gpus[g.gpuResource] ?? 0) + g.gpuCount;
  }
  // Sums of fractional cores drift in binary floating point; quota is in millicores.
  quota.cpuCores = Math.round(quota.cpuCores * 1000) / 1000;
  return quota;
}

/** GPUs held at `at` by model (what people ask in), for display and cost. */
export function gpusByModelAt(grants: readonly GrantSpan[], at: Date): Record<string, number> {
  const out: Record<string, number> = {};
  for (const g of grants) if (grantInForce(g, at) && g.gpuCount > 0 && g.gpuModel) out[g.gpuModel] = (out[g.gpuModel] ?? 0) + g.gpuCount;
  return out;
}
