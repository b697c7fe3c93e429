import type { EffectiveQuota } from "@/lib/cluster/desired-state";
import type { QuotaAmounts } from "./amounts";
import { baseLines, gpusByModelOfLines, quotaOfLines, sumLines, withLendLimits, type BaseQuota, type LendLimit, type QuotaLine } from "./lines";

export type { BaseQuota };

/**
 * A grant as the effective-quota arithmetic needs it: its lines (the truth),
 * and its amounts as people read them (every GPU model from the lines; CPU,
 * memory and storage guarantees from its columns).
 */
export interface GrantSpan extends QuotaAmounts {
  startsAt: Date;
  endsAt: Date | null;
  lines: QuotaLine[];
}

export const grantInForce = (g: { startsAt: Date; endsAt: Date | null }, at: Date) => g.startsAt.getTime() <= at.getTime() && (g.endsAt === null || at.getTime() < g.endsAt.getTime());

/** The lines a project holds at `at`: the starting quota plus every grant in force then, summed per (flavour, resource), with its lend limits. */
export function linesAt(base: BaseQuota, grants: readonly GrantSpan[], at: Date, lendLimits: readonly LendLimit[] = []): QuotaLine[] {
  return withLendLimits(sumLines([...baseLines(base), ...grants.filter((g) => grantInForce(g, at)).flatMap((g) => g.lines)]), lendLimits);
}

/**
 * The quota a project holds at `at`: the platform's starting quota plus every
 * grant in force then, guarantees and bursts per resource and per flavour.
 */
export function effectiveQuotaAt(base: BaseQuota, grants: readonly GrantSpan[], at: Date, knownGpuResources: readonly string[] = [], lendLimits: readonly LendLimit[] = []): EffectiveQuota {
  return quotaOfLines(linesAt(base, grants, at, lendLimits), base.pvcCount, knownGpuResources);
}

/** GPUs guaranteed at `at` by model (what people ask in), for display and cost. */
export function gpusByModelAt(grants: readonly GrantSpan[], at: Date): Record<string, number> {
  return gpusByModelOfLines(sumLines(grants.filter((g) => grantInForce(g, at)).flatMap((g) => g.lines)));
}
