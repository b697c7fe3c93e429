import { sumMinor, toMajor, type Minor } from "@/lib/money";
import { FOCUS_PROVIDER_NAME, FOCUS_SERVICE_NAME, focusDateTime, monthBounds, type FocusRow } from "./focus";
import type { Granularity, SpendScope } from "./spend";

/**
 * Idle capacity in the FOCUS export, so that an export of the platform adds
 * up to the cluster's cost to the cent under either rule: each UTC day's idle
 * (what the pools cost beyond the projects' use) is charged back to projects
 * where the rule says so, and the rest is one platform line per period.
 *
 * Why ChargeCategory "Adjustment" and not "Usage": FOCUS defines Usage as
 * charges "based on the quantity of a service or resource that was consumed"
 * and requires a positive ConsumedQuantity on every Usage row that is not a
 * correction; idle capacity is by definition what nobody consumed, so a Usage
 * row would need an invented quantity. Adjustment is FOCUS's value for
 * "charges the service provider applies that do not fall into other category
 * values", may be positive or negative (idle is negative when use exceeded
 * capacity), and leaves ConsumedQuantity and PricingQuantity null. Not
 * Purchase either: nothing was bought, and Purchase requires a PricingQuantity.
 * ChargeClass stays null: these lines correct no earlier billing period.
 * x_IdleCost says which rule put the line there ("chargeback" on a project's
 * share, "apart" on the platform's line), so a reader can sum use alone.
 *
 * Pure: the days come from focus-query.ts.
 */

/** One UTC day of the window (cut to it) as the idle lines read it. */
export interface IdleDay {
  from: Date;
  to: Date;
  /**
   * The day's idle in minor units: its capacity less its projects' pool use.
   * The days' capacities are cumulative differences of the window's capacity
   * rounded once, so the days' idle adds up to the platform page's idle.
   */
  idle: Minor;
  /** What of it was charged back, per project (the rule's split: chargeback.ts). */
  charged: ReadonlyMap<string, Minor>;
}

/** A project charged idle, with the names its FOCUS line carries. */
export interface IdleProject {
  projectId: string;
  slug: string;
  name: string;
  tenantId: string;
  tenantSlug: string;
  tenantName: string;
  costCentre: string;
}

/** The billing account of the idle left apart: the platform's own, not a tenant's. */
export const PLATFORM_ACCOUNT = { id: "platform", name: "Platform (idle capacity)" } as const;
export const IDLE_RESOURCE_TYPE = "Idle capacity";

const DAY_MS = 86_400_000;

/** [start, end) of the period a day falls in: the day, or (month granularity) its month cut to the window. */
function periodOf(day: IdleDay, granularity: Granularity, window: { from: Date; to: Date }): [Date, Date] {
  if (granularity !== "month") return [day.from, new Date(Math.min(day.from.getTime() + DAY_MS, window.to.getTime()))];
  const [start, end] = monthBounds(day.from);
  return [new Date(Math.max(start.getTime(), window.from.getTime())), new Date(Math.min(end.getTime(), window.to.getTime()))];
}

function inScope(scope: SpendScope, p: IdleProject): boolean {
  if ("projectId" in scope) return p.projectId === scope.projectId;
  if ("tenantId" in scope) return p.tenantId === scope.tenantId;
  return true;
}

/**
 * The idle lines of an export: per period, one line per project charged idle
 * (those in scope), and for the platform one line of the idle left apart.
 * Hourly exports carry idle per UTC day, the period the rule splits it by.
 * Lines of zero are left out.
 */
export function idleFocusRows(
  days: readonly IdleDay[],
  projects: ReadonlyMap<string, IdleProject>,
  scope: SpendScope,
  granularity: Granularity,
  window: { from: Date; to: Date },
  currency: string,
  digits: number,
): FocusRow[] {
  const periods = new Map<number, { start: Date; end: Date; apart: Minor[]; charged: Map<string, Minor> }>();
  for (const day of days) {
    const [start, end] = periodOf(day, granularity, window);
    const period = periods.get(start.getTime()) ?? { start, end, apart: [], charged: new Map<string, Minor>() };
    periods.set(start.getTime(), period);
    period.apart.push(day.idle - sumMinor(day.charged.values()));
    for (const [projectId, part] of day.charged) period.charged.set(projectId, (period.charged.get(projectId) ?? 0) + part);
  }
  const rows: FocusRow[] = [];
  for (const period of [...periods.values()].sort((a, b) => a.start.getTime() - b.start.getTime())) {
    const charged = [...period.charged]
      .map(([projectId, part]) => ({ project: projects.get(projectId), part }))
      .filter((c): c is { project: IdleProject; part: Minor } => c.project !== undefined && c.part !== 0 && inScope(scope, c.project))
      .sort((a, b) => cmp(a.project.tenantSlug, b.project.tenantSlug) || cmp(a.project.slug, b.project.slug) || cmp(a.project.projectId, b.project.projectId));
    for (const { project, part } of charged) rows.push(chargedRow(project, period.start, period.end, toMajor(part, digits), currency));
    const apart = sumMinor(period.apart);
    if ("platform" in scope && apart !== 0) rows.push(apartRow(period.start, period.end, toMajor(apart, digits), currency));
  }
  return rows;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function idleRow(start: Date, end: Date, cost: number, currency: string): Omit<FocusRow, "BillingAccountId" | "BillingAccountName" | "ChargeDescription" | "SubAccountId" | "SubAccountName" | "Tags" | "x_Tenant" | "x_Project" | "x_IdleCost"> {
  const [billingStart, billingEnd] = monthBounds(start);
  return {
    BillingPeriodStart: focusDateTime(billingStart),
    BillingPeriodEnd: focusDateTime(billingEnd),
    ChargePeriodStart: focusDateTime(start),
    ChargePeriodEnd: focusDateTime(end),
    ChargeCategory: "Adjustment",
    ChargeClass: null,
    BilledCost: cost,
    EffectiveCost: cost,
    ListCost: cost,
    ContractedCost: cost,
    BillingCurrency: currency,
    PricingQuantity: null,
    PricingUnit: null,
    ConsumedQuantity: null,
    ConsumedUnit: null,
    // The node pools' GPUs, cores and memory: compute capacity.
    ServiceCategory: "Compute",
    ServiceName: FOCUS_SERVICE_NAME,
    ProviderName: FOCUS_PROVIDER_NAME,
    PublisherName: FOCUS_PROVIDER_NAME,
    InvoiceIssuerName: FOCUS_PROVIDER_NAME,
    ResourceType: IDLE_RESOURCE_TYPE,
    x_GpuModel: null,
    x_UnpricedQuantity: null,
  };
}

function chargedRow(p: IdleProject, start: Date, end: Date, cost: number, currency: string): FocusRow {
  const tags: Record<string, string> = { tenant: p.tenantSlug, project: p.slug };
  if (p.costCentre) tags.costCentre = p.costCentre;
  return {
    BillingAccountId: p.tenantId,
    BillingAccountName: p.tenantName,
    ...idleRow(start, end, cost, currency),
    ChargeDescription: `Idle capacity charged back to ${p.name} in proportion to its guarantees`,
    SubAccountId: p.projectId,
    SubAccountName: p.name,
    Tags: tags,
    x_Tenant: p.tenantSlug,
    x_Project: p.slug,
    x_IdleCost: "chargeback",
  };
}

function apartRow(start: Date, end: Date, cost: number, currency: string): FocusRow {
  return {
    BillingAccountId: PLATFORM_ACCOUNT.id,
    BillingAccountName: PLATFORM_ACCOUNT.name,
    ...idleRow(start, end, cost, currency),
    ChargeDescription:
      cost < 0 ? "Idle capacity of the node pools, shown apart: negative, use exceeded capacity" : "Idle capacity of the node pools, shown apart and charged to no one",
    SubAccountId: null,
    SubAccountName: null,
    Tags: {},
    x_Tenant: null,
    x_Project: null,
    x_IdleCost: "apart",
  };
}

/**
 * Use rows and idle lines in one order: by period start, then tenant and
 * project (a project's idle after its use), the platform's idle last in its
 * period. Both inputs are already in that order within themselves.
 */
export function mergeIdleRows(use: readonly FocusRow[], idle: readonly FocusRow[]): FocusRow[] {
  const key = (r: FocusRow) => [r.ChargePeriodStart, r.x_Tenant ?? "\uffff", r.x_Project ?? "\uffff", r.x_IdleCost === null ? 0 : 1] as const;
  const before = (a: FocusRow, b: FocusRow) => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]!;
    return false;
  };
  const out: FocusRow[] = [];
  let i = 0;
  let j = 0;
  while (i < use.length || j < idle.length) {
    if (j >= idle.length || (i < use.length && !before(idle[j]!, use[i]!))) out.push(use[i++]!);
    else out.push(idle[j++]!);
  }
  return out;
}
