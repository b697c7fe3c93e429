import type { ReactNode } from "react";
import type { EffectiveQuota } from "@/lib/cluster/desired-state";
import { fitNote, type CapacityLine } from "@/lib/quota/capacity";
import type { CostEstimate } from "@/lib/quota/cost";
import type { QuotaPolicy } from "@/lib/quota/policy";
import { ScrollBox } from "@/components/table";
import { formatBytes, formatCapacityValue, formatCores, formatMoney, formatShare, formatUnitPrice, overcommitOf, resourceLabel } from "@/lib/quota/view-helpers";

/**
 * The tables of the quota pages, shared by the request form's live preview
 * (a client component), the request page and the approval queue. Pure
 * presentation: no data access, no server imports.
 */

export function MiniTable({ caption, columns, children, className = "" }: { caption: string; columns: ReactNode[]; children: ReactNode; className?: string }) {
  return (
    <ScrollBox label={caption} className={className}>
      <table className="min-w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col" className={`py-1.5 pr-3 font-medium ${i > 0 ? "text-right" : ""}`}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </ScrollBox>
  );
}

export function Td({ children, className = "", first = false }: { children: ReactNode; className?: string; first?: boolean }) {
  return <td className={`py-1.5 pr-3 align-top ${first ? "" : "text-right tabular-nums"} ${className}`}>{children}</td>;
}

/** burstByModel: GPUs the project may borrow beyond its guarantee, by model (absent: none). */
type QuotaState = { quota: EffectiveQuota; gpusByModel: Record<string, number>; burstByModel?: Record<string, number> };

/** A burst row, only when there is burst now or after (projects without burst see no empty rows). */
function burstRow(label: string, now: number, after: number | undefined, format: (n: number) => string) {
  if (now === 0 && !after) return [];
  return [{ label, now: format(now), after: after === undefined ? undefined : format(after), changed: after !== undefined && after !== now }];
}

/** Quota rows: CPU and memory (with their burst, if any), GPUs by model, storage and PVCs, for one or two states (now, after approval). */
export function QuotaComparison({ now, after, caption, nowLabel = "Now", afterLabel = "After approval" }: { now: QuotaState; after?: QuotaState; caption: string; nowLabel?: string; afterLabel?: string }) {
  const models = [...new Set([...Object.keys(now.gpusByModel), ...Object.keys(after?.gpusByModel ?? {})])].sort();
  const burstModels = [...new Set([...Object.keys(now.burstByModel ?? {}), ...Object.keys(after?.burstByModel ?? {})])].sort();
  const rows: { label: string; now: string; after?: string; changed: boolean }[] = [
    { label: "CPU cores", now: formatCores(now.quota.cpuCores), after: after && formatCores(after.quota.cpuCores), changed: !!after && after.quota.cpuCores !== now.quota.cpuCores },
    ...burstRow("Burst CPU cores", now.quota.burst?.cpuCores ?? 0, after && (after.quota.burst?.cpuCores ?? 0), formatCores),
    { label: "Memory", now: formatBytes(now.quota.memoryBytes), after: after && formatBytes(after.quota.memoryBytes), changed: !!after && after.quota.memoryBytes !== now.quota.memoryBytes },
    ...burstRow("Burst memory", now.quota.burst?.memoryBytes ?? 0, after && (after.quota.burst?.memoryBytes ?? 0), formatBytes),
    ...models.map((m) => ({
      label: `${m} GPUs`,
      now: String(now.gpusByModel[m] ?? 0),
      after: after && String(after.gpusByModel[m] ?? 0),
      changed: !!after && (after.gpusByModel[m] ?? 0) !== (now.gpusByModel[m] ?? 0),
    })),
    ...burstModels.map((m) => ({
      label: `${m} burst GPUs`,
      now: String(now.burstByModel?.[m] ?? 0),
      after: after && String(after.burstByModel?.[m] ?? 0),
      changed: !!after && (after.burstByModel?.[m] ?? 0) !== (now.burstByModel?.[m] ?? 0),
    })),
    ...(models.length === 0 ? [{ label: "GPUs", now: "none", after: after && "none", changed: false }] : []),
    { label: "Storage", now: formatBytes(now.quota.storageBytes), after: after && formatBytes(after.quota.storageBytes), changed: !!after && after.quota.storageBytes !== now.quota.storageBytes },
    { label: "Volume claims (PVCs)", now: String(now.quota.pvcCount), after: after && String(after.quota.pvcCount), changed: false },
  ];
  return (
    <MiniTable caption={caption} columns={["Resource", nowLabel, ...(after ? [afterLabel] : [])]}>
      {rows.map((r) => (
        <tr key={r.label}>
          <Td first className="text-slate-700">
            {r.label}
          </Td>
          <Td>{r.now}</Td>
          {after && <Td className={r.changed ? "font-semibold text-brand-700" : ""}>{r.after}</Td>}
        </tr>
      ))}
    </MiniTable>
  );
}

/** The lines of a monthly cost estimate, its total, and what the rate card does not price. */
export function CostLines({ estimate, currency, caption, totalLabel = "Per month" }: { estimate: CostEstimate; currency: string; caption: string; totalLabel?: string }) {
  return (
    <div className="space-y-2">
      {estimate.lines.length === 0 ? (
        <p className="text-sm text-slate-500">Nothing priced yet.</p>
      ) : (
        <MiniTable caption={caption} columns={["Resource", "Quantity × price", "Per month"]}>
          {estimate.lines.map((l) => (
            <tr key={l.resource}>
              <Td first className="whitespace-nowrap text-slate-700">
                {resourceLabel(l.resource)}
              </Td>
              <Td className="text-slate-600">
                {(Math.round(l.quantity * 1000) / 1000).toLocaleString("en-US")} × {formatUnitPrice(l.unitPrice, currency)}
                <span className="block text-xs text-slate-500">per {l.unit}</span>
              </Td>
              <Td className="whitespace-nowrap">{formatMoney(l.monthly, currency)}</Td>
            </tr>
          ))}
          <tr>
            <Td first className="whitespace-nowrap font-medium text-slate-900">
              {totalLabel}
            </Td>
            <Td>{""}</Td>
            <Td className="whitespace-nowrap font-semibold text-slate-900">{formatMoney(estimate.monthly, currency)}</Td>
          </tr>
        </MiniTable>
      )}
      {estimate.unpriced.length > 0 && (
        <p role="note" className="rounded-md bg-amber-50 px-3 py-2 text-xs text-amber-900">
          Not on the rate card, so left out of the estimate: {estimate.unpriced.map(resourceLabel).join(", ")}.
        </p>
      )}
    </div>
  );
}

/** Allocated / capacity per affected resource, before and after, with the overcommit ratio in force. */
export function CapacityTable({ lines, policy, caption }: { lines: readonly CapacityLine[]; policy: QuotaPolicy; caption: string }) {
  if (lines.length === 0) return <p className="text-sm text-slate-500">The request adds nothing that node pools hold (storage only).</p>;
  return (
    <MiniTable caption={caption} columns={["Resource", "Capacity", "Allocated", "After"]}>
      {lines.map((l) => (
        <tr key={l.resource}>
          <Td first className="text-slate-700">
            <span className="whitespace-nowrap">{l.resource === "memory" ? "Memory" : l.label}</span>
            <UsageBar before={l.before} after={l.after} capacity={l.capacity} exceeds={l.exceeds} />
            {l.exceeds && <span className={`mt-1 block max-w-56 text-xs font-medium ${l.fit.kind === "grows" ? "text-amber-800" : "text-red-700"}`}>{fitNote(l)}</span>}
          </Td>
          <Td className="whitespace-nowrap">
            {formatCapacityValue(l.resource, l.capacity)}
            <span className="block text-xs text-slate-500">overcommit ×{overcommitOf(policy, l.resource)}</span>
            {l.capacityAtMax > l.capacity && <span className="block text-xs text-slate-500">up to {formatCapacityValue(l.resource, l.capacityAtMax)} at the autoscaler maximum</span>}
          </Td>
          <Td className="whitespace-nowrap">
            {formatCapacityValue(l.resource, l.before)}
            <span className="block text-xs text-slate-500">{percent(l.before, l.capacity)}</span>
          </Td>
          <Td className={`whitespace-nowrap font-semibold ${l.exceeds ? "text-red-700" : "text-slate-900"}`}>
            {formatCapacityValue(l.resource, l.after)}
            <span className={`block text-xs ${l.exceeds ? "font-medium text-red-700" : "font-normal text-slate-500"}`}>{percent(l.after, l.capacity)}</span>
          </Td>
        </tr>
      ))}
    </MiniTable>
  );
}

const percent = (v: number, cap: number) => (cap > 0 ? `${Math.round((v / cap) * 1000) / 10}%` : "no capacity");

/** Allocated now (dark) and what the request adds (light), of capacity. */
function UsageBar({ before, after, capacity, exceeds }: { before: number; after: number; capacity: number; exceeds: boolean }) {
  const scale = Math.max(capacity, after, 1e-9);
  const b = Math.min(100, (before / scale) * 100);
  const a = Math.min(100, (after / scale) * 100);
  return (
    <span aria-hidden className="relative mt-1.5 block h-1.5 w-20 overflow-hidden rounded-full bg-slate-200">
      <span className={`absolute inset-y-0 left-0 ${exceeds ? "bg-red-300" : "bg-brand-200"}`} style={{ width: `${a}%` }} />
      <span className="absolute inset-y-0 left-0 bg-brand-600" style={{ width: `${b}%` }} />
      {capacity < after && <span className="absolute inset-y-0 w-px bg-red-700" style={{ left: `${(capacity / scale) * 100}%` }} />}
    </span>
  );
}

/**
 * Each tenant's share of the cluster per resource (what its open projects
 * hold / capacity), with `keys` always shown (the resources a request
 * touches) and, for the requesting tenant, its share after approval.
 */
export function SharesTable({
  shares,
  caption,
  highlight,
  keys: always = [],
  after = {},
}: {
  shares: readonly { tenant: string; shares: Record<string, number> }[];
  caption: string;
  highlight?: string;
  keys?: readonly string[];
  after?: Record<string, number>;
}) {
  const keys = [...new Set([...always, ...shares.flatMap((s) => Object.keys(s.shares))])].sort((a, b) => order(a) - order(b) || (a < b ? -1 : 1));
  if (shares.length === 0) return <p className="text-sm text-slate-500">No tenant holds quota yet.</p>;
  const rows = [...shares];
  if (highlight && !rows.some((s) => s.tenant === highlight)) rows.push({ tenant: highlight, shares: {} });
  return (
    <MiniTable caption={caption} columns={["Tenant", ...keys.map((k) => (k === "cpu" ? "CPU" : k === "memory" ? "Memory" : `${k.slice(4)} GPUs`))]}>
      {rows
        .sort((a, b) => (a.tenant < b.tenant ? -1 : 1))
        .map((s) => (
          <tr key={s.tenant} className={s.tenant === highlight ? "bg-brand-50/60" : ""}>
            <Td first className={s.tenant === highlight ? "font-medium text-slate-900" : "text-slate-700"}>
              {s.tenant}
            </Td>
            {keys.map((k) => (
              <Td key={k} className="whitespace-nowrap">
                {formatShare(s.shares[k] ?? 0)}
                {s.tenant === highlight && after[k] !== undefined && after[k] !== (s.shares[k] ?? 0) && (
                  <span className="block text-xs font-medium text-brand-700">→ {formatShare(after[k])}</span>
                )}
              </Td>
            ))}
          </tr>
        ))}
    </MiniTable>
  );
}

const order = (k: string) => (k === "cpu" ? 0 : k === "memory" ? 1 : 2);
