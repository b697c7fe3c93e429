import { formatMoney } from "@/lib/money";
import type { GpuIdleSettings } from "@/lib/config";

/**
 * When a spend alert is due, and what it says: pure rules, no database.
 *
 * Budget alerts are per project and calendar month (UTC); each kind is sent at
 * most once a month (spend_alerts keeps what was sent):
 * - "budget_50", "budget_80", "budget_100": month-to-date spend reached 50%,
 *   80%, 100% of the monthly budget. Alerts only escalate: when several
 *   thresholds are reached at once (a budget set or lowered late in the
 *   month, usage ingested in a burst) only the highest is sent, and a
 *   threshold is never sent after a higher one was sent that month (raising
 *   the budget after "100%" does not bring a "50%" alert). A budget changed
 *   mid-month counts as it is now: lowered, the next higher threshold fires
 *   at once; raised, a higher threshold not yet sent fires when reached.
 * - "forecast": the forecast to month end exceeds the budget while the month
 *   to date has not reached it yet (past 100%, the forecast says nothing new).
 * No budget, or a budget of zero, sends nothing.
 *
 * Idle GPU flags are per project and ISO week ("gpu_idle", period = the
 * Monday): over the trailing 7 days, the measured utilisation of the
 * project's GPUs is below the threshold, over enough measured GPU-hours that
 * a short test does not count.
 */

export const BUDGET_THRESHOLDS = [
  { kind: "budget_50", share: 0.5 },
  { kind: "budget_80", share: 0.8 },
  { kind: "budget_100", share: 1 },
] as const;

export type BudgetThresholdKind = (typeof BUDGET_THRESHOLDS)[number]["kind"];
export type BudgetAlertKind = BudgetThresholdKind | "forecast";
export type SpendAlertKind = BudgetAlertKind | "gpu_idle";

export interface BudgetFigures {
  /** The monthly budget now; null when none is set. */
  budget: number | null;
  monthToDate: number;
  /** Month to date plus the expected spend of the rest of the month. */
  forecast: number;
}

const thresholdRank = (kind: string): number => BUDGET_THRESHOLDS.findIndex((t) => t.kind === kind);

/** The highest threshold the month to date has reached, or null (also with no or a zero budget). */
export function highestThresholdReached(f: Pick<BudgetFigures, "budget" | "monthToDate">): BudgetThresholdKind | null {
  if (!f.budget || f.budget <= 0) return null;
  let reached: BudgetThresholdKind | null = null;
  for (const t of BUDGET_THRESHOLDS) if (f.monthToDate >= f.budget * t.share) reached = t.kind;
  return reached;
}

/**
 * The budget alerts to send now, given the kinds already sent this month: at
 * most one threshold (the highest reached, if higher than any sent) and the
 * forecast alert.
 */
export function dueBudgetAlerts(f: BudgetFigures, sentThisMonth: Iterable<string>): BudgetAlertKind[] {
  if (!f.budget || f.budget <= 0) return [];
  const sent = new Set(sentThisMonth);
  const due: BudgetAlertKind[] = [];
  const reached = highestThresholdReached(f);
  const highestSent = Math.max(-1, ...[...sent].map(thresholdRank));
  if (reached !== null && thresholdRank(reached) > highestSent) due.push(reached);
  if (!sent.has("forecast") && f.monthToDate < f.budget && f.forecast > f.budget) due.push("forecast");
  return due;
}

/** The month an alert belongs to: its first day (YYYY-MM-01, UTC). */
export function monthPeriod(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
}

/** The ISO week an alert belongs to: its Monday (YYYY-MM-DD, UTC). */
export function weekPeriod(now: Date): string {
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * 86_400_000).toISOString().slice(0, 10);
}

/** The GPU-hours of a window that carry a utilisation figure, and GPU-hours × utilisation over them. */
export interface GpuHours {
  measuredHours: number;
  busyHours: number;
}

/** Whether a project's GPUs count as idle over the window; utilisation is null when nothing was measured. */
export function gpuIdleVerdict(h: GpuHours, settings: GpuIdleSettings): { idle: boolean; utilization: number | null } {
  if (!(h.measuredHours > 0)) return { idle: false, utilization: null };
  const utilization = Math.min(1, Math.max(0, h.busyHours / h.measuredHours));
  return { idle: h.measuredHours >= settings.minMeasuredHours && utilization < settings.threshold, utilization };
}

// ---------------------------------------------------------------- messages

/** Rounded down, so 99.6% of a budget never reads as 100%. */
const percent = (share: number) => `${Math.floor(share * 100 + 1e-9)}%`;

function monthName(period: string): string {
  return new Date(`${period}T00:00:00Z`).toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" });
}

export interface ProjectLabel {
  tenantSlug: string;
  projectSlug: string;
  projectName: string;
}

const where = (p: ProjectLabel) => `${p.projectName} (${p.tenantSlug}/${p.projectSlug})`;

/** A budget alert as an in-app notice (title, body) and a Slack-compatible line (text). */
export function budgetAlertMessage(
  kind: BudgetAlertKind,
  p: ProjectLabel,
  f: { budget: number; monthToDate: number; forecast: number; currency: string; period: string },
): { title: string; text: string } {
  const money = (v: number) => formatMoney(v, f.currency);
  const month = monthName(f.period);
  if (kind === "forecast") {
    return {
      title: `${p.projectName} is forecast to exceed its budget`,
      text:
        `${where(p)} is forecast to spend ${money(f.forecast)} in ${month}, ${percent(f.forecast / f.budget)} of its ${money(f.budget)} budget ` +
        `(${money(f.monthToDate)} spent so far).`,
    };
  }
  const level = BUDGET_THRESHOLDS.find((t) => t.kind === kind)!;
  return {
    title: `${p.projectName} reached ${percent(level.share)} of its budget`,
    text:
      `${where(p)} has spent ${money(f.monthToDate)} in ${month}, ${percent(f.monthToDate / f.budget)} of its ${money(f.budget)} budget ` +
      `(forecast to month end: ${money(f.forecast)}).`,
  };
}

/** An idle GPU flag as a notice and a Slack-compatible line. */
export function gpuIdleMessage(
  p: ProjectLabel,
  f: { utilization: number; measuredHours: number; gpuCost: number; gpuIdleCost: number; currency: string; threshold: number },
): { title: string; text: string } {
  const hours = Math.round(f.measuredHours).toLocaleString("en-US");
  return {
    title: `${p.projectName} leaves its GPUs mostly idle`,
    text:
      `${where(p)} kept its GPUs busy ${percent(f.utilization)} of the time over the last 7 days (${hours} GPU-hours measured, below ${percent(f.threshold)}): ` +
      `the idle share cost ${formatMoney(f.gpuIdleCost, f.currency)} of ${formatMoney(f.gpuCost, f.currency)} in GPU spend. ` +
      `Release GPUs it does not need, or ask its team whether the jobs are waiting on something.`,
  };
}
