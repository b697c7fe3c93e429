"use client";

import { Cell, DataTable } from "@/components/table";
import { Badge } from "@/components/ui";
import { pricingOf } from "@/lib/metering/units";
import { minorDigits, shareOf, subtractMoney } from "@/lib/money";
import type { SpendData } from "@/lib/server/spend-json";
import { changeAgainst, money, percent, periodLong, quantity, resourceLabel } from "./format";
import type { SeriesTable } from "./pivot";

/** The numbers behind the spend charts, as real tables. */

/** part ÷ whole of two rounded amounts as a percentage; "—" without a whole. */
function shareText(part: number, whole: number, digits: number): string {
  const share = shareOf(part, whole, digits);
  return share === null ? "—" : percent(share);
}

/**
 * Cost per period and resource: the chart's own figures, for screen readers
 * and for reading exact values. Hours are rounded per hour, the window's
 * total per day (lib/money.ts), so an hourly table can differ from the
 * window's spend by a few cents: that difference is its own "Rounding" line.
 */
export function CostOverTimeTable({ table, currency, caption, windowTotal, unpriced }: { table: SeriesTable; currency: string; caption: string; windowTotal: number; unpriced: ReadonlySet<string> }) {
  const { totals, grandTotal: grand } = table;
  const rounding = subtractMoney(windowTotal, grand, minorDigits(currency));
  return (
    <details className="mt-4 group" data-testid="spend-table-toggle">
      <summary className="cursor-pointer text-sm font-medium text-brand-700 hover:underline">Show as table</summary>
      <div className="mt-3 max-h-[28rem] overflow-y-auto">
        <DataTable caption={caption} columns={[table.granularity === "month" ? "Month" : table.granularity === "hour" ? "Hour" : "Day", ...table.resources.map(resourceLabel), "Total"]}>
          {table.rows.map((r) => (
            <tr key={r.period}>
              <Cell className="whitespace-nowrap text-slate-700">{periodLong(r.period, table.granularity)}</Cell>
              {r.values.map((v, i) => (
                <Cell key={table.resources[i]} className={`whitespace-nowrap tabular-nums ${v === 0 ? "text-slate-500" : ""}`}>
                  {v === 0 && unpriced.has(table.resources[i]!) ? "unpriced" : money(v, currency)}
                </Cell>
              ))}
              <Cell className="whitespace-nowrap font-medium tabular-nums">{money(r.total, currency)}</Cell>
            </tr>
          ))}
          <tr className="bg-slate-50">
            <Cell className="font-medium text-slate-900">Total</Cell>
            {totals.map((v, i) => (
              <Cell key={table.resources[i]} className="whitespace-nowrap font-medium tabular-nums">
                {v === 0 && unpriced.has(table.resources[i]!) ? "unpriced" : money(v, currency)}
              </Cell>
            ))}
            <Cell className="whitespace-nowrap font-semibold tabular-nums">{money(grand, currency)}</Cell>
          </tr>
          {rounding !== 0 && (
            <>
              <tr data-testid="spend-table-rounding">
                <Cell className="text-slate-600">Rounding</Cell>
                <Cell className="text-xs text-slate-500" colSpan={table.resources.length}>
                  hours are rounded to the cent each, the window&apos;s spend day by day
                </Cell>
                <Cell className="whitespace-nowrap tabular-nums text-slate-600">{money(rounding, currency)}</Cell>
              </tr>
              <tr className="bg-slate-50">
                <Cell className="font-medium text-slate-900">Spend in window</Cell>
                <Cell colSpan={table.resources.length} />
                <Cell className="whitespace-nowrap font-semibold tabular-nums">{money(windowTotal, currency)}</Cell>
              </tr>
            </>
          )}
        </DataTable>
      </div>
    </details>
  );
}

/** Cost per resource over the window, most expensive first, with what was used and, for GPUs, how busy they were. */
export function CostDriversTable({ data, caption }: { data: SpendData; caption: string }) {
  const used = data.byResource.filter((r) => r.cost > 0 || r.quantity > 0);
  const digits = minorDigits(data.currency);
  const before = new Map(data.previous.byResource.map((p) => [p.resource, p.cost]));
  // A resource that cost something in the period before but nothing now still gets its row: where spend stopped is a change too.
  const stopped = data.previous.byResource.filter((p) => p.cost > 0 && !used.some((r) => r.resource === p.resource));
  const rows: SpendData["byResource"] = [...used, ...stopped.map((p) => ({ resource: p.resource, quantity: 0, cost: 0, unpricedQuantity: 0, gpuUtilization: null }))];
  // Borrowed GPU use is shown only where some was borrowed: without burst every GPU-hour is within the guarantee.
  const anyBorrowed = rows.some((r) => (r.borrowed?.quantity ?? 0) > 0);
  return (
    <DataTable caption={caption} columns={["Resource", "Used", "Cost", "Share", "Against previous period", "GPU utilisation", ...(anyBorrowed ? ["Borrowed beyond guarantee"] : [])]}>
      {rows.map((r) => (
        <tr key={r.resource}>
          <Cell className="whitespace-nowrap font-medium text-slate-900">
            {resourceLabel(r.resource)}
            {pricingOf(r) === "partly" && (
              <span className="ml-2">
                <Badge tone="amber">partly unpriced</Badge>
              </span>
            )}
          </Cell>
          <Cell className="whitespace-nowrap tabular-nums text-slate-700">{quantity(r.quantity, r.resource)}</Cell>
          <Cell className="whitespace-nowrap tabular-nums">{pricingOf(r) === "unpriced" ? <Badge tone="amber">unpriced</Badge> : money(r.cost, data.currency)}</Cell>
          <Cell className="whitespace-nowrap tabular-nums text-slate-700">{shareText(r.cost, data.totalCost, digits)}</Cell>
          <PreviousCell now={r.cost} before={before.get(r.resource) ?? 0} currency={data.currency} />
          <Cell className="whitespace-nowrap tabular-nums text-slate-700">
            {r.resource.startsWith("gpu:") ? r.gpuUtilization === null ? <span className="text-slate-500">not measured</span> : <Utilisation ratio={r.gpuUtilization} /> : <span className="text-slate-500">—</span>}
          </Cell>
          {anyBorrowed && (
            <Cell className="whitespace-nowrap tabular-nums text-slate-700">
              {r.borrowed && r.borrowed.quantity > 0 ? (
                <>
                  {quantity(r.borrowed.quantity, r.resource)} · {money(r.borrowed.cost, data.currency)}
                  <span className="block text-xs text-slate-500">within guarantee {money(subtractMoney(r.cost, r.borrowed.cost, digits), data.currency)}</span>
                </>
              ) : (
                <span className="text-slate-500">—</span>
              )}
            </Cell>
          )}
        </tr>
      ))}
    </DataTable>
  );
}

/** A resource's cost against the period before: the change, and what it was then. */
function PreviousCell({ now, before, currency }: { now: number; before: number; currency: string }) {
  const { delta, text } = changeAgainst(now, before, currency);
  return (
    <Cell className="whitespace-nowrap tabular-nums">
      <span className={delta > 0 ? "font-medium text-amber-800" : delta < 0 ? "font-medium text-green-800" : "text-slate-600"} data-testid="resource-previous-delta" data-delta={delta}>
        {text}
      </span>
      <span className="block text-xs text-slate-500">was {money(before, currency)}</span>
    </Cell>
  );
}

/** A utilisation figure with a small bar; low figures in amber. */
export function Utilisation({ ratio, low = 0.2 }: { ratio: number; low?: number }) {
  const width = Math.max(0, Math.min(1, ratio)) * 100;
  return (
    <span className="inline-flex items-center gap-2">
      <span className="h-1.5 w-16 overflow-hidden rounded-full bg-slate-100" aria-hidden>
        <span className={`block h-full rounded-full ${ratio < low ? "bg-amber-500" : "bg-emerald-500"}`} style={{ width: `${width}%` }} />
      </span>
      <span className={ratio < low ? "font-medium text-amber-800" : ""}>{percent(ratio)}</span>
    </span>
  );
}
