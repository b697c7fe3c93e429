import { approveTenantRequestAction, rejectTenantRequestAction } from "@/app/(portal)/tenant-requests/actions";
import { isEmpty } from "@/lib/quota/amounts";
import type { TenantRequestRow } from "@/lib/quota/queries";
import { describeAmounts } from "@/lib/quota/view-helpers";
import { ActionDialog } from "./action-dialog";
import { Cell, DataTable } from "./table";
import { Card, EmptyState } from "./ui";
import { Time } from "@/components/time";

const describeQuota = (q: TenantRequestRow["quota"]) => (isEmpty(q) ? "the starting quota only" : describeAmounts(q));

/** New tenants asked for by request, in the approval queue: approving creates the tenant, its admins and first project. */
export function TenantRequestQueue({ rows, currentPrincipalId }: { rows: TenantRequestRow[]; currentPrincipalId: string }) {
  return (
    <Card title="New tenants" description="Onboarding requests, oldest first. Approving creates the tenant, its first admins and its first project with this quota, and reconciles them.">
      {rows.length === 0 ? (
        <EmptyState title="No tenant requests waiting">Anyone signed in can ask for a tenant from “Ask for a tenant”.</EmptyState>
      ) : (
        <DataTable caption="Tenant requests waiting for a decision" columns={["Tenant", "Asked by", "First admins", "First project and quota", "Why", ""]}>
          {rows.map((r) => {
            const who = [
              { kind: "hidden" as const, name: "requestId", value: r.id },
              { kind: "hidden" as const, name: "version", value: String(r.version) },
            ];
            return (
              <tr key={r.id}>
                <Cell>
                  <span className="font-medium">{r.name}</span>
                  <p className="font-mono text-xs text-slate-500">
                    {r.slug} · {r.isolationTier} · {r.costCentre || "no cost centre"}
                  </p>
                </Cell>
                <Cell>
                  {r.requester ?? "—"}
                  <p className="text-xs text-slate-500"><Time at={r.createdAt} day /></p>
                </Cell>
                <Cell className="text-xs">{r.firstAdmins.join(", ")}</Cell>
                <Cell>
                  {r.projectName} <span className="font-mono text-xs text-slate-500">{r.projectSlug}</span>
                  <p className="text-xs text-slate-600">{describeQuota(r.quota)}</p>
                </Cell>
                <Cell className="max-w-xs text-xs text-slate-700">{r.justification}</Cell>
                <Cell className="space-x-3 whitespace-nowrap text-right">
                  {r.requestedBy === currentPrincipalId ? (
                    <span className="text-xs text-slate-500">Your own request: another admin decides</span>
                  ) : (
                    <>
                      <ActionDialog triggerLabel="Approve" title={`Create the tenant ${r.name}?`} description="The tenant, its admins and its first project are created now and applied to the cluster." submitLabel="Approve and create" action={approveTenantRequestAction} fields={who} />
                      <ActionDialog
                        triggerLabel="Reject"
                        triggerKind="link"
                        danger
                        title={`Reject the request for ${r.name}?`}
                        description="The requester sees your reason."
                        submitLabel="Reject"
                        action={rejectTenantRequestAction}
                        fields={[...who, { kind: "textarea", name: "reason", label: "Reason", required: true }]}
                      />
                    </>
                  )}
                </Cell>
              </tr>
            );
          })}
        </DataTable>
      )}
    </Card>
  );
}
