import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { budgetWindow, projectBudgetStatus, tenantBudgetStatus, type BudgetStatus } from "./report";
import { windowHasDemoData, type SpendScope } from "./spend";

/** This month against the budget, and whether any of its figures (the forecast's week included) come from generated demo usage. */
export type MonthAtAGlance = BudgetStatus & { demo: boolean };

/**
 * This month against the budget, with its forecast, for the project's and the
 * tenant's home pages: the very functions their spend pages' reports call,
 * behind the same policy actions (project.spend.view, tenant.spend.view), and
 * the same demo mark the spend pages carry. Null when the actor may not see that spend.
 */
export async function projectMonthAtAGlance(ctx: CommandContext, project: { tenantId: string; projectId: string }): Promise<MonthAtAGlance | null> {
  if (!can(ctx.actor, "project.spend.view", { kind: "project", ...project }, ctx.now)) return null;
  return withDemoMark(ctx, { projectId: project.projectId }, projectBudgetStatus(ctx.db, project.projectId, ctx.now));
}

export async function tenantMonthAtAGlance(ctx: CommandContext, tenantId: string): Promise<MonthAtAGlance | null> {
  if (!can(ctx.actor, "tenant.spend.view", { kind: "tenant", tenantId }, ctx.now)) return null;
  return withDemoMark(ctx, { tenantId }, tenantBudgetStatus(ctx.db, tenantId, ctx.now));
}

async function withDemoMark(ctx: CommandContext, scope: SpendScope, status: Promise<BudgetStatus>): Promise<MonthAtAGlance> {
  const [figures, demo] = await Promise.all([status, windowHasDemoData(ctx.db, scope, budgetWindow(ctx.now))]);
  return { ...figures, demo };
}
