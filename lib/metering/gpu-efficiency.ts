import { and, eq, gte, like, lt, sql, type SQL } from "drizzle-orm";
import type { Database } from "@/db/client";
import { usageDaily } from "@/db/schema";
import { config, type GpuIdleSettings } from "@/lib/config";
import { gpuIdleVerdict } from "./budget-rules";
import { spendByProject, type ProjectSpend, type SpendWindow } from "./spend";

/**
 * Projects holding GPUs they barely use: over the trailing 7 days (today
 * included, as the spend pages' "7d" range), the measured utilisation of
 * their GPUs (usage_daily gpu_busy_hours ÷ gpu_measured_hours over gpu:*
 * resources) is below ALLOT_GPU_IDLE_THRESHOLD, over at least
 * ALLOT_GPU_IDLE_MIN_HOURS measured GPU-hours. GPU-hours without a
 * utilisation figure (no DCGM) are neither idle nor busy: they are left out.
 */

export const GPU_IDLE_WINDOW_DAYS = 7;

const DAY_MS = 86_400_000;

/** The trailing 7 UTC days ending with today: [today − 6 days, tomorrow). */
export function gpuIdleWindow(now: Date): SpendWindow {
  const tomorrow = Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS;
  return { from: new Date(tomorrow - GPU_IDLE_WINDOW_DAYS * DAY_MS), to: new Date(tomorrow) };
}

export interface IdleGpuProject extends ProjectSpend {
  /** Busy share of the measured GPU-hours, below the threshold. */
  gpuUtilization: number;
  /** GPU-hours in the window that carry a utilisation figure. */
  measuredGpuHours: number;
  /** measuredGpuHours × utilisation. */
  busyGpuHours: number;
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The flagged projects (a tenant's, or all), the costliest idle share first.
 * Each carries its spend over the window from spendByProject: gpuCost, and
 * gpuIdleCost = GPU cost × (1 − utilisation) over the measured part.
 */
export async function idleGpuProjects(
  db: Database,
  now: Date,
  scope: { tenantId: string } | { platform: true } = { platform: true },
  settings: GpuIdleSettings = config().gpuIdle,
): Promise<IdleGpuProject[]> {
  const window = gpuIdleWindow(now);
  const inScope: SQL | undefined = "tenantId" in scope ? eq(usageDaily.tenantId, scope.tenantId) : undefined;
  const hours = await db
    .select({
      projectId: usageDaily.projectId,
      measured: sql<string>`sum(${usageDaily.gpuMeasuredHours})`,
      busy: sql<string>`sum(${usageDaily.gpuBusyHours})`,
    })
    .from(usageDaily)
    .where(and(inScope, like(usageDaily.resource, "gpu:%"), gte(usageDaily.day, dayOf(window.from)), lt(usageDaily.day, dayOf(window.to))))
    .groupBy(usageDaily.projectId);
  const flagged = new Map<string, { measuredHours: number; busyHours: number; utilization: number }>();
  for (const h of hours) {
    const measuredHours = Number(h.measured);
    const busyHours = Number(h.busy);
    const verdict = gpuIdleVerdict({ measuredHours, busyHours }, settings);
    if (verdict.idle) flagged.set(h.projectId, { measuredHours, busyHours, utilization: verdict.utilization! });
  }
  if (flagged.size === 0) return [];
  const spend = await spendByProject(db, scope, window);
  return spend
    .filter((p) => flagged.has(p.projectId))
    .map((p) => {
      const f = flagged.get(p.projectId)!;
      return { ...p, gpuUtilization: f.utilization, measuredGpuHours: f.measuredHours, busyGpuHours: f.busyHours };
    })
    .sort((a, b) => b.gpuIdleCost - a.gpuIdleCost || a.tenantSlug.localeCompare(b.tenantSlug) || a.slug.localeCompare(b.slug));
}
