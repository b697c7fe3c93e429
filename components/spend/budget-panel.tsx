import type { ReactNode } from "react";
import { Badge } from "@/components/ui";
import type { BudgetStatus } from "@/lib/metering/report";
import { minorDigits, subtractMoney } from "@/lib/money";
import { dayLong, money, percent } from "./format";

/** How this month stands against the budget: spent so far, the forecast to month end, and the budget itself. */
export function budgetTone(budget: BudgetStatus): { tone: "green" | "amber" | "red"; label: string } | null {
  if (budget.monthlyAmount === null || budget.usedShare === null || budget.forecastShare === null) return null;
  if (budget.usedShare >= 1) return { tone: "red", label: "over budget" };
  if (budget.forecastShare > 1) return { tone: "amber", label: "forecast over budget" };
  return { tone: "green", label: "on track" };
}

export function BudgetPanel({ budget, currency, scope, form }: { budget: BudgetStatus; currency: string; scope: "project" | "tenant"; form?: ReactNode }) {
  const { month } = budget;
  const status = budgetTone(budget);
  const monthName = new Date(`${month.monthStart}T00:00:00Z`).toLocaleDateString("en-GB", { month: "long", year: "numeric", timeZone: "UTC" });
  const used = budget.usedShare ?? 0;
  const forecast = budget.forecastShare ?? 0;
  return (
    <div className="space-y-4" data-testid="budget-panel">
      <p className="text-sm text-slate-600">
        {monthName} (UTC), whatever the range above. {scope === "tenant" && "The budget is the sum of its projects' budgets; they are set on each project's spend page."}
      </p>
      <dl className="grid grid-cols-3 gap-4 text-sm">
        <div>
          <dt className="text-slate-500">Month to date</dt>
          <dd className="mt-0.5 text-lg font-semibold tabular-nums text-slate-900">{money(month.monthToDate, currency)}</dd>
          <dd className="text-xs text-slate-500">since {dayLong(month.monthStart)}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Forecast to month end</dt>
          <dd className="mt-0.5 text-lg font-semibold tabular-nums text-slate-900">{money(month.forecast, currency)}</dd>
          <dd className="text-xs text-slate-500">at {money(month.dailyRate, currency)} a day (last 7 days)</dd>
        </div>
        <div>
          <dt className="text-slate-500">Budget</dt>
          <dd className="mt-0.5 text-lg font-semibold tabular-nums text-slate-900" data-testid="budget-amount">
            {budget.monthlyAmount === null ? <span className="text-base font-normal text-slate-500">none set</span> : money(budget.monthlyAmount, currency)}
          </dd>
          {status && (
            <dd className="mt-0.5">
              <Badge tone={status.tone}>{status.label}</Badge>
            </dd>
          )}
        </div>
      </dl>
      {budget.monthlyAmount !== null && (
        <div>
          <div className="relative h-3 overflow-hidden rounded-full bg-slate-100" aria-hidden>
            <div className="absolute inset-y-0 left-0 rounded-full bg-brand-100" style={{ width: `${Math.min(1, forecast) * 100}%` }} />
            <div className={`absolute inset-y-0 left-0 rounded-full ${used >= 1 ? "bg-red-500" : forecast > 1 ? "bg-amber-500" : "bg-brand-600"}`} style={{ width: `${Math.min(1, used) * 100}%` }} />
          </div>
          <p className="mt-1.5 text-xs text-slate-600">
            {percent(used)} of the budget spent; {percent(forecast)} forecast by month end
            {forecast > 1 && budget.monthlyAmount !== null ? `, ${money(subtractMoney(month.forecast, budget.monthlyAmount, minorDigits(currency)), currency)} over` : ""}.
          </p>
        </div>
      )}
      {form && <div className="border-t border-slate-100 pt-4">{form}</div>}
    </div>
  );
}
