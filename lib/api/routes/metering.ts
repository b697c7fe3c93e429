import "server-only";
import { z } from "zod";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { AppError } from "@/lib/errors";
import { pushUsage } from "@/lib/metering/commands/push-usage";
import { focusCsvFile, focusExport, type FocusExportScope } from "@/lib/metering/focus-query";
import { MAX_SAMPLES_PER_BATCH } from "@/lib/metering/inputs";
import { platformSpendReport, projectSpendReport, tenantSpendReport, type SpendReport } from "@/lib/metering/report";
import { resolveWindow, spendQueryInput, type ResolvedWindow, type SpendQuery } from "@/lib/metering/window";
import { pricingOf, type Pricing } from "@/lib/metering/units";
import { projectParams, tenantParams } from "../params";
import { apiRoute } from "../route";
import { focusExportOut, pushUsageOut, spendReportOut } from "../schemas";

/**
 * Usage in, spend out. Meters (service accounts holding the meter role on a
 * project) push hourly samples; whoever may see a project's, a tenant's or
 * the platform's spend reads it as JSON, or as FinOps FOCUS rows (JSON at
 * .../spend/focus, CSV with ?format=csv on either). A scope out of the
 * caller's reach is a 404, as for every other read.
 */

const TAG = "Usage and spend";

const SPEND_DESCRIPTION =
  "The window is `range` (7d, 30d, 90d, month: ending with today) or `from`/`to` (YYYY-MM-DD, both days included); `granularity` is hour (windows up to 31 days), day or month. Cost is the quantity × the rate in force at each hour. `?format=csv` returns the FOCUS rows of the window as CSV instead (the same as …/spend/focus?format=csv).";
const FOCUS_DESCRIPTION =
  "FinOps FOCUS 1.x rows: one per charge period (hour, day or month, clipped to the window), project and resource (ChargeCategory Usage); BilledCost = EffectiveCost = ListCost = ContractedCost (the rate card, no discounts). Then the idle capacity lines (ChargeCategory Adjustment, x_IdleCost apart or chargeback) per UTC day (per month at month granularity): the idle charged back to the scope's projects and, on the platform's export, the idle left apart, so the platform's rows add up to the cluster cost to the cent. Re-running an export gives the same rows in the same order. `?format=csv` returns them as CSV with the same columns (Tags as JSON text).";

function windowOf(query: SpendQuery, now: Date): ResolvedWindow {
  const resolved = resolveWindow(query, now);
  if ("errors" in resolved) throw new AppError("validation", "Invalid query.", resolved.errors);
  return resolved.window;
}

/** A line as the API shows it: its pricing said, and an unpriced line's cost null, never zero. */
function withPricing<T extends { cost: number; quantity: number; unpricedQuantity: number }>(line: T): Omit<T, "cost"> & { cost: number | null; pricing: Pricing } {
  const pricing = pricingOf(line);
  return { ...line, cost: pricing === "unpriced" ? null : line.cost, pricing };
}

/** The report as documented: slugs and names, never internal ids. */
function spendOut(report: SpendReport): z.input<typeof spendReportOut> {
  const s = report.scope;
  return {
    scope:
      s.kind === "project"
        ? { kind: "project", tenant: { slug: s.tenantSlug, name: s.tenantName }, project: { slug: s.projectSlug, name: s.projectName } }
        : s.kind === "tenant"
          ? { kind: "tenant", tenant: { slug: s.tenantSlug, name: s.tenantName } }
          : { kind: "platform" },
    currency: report.currency,
    window: { from: report.window.from.toISOString(), to: report.window.to.toISOString(), lastDay: report.window.lastDay, range: report.window.range, granularity: report.window.granularity },
    totalCost: report.totalCost,
    series: report.series.map(withPricing),
    byResource: report.byResource.map(withPricing),
    unpricedResources: report.unpricedResources,
    demo: report.demo,
    previous: report.previous,
    budget: report.budget,
    byProject: report.byProject?.map((p) => ({
      tenantSlug: p.tenantSlug,
      slug: p.slug,
      name: p.name,
      cost: p.cost,
      gpuCost: p.gpuCost,
      gpuIdleCost: p.gpuIdleCost,
      gpuUtilization: p.gpuUtilization,
      idleChargedBack: p.idleChargedBack,
    })),
    byTenant: report.byTenant?.map((t) => ({ slug: t.slug, name: t.name, cost: t.cost, idleChargedBack: t.idleChargedBack })),
    cluster: report.cluster,
    idleCost: report.idleCost,
    retention: report.retention,
  };
}

async function focusOut(ctx: CommandContext, scope: FocusExportScope, window: ResolvedWindow, format: "json" | "csv") {
  if (format === "csv") return focusCsvFile(ctx, scope, window);
  const exported = await focusExport(ctx, scope, window);
  const out: z.input<typeof focusExportOut> = {
    currency: exported.currency,
    window: { from: window.from.toISOString(), to: window.to.toISOString(), lastDay: window.lastDay, range: window.range, granularity: window.granularity },
    rows: exported.rows,
  };
  return out;
}

export const pushUsageRoute = apiRoute({
  method: "POST",
  path: "/api/v1/usage",
  summary: `Push hourly usage samples (service accounts with the meter role on each project named; up to ${MAX_SAMPLES_PER_BATCH.toLocaleString("en")} per batch)`,
  description:
    "Each sample is one hour of one resource of one project, in consumed units. A sample replaces this account's earlier figure for the same project, resource and hour, so retrying a batch never counts twice and a corrected figure replaces the old one. One invalid sample refuses the whole batch (400, `fields` naming e.g. `samples.3.hour`); a project that does not exist or that the account does not meter refuses it too (404 naming the sample). Nothing is stored unless the whole batch is.",
  tag: TAG,
  params: z.object({}),
  body: pushUsage.input,
  response: pushUsageOut,
  handler: (ctx, { body }) => executeCommand(pushUsage, ctx, body),
});

export const getProjectSpend = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/projects/{project}/spend",
  summary: "A project's spend over a window: series, cost drivers, this month against its budget (?format=csv: FOCUS rows)",
  description: SPEND_DESCRIPTION,
  tag: TAG,
  params: projectParams,
  query: spendQueryInput,
  response: spendReportOut,
  csv: true,
  async handler(ctx, { params, query, format }) {
    const window = windowOf(query, ctx.now);
    if (format === "csv") return focusCsvFile(ctx, { kind: "project", tenant: params.tenant, project: params.project }, window);
    return spendOut(await projectSpendReport(ctx, params.tenant, params.project, window));
  },
});

export const getProjectFocus = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/projects/{project}/spend/focus",
  summary: "A project's spend over a window as FinOps FOCUS rows (JSON, or CSV with ?format=csv)",
  description: FOCUS_DESCRIPTION,
  tag: TAG,
  params: projectParams,
  query: spendQueryInput,
  response: focusExportOut,
  csv: true,
  handler: (ctx, { params, query, format }) => focusOut(ctx, { kind: "project", tenant: params.tenant, project: params.project }, windowOf(query, ctx.now), format),
});

export const getTenantSpend = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/spend",
  summary: "A tenant's spend over a window (tenant admins and viewers): series, cost drivers, spend per project, this month against the projects' budgets",
  description: SPEND_DESCRIPTION,
  tag: TAG,
  params: tenantParams,
  query: spendQueryInput,
  response: spendReportOut,
  csv: true,
  async handler(ctx, { params, query, format }) {
    const window = windowOf(query, ctx.now);
    if (format === "csv") return focusCsvFile(ctx, { kind: "tenant", tenant: params.tenant }, window);
    return spendOut(await tenantSpendReport(ctx, params.tenant, window));
  },
});

export const getTenantFocus = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/spend/focus",
  summary: "A tenant's spend over a window as FinOps FOCUS rows (JSON, or CSV with ?format=csv)",
  description: FOCUS_DESCRIPTION,
  tag: TAG,
  params: tenantParams,
  query: spendQueryInput,
  response: focusExportOut,
  csv: true,
  handler: (ctx, { params, query, format }) => focusOut(ctx, { kind: "tenant", tenant: params.tenant }, windowOf(query, ctx.now), format),
});

export const getPlatformSpend = apiRoute({
  method: "GET",
  path: "/api/v1/spend",
  summary: "The platform's spend over a window (platform admins): by tenant and project, and the cluster's capacity, allocated and idle cost",
  description: SPEND_DESCRIPTION,
  tag: TAG,
  params: z.object({}),
  query: spendQueryInput,
  response: spendReportOut,
  csv: true,
  async handler(ctx, { query, format }) {
    const window = windowOf(query, ctx.now);
    if (format === "csv") return focusCsvFile(ctx, { kind: "platform" }, window);
    return spendOut(await platformSpendReport(ctx, window));
  },
});

export const getPlatformFocus = apiRoute({
  method: "GET",
  path: "/api/v1/spend/focus",
  summary: "The platform's spend over a window as FinOps FOCUS rows (JSON, or CSV with ?format=csv)",
  description: FOCUS_DESCRIPTION,
  tag: TAG,
  params: z.object({}),
  query: spendQueryInput,
  response: focusExportOut,
  csv: true,
  handler: (ctx, { query, format }) => focusOut(ctx, { kind: "platform" }, windowOf(query, ctx.now), format),
});
