import type { ReactNode } from "react";
import type { ProjectUsageSummary } from "@/lib/metering/project-summaries";
import { formatDate } from "@/lib/format";
import { pricingOf } from "@/lib/metering/units";
import { formatMoney, formatPercent, formatUsageQuantity, resourceLabel } from "@/lib/quota/view-helpers";
import { Badge } from "../ui";

/** How many of the most expensive resources of the last 30 days are listed. */
export const TOP_RESOURCES = 3;

/**
 * A project's use and spend in brief (from lib/metering's
 * projectUsageSummaries): this month so far and its forecast against the
 * budget, the last 30 days' cost and its top resources, and the GPUs'
 * measured utilisation. A project with no usage yet says so, with no
 * figures. Presentation only.
 */
export function UsageSummary({ summary: s, currency, projectName }: { summary: ProjectUsageSummary; currency: string; projectName: string }) {
  const m = (n: number) => formatMoney(n, currency);
  const budget = s.budget.monthlyAmount;
  const budgetLine = budget === null ? "none set" : `${m(budget)} a month`;
  if (s.lastUsageDay === null) {
    return (
      <div className="space-y-1 text-sm" data-testid="usage-summary">
        <p className="text-slate-600" data-testid="usage-empty">
          No usage recorded yet for {projectName}: nothing has been metered, so there is no spend to show.
        </p>
        <p className="text-xs text-slate-500">Budget: {budgetLine}.</p>
      </div>
    );
  }
  const month = s.budget.month;
  const top = s.last30Days.byResource.filter((r) => r.cost > 0 || r.quantity > 0).slice(0, TOP_RESOURCES);
  const overForecast = budget !== null && month.forecast > budget;
  const rows: { term: string; value: ReactNode }[] = [
    {
      term: "This month so far",
      value: (
        <>
          {m(month.monthToDate)}
          {budget !== null && s.budget.usedShare !== null && <span className="text-slate-500"> ({formatPercent(s.budget.usedShare)} of the budget)</span>}
        </>
      ),
    },
    {
      term: "Forecast for the month",
      value: (
        <span className={overForecast ? "font-medium text-red-700" : ""}>
          {m(month.forecast)}
          {budget !== null && (overForecast ? ` (over the budget by ${m(month.forecast - budget)})` : s.budget.forecastShare !== null && ` (${formatPercent(s.budget.forecastShare)} of the budget)`)}
        </span>
      ),
    },
    { term: "Budget", value: budgetLine },
    { term: "Last 30 days", value: m(s.last30Days.totalCost) },
    {
      term: "GPU utilisation",
      value: s.gpuUtilization === null ? <span className="text-slate-500">not measured</span> : `${formatPercent(s.gpuUtilization)} of GPU-hours busy (30 days)`,
    },
  ];
  return (
    <div className="space-y-2 text-sm" data-testid="usage-summary">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        {rows.map((r) => (
          <div key={r.term} className="contents">
            <dt className="text-slate-600">{r.term}</dt>
            <dd className="text-right tabular-nums text-slate-900">{r.value}</dd>
          </div>
        ))}
      </dl>
      {top.length > 0 && (
        <table className="min-w-full text-left text-xs">
          <caption className="sr-only">Top resources of {projectName} over the last 30 days</caption>
          <thead className="border-b border-slate-200 uppercase tracking-wide text-slate-500">
            <tr>
              <th scope="col" className="py-1 pr-2 font-medium">
                Top resources, 30 days
              </th>
              <th scope="col" className="py-1 pr-2 text-right font-medium">
                Used
              </th>
              <th scope="col" className="py-1 text-right font-medium">
                Cost
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {top.map((r) => (
              <tr key={r.resource}>
                <td className="py-1 pr-2 text-slate-700">
                  {resourceLabel(r.resource)}
                  {r.gpuUtilization !== null && <span className="block text-slate-500">{formatPercent(r.gpuUtilization)} busy</span>}
                </td>
                <td className="whitespace-nowrap py-1 pr-2 text-right tabular-nums text-slate-700">{formatUsageQuantity(r.resource, r.quantity)}</td>
                <td className="whitespace-nowrap py-1 text-right tabular-nums text-slate-900">{pricingOf(r) === "unpriced" ? "unpriced" : m(r.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="text-xs text-slate-500">
        Metered usage up to {formatDate(new Date(`${s.lastUsageDay}T00:00:00Z`))}; forecast from the last 7 days&apos; rate.
        {s.last30Days.unpricedResources.length > 0 && ` Not on the rate card, so left out of the cost: ${s.last30Days.unpricedResources.map(resourceLabel).join(", ")}.`}
        {s.demo && (
          <>
            {" "}
            <Badge tone="amber">demo data</Badge>
          </>
        )}
      </p>
    </div>
  );
}
