import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { ActionDialog } from "@/components/action-dialog";
import { TenantCohortCard } from "@/components/quota/cohort-now-card";
import { EnvelopeCard } from "@/components/quota/envelope-card";
import { EnvelopePanel } from "@/components/home/envelope-panel";
import { GlancePanel } from "@/components/home/glance-panel";
import { MonthSpendPanel } from "@/components/home/month-spend-panel";
import { OpenRequestsPanel } from "@/components/home/open-requests-panel";
import { tenantMonthAtAGlance } from "@/lib/metering/month-at-a-glance";
import { tenantRequests } from "@/lib/quota/queries";
import { tenantEnvelopeView } from "@/lib/quota/envelope-queries";
import { tenantShareNow } from "@/lib/quota/share-now";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { can } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { primaryRoleLabel } from "@/lib/auth/role-labels";
import { openInvitations } from "@/lib/tenancy/member-queries";
import { tenantDetail } from "@/lib/tenancy/queries";
import { tenantGroupMappings } from "@/lib/groups/queries";
import { GroupMappingsSection } from "./group-mappings-section";
import { changeMemberRoleAction, createProjectAction, inviteMemberAction, moveQuotaAction, removeMemberAction, revokeInvitationAction, setTenantClusterSettingsAction, setTenantEnvelopeAction } from "./actions";
import { TenantHeader } from "./tenant-header";
import { Time } from "@/components/time";

const TENANT_ROLE_LABEL = { tenant_admin: "Tenant admin", member: "Member", viewer: "Viewer" } as const;
const ROLE_OPTIONS = [
  { value: "member", label: "Member: works in projects it is granted" },
  { value: "viewer", label: "Viewer: reads every project" },
  { value: "tenant_admin", label: "Tenant admin: manages the tenant" },
];

export async function generateMetadata({ params }: { params: Promise<{ tenant: string }> }) {
  return { title: (await params).tenant };
}

export default async function TenantPage({ params }: { params: Promise<{ tenant: string }> }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const detail = await tenantDetail(ctx, (await params).tenant);
  if (!detail) notFound();
  const { tenant, members, projects } = detail;
  const seesQuota = can(ctx.actor, "tenant.quota.view", { kind: "tenant", tenantId: tenant.id }, ctx.now);
  const [invitations, envelope, cohortNow, groupMappings, month, requests] = await Promise.all([
    detail.canManageMembers ? openInvitations(ctx, tenant.slug) : [],
    seesQuota ? tenantEnvelopeView(ctx, tenant.slug) : null,
    seesQuota ? tenantShareNow(ctx, tenant.slug) : null,
    tenantGroupMappings(ctx, tenant),
    tenantMonthAtAGlance(ctx, tenant.id),
    tenantRequests(ctx, tenant.slug),
  ]);
  const openProjects = projects.filter((p) => !p.archived).length;
  const t = { kind: "hidden" as const, name: "tenant", value: tenant.slug };
  const labelPrefix = config().cluster.render.labelPrefix;

  return (
    <>
      <TenantHeader
        detail={detail}
        actions={
          detail.canCreateProject ? (
            <ActionDialog
              triggerLabel="New project"
              title="New project"
              description="A project is one Kubernetes namespace with its own quota, access and spend."
              submitLabel="Create project"
              action={createProjectAction}
              fields={[
                t,
                { kind: "text", name: "name", label: "Name", placeholder: "Detector training", required: true },
                { kind: "text", name: "slug", label: "Slug", placeholder: "detector-training", hint: `Lower-case letters, digits and hyphens. Becomes the namespace ${tenant.slug}--<slug> and cannot change.` },
                { kind: "textarea", name: "description", label: "Description" },
              ]}
            />
          ) : undefined
        }
      />
      <div className="mb-6 grid gap-4 md:grid-cols-2" data-testid="tenant-at-a-glance">
        {envelope && <EnvelopePanel view={envelope} href={`/tenants/${tenant.slug}/requests`} />}
        {month && <MonthSpendPanel status={month} currency={config().currency} href={`/tenants/${tenant.slug}/spend`} />}
        {requests && (
          <OpenRequestsPanel requests={requests} href={`/tenants/${tenant.slug}/requests`} requestHref={(r) => `/tenants/${tenant.slug}/projects/${r.projectSlug}/quota/requests/${r.id}`} showProject />
        )}
        <GlancePanel title="People and projects" testId="glance-people">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
            <dt className="text-slate-600">Members</dt>
            <dd className="text-right tabular-nums text-slate-900">{members.length}</dd>
            <dt className="text-slate-600">Projects</dt>
            <dd className="text-right tabular-nums text-slate-900">
              {openProjects}
              {projects.length > openProjects && <span className="text-slate-600"> (and {projects.length - openProjects} archived)</span>}
            </dd>
            {detail.canManageMembers && (
              <>
                <dt className="text-slate-600">Open invitations</dt>
                <dd className="text-right tabular-nums text-slate-900">{invitations.length}</dd>
              </>
            )}
          </dl>
        </GlancePanel>
      </div>
      <div className="space-y-6">
        <Card title="Projects" description="Each project is one namespace on the cluster.">
          {projects.length === 0 ? (
            <EmptyState title="No projects yet">
              {detail.canCreateProject ? "Create the first project with “New project”; it becomes a namespace for this tenant." : "A tenant admin creates projects; ask one of the admins below."}
            </EmptyState>
          ) : (
            <DataTable caption={`Projects of ${tenant.name}`} columns={["Project", "Namespace", "Your access"]}>
              {projects.map((p) => (
                <tr key={p.id}>
                  <Cell>
                    {p.canOpen ? (
                      <Link href={`/tenants/${tenant.slug}/projects/${p.slug}`} className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-900">
                        {p.name}
                      </Link>
                    ) : (
                      <span className="font-medium text-slate-700">{p.name}</span>
                    )}{" "}
                    {p.archived && <Badge>archived</Badge>}
                    {p.description && <p className="text-xs text-slate-500">{p.description}</p>}
                  </Cell>
                  <Cell className="font-mono text-xs text-slate-600">{p.namespace}</Cell>
                  <Cell>{p.canOpen ? <Badge tone="blue">{primaryRoleLabel(p.roles)}</Badge> : <span className="text-xs text-slate-500">No access — ask a tenant admin</span>}</Cell>
                </tr>
              ))}
            </DataTable>
          )}
        </Card>

        {envelope && <EnvelopeCard tenant={tenant.slug} tenantName={tenant.name} view={envelope} moveAction={moveQuotaAction} setAction={setTenantEnvelopeAction} />}
        {cohortNow && <TenantCohortCard now={cohortNow} tenantName={tenant.name} />}

        <div id="members" className="scroll-mt-4">
        <Card
          title="Members"
          description="Who belongs to this tenant and their role here."
          actions={
            detail.canManageMembers ? (
              <ActionDialog
                triggerLabel="Invite member"
                triggerKind="secondary"
                title="Invite a member"
                description="They accept through a single-use link that works for this email address only."
                submitLabel="Create invitation"
                action={inviteMemberAction}
                fields={[t, { kind: "email", name: "email", label: "Email", placeholder: "name@example.com" }, { kind: "select", name: "role", label: "Role", options: ROLE_OPTIONS, defaultValue: "member" }]}
              />
            ) : undefined
          }
        >
          {members.length === 0 ? (
            <EmptyState title="No members yet">This tenant has no members. A platform admin adds its first tenant admin.</EmptyState>
          ) : (
            <DataTable caption={`Members of ${tenant.name}`} columns={detail.canManageMembers ? ["Name", "Email", "Role", ""] : ["Name", "Email", "Role"]}>
              {members.map((m) => {
                const who = [t, { kind: "hidden" as const, name: "principalId", value: m.principalId }, { kind: "hidden" as const, name: "version", value: String(m.version) }];
                return (
                  <tr key={m.via ? `${m.principalId}:${m.via.group}` : m.principalId}>
                    <Cell>
                      {m.displayName} {m.disabled && <Badge tone="red">disabled</Badge>}
                    </Cell>
                    <Cell className="text-slate-600">{m.email ?? "—"}</Cell>
                    <Cell>
                      <Badge tone={m.role === "tenant_admin" ? "blue" : "slate"}>{TENANT_ROLE_LABEL[m.role]}</Badge>
                      {m.via && <span className="ml-2 text-sm text-slate-600">via group {m.via.group}</span>}
                    </Cell>
                    {detail.canManageMembers && m.via && <Cell className="text-right text-sm text-slate-600">removed in the identity provider</Cell>}
                    {detail.canManageMembers && !m.via && (
                      <Cell className="space-x-3 whitespace-nowrap text-right">
                        <ActionDialog
                          triggerLabel="Change role"
                          triggerKind="link"
                          title={`Change the role of ${m.displayName}`}
                          description="Takes effect on their next request."
                          submitLabel="Change role"
                          action={changeMemberRoleAction}
                          fields={[...who, { kind: "select", name: "role", label: "Role", options: ROLE_OPTIONS, defaultValue: m.role }]}
                        />
                        <ActionDialog
                          triggerLabel="Remove"
                          triggerKind="link"
                          danger
                          title={`Remove ${m.displayName}?`}
                          description="They lose access to the tenant and their project grants here are removed. Service accounts they created stay with the tenant."
                          submitLabel="Remove member"
                          action={removeMemberAction}
                          fields={who}
                        />
                      </Cell>
                    )}
                  </tr>
                );
              })}
            </DataTable>
          )}
        </Card>
        </div>

        {groupMappings && (
          <GroupMappingsSection
            tenantSlug={tenant.slug}
            tenantName={tenant.name}
            mappings={groupMappings}
            projects={projects.filter((p) => !p.archived)}
            groupsClaim={config().groupsClaim}
            recheckMinutes={config().sessionRecheckMinutes}
          />
        )}

        {detail.canManageCluster && (
          <Card
            title="Cluster settings"
            description="How this tenant's namespaces run. Changing them reconciles every project of the tenant."
            actions={
              <ActionDialog
                triggerLabel="Edit cluster settings"
                triggerKind="secondary"
                title="Cluster settings"
                description="Workload identity lets pods federate to a cloud identity through their service account token; no credentials are stored."
                submitLabel="Save settings"
                action={setTenantClusterSettingsAction}
                fields={[
                  t,
                  { kind: "hidden", name: "version", value: String(tenant.version) },
                  {
                    kind: "text",
                    name: "runtimeClass",
                    label: "Runtime class",
                    defaultValue: tenant.runtimeClass ?? "",
                    placeholder: "gvisor",
                    hint: `Set as the ${labelPrefix}/runtime-class label on every namespace, for the admission policy that sets runtimeClassName. Empty for none.`,
                  },
                  {
                    kind: "textarea",
                    name: "workloadIdentity",
                    label: "Workload identity annotations",
                    defaultValue: Object.entries(tenant.workloadIdentity ?? {})
                      .map(([k, v]) => `${k}=${v}`)
                      .join("\n"),
                    hint: "One annotation per line, key=value, put on every service account. Placeholders: {tenant} {project} {namespace} {serviceAccount}. E.g. eks.amazonaws.com/role-arn=arn:aws:iam::123456789012:role/{tenant}-{serviceAccount}",
                  },
                ]}
              />
            }
          >
            <dl className="grid grid-cols-1 gap-3 text-sm sm:grid-cols-[12rem_1fr]">
              <dt className="text-slate-500">Isolation tier</dt>
              <dd>{tenant.isolationTier === "dedicated" ? `Dedicated: pods pinned to nodes labelled and tainted ${labelPrefix}/dedicated-tenant=${tenant.slug}` : "Shared node pools"}</dd>
              <dt className="text-slate-500">Runtime class</dt>
              <dd className="font-mono text-xs">{tenant.runtimeClass ?? "none"}</dd>
              <dt className="text-slate-500">Workload identity</dt>
              <dd className="font-mono text-xs">
                {tenant.workloadIdentity && Object.keys(tenant.workloadIdentity).length > 0
                  ? Object.entries(tenant.workloadIdentity).map(([k, v]) => (
                      <div key={k}>
                        {k}={v}
                      </div>
                    ))
                  : "none"}
              </dd>
            </dl>
          </Card>
        )}

        {detail.canManageMembers && (
          <Card title="Open invitations" description="Sent and not yet accepted. Links expire; a used link stops working.">
            {invitations.length === 0 ? (
              <p className="text-sm text-slate-600">No open invitations. Use “Invite member”, or invite a collaborator from a project page.</p>
            ) : (
              <DataTable caption="Open invitations" columns={["Email", "For", "Link expires", "Invited by", ""]}>
                {invitations.map((i) => (
                  <tr key={i.id}>
                    <Cell>{i.email}</Cell>
                    <Cell>
                      {i.projectName ? (
                        <>
                          Collaborator ({i.projectRole}) on {i.projectName}, until {i.grantExpiresAt ? <Time at={i.grantExpiresAt} day /> : "—"}
                        </>
                      ) : (
                        TENANT_ROLE_LABEL[i.tenantRole ?? "member"]
                      )}
                    </Cell>
                    <Cell><Time at={i.expiresAt} day /></Cell>
                    <Cell>{i.invitedBy ?? "—"}</Cell>
                    <Cell className="text-right">
                      <ActionDialog
                        triggerLabel="Withdraw"
                        triggerKind="link"
                        danger
                        title={`Withdraw the invitation for ${i.email}?`}
                        description="The link stops working at once."
                        submitLabel="Withdraw"
                        action={revokeInvitationAction}
                        fields={[t, { kind: "hidden", name: "invitationId", value: i.id }]}
                      />
                    </Cell>
                  </tr>
                ))}
              </DataTable>
            )}
          </Card>
        )}
      </div>
    </>
  );
}
