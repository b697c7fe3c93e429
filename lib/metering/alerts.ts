import { and, eq, gt, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { projectBudgets, projects, spendAlerts, tenants } from "@/db/schema";
import { config, type GpuIdleSettings } from "@/lib/config";
import { reportUnexpectedError } from "@/lib/errors";
import type { PeriodicJob } from "@/lib/jobs/periodic";
import { notify, tenantAdminIds } from "@/lib/notify/in-app";
import { enqueueWebhookEvent } from "@/lib/notify/webhooks";
import { budgetAlertMessage, dueBudgetAlerts, gpuIdleMessage, monthPeriod, weekPeriod, type ProjectLabel, type SpendAlertKind } from "./budget-rules";
import { idleGpuProjects, type IdleGpuProject } from "./gpu-efficiency";
import { moneyDigits, moneyFromSql } from "./money-sql";
import { budgetStatus } from "./report";

/**
 * Budget alerts and idle GPU flags (rules in budget-rules.ts), sent to the
 * tenant admins of the project's tenant in the portal and to the webhooks
 * subscribed to "budget.threshold", "budget.forecast" and "gpu.idle".
 *
 * Each alert is sent once: a row in spend_alerts (project, kind, period) is
 * inserted with ON CONFLICT DO NOTHING, and the notice and webhook deliveries
 * are written in the same transaction only when the insert happened. Any
 * number of replicas may run this at once, as often as wanted; run it after
 * usage is ingested (hourly).
 */

export interface SentAlert {
  projectId: string;
  kind: SpendAlertKind;
  period: string;
}

export interface SpendAlertRun {
  sent: SentAlert[];
  /** Projects whose evaluation failed (logged with a reference id); the others were still evaluated. */
  failed: number;
}

export interface SpendAlertOptions {
  currency?: string;
  gpuIdle?: GpuIdleSettings;
}

const round2 = (v: number) => Math.round(v * 100) / 100;
const spendLink = (p: ProjectLabel) => `/tenants/${p.tenantSlug}/projects/${p.projectSlug}/spend`;

/** The link for chat: absolute when the portal's public URL (AUTH_URL) is known. */
function absoluteLink(path: string): string | null {
  const base = config().publicUrl;
  return base ? new URL(path, base).toString() : null;
}

/** Serialise evaluators of one project (replicas), so "already sent" is read once per decision. */
async function lockProject(tx: Database, projectId: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`spend_alerts:${projectId}`}, 0))`);
}

/** Record the alert; true only for the caller that inserted it. */
async function claimAlert(tx: Database, alert: SentAlert, detail: Record<string, unknown>, at: Date): Promise<boolean> {
  const inserted = await tx
    .insert(spendAlerts)
    .values({ projectId: alert.projectId, kind: alert.kind, period: alert.period, detail: JSON.stringify(detail), sentAt: at })
    .onConflictDoNothing()
    .returning({ kind: spendAlerts.kind });
  return inserted.length > 0;
}

/** Every project with a budget above zero, with what names it. */
async function budgetedProjects(db: Database) {
  return db
    .select({
      projectId: projectBudgets.projectId,
      monthlyAmount: projectBudgets.monthlyAmount,
      tenantId: projects.tenantId,
      tenantSlug: tenants.slug,
      projectSlug: projects.slug,
      projectName: projects.name,
    })
    .from(projectBudgets)
    .innerJoin(projects, eq(projects.id, projectBudgets.projectId))
    .innerJoin(tenants, eq(tenants.id, projects.tenantId))
    .where(gt(projectBudgets.monthlyAmount, "0"));
}

async function evaluateBudget(db: Database, p: Awaited<ReturnType<typeof budgetedProjects>>[number], now: Date, currency: string): Promise<SentAlert[]> {
  const budget = moneyFromSql(p.monthlyAmount, moneyDigits());
  const status = await budgetStatus(db, { projectId: p.projectId }, budget, now);
  const figures = { budget, monthToDate: status.month.monthToDate, forecast: status.month.forecast };
  const period = monthPeriod(now);
  return db.transaction(async (tx) => {
    await lockProject(tx, p.projectId);
    const sentRows = await tx
      .select({ kind: spendAlerts.kind })
      .from(spendAlerts)
      .where(and(eq(spendAlerts.projectId, p.projectId), eq(spendAlerts.period, period)));
    const sent: SentAlert[] = [];
    for (const kind of dueBudgetAlerts(figures, sentRows.map((r) => r.kind))) {
      const alert = { projectId: p.projectId, kind, period };
      // The figures are the report's rounded lines (lib/money.ts): the same numbers the spend page shows.
      const detail = { budget, monthToDate: figures.monthToDate, forecast: figures.forecast, dailyRate: status.month.dailyRate, currency };
      if (!(await claimAlert(tx, alert, detail, now))) continue;
      const message = budgetAlertMessage(kind, p, { ...figures, currency, period });
      const link = spendLink(p);
      const url = absoluteLink(link);
      await notify(tx, await tenantAdminIds(tx, p.tenantId), { kind: kind === "forecast" ? "budget.forecast" : "budget.threshold", title: message.title, body: message.text, link }, now);
      await enqueueWebhookEvent(
        tx,
        kind === "forecast" ? "budget.forecast" : "budget.threshold",
        {
          text: url ? `${message.text} ${url}` : message.text,
          alert: kind,
          tenant: p.tenantSlug,
          project: p.projectSlug,
          period,
          currency,
          budget,
          monthToDate: detail.monthToDate,
          forecast: detail.forecast,
          link,
        },
        now,
      );
      sent.push(alert);
    }
    return sent;
  });
}

async function flagIdleGpus(db: Database, p: IdleGpuProject, now: Date, currency: string, settings: GpuIdleSettings): Promise<SentAlert[]> {
  const alert: SentAlert = { projectId: p.projectId, kind: "gpu_idle", period: weekPeriod(now) };
  const label: ProjectLabel = { tenantSlug: p.tenantSlug, projectSlug: p.slug, projectName: p.name };
  const figures = {
    utilization: Math.round(p.gpuUtilization * 1000) / 1000,
    measuredHours: round2(p.measuredGpuHours),
    gpuCost: p.gpuCost,
    gpuIdleCost: p.gpuIdleCost,
  };
  return db.transaction(async (tx) => {
    await lockProject(tx, p.projectId);
    if (!(await claimAlert(tx, alert, { ...figures, threshold: settings.threshold, currency }, now))) return [];
    const message = gpuIdleMessage(label, { ...figures, currency, threshold: settings.threshold });
    const link = spendLink(label);
    const url = absoluteLink(link);
    await notify(tx, await tenantAdminIds(tx, p.tenantId), { kind: "gpu.idle", title: message.title, body: message.text, link }, now);
    await enqueueWebhookEvent(
      tx,
      "gpu.idle",
      { text: url ? `${message.text} ${url}` : message.text, tenant: p.tenantSlug, project: p.slug, period: alert.period, currency, threshold: settings.threshold, ...figures, link },
      now,
    );
    return [alert];
  });
}

/**
 * Send the budget alerts and idle GPU flags that are due at `now` and were
 * not sent yet. Safe to run repeatedly and concurrently; one project's
 * failure is logged and does not stop the others.
 */
export async function evaluateSpendAlerts(db: Database, now: Date, options: SpendAlertOptions = {}): Promise<SpendAlertRun> {
  const currency = options.currency ?? config().currency;
  const gpuIdle = options.gpuIdle ?? config().gpuIdle;
  const run: SpendAlertRun = { sent: [], failed: 0 };
  const attempt = async (work: () => Promise<SentAlert[]>) => {
    try {
      run.sent.push(...(await work()));
    } catch (error) {
      run.failed++;
      reportUnexpectedError(error, "evaluateSpendAlerts");
    }
  };
  for (const p of await budgetedProjects(db)) await attempt(() => evaluateBudget(db, p, now, currency));
  for (const p of await idleGpuProjects(db, now, { platform: true }, gpuIdle)) await attempt(() => flagIdleGpus(db, p, now, currency, gpuIdle));
  return run;
}

/** Usage arrives by the hour (Prometheus) or in batches (push API): a quarter-hour is prompt enough for budget alerts. */
export function spendAlertsJob(db: Database): PeriodicJob {
  return {
    name: "spend alerts",
    everyMs: 15 * 60_000,
    phase: "before-reconcile",
    async run(now) {
      const r = await evaluateSpendAlerts(db, now);
      return r.sent.length > 0 ? `${r.sent.length} sent` : null;
    },
  };
}
