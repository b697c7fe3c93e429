import { Badge } from "@/components/ui";
import type { MonthAtAGlance } from "@/lib/metering/month-at-a-glance";
import { formatMoney, formatPercent } from "@/lib/quota/view-helpers";
import { GlancePanel, UseBar } from "./glance-panel";

/**
 * This month so far against the budget, and the forecast for the month: the
 * figures of the spend page (lib/metering/month-at-a-glance.ts). Presentation only.
 */
export function MonthSpendPanel({ status, currency, href }: { status: MonthAtAGlance; currency: string; href: string }) {
  const m = (n: number) => formatMoney(n, currency);
  const budget = status.monthlyAmount;
  const overForecast = budget !== null && status.month.forecast > budget;
  return (
    <GlancePanel title="Spend this month" href={href} linkLabel="Spend" testId="glance-spend">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        <dt className="text-slate-600">So far</dt>
        <dd className="text-right tabular-nums text-slate-900" data-testid="month-to-date">
          {m(status.month.monthToDate)}
          {status.usedShare !== null && <span className="text-slate-600"> ({formatPercent(status.usedShare)} of the budget)</span>}
        </dd>
        <dt className="text-slate-600">Forecast</dt>
        <dd className={`text-right tabular-nums ${overForecast ? "font-medium text-red-700" : "text-slate-900"}`} data-testid="month-forecast">
          {m(status.month.forecast)}
          {overForecast && ` (over by ${m(status.month.forecast - budget)})`}
        </dd>
        <dt className="text-slate-600">Budget</dt>
        <dd className="text-right tabular-nums text-slate-900">{budget === null ? "none set" : `${m(budget)} a month`}</dd>
      </dl>
      {status.usedShare !== null && <UseBar share={status.usedShare} over={status.usedShare >= 1} />}
      <p className="mt-2 text-xs text-slate-600">
        Forecast from the last 7 days&apos; rate.
        {status.demo && (
          <span className="ml-2" title="Some of these figures come from generated demo usage, not from a cluster.">
            <Badge tone="amber">Demo data</Badge>
          </span>
        )}
      </p>
    </GlancePanel>
  );
}
