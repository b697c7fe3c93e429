import { divideMoney, minorDigits } from "@/lib/money";
import { compactMoney, money, periodLong, periodTick, resourceColours, resourceLabel, type Granularity } from "./format";
import { BUDGET_COLOUR } from "./palette";
import type { SeriesTable } from "./pivot";

/**
 * The spend charts, drawn as plain HTML boxes sized in percent: they are in
 * the server-rendered page and visible with its first paint, with no chart
 * library to load and no measuring of the container before drawing (which
 * kept the first chart off screen for one to two and a half seconds). They
 * are pictures of tables that are also on the page (screen readers get
 * those), hence aria-hidden; hovering a bar shows its figures (title).
 */

/** Round ticks from zero past the largest value: steps of 1, 2, 2.5 or 5 × a power of ten, at most 5 of them. */
export function moneyTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let t = 0; t < max + step; t += step) ticks.push(Math.round(t * 1e6) / 1e6);
  return ticks;
}

const DAY_MS = 86_400_000;

function daysInMonthOf(period: string): number {
  const d = new Date(period.length === 10 ? `${period}T00:00:00Z` : period);
  return Math.round((Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)) / DAY_MS);
}

/**
 * A monthly budget as the share of one period of the chart: the whole budget
 * for a month, budget ÷ days of that month for a day, ÷ its hours for an hour
 * (rounded to the cent like every figure, lib/money.ts).
 */
export function budgetPerPeriod(monthly: number, period: string, granularity: Granularity, currency: string): number {
  if (granularity === "month") return monthly;
  const days = daysInMonthOf(period);
  return divideMoney(monthly, granularity === "day" ? days : days * 24, minorDigits(currency));
}

const pct = (value: number, top: number) => `${Math.max(0, Math.min(100, (value / top) * 100))}%`;

/** Whether a period gets an axis label when about `labels` fit: the first, the last, and evenly spaced ones between. */
function labelled(count: number, index: number, labels: number): boolean {
  const every = Math.max(1, Math.ceil(count / labels));
  return index === 0 || index === count - 1 ? true : index % every === 0 && index < count - every / 2;
}

/** A period's label under the chart: about 8 of them on a wide screen, 3 on a phone's. */
function AxisLabel({ count, index, text }: { count: number; index: number; text: string }) {
  const wide = labelled(count, index, 8);
  const narrow = labelled(count, index, 3);
  if (!wide && !narrow) return null;
  const visibility = wide && narrow ? "" : wide ? "hidden sm:inline" : "sm:hidden";
  const place = index === 0 ? "left-0" : index === count - 1 ? "right-0" : "left-1/2 -translate-x-1/2";
  return <span className={`absolute top-0 whitespace-nowrap ${visibility} ${place}`}>{text}</span>;
}

function Legend({ items }: { items: { label: string; colour: string; dashed?: boolean }[] }) {
  return (
    <ul className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-700">
      {items.map((i) => (
        <li key={i.label} className="flex items-center gap-1.5">
          {i.dashed ? (
            <span aria-hidden className="inline-block w-4 border-t-2 border-dashed" style={{ borderColor: i.colour }} />
          ) : (
            <span aria-hidden className="inline-block h-2.5 w-2.5 rounded-sm" style={{ backgroundColor: i.colour }} />
          )}
          {i.label}
        </li>
      ))}
    </ul>
  );
}

/** Cost per period, stacked by resource, with the budget's share of each period where a budget is set. */
export function CostOverTimeChart({ table, currency, monthlyBudget }: { table: SeriesTable; currency: string; monthlyBudget?: number | null }) {
  const colours = resourceColours(table.resources);
  const budgets = monthlyBudget == null ? null : table.rows.map((r) => budgetPerPeriod(monthlyBudget, r.period, table.granularity, currency));
  const ticks = moneyTicks(Math.max(0, ...table.rows.map((r) => r.total), ...(budgets ?? [])));
  const top = ticks[ticks.length - 1]!;
  const per = table.granularity === "month" ? "a month" : table.granularity === "hour" ? "an hour" : "a day";
  const budgetLabel = budgets && budgets.length > 0 ? `Budget (${money(monthlyBudget!, currency)} a month${table.granularity === "month" ? "" : `, about ${money(budgets[budgets.length - 1]!, currency)} ${per}`})` : null;
  return (
    <div aria-hidden data-testid="cost-chart">
      <div className="flex h-72 sm:h-80">
        <div className="relative w-14 shrink-0 text-right text-[11px] text-slate-600 tabular-nums sm:w-16 sm:text-xs">
          {ticks.map((t) => (
            <span key={t} className="absolute right-2 translate-y-1/2 leading-none" style={{ bottom: pct(t, top) }}>
              {compactMoney(t, currency)}
            </span>
          ))}
        </div>
        <div className="relative flex-1 border-b border-l border-slate-300">
          {ticks.slice(1).map((t) => (
            <div key={t} className="absolute inset-x-0 border-t border-slate-200" style={{ bottom: pct(t, top) }} />
          ))}
          <div className={`absolute inset-0 flex items-stretch ${table.rows.length > 45 ? "gap-0" : "gap-[2px] sm:gap-1"} px-0.5`}>
            {table.rows.map((row, i) => (
              <div
                key={row.period}
                className="relative flex h-full min-w-0 flex-1 flex-col-reverse hover:bg-slate-100/70"
                title={[
                  `${periodLong(row.period, table.granularity)}: ${money(row.total, currency)}`,
                  ...table.resources.map((key, j) => [key, row.values[j]!] as const).filter(([, v]) => v > 0).map(([key, v]) => `${resourceLabel(key)}: ${money(v, currency)}`),
                  ...(budgets ? [`Budget: ${money(budgets[i]!, currency)}`] : []),
                ].join("\n")}
                data-period={row.period}
                data-total={row.total}
              >
                {table.resources.map((key, j) =>
                  row.values[j]! > 0 ? <div key={key} className="w-full shrink-0" style={{ height: pct(row.values[j]!, top), backgroundColor: colours.get(key) }} /> : null,
                )}
                {budgets && <div className="absolute inset-x-0 border-t-2 border-dashed" style={{ bottom: pct(budgets[i]!, top), borderColor: BUDGET_COLOUR }} data-testid="budget-line" data-budget={budgets[i]} />}
              </div>
            ))}
          </div>
        </div>
      </div>
      <div className="ml-14 flex px-0.5 pt-1 text-[11px] text-slate-600 sm:ml-16 sm:text-xs">
        {table.rows.map((row, i) => (
          <div key={row.period} className="relative h-4 min-w-0 flex-1">
            <AxisLabel count={table.rows.length} index={i} text={periodTick(row.period, table.granularity)} />
          </div>
        ))}
      </div>
      <Legend
        items={[
          ...table.resources.map((key) => ({ label: resourceLabel(key), colour: colours.get(key)! })),
          ...(budgetLabel ? [{ label: budgetLabel, colour: BUDGET_COLOUR, dashed: true }] : []),
        ]}
      />
    </div>
  );
}

export interface BarSegment {
  key: string;
  label: string;
  colour: string;
}

/** One horizontal bar per named thing (project, tenant), split into segments: what each costs and of what. */
export function NamedCostBars({ rows, segments, currency }: { rows: { name: string; values: Record<string, number> }[]; segments: BarSegment[]; currency: string }) {
  const sized = rows.map((r) => ({ name: r.name, parts: segments.map((s) => ({ ...s, value: Math.max(0, r.values[s.key] ?? 0) })) }));
  const ticks = moneyTicks(Math.max(0, ...sized.map((r) => r.parts.reduce((sum, p) => sum + p.value, 0))));
  const top = ticks[ticks.length - 1]!;
  return (
    <div aria-hidden data-testid="named-cost-bars">
      <ul className="space-y-2">
        {sized.map((r) => {
          const total = r.parts.reduce((sum, p) => sum + p.value, 0);
          return (
            <li key={r.name} className="grid grid-cols-[minmax(0,9rem)_1fr] items-center gap-3 text-xs sm:grid-cols-[minmax(0,14rem)_1fr]">
              <span className="truncate text-right text-slate-700" title={r.name}>
                {r.name}
              </span>
              <div
                className="flex h-6 border-l border-slate-300"
                title={[`${r.name}: ${money(total, currency)}`, ...r.parts.filter((p) => p.value > 0).map((p) => `${p.label}: ${money(p.value, currency)}`)].join("\n")}
              >
                {r.parts.map((p) => (p.value > 0 ? <div key={p.key} className="h-full shrink-0" style={{ width: pct(p.value, top), backgroundColor: p.colour }} /> : null))}
              </div>
            </li>
          );
        })}
      </ul>
      <div className="mt-1 grid grid-cols-[minmax(0,9rem)_1fr] gap-3 text-[11px] text-slate-600 tabular-nums sm:grid-cols-[minmax(0,14rem)_1fr] sm:text-xs">
        <span />
        <div className="relative h-4">
          {ticks.map((t, i) => (
            <span key={t} className={`absolute top-0 whitespace-nowrap ${i === 0 ? "" : i === ticks.length - 1 ? "-translate-x-full" : "-translate-x-1/2"}`} style={{ left: pct(t, top) }}>
              {compactMoney(t, currency)}
            </span>
          ))}
        </div>
      </div>
      <Legend items={segments} />
    </div>
  );
}
