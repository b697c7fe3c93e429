"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis, type TooltipContentProps, type YAxisTickContentProps } from "recharts";
import { compactMoney, money, periodLong, periodTick, resourceColours, resourceLabel } from "./format";
import type { SeriesTable } from "./pivot";

/**
 * The spend charts. They are pictures of tables that are also on the page
 * (screen readers get those), hence aria-hidden on the drawing itself.
 * Animation is off: figures change with the range, and screenshots compare.
 */

const AXIS_TICK = { fontSize: 12, fill: "#475569" };

/** A category label on one line, right-aligned to the axis (recharts would wrap names it measures as too wide). */
function CategoryTick({ x, y, payload }: YAxisTickContentProps) {
  return (
    <text x={Number(x) - 6} y={Number(y)} dy={4} textAnchor="end" fontSize={AXIS_TICK.fontSize} fill={AXIS_TICK.fill}>
      {String(payload.value)}
    </text>
  );
}

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

type TooltipRow = { label: string; colour: string; value: number };

function TooltipBox({ title, rows, total, currency }: { title: string; rows: TooltipRow[]; total?: number; currency: string }) {
  return (
    <div className="min-w-48 rounded-md border border-slate-200 bg-white px-3 py-2 text-xs shadow-lg">
      <p className="mb-1 font-semibold text-slate-900">{title}</p>
      <table className="w-full">
        <tbody>
          {rows.map((r) => (
            <tr key={r.label}>
              <td className="py-0.5 pr-3 text-slate-700">
                <span aria-hidden className="mr-1.5 inline-block h-2.5 w-2.5 rounded-sm align-middle" style={{ backgroundColor: r.colour }} />
                {r.label}
              </td>
              <td className="py-0.5 text-right tabular-nums text-slate-900">{money(r.value, currency)}</td>
            </tr>
          ))}
          {total !== undefined && (
            <tr className="border-t border-slate-200">
              <td className="pt-1 pr-3 font-medium text-slate-900">Total</td>
              <td className="pt-1 text-right font-medium tabular-nums text-slate-900">{money(total, currency)}</td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

type CostRow = { period: string; tick: string; total: number } & Record<string, number | string>;

/** Cost per period, stacked by resource. */
export function CostOverTimeChart({ table, currency }: { table: SeriesTable; currency: string }) {
  const colours = resourceColours(table.resources);
  const rows: CostRow[] = table.rows.map((r) => {
    const row: CostRow = { period: r.period, tick: periodTick(r.period, table.granularity), total: r.total };
    r.values.forEach((v, i) => (row[`r${i}`] = v));
    return row;
  });
  const ticks = moneyTicks(Math.max(0, ...rows.map((r) => r.total)));
  const tooltip = ({ active, payload }: TooltipContentProps) => {
    const row = payload?.[0]?.payload as CostRow | undefined;
    if (!active || !row) return null;
    const items = table.resources
      .map((key, i) => ({ label: resourceLabel(key), colour: colours.get(key)!, value: Number(row[`r${i}`] ?? 0) }))
      .filter((i) => i.value > 0)
      .reverse();
    return <TooltipBox title={periodLong(row.period, table.granularity)} rows={items} total={row.total} currency={currency} />;
  };
  return (
    <div className="h-80 w-full" aria-hidden>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={rows} margin={{ top: 8, right: 8, left: 4, bottom: 0 }} barCategoryGap={rows.length > 45 ? 1 : "20%"} accessibilityLayer={false}>
          <CartesianGrid vertical={false} stroke="#e2e8f0" />
          <XAxis dataKey="tick" tick={AXIS_TICK} tickLine={false} axisLine={{ stroke: "#cbd5e1" }} interval="preserveStartEnd" minTickGap={28} />
          <YAxis
            tick={AXIS_TICK}
            tickLine={false}
            axisLine={false}
            width={76}
            ticks={ticks}
            domain={[0, ticks[ticks.length - 1]!]}
            tickFormatter={(v: number) => compactMoney(v, currency)}
            label={{ value: `Cost (${currency})`, angle: -90, position: "insideLeft", offset: 4, style: { fontSize: 12, fill: "#64748b", textAnchor: "middle" } }}
          />
          <Tooltip content={tooltip} cursor={{ fill: "#f1f5f9" }} isAnimationActive={false} />
          <Legend verticalAlign="bottom" height={32} iconType="square" iconSize={10} wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
          {table.resources.map((key, i) => (
            <Bar key={key} dataKey={`r${i}`} name={resourceLabel(key)} stackId="cost" fill={colours.get(key)} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
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
  const data = rows.map((r) => ({ name: r.name, ...Object.fromEntries(segments.map((s) => [s.key, Math.max(0, r.values[s.key] ?? 0)])) }));
  const tooltip = ({ active, payload }: TooltipContentProps) => {
    const row = payload?.[0]?.payload as Record<string, number | string> | undefined;
    if (!active || !row) return null;
    const items = segments.map((s) => ({ label: s.label, colour: s.colour, value: Number(row[s.key] ?? 0) })).filter((i) => i.value > 0);
    return <TooltipBox title={String(row.name)} rows={items} total={items.reduce((s, i) => s + i.value, 0)} currency={currency} />;
  };
  const longest = Math.max(...rows.map((r) => r.name.length), 8);
  const ticks = moneyTicks(Math.max(0, ...rows.map((r) => segments.reduce((sum, seg) => sum + Math.max(0, r.values[seg.key] ?? 0), 0))));
  return (
    <div className="w-full" style={{ height: rows.length * 40 + 72 }} aria-hidden>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 16, left: 4, bottom: 4 }} barCategoryGap="25%" accessibilityLayer={false}>
          <CartesianGrid horizontal={false} stroke="#e2e8f0" />
          <XAxis type="number" ticks={ticks} domain={[0, ticks[ticks.length - 1]!]} tick={AXIS_TICK} tickLine={false} axisLine={{ stroke: "#cbd5e1" }} tickFormatter={(v: number) => compactMoney(v, currency)} />
          <YAxis type="category" dataKey="name" tick={CategoryTick} tickLine={false} axisLine={false} width={Math.min(240, Math.round(longest * 7) + 16)} />
          <Tooltip content={tooltip} cursor={{ fill: "#f1f5f9" }} isAnimationActive={false} />
          <Legend verticalAlign="bottom" height={28} iconType="square" iconSize={10} wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
          {segments.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.label} stackId="cost" fill={s.colour} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
