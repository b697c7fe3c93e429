import type { BudgetCheck } from "@/lib/quota/view-helpers";
import { formatMoney, formatPercent } from "@/lib/quota/view-helpers";

/**
 * A request's monthly estimate against its project's budget (checkBudget):
 * a warning with the figures when this month's forecast plus the estimate
 * goes over the budget, a plain note when it stays within or when no budget
 * is set. Safe in client components (the request form's live preview).
 */
export function BudgetCheckNote({ check, currency, className = "" }: { check: BudgetCheck; currency: string; className?: string }) {
  const m = (n: number) => formatMoney(n, currency);
  if (check.kind === "no_budget") {
    return (
      <p className={`rounded-md bg-slate-100 px-3 py-2 text-xs text-slate-700 ${className}`} data-testid="budget-note">
        No monthly budget is set for this project, so the estimate is not checked against one.
        {check.usageRecorded ? ` This month's spend forecast: ${m(check.forecast)}.` : " No usage recorded yet."}
      </p>
    );
  }
  const asked = check.added > 0;
  if (check.kind === "over") {
    return (
      <p role="alert" className={`rounded-md bg-red-50 px-3 py-2 text-xs font-medium text-red-800 ${className}`} data-testid="budget-warning">
        {asked && !check.usageRecorded ? (
          <>
            Over the monthly budget of {m(check.budget)}: this request alone is {m(check.added)} a month, {m(-check.left)} more than the budget (no usage recorded yet).
          </>
        ) : asked ? (
          <>
            Over the monthly budget of {m(check.budget)}: this month&apos;s forecast {m(check.forecast)} plus this request&apos;s {m(check.added)} a month comes to {m(check.total)},{" "}
            {m(-check.left)} more than the budget.
            {check.forecastAlreadyOver && " The forecast alone is already over it."}
          </>
        ) : (
          <>
            This month&apos;s forecast of {m(check.forecast)} is already over the monthly budget of {m(check.budget)}, by {m(-check.left)}.
          </>
        )}
      </p>
    );
  }
  return (
    <p className={`rounded-md bg-emerald-50 px-3 py-2 text-xs text-emerald-900 ${className}`} data-testid="budget-note">
      {asked && !check.usageRecorded ? (
        <>
          Within the monthly budget of {m(check.budget)}: no usage recorded yet, so this request&apos;s {m(check.added)} a month is all of it ({m(check.left)} left).
        </>
      ) : !check.usageRecorded ? (
        <>Monthly budget {m(check.budget)}; no usage recorded yet.</>
      ) : asked ? (
        <>
          Within the monthly budget of {m(check.budget)}: this month&apos;s forecast {m(check.forecast)} plus this request&apos;s {m(check.added)} a month comes to {m(check.total)} (
          {m(check.left)} left).
        </>
      ) : (
        <>
          Monthly budget {m(check.budget)}; this month&apos;s forecast {m(check.forecast)}
          {check.budget > 0 && ` (${formatPercent(check.forecast / check.budget)} of it)`}.
        </>
      )}
    </p>
  );
}
