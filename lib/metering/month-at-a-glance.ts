import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { projectBudgetStatus, tenantBudgetStatus, type BudgetStatus } from "./report";

/**
 * This month against the budget, with its forecast, for the project's and the
 * tenant's home pages: the very functions their spend pages' reports call,
 * behind the same policy actions (project.spend.view, tenant.spend.view).
 * Null when the actor may not see that spend.
 */
export async function projectMonthAtAGlance(ctx: CommandContext, project: { tenantId: string; projectId: string }): Promise<BudgetStatus | null> {
  if (!can(ctx.actor, "project.spend.view", { kind: "project", ...project }, ctx.now)) return null;
  return projectBudgetStatus(ctx.db, project.projectId, ctx.now);
}

export async function tenantMonthAtAGlance(ctx: CommandContext, tenantId: string): Promise<BudgetStatus | null> {
  if (!can(ctx.actor, "tenant.spend.view", { kind: "tenant", tenantId }, ctx.now)) return null;
  return tenantBudgetStatus(ctx.db, tenantId, ctx.now);
}
