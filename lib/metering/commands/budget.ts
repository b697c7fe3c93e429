import "server-only";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { projectBudgets } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { assertProjectOpen, assertTenantActive, projectBySlugs } from "@/lib/tenancy/lookup";
import { onProject, projectAddress } from "@/lib/tenancy/targets";
import { NOT_NEGATIVE } from "@/lib/input/messages";

/**
 * A project's monthly budget, in the configured currency. Tenant admins (and
 * platform admins) set it; budget alerts (lib/metering/alerts.ts) compare the
 * month's spend and forecast with it.
 */

/** The largest budget accepted: far above any project, well inside numeric(18, 2). */
export const MAX_MONTHLY_BUDGET = 1_000_000_000_000;

/**
 * A budget as exact decimal text ("2500", "2500.50"), never through a float on
 * its way to the numeric column. Empty text is null: no budget.
 */
export const monthlyAmountInput = z
  .union([z.string(), z.number(), z.null()], { message: "Enter an amount such as 2500 or 2500.50." })
  .optional()
  .transform((raw, ctx): string | null => {
    // Plain decimal text only, as everywhere a person types a number (lib/input/numbers.ts): no spaces, sign or exponent.
    const text = raw == null ? "" : String(raw);
    if (text === "") return null;
    if (/^-/.test(text)) {
      ctx.addIssue({ code: "custom", message: NOT_NEGATIVE });
      return z.NEVER;
    }
    const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
    if (!match) {
      ctx.addIssue({ code: "custom", message: "Enter an amount such as 2500 or 2500.50 (digits, at most 2 decimals)." });
      return z.NEVER;
    }
    const decimals = match[2] ?? "";
    if (decimals.length > 2) {
      ctx.addIssue({ code: "custom", message: "Enter an amount with at most 2 decimals." });
      return z.NEVER;
    }
    const whole = BigInt(match[1]!);
    const cents = whole * 100n + BigInt(decimals.padEnd(2, "0") || "0");
    if (cents > BigInt(MAX_MONTHLY_BUDGET) * 100n) {
      ctx.addIssue({ code: "custom", message: `Enter an amount no larger than ${MAX_MONTHLY_BUDGET.toLocaleString("en-US")}.` });
      return z.NEVER;
    }
    return `${cents / 100n}.${(cents % 100n).toString().padStart(2, "0")}`;
  });

/**
 * The version of the budget the form was showing: a positive number when
 * editing one, 0 when the form showed no budget, empty or absent to set the
 * budget whatever it is now (API clients that do not read first).
 */
const versionInput = z
  .union([z.string(), z.number(), z.null()])
  .optional()
  .transform((raw, ctx): number | null => {
    const text = raw == null ? "" : String(raw);
    if (text === "") return null;
    const value = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
    if (!Number.isInteger(value)) {
      ctx.addIssue({ code: "custom", message: "Enter a whole number." });
      return z.NEVER;
    }
    return value;
  });

export type ProjectBudget = typeof projectBudgets.$inferSelect;

/** A project's budget row, or null when none is set. monthlyAmount is decimal text ("2500.00"). */
export async function projectBudget(db: Database, projectId: string): Promise<ProjectBudget | null> {
  const [row] = await db.select().from(projectBudgets).where(eq(projectBudgets.projectId, projectId));
  return row ?? null;
}

const changedMeanwhile = () => new AppError("conflict", "This budget was changed meanwhile. Reload to see the current budget and try again.");

export type SetBudgetResult =
  | { changed: true; budget: ProjectBudget | null }
  /** Nothing to do: the same amount was set again, or a budget that does not exist was cleared. */
  | { changed: false; budget: ProjectBudget | null };

/**
 * Set, change or clear (empty amount) a project's monthly budget. Writes the
 * row and its audit event in one transaction; with a version, refuses when
 * the budget is no longer the one the form showed.
 */
export const setProjectBudget = defineCommand({
  name: "setProjectBudget",
  input: projectAddress.extend({ monthlyAmount: monthlyAmountInput, version: versionInput }),
  target: onProject("project.budget.manage"),
  async run(ctx, input, { tenantId, projectId }): Promise<SetBudgetResult> {
    try {
      return await ctx.db.transaction(async (tx) => {
        const { tenant, project } = await projectBySlugs(tx, input.tenant, input.project);
        assertTenantActive(tenant);
        assertProjectOpen(project);
        const [before] = await tx.select().from(projectBudgets).where(eq(projectBudgets.projectId, projectId)).for("update");
        if (input.version !== null && input.version !== (before?.version ?? 0)) throw changedMeanwhile();
        const audit = (action: string, after: ProjectBudget | null) =>
          recordAudit(tx, {
            actor: auditActorOf(ctx.actor),
            at: ctx.now,
            tenantId,
            action,
            target: { type: "project_budget", id: projectId },
            before: before ? { monthlyAmount: before.monthlyAmount, version: before.version } : null,
            after: after ? { monthlyAmount: after.monthlyAmount, version: after.version } : null,
          });

        if (input.monthlyAmount === null) {
          if (!before) return { changed: false, budget: null };
          await tx.delete(projectBudgets).where(eq(projectBudgets.projectId, projectId));
          await audit("project_budget.cleared", null);
          return { changed: true, budget: null };
        }
        if (before && Number(before.monthlyAmount) === Number(input.monthlyAmount)) return { changed: false, budget: before };
        const values = { monthlyAmount: input.monthlyAmount, updatedBy: ctx.actor.principalId, updatedAt: ctx.now };
        const [after] = before
          ? await tx
              .update(projectBudgets)
              .set({ ...values, version: before.version + 1 })
              .where(eq(projectBudgets.projectId, projectId))
              .returning()
          : await tx
              .insert(projectBudgets)
              .values({ projectId, ...values })
              .returning();
        await audit("project_budget.set", after!);
        return { changed: true, budget: after! };
      });
    } catch (error) {
      // Two first budgets at once: the second insert loses.
      if (isUniqueViolation(error)) throw changedMeanwhile();
      throw error;
    }
  },
});
