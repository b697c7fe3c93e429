import { redirect } from "next/navigation";
import { ActionDialog } from "@/components/action-dialog";
import { ActionForm } from "@/components/action-form";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState, PageHeader } from "@/components/ui";
import { db } from "@/db/client";
import { currentContext } from "@/lib/auth/current-actor";
import { requestableGpuModels } from "@/lib/quota/commands/requests";
import { myTenantRequests } from "@/lib/quota/queries";
import { cancelTenantRequestAction, requestTenantAction } from "./actions";
import { Time } from "@/components/time";

export const metadata = { title: "Ask for a tenant" };
export const dynamic = "force-dynamic";

const STATUS_TONE = { pending: "amber", approved: "green", rejected: "red", cancelled: "slate" } as const;

/** Onboarding by request: any signed-in person asks for a tenant for their team; platform admins decide in the queue. */
export default async function TenantRequestsPage() {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const [mine, models] = await Promise.all([myTenantRequests(ctx), requestableGpuModels(db())]);
  const gpuOptions = [{ value: "", label: "No GPUs" }, ...models.map((m) => ({ value: m.model, label: m.mig ? `${m.model} (MIG profile)` : m.model }))];

  return (
    <>
      <PageHeader title="Ask for a tenant" subtitle="A tenant is a team's space on the cluster: its admins, projects, quota and spend. The platform team approves each new tenant." />
      <div className="space-y-6">
        <Card title="New tenant" description="Everything below is created together when a platform admin approves: the tenant, its first admins, and its first project with this quota on top of the starting quota.">
          <ActionForm
            action={requestTenantAction}
            submitLabel="Send request"
            fields={[
              { kind: "text", name: "name", label: "Team name", placeholder: "Speech Lab", required: true },
              { kind: "text", name: "slug", label: "Tenant slug", placeholder: "speech-lab", hint: "Lower-case letters, digits and hyphens; prefixes every namespace of the tenant and cannot change." },
              { kind: "text", name: "costCentre", label: "Cost centre", placeholder: "CC-4500" },
              {
                kind: "select",
                name: "isolationTier",
                label: "Isolation",
                options: [
                  { value: "shared", label: "Shared node pools" },
                  { value: "dedicated", label: "Dedicated nodes (needs a node pool of its own)" },
                ],
                defaultValue: "shared",
              },
              { kind: "text", name: "firstAdmins", label: "First tenant admins", placeholder: ctx.actor.email ?? "name@example.com", hint: "Emails, separated by commas. Empty: you." },
              { kind: "text", name: "projectName", label: "First project", placeholder: "Speech recognition", required: true },
              { kind: "text", name: "projectSlug", label: "Project slug", placeholder: "asr" },
              { kind: "select", name: "gpuModel", label: "GPU model", options: gpuOptions, defaultValue: "" },
              { kind: "number", name: "gpuCount", label: "GPUs", placeholder: "0", min: "0" },
              { kind: "text", name: "cpuCores", label: "CPU cores", placeholder: "16 or 500m" },
              { kind: "text", name: "memory", label: "Memory (GiB)", placeholder: "64 or 64Gi" },
              { kind: "text", name: "storage", label: "Storage (GiB)", placeholder: "500 or 2Ti" },
              { kind: "textarea", name: "justification", label: "What the team will do", required: true },
            ]}
          />
        </Card>

        <Card title="Your tenant requests" description="Newest first.">
          {mine.length === 0 ? (
            <EmptyState title="No requests yet">When you send one, it appears here with the platform team&apos;s decision.</EmptyState>
          ) : (
            <DataTable caption="Your tenant requests" columns={["Tenant", "First project", "Asked", "Status", ""]}>
              {mine.map((r) => (
                <tr key={r.id}>
                  <Cell>
                    <span className="font-medium">{r.name}</span> <span className="font-mono text-xs text-slate-500">{r.slug}</span>
                  </Cell>
                  <Cell>{r.projectName}</Cell>
                  <Cell><Time at={r.createdAt} day /></Cell>
                  <Cell>
                    <Badge tone={STATUS_TONE[r.status]}>{r.status}</Badge>
                    {r.decisionNote && <p className="mt-1 text-xs text-slate-600">{r.decisionNote}</p>}
                  </Cell>
                  <Cell className="text-right">
                    {r.status === "pending" ? (
                      <ActionDialog
                        triggerLabel="Cancel"
                        triggerKind="link"
                        danger
                        title={`Cancel the request for ${r.name}?`}
                        description="The platform team will no longer see it."
                        submitLabel="Cancel request"
                        action={cancelTenantRequestAction}
                        fields={[{ kind: "hidden", name: "requestId", value: r.id }]}
                      />
                    ) : r.status === "approved" ? (
                      <a className="text-sm text-brand-700 hover:underline" href={`/tenants/${r.slug}`}>
                        Open tenant
                      </a>
                    ) : null}
                  </Cell>
                </tr>
              ))}
            </DataTable>
          )}
        </Card>
      </div>
    </>
  );
}
