import { beforeAll, describe, expect, it } from "vitest";
import type { CommandContext } from "@/lib/auth/context";
import { eq } from "drizzle-orm";
import { instanceSettings, projectBudgets, projects } from "@/db/schema";
import { pivotSeries } from "@/components/spend/pivot";
import { seedDemoUsage } from "@/lib/demo/usage";
import { formatMoney, sumMinor, toMinor } from "@/lib/money";
import { budgetBasisOf, checkBudget } from "@/lib/quota/view-helpers";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { focusExport } from "./focus-query";
import { IDLE_COST_KEY, storedChanges } from "./idle-mode";
import { projectMonthAtAGlance, tenantMonthAtAGlance } from "./month-at-a-glance";
import { projectUsageSummaries } from "./project-summaries";
import { platformSpendReport, projectSpendReport, tenantSpendReport, type SpendReport } from "./report";
import { resolveWindow, spendQueryInput, type ResolvedWindow } from "./window";

/**
 * The figures of the spend pages agree with each other to the cent, on the
 * demo story (90 days of usage for several tenants): the platform page's
 * tenants, projects and cost drivers add up to its spend, and its cluster
 * equations hold exactly; each tenant page's total is the platform page's
 * line for it, each project page's total the tenant page's line; the FOCUS
 * export adds up to the same total; the quota pages' month to date and
 * forecast are the spend page's. What a page shows is these numbers through
 * formatMoney, so agreeing numbers are agreeing text.
 */
const SEEDED_AT = new Date("2026-06-01T00:00:00.000Z");
const NOW = new Date("2026-06-15T14:30:00.000Z");
const seeded = seededDatabase(SEEDED_AT);
let ctx: CommandContext;
const DIGITS = 2;

const cents = (values: readonly number[]) => sumMinor(values.map((v) => toMinor(v, DIGITS)));
const minor = (v: number) => toMinor(v, DIGITS);

function windowOf(range: "7d" | "30d" | "90d" | "month", granularity: "hour" | "day" | "month"): ResolvedWindow {
  const resolved = resolveWindow(spendQueryInput.parse({ range, granularity }), NOW);
  if (!("window" in resolved)) throw new Error("a named window resolves");
  return resolved.window;
}

/** A report's own lines add up to its total: cost drivers, and (day and month) its series and chart table. */
function expectSelfConsistent(report: SpendReport) {
  expect(cents(report.byResource.map((r) => r.cost))).toBe(minor(report.totalCost));
  if (report.window.granularity !== "hour") {
    expect(cents(report.series.map((p) => p.cost))).toBe(minor(report.totalCost));
    const table = pivotSeries(JSON.parse(JSON.stringify(report)) as Parameters<typeof pivotSeries>[0]);
    expect(minor(table.grandTotal)).toBe(minor(report.totalCost));
    expect(cents(table.totals)).toBe(minor(table.grandTotal));
    for (const row of table.rows) expect(cents(row.values)).toBe(minor(row.total));
  }
  if (report.byProject) expect(cents(report.byProject.map((p) => p.cost))).toBe(minor(report.totalCost));
}

beforeAll(async () => {
  const db = seeded.db;
  expect(await seedDemoUsage(db, NOW)).toBe(true);
  await db.insert(projectBudgets).values({ projectId: await projectIdOf(db, "vision-lab", "detector-training"), monthlyAmount: "9000.00", updatedAt: SEEDED_AT });
  ctx = await contextOf(db, "platform-admin", NOW);
}, 240_000);

describe(`the spend pages agree to the cent (${databaseLabel()})`, () => {
  it.each([
    ["30d", "day"],
    ["90d", "month"],
    ["month", "day"],
    ["7d", "hour"],
  ] as const)("%s by %s: platform, tenant and project pages, and the FOCUS export", async (range, granularity) => {
    const window = windowOf(range, granularity);
    const platform = await platformSpendReport(ctx, window);
    expect(platform.totalCost).toBeGreaterThan(0);
    expectSelfConsistent(platform);
    expect(cents(platform.byTenant!.map((t) => t.cost))).toBe(minor(platform.totalCost));

    // The platform page's two equations, exactly.
    const k = platform.cluster!;
    expect(minor(platform.totalCost) + minor(k.idleCost)).toBe(minor(k.totalCost));
    expect(minor(k.allocatedCost) + minor(k.otherCost)).toBe(minor(platform.totalCost));
    expect(minor(k.capacityCost) - minor(k.allocatedCost)).toBe(minor(k.idleCost));
    // Idle's share: one figure for the tile and the tenant table.
    expect(k.idleShare).toBe(minor(k.idleCost) / minor(k.totalCost));

    for (const t of platform.byTenant!) {
      const tenant = await tenantSpendReport(ctx, t.slug, window);
      expectSelfConsistent(tenant);
      expect(tenant.totalCost, t.slug).toBe(t.cost);
      for (const p of tenant.byProject!) {
        const onPlatform = platform.byProject!.find((x) => x.projectId === p.projectId)!;
        expect(onPlatform, p.slug).toEqual(p);
        const project = await projectSpendReport(ctx, t.slug, p.slug, window);
        expectSelfConsistent(project);
        expect(project.totalCost, p.slug).toBe(p.cost);
        expect(formatMoney(project.totalCost, "USD")).toBe(formatMoney(p.cost, "USD"));
      }
    }

    // The comparison with the period before is that period's own report, to the cent, and adds up like one.
    const before: ResolvedWindow = { ...window, from: new Date(platform.previous.from), to: new Date(platform.previous.to) };
    expect(before.to.getTime() - before.from.getTime()).toBe(window.to.getTime() - window.from.getTime());
    const previous = await platformSpendReport(ctx, before);
    expect(platform.previous.totalCost).toBe(previous.totalCost);
    expect(platform.previous.byResource).toEqual(previous.byResource.map((r) => ({ resource: r.resource, cost: r.cost })));
    expect(cents(platform.previous.byResource.map((r) => r.cost))).toBe(minor(platform.previous.totalCost));

    // The FOCUS export: its use rows are the spend, its idle lines (all apart here) the cluster's idle, so its rows add up to the cluster cost.
    const focus = await focusExport(ctx, { kind: "platform" }, window);
    const useTotal = cents(focus.rows.filter((r) => r.x_IdleCost === null).map((r) => r.BilledCost ?? 0));
    expect(cents(focus.rows.filter((r) => r.x_IdleCost !== null).map((r) => r.BilledCost!))).toBe(minor(k.idleCost));
    expect(focus.rows.filter((r) => r.x_IdleCost !== null).every((r) => r.x_IdleCost === "apart" && r.ChargeCategory === "Adjustment")).toBe(true);
    if (granularity === "hour") expect(useTotal).toBe(cents(platform.series.map((p) => p.cost)));
    else {
      expect(useTotal).toBe(minor(platform.totalCost));
      expect(cents(focus.rows.map((r) => r.BilledCost ?? 0))).toBe(minor(k.totalCost));
    }
  }, 240_000);

  it.each([
    ["30d", "day"],
    ["7d", "hour"],
  ] as const)("%s by %s with idle charged back: platform, tenant and project pages agree on the idle charged, and the cluster equation holds", async (range, granularity) => {
    const window = windowOf(range, granularity);
    const before = await platformSpendReport(ctx, window);
    expect(before.idleCost.mode).toBe("apart");
    expect(before.idleCost.chargedBack).toBe(0);
    expect(before.byTenant!.every((t) => t.idleChargedBack === undefined)).toBe(true);
    await ctx.db.insert(instanceSettings).values({ key: IDLE_COST_KEY, value: storedChanges([{ mode: "chargeback", effectiveFrom: new Date("2026-01-01T00:00:00Z") }]) });
    try {
      const platform = await platformSpendReport(ctx, window);
      const k = platform.cluster!;
      expect(platform.idleCost.mode).toBe("chargeback");
      expect(platform.idleCost.rule).toMatch(/charged back to tenants in proportion to the value of their guarantees/);
      expect(minor(platform.idleCost.chargedBack)).toBeGreaterThan(0);
      // Use is unchanged by the rule; idle is split between charged back and apart, to the cent.
      expect(platform.totalCost).toBe(before.totalCost);
      expect(minor(platform.idleCost.chargedBack) + minor(platform.idleCost.apart!)).toBe(minor(k.idleCost));
      expect(minor(platform.totalCost) + minor(platform.idleCost.chargedBack) + minor(platform.idleCost.apart!)).toBe(minor(k.totalCost));
      expect(cents(platform.byTenant!.map((t) => t.idleChargedBack!))).toBe(minor(platform.idleCost.chargedBack));
      expect(cents(platform.byProject!.map((p) => p.idleChargedBack!))).toBe(minor(platform.idleCost.chargedBack));
      expect(cents(platform.byTenant!.map((t) => t.cost))).toBe(minor(platform.totalCost));
      for (const t of platform.byTenant!) {
        const tenant = await tenantSpendReport(ctx, t.slug, window);
        expect(tenant.idleCost.chargedBack, t.slug).toBe(t.idleChargedBack);
        expect(cents(tenant.byProject!.map((p) => p.idleChargedBack!)), t.slug).toBe(minor(t.idleChargedBack!));
        for (const p of tenant.byProject!) {
          expect(platform.byProject!.find((x) => x.projectId === p.projectId), p.slug).toEqual(p);
          const project = await projectSpendReport(ctx, t.slug, p.slug, window);
          expect(project.idleCost.chargedBack, p.slug).toBe(p.idleChargedBack);
          expect(formatMoney(project.idleCost.chargedBack, "USD")).toBe(formatMoney(p.idleChargedBack!, "USD"));
          const projectFocus = await focusExport(ctx, { kind: "project", tenant: t.slug, project: p.slug }, window);
          expect(cents(projectFocus.rows.filter((r) => r.x_IdleCost === "chargeback").map((r) => r.BilledCost!)), p.slug).toBe(minor(p.idleChargedBack!));
          expect(cents(projectFocus.rows.filter((r) => r.x_IdleCost === null).map((r) => r.BilledCost ?? 0)), p.slug).toBe(
            granularity === "hour" ? cents(project.series.map((x) => x.cost)) : minor(project.totalCost),
          );
        }
        const tenantFocus = await focusExport(ctx, { kind: "tenant", tenant: t.slug }, window);
        expect(tenantFocus.rows.some((r) => r.x_IdleCost === "apart"), t.slug).toBe(false);
        expect(cents(tenantFocus.rows.filter((r) => r.x_IdleCost === "chargeback").map((r) => r.BilledCost!)), t.slug).toBe(minor(t.idleChargedBack!));
      }

      // The platform's FOCUS export: idle charged back per project and left apart per day, all adding up to the cluster cost.
      const focus = await focusExport(ctx, { kind: "platform" }, window);
      const idleOf = (rule: "apart" | "chargeback") => cents(focus.rows.filter((r) => r.x_IdleCost === rule).map((r) => r.BilledCost!));
      expect(idleOf("chargeback")).toBe(minor(platform.idleCost.chargedBack));
      expect(idleOf("apart")).toBe(minor(platform.idleCost.apart!));
      for (const r of focus.rows.filter((x) => x.x_IdleCost === "chargeback")) {
        expect(r).toMatchObject({ ChargeCategory: "Adjustment", ConsumedQuantity: null });
        expect(r.SubAccountId).not.toBeNull();
      }
      if (granularity !== "hour") expect(cents(focus.rows.map((r) => r.BilledCost ?? 0))).toBe(minor(k.totalCost));
    } finally {
      await ctx.db.delete(instanceSettings).where(eq(instanceSettings.key, IDLE_COST_KEY));
    }
  }, 240_000);

  it("the quota pages' month to date and forecast are the spend page's", async () => {
    const window = windowOf("30d", "day");
    const platform = await platformSpendReport(ctx, window);
    const ids = platform.byProject!.map((p) => p.projectId);
    const summaries = await projectUsageSummaries(ctx.db, ids, NOW);
    for (const p of platform.byProject!) {
      const page = await projectSpendReport(ctx, p.tenantSlug, p.slug, window);
      const summary = summaries.get(p.projectId)!;
      // The request form and the approval queue read the summary; the spend page reads the report.
      expect(summary.budget, p.slug).toEqual(page.budget);
      expect(summary.last30Days.totalCost, p.slug).toBe(page.totalCost);
      const check = checkBudget(budgetBasisOf(summary.budget), 0, DIGITS);
      expect(formatMoney(check.forecast, "USD")).toBe(formatMoney(page.budget!.month.forecast, "USD"));
      // Month to date is the sum of the days' rounded lines; the forecast adds the rest of the month to it.
      expect(minor(page.budget!.month.forecast)).toBeGreaterThanOrEqual(minor(page.budget!.month.monthToDate));
    }
    const detector = platform.byProject!.find((p) => p.slug === "detector-training")!;
    const status = summaries.get(detector.projectId)!.budget;
    expect(status.monthlyAmount).toBe(9000);
    expect(status.usedShare).toBe(minor(status.month.monthToDate) / 900000);
  }, 240_000);

  it("the project and tenant home pages' month, budget and forecast are their spend pages', whatever window those show", async () => {
    // A budgeted project with no usage at all: it counts in its tenant's budget on every page and in every window.
    const [quiet] = await ctx.db.select({ tenantId: projects.tenantId }).from(projects).where(eq(projects.slug, "detector-training"));
    const [added] = await ctx.db
      .insert(projects)
      .values({ tenantId: quiet!.tenantId, slug: "home-budget", name: "Home budget", namespace: "vision-lab--home-budget", createdAt: SEEDED_AT })
      .returning({ id: projects.id });
    await ctx.db.insert(projectBudgets).values({ projectId: added!.id, monthlyAmount: "500.00", updatedAt: SEEDED_AT });
    for (const window of [windowOf("7d", "hour"), windowOf("30d", "day"), windowOf("90d", "month")]) {
      const platform = await platformSpendReport(ctx, window);
      for (const t of platform.byTenant!) {
        const page = await tenantSpendReport(ctx, t.slug, window);
        const home = await tenantMonthAtAGlance(ctx, t.tenantId);
        // The home also says whether the month holds demo usage (month-at-a-glance.int.test.ts); every figure is the page's.
        const { demo: _tenantDemo, ...tenantFigures } = home!;
        expect(tenantFigures, t.slug).toEqual(page.budget);
        expect(formatMoney(home!.month.forecast, "USD")).toBe(formatMoney(page.budget!.month.forecast, "USD"));
      }
      for (const p of platform.byProject!) {
        const page = await projectSpendReport(ctx, p.tenantSlug, p.slug, window);
        const { demo: _projectDemo, ...projectFigures } = (await projectMonthAtAGlance(ctx, { tenantId: p.tenantId, projectId: p.projectId }))!;
        expect(projectFigures, p.slug).toEqual(page.budget);
      }
    }
    const vision = await tenantMonthAtAGlance(ctx, quiet!.tenantId);
    expect(vision!.monthlyAmount).toBe(9500);
  }, 240_000);
});
