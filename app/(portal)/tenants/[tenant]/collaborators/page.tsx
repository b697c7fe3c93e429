import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { ActionDialog } from "@/components/action-form";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState, formatDate } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { config } from "@/lib/config";
import { dateInputValue } from "@/lib/format";
import { tenantCollaborators } from "@/lib/tenancy/member-queries";
import { tenantAccess } from "@/lib/tenancy/queries";
import { extendCollaboratorAction, revokeProjectGrantAction } from "../actions";
import { TenantHeader } from "../tenant-header";

export const metadata = { title: "Collaborators" };
const DAY = 86_400_000;

export default async function CollaboratorsPage({ params }: { params: Promise<{ tenant: string }> }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const detail = await tenantAccess(ctx, (await params).tenant);
  if (!detail?.canManageMembers) notFound();
  const { collaborators } = await tenantCollaborators(ctx, detail.tenant.slug);
  const maxDays = config().maxCollaboratorDays;
  const maxDate = dateInputValue(new Date(ctx.now.getTime() + maxDays * DAY));

  return (
    <>
      <TenantHeader detail={detail} />
      <Card title="External collaborators" description={`People outside the tenant with a role on one project. Access ends at the expiry instant; at most ${maxDays} days ahead.`}>
        {collaborators.length === 0 ? (
          <EmptyState title="No collaborators">Invite someone from outside the tenant from a project page: “Invite collaborator”.</EmptyState>
        ) : (
          <DataTable caption="External collaborators" columns={["Person", "Project", "Role", "Expires", "Sponsor", ""]}>
            {collaborators.map((c) => (
              <tr key={c.grantId}>
                <Cell>
                  <span className="font-medium">{c.displayName}</span>
                  <p className="text-xs text-slate-500">{c.email}</p>
                </Cell>
                <Cell>
                  <Link href={`/tenants/${detail.tenant.slug}/projects/${c.projectSlug}`} className="hover:underline">
                    {c.projectName}
                  </Link>
                </Cell>
                <Cell>{c.role}</Cell>
                <Cell>
                  {c.expiresAt ? formatDate(c.expiresAt) : "—"} {c.expired && <Badge tone="red">expired</Badge>}
                </Cell>
                <Cell>{c.sponsor ?? "—"}</Cell>
                <Cell className="space-x-3 whitespace-nowrap text-right">
                  <ActionDialog
                    triggerLabel="Change expiry"
                    triggerKind="link"
                    title={`Change the expiry for ${c.displayName}`}
                    description={`Access ends at the start of the chosen day (UTC). At most ${maxDays} days from today.`}
                    submitLabel="Save expiry"
                    action={extendCollaboratorAction}
                    fields={[
                      { kind: "hidden", name: "tenant", value: detail.tenant.slug },
                      { kind: "hidden", name: "project", value: c.projectSlug },
                      { kind: "hidden", name: "grantId", value: c.grantId },
                      { kind: "hidden", name: "version", value: String(c.version) },
                      { kind: "date", name: "expiresAt", label: "Expires", defaultValue: c.expiresAt ? dateInputValue(c.expiresAt) : undefined, max: maxDate },
                    ]}
                  />
                  <ActionDialog
                    triggerLabel="Revoke"
                    triggerKind="link"
                    danger
                    title={`Revoke ${c.displayName}'s access?`}
                    description="Their access to the project ends now."
                    submitLabel="Revoke access"
                    action={revokeProjectGrantAction}
                    fields={[
                      { kind: "hidden", name: "tenant", value: detail.tenant.slug },
                      { kind: "hidden", name: "project", value: c.projectSlug },
                      { kind: "hidden", name: "grantId", value: c.grantId },
                    ]}
                  />
                </Cell>
              </tr>
            ))}
          </DataTable>
        )}
      </Card>
    </>
  );
}
