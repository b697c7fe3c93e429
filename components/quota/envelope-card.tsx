import { ActionDialog } from "@/components/action-dialog";
import { type FieldSpec } from "@/components/action-form";
import { Cell, DataTable } from "@/components/table";
import { Card, EmptyState } from "@/components/ui";
import type { FormState } from "@/lib/form-state";
import type { QuotaKey } from "@/lib/quota/envelope";
import type { TenantEnvelopeView } from "@/lib/quota/envelope-queries";
import { formatLineAmount } from "./flavour-table";

type Action = (state: FormState, data: FormData) => Promise<FormState>;

/** "gpu:H100" -> "H100 GPUs", "cpu" -> "CPU cores", "memory" -> "Memory". */
export const quotaKeyLabel = (key: QuotaKey) => (key === "cpu" ? "CPU cores" : key === "memory" ? "Memory" : `${key.slice(4)} GPUs`);
const unitHint = (keys: readonly QuotaKey[]) => (keys.some((k) => k.startsWith("gpu:")) ? "GPUs as whole devices (MIG instances for a MIG profile), CPU in cores (4 or 500m), memory in GiB (64 or 64Gi)." : "CPU in cores (4 or 500m), memory in GiB (64 or 64Gi).");

/**
 * The tenant's envelope: what the platform approved for the whole tenant per
 * line, how it is divided among the projects, and what is left to give. Its
 * admins move quota between projects here without a ticket; platform admins
 * set the envelope.
 */
export function EnvelopeCard({ tenant, tenantName, view, moveAction, setAction }: { tenant: string; tenantName: string; view: TenantEnvelopeView; moveAction: Action; setAction: Action }) {
  const t: FieldSpec = { kind: "hidden", name: "tenant", value: tenant };
  const projectOptions = view.projects.map((p) => ({ value: p.slug, label: p.name }));
  const envelopeOption = { value: "", label: "Unallocated part of the envelope" };
  const keyOptions = (keys: readonly QuotaKey[]) => keys.map((k) => ({ value: k, label: quotaKeyLabel(k) }));
  const actions = (
    <div className="flex flex-wrap gap-2">
      {view.canMove && view.rows.length > 0 && (
        <ActionDialog
          triggerLabel="Move quota"
          triggerKind="secondary"
          title="Move quota between projects"
          description="Takes guaranteed quota from one project (or from what is unallocated) and gives it to another, at once and without a ticket. The total stays within the envelope; both namespaces follow."
          submitLabel="Move"
          action={moveAction}
          fields={[
            t,
            { kind: "select", name: "quota", label: "Resource", options: keyOptions(view.rows.map((r) => r.key)) },
            { kind: "select", name: "from", label: "From", options: [envelopeOption, ...projectOptions] },
            { kind: "select", name: "to", label: "To", options: [...projectOptions, envelopeOption], defaultValue: projectOptions[0]?.value },
            { kind: "text", name: "amount", label: "Amount", hint: unitHint(view.rows.map((r) => r.key)), required: true },
          ]}
        />
      )}
      {view.canSet && (
        <ActionDialog
          triggerLabel="Set envelope"
          triggerKind="secondary"
          title={`Envelope of ${tenantName}`}
          description="What the platform approves for the whole tenant, per resource. It cannot go below what the projects already hold. 0 and 0 removes the line."
          submitLabel="Save envelope"
          action={setAction}
          fields={[
            t,
            { kind: "select", name: "quota", label: "Resource", options: keyOptions(view.keys) },
            { kind: "text", name: "guarantee", label: "Guaranteed", hint: unitHint(view.keys), required: true },
            { kind: "text", name: "burst", label: "Burst", hint: "What the tenant's projects may borrow beyond it in all, for preemptible work. Empty: none." },
          ]}
        />
      )}
    </div>
  );
  return (
    <Card
      title="Quota envelope"
      description="What the platform approved for the whole tenant. Tenant admins divide it among the projects and move it between them without a ticket; more than the envelope goes to the platform as a quota request. The starting quota every project gets is outside it."
      actions={view.canMove || view.canSet ? actions : undefined}
    >
      {view.rows.length === 0 ? (
        <EmptyState title="No envelope yet">
          {view.canSet ? "Set one with “Set envelope”; the tenant admins can then divide it themselves." : "Quota comes from requests the platform approves, project by project. Ask the platform admins for an envelope to divide it yourselves."}
        </EmptyState>
      ) : (
        <DataTable caption={`Quota envelope of ${tenantName}`} columns={["Resource", "Envelope", "Allocated", "Unallocated", "By project"]}>
          {view.rows.map((r) => (
            <tr key={r.key}>
              <Cell className="whitespace-nowrap font-medium text-slate-900">{quotaKeyLabel(r.key)}</Cell>
              <Cell className="whitespace-nowrap tabular-nums">
                {formatLineAmount(r.line.resource, r.line.guarantee)}
                {r.line.burst > 0 && <span className="block text-xs text-slate-500">burst {formatLineAmount(r.line.resource, r.line.burst)}</span>}
              </Cell>
              <Cell className="whitespace-nowrap tabular-nums">{formatLineAmount(r.line.resource, r.allocated)}</Cell>
              <Cell className={`whitespace-nowrap tabular-nums ${r.unallocated < 0 ? "font-medium text-red-700" : ""}`}>{formatLineAmount(r.line.resource, r.unallocated)}</Cell>
              <Cell className="text-sm text-slate-700">
                <ul className="space-y-0.5">
                  {r.byProject
                    .filter((p) => p.guarantee !== 0 || p.burst !== 0)
                    .map((p) => (
                      <li key={p.slug}>
                        {p.name}: {formatLineAmount(r.line.resource, p.guarantee)}
                        {p.burst > 0 ? ` + burst ${formatLineAmount(r.line.resource, p.burst)}` : ""}
                      </li>
                    ))}
                  {r.byProject.every((p) => p.guarantee === 0 && p.burst === 0) && <li className="text-slate-500">none yet</li>}
                </ul>
              </Cell>
            </tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}
