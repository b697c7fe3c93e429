import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { ActionDialog } from "@/components/action-dialog";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { config } from "@/lib/config";
import { dateInputValue, formatDateTime } from "@/lib/format";
import { pendingExtensionRequests } from "@/lib/tenancy/extension-queries";
import { tenantCollaborators } from "@/lib/tenancy/member-queries";
import { tenantAccess } from "@/lib/tenancy/queries";
import { declineExtensionAction, extendCollaboratorAction, grantExtensionAction, revokeProjectGrantAction } from "../actions";
import { TenantHeader } from "../tenant-header";
import { Time } from "@/components/time";
import { viewerTimeZone } from "@/lib/server/time-zone";

export const metadata = { title: "Collaborators" };
const DAY = 86_400_000;

export default async function CollaboratorsPage({ params }: { params: Promise<{ tenant: string }> }) {
  const ctx = await currentContext();
  const zone = await viewerTimeZone();
  if (!ctx) redirect("/sign-in");
  const detail = await tenantAccess(ctx, (await params).tenant);
  if (!detail?.canManageMembers) notFound();
  const [{ collaborators }, requests] = await Promise.all([tenantCollaborators(ctx, detail.tenant.slug), pendingExtensionRequests(ctx, detail.tenant.slug)]);
  const maxDays = config().maxCollaboratorDays;
  const maxDate = dateInputValue(new Date(ctx.now.getTime() + maxDays * DAY));

  return (
    <>
      <TenantHeader detail={detail} />
      {requests.length > 0 && (
        <div className="mb-6">
          <Card
            title={`Extension requests (${requests.length})`}
            description={`People whose access ends soon ask to keep it. Granting moves the end to the date asked for (or an earlier one you choose), at most ${maxDays} days from today; declining leaves it as it is. Either way they are told.`}
          >
            <DataTable caption="Extension requests" columns={["Person", "Project", "Ends now", "Asks until", "Why", ""]}>
              {requests.map((r) => {
                // What can be granted today: the date asked for, cut to the maximum from today.
                const grantable = new Date(Math.min(r.requestedUntil.getTime(), ctx.now.getTime() + maxDays * DAY));
                return (
                  <tr key={r.id} data-testid="extension-request">
                    <Cell>
                      <span className="font-medium">{r.requesterName}</span>
                      {r.requesterEmail && <p className="text-xs text-slate-500">{r.requesterEmail}</p>}
                      {r.sponsor && <p className="text-xs text-slate-500">sponsor {r.sponsor}</p>}
                    </Cell>
                    <Cell>{r.projectName}</Cell>
                    <Cell className="whitespace-nowrap">{r.currentExpiresAt ? <Time at={r.currentExpiresAt} /> : "—"}</Cell>
                    <Cell className="whitespace-nowrap font-medium"><Time at={r.requestedUntil} /></Cell>
                    <Cell className="min-w-[12rem]">{r.reason}</Cell>
                    <Cell className="space-x-3 whitespace-nowrap text-right">
                      <ActionDialog
                        triggerLabel="Grant"
                        triggerKind="link"
                        title={`Extend ${r.requesterName}'s access to ${r.projectName}`}
                        description={`They asked until ${formatDateTime(r.requestedUntil, zone)}. Grant that, or choose an earlier day; access then ends at the start of that day (UTC).`}
                        submitLabel="Grant extension"
                        action={grantExtensionAction}
                        fields={[
                          { kind: "hidden", name: "requestId", value: r.id },
                          { kind: "date", name: "until", label: "Access until", defaultValue: dateInputValue(grantable), max: dateInputValue(grantable) },
                          { kind: "textarea", name: "note", label: "Note to them (optional)" },
                        ]}
                      />
                      <ActionDialog
                        triggerLabel="Decline"
                        triggerKind="link"
                        danger
                        title={`Decline ${r.requesterName}'s request?`}
                        description={`Their access still ends at ${r.currentExpiresAt ? formatDateTime(r.currentExpiresAt, zone) : "its present end"}.`}
                        submitLabel="Decline request"
                        action={declineExtensionAction}
                        fields={[
                          { kind: "hidden", name: "requestId", value: r.id },
                          { kind: "textarea", name: "note", label: "Why (optional, they see it)" },
                        ]}
                      />
                    </Cell>
                  </tr>
                );
              })}
            </DataTable>
          </Card>
        </div>
      )}
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
                  {c.expiresAt ? <Time at={c.expiresAt} day /> : "—"} {c.expired && <Badge tone="red">expired</Badge>}
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
