import { eq, inArray } from "drizzle-orm";
import type { Database } from "@/db/client";
import { projectBudgets, projects } from "@/db/schema";
import { can } from "@/lib/auth/policy";
import type { CommandContext } from "@/lib/auth/context";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { shareOf, sumMoney, toMajor, toMinor } from "@/lib/money";
import { projectBySlugs, tenantBySlug } from "@/lib/tenancy/lookup";
import { borrowedByResource } from "./borrowed";
import type { IdleCostMode } from "./chargeback";
import { idleChargeback, type IdleChargeback } from "./chargeback-query";
import { forecastMonth, monthStartOf, nextMonthStartOf, type MonthForecast } from "./forecast";
import { moneyDigits, moneyFromSql } from "./money-sql";
import { cachedSpendFigures } from "./report-cache";
import { usageRetainedFrom } from "./retention";
import {
  clusterCost,
  dailyCosts,
  dayOf,
  spendByProject,
  spendByResource,
  spendByTenant,
  spendSeries,
  windowHasDemoData,
  type ClusterCost,
  type ProjectSpend,
  type ResourceTotal,
  type SpendPoint,
  type SpendScope,
  type SpendWindow,
  type TenantSpend,
} from "./spend";
import type { ResolvedWindow } from "./window";

/**
 * What a spend page, the spend API and the exports show for one scope and
 * window: one function per scope, each deciding access through the policy
 * and answering not_found when the actor may not see the scope at all.
 */
export type SpendReportScope =
  | { kind: "project"; tenantId: string; tenantSlug: string; tenantName: string; projectId: string; projectSlug: string; projectName: string }
  | { kind: "tenant"; tenantId: string; tenantSlug: string; tenantName: string }
  | { kind: "platform" };

export interface BudgetStatus {
  /** The monthly budget, or null when none is set. */
  monthlyAmount: number | null;
  month: MonthForecast;
  /** monthToDate ÷ budget, when a budget is set. */
  usedShare: number | null;
  forecastShare: number | null;
}

/** The window of the same length just before a report's, for comparison: its total and its cost per resource. */
export interface PreviousPeriod {
  /** ISO instants; `to` is the report window's start. */
  from: string;
  to: string;
  totalCost: number;
  byResource: { resource: string; cost: number }[];
}

export interface SpendReport {
  scope: SpendReportScope;
  currency: string;
  window: ResolvedWindow;
  totalCost: number;
  series: SpendPoint[];
  byResource: ResourceTotal[];
  /** Resources used in the window with no price on the rate card (their cost is missing). */
  unpricedResources: string[];
  /** True when some of the figures come from generated demo data. */
  demo: boolean;
  /** The same length of time just before the window, by the same money rule. */
  previous: PreviousPeriod;
  /** The current month against budget (projects: theirs; tenants: the sum of their projects' budgets). */
  budget?: BudgetStatus;
  byProject?: ProjectSpend[];
  byTenant?: TenantSpend[];
  cluster?: ClusterCost;
  /** How idle capacity cost is treated over the window, and what of it this scope was charged. */
  idleCost: IdleCostReport;
  /** Set when the window or its previous period starts before the retention horizon: usage before it was dropped. */
  retention?: RetentionCut;
}

/**
 * A window reaching back past what usage retention keeps: its figures before
 * `retainedFrom` are gone, so they read as less (or zero), not as no use.
 * Pages and the API say so rather than show a silent zero.
 */
export interface RetentionCut {
  /** The first day kept, YYYY-MM-DD (ALLOT_USAGE_RETENTION_MONTHS whole months before the current one). */
  retainedFrom: string;
  months: number;
  /** The window itself starts before it. */
  window: boolean;
  /** The previous period it is compared with starts before it. */
  previous: boolean;
}

/** The retention cut of a window at `now`, or undefined when the window and its previous period are wholly kept (or everything is). */
export function retentionCutOf(window: SpendWindow, now: Date, months: number | null = config().usageRetentionMonths): RetentionCut | undefined {
  const retainedFrom = usageRetainedFrom(months, now);
  if (retainedFrom === null || months === null) return undefined;
  const cutWindow = window.from < retainedFrom;
  const cutPrevious = previousWindowOf(window).from < retainedFrom;
  if (!cutWindow && !cutPrevious) return undefined;
  return { retainedFrom: dayOf(retainedFrom), months, window: cutWindow, previous: cutPrevious };
}

export interface IdleCostReport {
  /** The rule in force at the end of the window. */
  mode: IdleCostMode;
  /** The rule in a sentence (naming the days of each rule when it changed inside the window). */
  rule: string;
  /** The idle cost charged back to this scope (platform: to all tenants). Not in totalCost, which is use. */
  chargedBack: number;
  /** Platform only: the idle left apart, the cluster's idle less what was charged back. */
  apart?: number;
}

const DAY_MS = 86_400_000;

/** The total of cost drivers (the sum of their rounded lines), and the resources among them with no price. */
export function totalsOf(byResource: readonly ResourceTotal[], digits: number): { totalCost: number; unpricedResources: string[] } {
  return {
    totalCost: sumMoney(byResource.map((r) => r.cost), digits),
    unpricedResources: byResource.filter((r) => r.unpricedQuantity > 0).map((r) => r.resource),
  };
}

/** The window of the same length that ends where this one starts. */
export function previousWindowOf(window: SpendWindow): SpendWindow {
  const length = window.to.getTime() - window.from.getTime();
  return { from: new Date(window.from.getTime() - length), to: window.from };
}

async function previousPeriod(db: Database, scope: SpendScope, window: SpendWindow): Promise<PreviousPeriod> {
  const before = previousWindowOf(window);
  const totals = await spendByResource(db, scope, before);
  return {
    from: before.from.toISOString(),
    to: before.to.toISOString(),
    totalCost: totalsOf(totals, moneyDigits()).totalCost,
    byResource: totals.map((r) => ({ resource: r.resource, cost: r.cost })),
  };
}

type CommonParts = Awaited<ReturnType<typeof commonParts>>;

async function commonParts(db: Database, scope: SpendScope, window: ResolvedWindow) {
  const [series, totals, demo, borrowed, previous] = await Promise.all([
    spendSeries(db, scope, window, window.granularity),
    spendByResource(db, scope, window),
    windowHasDemoData(db, scope, window),
    borrowedByResource(db, scope, window),
    previousPeriod(db, scope, window),
  ]);
  // GPU rows say how much of them was borrowed beyond the guarantee (none: all within it).
  const byResource = totals.map((r) => (r.resource.startsWith("gpu:") ? { ...r, borrowed: borrowed.get(r.resource) ?? { quantity: 0, cost: 0 } } : r));
  return { series, byResource, demo, previous, ...totalsOf(byResource, moneyDigits()) };
}

/** The days a budget status reads: the month, and a week before it so the forecast's daily rate is known on the 1st. */
export function budgetWindow(now: Date): SpendWindow {
  return { from: new Date(Math.min(monthStartOf(now).getTime(), now.getTime() - 8 * DAY_MS)), to: nextMonthStartOf(now) };
}

/** This month against a budget, from the daily costs of budgetWindow(now); shares from the same rounded figures the pages show. */
export function budgetStatusOf(daily: readonly { day: string; cost: number }[], monthlyAmount: number | null, now: Date, digits: number): BudgetStatus {
  const month = forecastMonth(daily, now, digits);
  return {
    monthlyAmount,
    month,
    usedShare: monthlyAmount === null ? null : shareOf(month.monthToDate, monthlyAmount, digits),
    forecastShare: monthlyAmount === null ? null : shareOf(month.forecast, monthlyAmount, digits),
  };
}

/** This month's spend, its forecast and the budget (null when none) for a scope. */
export async function budgetStatus(db: Database, scope: SpendScope, monthlyAmount: number | null, now: Date): Promise<BudgetStatus> {
  return budgetStatusOf(await dailyCosts(db, scope, budgetWindow(now)), monthlyAmount, now, moneyDigits());
}

/** A project's month against its budget: what its spend page and its home page show. */
export async function projectBudgetStatus(db: Database, projectId: string, now: Date): Promise<BudgetStatus> {
  const budgets = await budgetsOf(db, [projectId]);
  return budgetStatus(db, { projectId }, budgets.get(projectId) ?? null, now);
}

/**
 * A tenant's month against the sum of its projects' budgets (null when none
 * has one): every project of the tenant, whatever window a page shows, so the
 * spend page and the tenant's home agree.
 */
export async function tenantBudgetStatus(db: Database, tenantId: string, now: Date): Promise<BudgetStatus> {
  return budgetStatus(db, { tenantId }, await tenantBudgetAmount(db, tenantId), now);
}

/** The sum of a tenant's projects' monthly budgets, or null when none has one. */
async function tenantBudgetAmount(db: Database, tenantId: string): Promise<number | null> {
  const ids = (await db.select({ id: projects.id }).from(projects).where(eq(projects.tenantId, tenantId))).map((p) => p.id);
  const budgets = await budgetsOf(db, ids);
  return budgets.size ? sumMoney(budgets.values(), moneyDigits()) : null;
}

/** What a report shows that comes from usage, prices and grants alone: computed once per scope, window and data version (report-cache.ts). */
interface UsageFigures {
  common: CommonParts;
  /** Daily costs of budgetWindow(now), the input of the month's forecast. */
  budgetDaily?: { day: string; cost: number }[];
  byProject?: ProjectSpend[];
  byTenant?: TenantSpend[];
}

function usageFigures(db: Database, scope: SpendScope, window: ResolvedWindow, now: Date, parts: { budget?: boolean; byProject?: boolean; byTenant?: boolean }): Promise<UsageFigures> {
  const budget = budgetWindow(now);
  const key = {
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    granularity: window.granularity,
    // The budget's days are whole UTC days (dailyCosts reads the rollup by day).
    ...(parts.budget ? { budgetFrom: dayOf(budget.from), budgetTo: dayOf(budget.to) } : {}),
  };
  const part = ["report", parts.budget && "budget", parts.byProject && "projects", parts.byTenant && "tenants"].filter(Boolean).join("+");
  return cachedSpendFigures(db, scope, part, key, now, async () => {
    const listScope = "projectId" in scope ? null : scope;
    const [common, budgetDaily, byProject, byTenant] = await Promise.all([
      commonParts(db, scope, window),
      parts.budget ? dailyCosts(db, scope, budget) : undefined,
      parts.byProject && listScope ? spendByProject(db, listScope, window) : undefined,
      parts.byTenant ? spendByTenant(db, window) : undefined,
    ]);
    return { common, ...(budgetDaily && { budgetDaily }), ...(byProject && { byProject }), ...(byTenant && { byTenant }) };
  });
}

export async function budgetsOf(db: Database, projectIds: readonly string[]): Promise<Map<string, number>> {
  if (projectIds.length === 0) return new Map();
  const digits = moneyDigits();
  const rows = await db.select().from(projectBudgets).where(inArray(projectBudgets.projectId, [...projectIds]));
  return new Map(rows.map((r) => [r.projectId, moneyFromSql(r.monthlyAmount, digits)]));
}

/** A spend scope as addresses name it: by slugs. */
export type SpendTarget = { kind: "project"; tenant: string; project: string } | { kind: "tenant"; tenant: string } | { kind: "platform" };

/**
 * The scope a spend report or export covers, when the actor may see its
 * spend (project.spend.view, tenant.spend.view, platform.spend.view), else
 * not_found. Reports and exports both come through here.
 */
export async function spendScopeFor(ctx: CommandContext, target: SpendTarget): Promise<{ scope: SpendReportScope; query: SpendScope }> {
  if (target.kind === "project") {
    const { tenant, project } = await projectBySlugs(ctx.db, target.tenant, target.project);
    if (!can(ctx.actor, "project.spend.view", { kind: "project", tenantId: tenant.id, projectId: project.id }, ctx.now)) throw new AppError("not_found");
    return {
      scope: { kind: "project", tenantId: tenant.id, tenantSlug: tenant.slug, tenantName: tenant.name, projectId: project.id, projectSlug: project.slug, projectName: project.name },
      query: { projectId: project.id },
    };
  }
  if (target.kind === "tenant") {
    const tenant = await tenantBySlug(ctx.db, target.tenant);
    if (!can(ctx.actor, "tenant.spend.view", { kind: "tenant", tenantId: tenant.id }, ctx.now)) throw new AppError("not_found");
    return { scope: { kind: "tenant", tenantId: tenant.id, tenantSlug: tenant.slug, tenantName: tenant.name }, query: { tenantId: tenant.id } };
  }
  if (!can(ctx.actor, "platform.spend.view", { kind: "platform" }, ctx.now)) throw new AppError("not_found");
  return { scope: { kind: "platform" }, query: { platform: true } };
}

export async function projectSpendReport(ctx: CommandContext, tenantSlug: string, projectSlug: string, window: ResolvedWindow): Promise<SpendReport> {
  const { scope: reportScope, query: scope } = await spendScopeFor(ctx, { kind: "project", tenant: tenantSlug, project: projectSlug });
  if (reportScope.kind !== "project") throw new Error("a project target resolves to a project scope");
  const [figures, budgets, idle] = await Promise.all([
    usageFigures(ctx.db, scope, window, ctx.now, { budget: true }),
    budgetsOf(ctx.db, [reportScope.projectId]),
    idleChargeback(ctx.db, window, ctx.now),
  ]);
  return {
    scope: reportScope,
    currency: config().currency,
    window,
    ...figures.common,
    idleCost: idleCostOf(idle, idle.byProject.get(reportScope.projectId) ?? 0),
    budget: budgetStatusOf(figures.budgetDaily!, budgets.get(reportScope.projectId) ?? null, ctx.now, moneyDigits()),
    ...retentionOf(window, ctx.now),
  };
}

export async function tenantSpendReport(ctx: CommandContext, tenantSlug: string, window: ResolvedWindow): Promise<SpendReport> {
  const { scope: reportScope } = await spendScopeFor(ctx, { kind: "tenant", tenant: tenantSlug });
  if (reportScope.kind !== "tenant") throw new Error("a tenant target resolves to a tenant scope");
  const scope = { tenantId: reportScope.tenantId };
  const [figures, budgetAmount, idle] = await Promise.all([
    usageFigures(ctx.db, scope, window, ctx.now, { budget: true, byProject: true }),
    tenantBudgetAmount(ctx.db, reportScope.tenantId),
    idleChargeback(ctx.db, window, ctx.now),
  ]);
  const byProject = withIdleCharged(figures.byProject!, idle, reportScope.tenantId);
  return {
    scope: reportScope,
    currency: config().currency,
    window,
    ...figures.common,
    idleCost: idleCostOf(idle, idle.byTenant.get(reportScope.tenantId) ?? 0),
    byProject,
    budget: budgetStatusOf(figures.budgetDaily!, budgetAmount, ctx.now, moneyDigits()),
    ...retentionOf(window, ctx.now),
  };
}

export async function platformSpendReport(ctx: CommandContext, window: ResolvedWindow): Promise<SpendReport> {
  await spendScopeFor(ctx, { kind: "platform" });
  const scope = { platform: true } as const;
  const [figures, idle] = await Promise.all([usageFigures(ctx.db, scope, window, ctx.now, { byProject: true, byTenant: true }), idleChargeback(ctx.db, window, ctx.now)]);
  // The cluster's capacity is priced afresh (pool sizes, rates, the hours ended by now); what projects used is the report's own cost per resource.
  const cluster = await clusterCost(ctx.db, window, ctx.now, figures.common.byResource);
  const digits = moneyDigits();
  const byTenant = tenantsWithIdleCharged(figures.byTenant!, idle);
  const idleCost = { ...idleCostOf(idle, idle.total), apart: toMajor(toMinor(cluster.idleCost, digits) - idle.total, digits) };
  return { scope: { kind: "platform" }, currency: config().currency, window, ...figures.common, idleCost, byTenant, byProject: withIdleCharged(figures.byProject!, idle), cluster, ...retentionOf(window, ctx.now) };
}

/** The report's retention field, present only when the window reaches past the horizon. */
function retentionOf(window: SpendWindow, now: Date): { retention?: RetentionCut } {
  const cut = retentionCutOf(window, now);
  return cut ? { retention: cut } : {};
}

function idleCostOf(idle: IdleChargeback, chargedMinor: number): IdleCostReport {
  return { mode: idle.mode, rule: idle.rule, chargedBack: toMajor(chargedMinor, moneyDigits()) };
}

/**
 * Projects with the idle charged back to them, where any was (or the rule is
 * chargeback). A project with guarantees but no use in the window is charged
 * too, so it joins the list with no use: its tenant's figure is the sum of
 * its projects'.
 */
function withIdleCharged(used: readonly ProjectSpend[], idle: IdleChargeback, tenantId?: string): ProjectSpend[] {
  if (idle.mode !== "chargeback" && idle.total === 0) return [...used];
  const digits = moneyDigits();
  const listed = new Set(used.map((p) => p.projectId));
  const idleOnly = [...idle.byProject].filter(([id]) => !listed.has(id) && (tenantId === undefined || idle.projects.get(id)?.tenantId === tenantId));
  return [
    ...used.map((p) => ({ ...p, idleChargedBack: toMajor(idle.byProject.get(p.projectId) ?? 0, digits) })),
    ...idleOnly.map(([projectId, part]) => {
      const p = idle.projects.get(projectId)!;
      return { projectId, slug: p.slug, name: p.name, tenantId: p.tenantId, tenantSlug: p.tenantSlug, cost: 0, gpuCost: 0, gpuIdleCost: 0, gpuUtilization: null, idleChargedBack: toMajor(part, digits) };
    }),
  ];
}

/** Tenants with the idle charged back to them; a tenant charged with no use in the window joins the list. */
function tenantsWithIdleCharged(used: readonly TenantSpend[], idle: IdleChargeback): TenantSpend[] {
  if (idle.mode !== "chargeback" && idle.total === 0) return [...used];
  const digits = moneyDigits();
  const listed = new Set(used.map((t) => t.tenantId));
  const idleOnly = new Map<string, TenantSpend>();
  for (const p of idle.projects.values()) {
    if (!listed.has(p.tenantId) && idle.byTenant.has(p.tenantId)) idleOnly.set(p.tenantId, { tenantId: p.tenantId, slug: p.tenantSlug, name: p.tenantName, cost: 0 });
  }
  return [...used, ...idleOnly.values()].map((t) => ({ ...t, idleChargedBack: toMajor(idle.byTenant.get(t.tenantId) ?? 0, digits) }));
}
