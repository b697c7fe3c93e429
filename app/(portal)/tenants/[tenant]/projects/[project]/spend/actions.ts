"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "@/lib/auth/form-action";
import { config } from "@/lib/config";
import { setProjectBudget } from "@/lib/metering/commands/budget";
import { moneyDigits, moneyFromSql } from "@/lib/metering/money-sql";
import { formatMoney } from "@/lib/money";

/** The project spend page's one form: set, change or remove (empty amount) the monthly budget. */
export const setProjectBudgetAction = formAction(setProjectBudget, (result) => {
  revalidatePath("/", "layout");
  if (!result.changed) return { message: result.budget ? "That is the budget already: nothing changed." : "There was no budget to remove." };
  return { message: result.budget ? `Budget saved: ${formatMoney(moneyFromSql(result.budget.monthlyAmount, moneyDigits()), config().currency)} a month.` : "Budget removed." };
});
