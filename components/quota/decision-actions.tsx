import { ActionDialog } from "../action-dialog";
import type { FieldSpec } from "../action-form";
import type { FormState } from "@/lib/form-state";
import { formatDate, formatDateTime } from "@/lib/format";
import { GiB, type QuotaAmounts } from "@/lib/quota/amounts";
import { addedPeriodCostPhrase, describeAmounts, formatBytes, formatCores, formatMoney, periodCostPhrase } from "@/lib/quota/view-helpers";
import { viewerTimeZone } from "@/lib/server/time-zone";

type Action = (state: FormState, formData: FormData) => Promise<FormState>;

export interface DecisionTarget {
  id: string;
  version: number;
  projectName: string;
  tenantSlug: string;
  amounts: QuotaAmounts;
  endsAt: Date | null;
  monthlyCost: number;
  conflict: string | null;
  /** An extension of a grant: its end when asked and its monthly rate now; approving moves that end to endsAt. */
  extending?: { from: Date; monthly: number } | null;
}

/** A quantity prefilled exactly: plain cores and GiB where exact, Kubernetes notation otherwise. */
const coresValue = (cores: number) => (Number.isInteger(cores) ? String(cores) : `${Math.round(cores * 1000)}m`);
const bytesValue = (bytes: number) => (bytes % GiB === 0 ? String(bytes / GiB) : bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20}Mi` : String(bytes));
const dateValue = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : "");

/**
 * Approve, approve with changes (less, or shorter: fields prefilled with what
 * was asked) and reject with a reason. Instead of the buttons, why this admin
 * may not decide (separation of duties). The actions are passed in.
 */
export async function DecisionActions({
  request: r,
  currency,
  approveAction,
  rejectAction,
  now,
  blockedReason,
}: {
  request: DecisionTarget;
  currency: string;
  approveAction: Action;
  rejectAction: Action;
  now: Date;
  /** Why this admin may not approve, though they may still reject (they gave the first approval). */
  blockedReason?: string | null;
}) {
  const zone = await viewerTimeZone();
  if (r.conflict) {
    return (
      <p role="note" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="decision-conflict">
        {r.conflict}
      </p>
    );
  }
  const base: FieldSpec[] = [
    { kind: "hidden", name: "requestId", value: r.id },
    { kind: "hidden", name: "version", value: String(r.version) },
  ];
  const ext = r.extending && r.endsAt ? { ...r.extending, to: r.endsAt } : null;
  const periodCost = ext ? addedPeriodCostPhrase(ext.monthly, ext.from, ext.to, currency) : periodCostPhrase(r.monthlyCost, now, r.endsAt, currency);
  const what = ext
    ? `the end of ${describeAmounts(r.amounts)} for ${r.projectName} (${r.tenantSlug}) from ${formatDateTime(ext.from, zone)} to ${formatDateTime(ext.to, zone)}`
    : `${describeAmounts(r.amounts)} for ${r.projectName} (${r.tenantSlug}), ${r.endsAt ? `until ${formatDateTime(r.endsAt, zone)}` : "permanently"}`;
  const monthly = ext ? ext.monthly : r.monthlyCost;
  const a = r.amounts;
  const tomorrow = new Date(now.getTime() + 86_400_000);
  const changeFields: FieldSpec[] = ext
    ? [
        ...base,
        {
          kind: "date",
          name: "endsAt",
          label: "Grant ends",
          defaultValue: dateValue(ext.to),
          min: dateValue(new Date(ext.from.getTime() + 86_400_000)),
          max: dateValue(ext.to),
          hint: `Asked: until ${formatDate(ext.to)}; it ends ${formatDate(ext.from)} now. An earlier date extends it less (00:00 UTC that day).`,
        },
        { kind: "textarea", name: "note", label: "Note to the requester", placeholder: "Why you extended it less, if you did" },
      ]
    : [
    ...base,
    { kind: "hidden", name: "askedEndsAt", value: dateValue(r.endsAt) },
    // One row per GPU model asked for: its model (hidden, so the command knows which line each figure is of), its count and its burst.
    ...a.gpus.flatMap((g, i): FieldSpec[] => [
      { kind: "hidden", name: `gpus.${i}.model`, value: g.model },
      ...(g.count > 0 ? [{ kind: "text", name: `gpus.${i}.count`, label: `${g.model} GPUs`, defaultValue: String(g.count), hint: `Asked: ${g.count}. Grant this many or fewer.` } satisfies FieldSpec] : []),
      ...(g.burst > 0 ? [{ kind: "text", name: `gpus.${i}.burst`, label: `Burst ${g.model} GPUs`, defaultValue: String(g.burst), hint: `Asked: ${g.burst}. Grant this many or fewer; 0 for none.` } satisfies FieldSpec] : []),
    ]),
    ...((a.cpuBurst ?? 0) > 0
      ? [{ kind: "text", name: "cpuBurst", label: "Burst CPU cores", defaultValue: coresValue(a.cpuBurst!), hint: `Asked: ${formatCores(a.cpuBurst!)}. Cores, or millicores such as 500m; 0 for none.` } satisfies FieldSpec]
      : []),
    ...((a.memoryBurstBytes ?? 0) > 0
      ? [{ kind: "text", name: "memoryBurst", label: "Burst memory (GiB)", defaultValue: bytesValue(a.memoryBurstBytes!), hint: `Asked: ${formatBytes(a.memoryBurstBytes!)}. GiB, or a quantity such as 512Mi; 0 for none.` } satisfies FieldSpec]
      : []),
    ...(a.cpuCores > 0
      ? [{ kind: "text", name: "cpuCores", label: "CPU cores", defaultValue: coresValue(a.cpuCores), hint: `Asked: ${formatCores(a.cpuCores)}. Cores, or millicores such as 500m.` } satisfies FieldSpec]
      : []),
    ...(a.memoryBytes > 0
      ? [{ kind: "text", name: "memory", label: "Memory (GiB)", defaultValue: bytesValue(a.memoryBytes), hint: `Asked: ${formatBytes(a.memoryBytes)}. GiB, or a quantity such as 512Mi.` } satisfies FieldSpec]
      : []),
    ...(a.storageBytes > 0
      ? [{ kind: "text", name: "storage", label: "Storage (GiB)", defaultValue: bytesValue(a.storageBytes), hint: `Asked: ${formatBytes(a.storageBytes)}. GiB, or a quantity such as 2Ti.` } satisfies FieldSpec]
      : []),
    {
      kind: "date",
      name: "endsAt",
      label: "Grant ends",
      defaultValue: dateValue(r.endsAt),
      min: dateValue(tomorrow),
      ...(r.endsAt ? { max: dateValue(r.endsAt) } : {}),
      hint: r.endsAt
        ? `Asked: until ${formatDate(r.endsAt, zone)}. An earlier date shortens the grant (it ends at 00:00 UTC that day).`
        : "Asked: permanent. Leave empty to keep it permanent, or pick a date to make it time-bound (ends 00:00 UTC).",
    },
    { kind: "textarea", name: "note", label: "Note to the requester", placeholder: "Why you granted less, if you did" },
      ];
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="decision-actions">
      {blockedReason ? (
        <p role="note" className="mr-2 text-sm text-amber-900">
          {blockedReason}
        </p>
      ) : (
        <>
      <ActionDialog
        triggerLabel="Approve"
        title={ext ? "Approve this extension?" : "Approve this request?"}
        description={
          ext
            ? `Moves ${what}: about ${formatMoney(monthly, currency)} a month${periodCost ? `, ${periodCost}` : ""}. The grant's end and the project's scheduled cluster change move at once.`
            : `Grants ${what}: about ${formatMoney(monthly, currency)} a month${periodCost ? `, ${periodCost}` : ""}. The grant is written and the project's cluster change queued at once.`
        }
        submitLabel="Approve"
        pendingLabel="Approving…"
        action={approveAction}
        fields={[...base, { kind: "textarea", name: "note", label: "Note to the requester", placeholder: "Optional" }]}
      />
      <ActionDialog
        triggerLabel="Approve with changes"
        triggerKind="secondary"
        title="Approve with changes"
        description={ext ? `Asked: to move ${what}. Extend it less: pick an earlier end.` : `Asked: ${what}. Grant less, or for a shorter time; fields left as they are grant what was asked.`}
        submitLabel="Approve with changes"
        pendingLabel="Approving…"
        action={approveAction}
        fields={changeFields}
      />
        </>
      )}
      <ActionDialog
        triggerLabel="Reject"
        triggerKind="secondary"
        danger
        title={ext ? "Reject this extension?" : "Reject this request?"}
        description={`Asked: ${ext ? `to move ${what}; the grant then ends as it does now` : what}. The requester and the tenant admins see your reason.`}
        submitLabel="Reject"
        pendingLabel="Rejecting…"
        action={rejectAction}
        fields={[...base, { kind: "textarea", name: "reason", label: "Reason", placeholder: "What the requester should know, e.g. what you could grant instead", required: true }]}
      />
    </div>
  );
}
