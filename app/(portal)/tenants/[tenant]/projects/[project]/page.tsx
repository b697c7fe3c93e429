import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { ActionDialog } from "@/components/action-dialog";
import { type FieldSpec } from "@/components/action-form";
import { buttonClass } from "@/components/button-class";
import { ClusterObjects, LatestChange } from "@/components/cluster-objects";
import { GlancePanel } from "@/components/home/glance-panel";
import { MonthSpendPanel } from "@/components/home/month-spend-panel";
import { EndingGrantsPanel } from "@/components/home/ending-grants-panel";
import { OpenRequestsPanel } from "@/components/home/open-requests-panel";
import { ExtendGrant } from "@/components/quota/extend-grant";
import { extendOfferProps, extensionOffers } from "@/lib/quota/extension-offers";
import { QuotaUsePanel } from "@/components/home/quota-use-panel";
import { ShareNowCard } from "@/components/quota/share-now-card";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState, PageHeader, tenantCrumbs } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { viewerTimeZone } from "@/lib/server/time-zone";
import { can, isCollaboratorOn } from "@/lib/auth/policy";
import { projectClusterChanges, projectClusterObjects } from "@/lib/cluster/queries";
import { clusterRuntime } from "@/lib/cluster/runtime";
import { scheduledClusterChanges } from "@/lib/cluster/scheduled-queries";
import { primaryRoleLabel } from "@/lib/auth/role-labels";
import { config } from "@/lib/config";
import { dateInputValue } from "@/lib/format";
import { grantCandidates } from "@/lib/tenancy/member-queries";
import { projectShareNow } from "@/lib/quota/share-now";
import { projectQuotaUseNow } from "@/lib/quota/quota-use-now";
import { projectQuota, projectRequests } from "@/lib/quota/queries";
import { projectMonthAtAGlance } from "@/lib/metering/month-at-a-glance";
import { projectDetail } from "@/lib/tenancy/queries";
import { accessThrough } from "@/lib/tenancy/access-csv";
import { requestQuotaExtensionAction } from "./quota/actions";
import { archiveProjectAction, grantProjectRoleAction, inviteCollaboratorAction, revokeProjectGrantAction, updateProjectAction } from "../../actions";
import { Time } from "@/components/time";

type Params = Promise<{ tenant: string; project: string }>;
const DAY = 86_400_000;
const PROJECT_ROLE_OPTIONS = [
  { value: "member", label: "Member: works in the project" },
  { value: "viewer", label: "Viewer: reads the project" },
];
/** Service accounts may also meter: push usage for the project (and nothing else). */
const GRANT_ROLE_OPTIONS = [...PROJECT_ROLE_OPTIONS, { value: "meter", label: "Usage meter (service accounts only): pushes usage" }];

export async function generateMetadata({ params }: { params: Params }) {
  const { tenant, project } = await params;
  return { title: `${project} · ${tenant}` };
}

export default async function ProjectPage({ params }: { params: Params }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const { tenant: tenantSlug, project: projectSlug } = await params;
  const detail = await projectDetail(ctx, tenantSlug, projectSlug);
  if (!detail) notFound();
  const { tenant, project, access } = detail;
  const collaborator = isCollaboratorOn(ctx.actor, tenant.id) && !ctx.actor.isPlatformAdmin;
  const archived = project.archivedAt !== null;
  // A time-bound grant of one's own, in force: the way to ask for more time is offered beside it.
  const ownGrant = ctx.actor.projectGrants.find((g) => g.projectId === project.id && g.expiresAt !== null && g.expiresAt.getTime() > ctx.now.getTime());
  const ownEnd = ownGrant && !archived && can(ctx.actor, "project.extension.request", { kind: "project", tenantId: tenant.id, projectId: project.id }, ctx.now) ? ownGrant.expiresAt : null;
  const manage = detail.canManageAccess && !archived;
  const candidates = manage ? await grantCandidates(ctx, tenant.slug) : [];
  const target: FieldSpec[] = [
    { kind: "hidden", name: "tenant", value: tenant.slug },
    { kind: "hidden", name: "project", value: project.slug },
  ];
  const maxDays = config().maxCollaboratorDays;
  const showCluster = can(ctx.actor, "project.cluster.view", { kind: "project", tenantId: tenant.id, projectId: project.id }, ctx.now);
  const [clusterObjects, [latestChange], scheduled] = showCluster
    ? await Promise.all([projectClusterObjects(ctx.db, project.id), projectClusterChanges(ctx.db, project.id, 1), scheduledClusterChanges(ctx.db, ctx.now, { projectId: project.id })])
    : [[], [], []];
  const cluster = clusterRuntime(config().cluster);
  const resource = { kind: "project", tenantId: tenant.id, projectId: project.id } as const;
  const seesQuota = can(ctx.actor, "project.quota.view", resource, ctx.now);
  // The home's figures: the hard cap and its use, this month's spend (the spend page's functions), open requests.
  const [share, quotaNow, month, requests, quota] = await Promise.all([
    seesQuota ? projectShareNow(ctx, tenant.slug, project.slug, cluster) : null,
    projectQuotaUseNow(ctx, { id: project.id, tenantId: tenant.id, namespace: project.namespace }, cluster),
    projectMonthAtAGlance(ctx, { tenantId: tenant.id, projectId: project.id }),
    projectRequests(ctx, tenant.slug, project.slug),
    seesQuota ? projectQuota(ctx, tenant.slug, project.slug) : null,
  ]);
  const base = `/tenants/${tenant.slug}/projects/${project.slug}`;
  const canRequest = !archived && tenant.status === "active" && can(ctx.actor, "project.quota.request", resource, ctx.now);
  // Time-bound grants still ahead of their end, with Extend for those who may ask (the quota page lists every grant).
  const ending = (quota?.grants ?? []).flatMap((g) => (g.endsAt && g.endsAt.getTime() > ctx.now.getTime() ? [{ ...g, endsAt: g.endsAt }] : []));
  const zone = await viewerTimeZone();
  const offers = await extensionOffers(ctx, { tenantId: tenant.id, projectId: project.id, open: !archived && tenant.status === "active" }, ending);

  return (
    <>
      <PageHeader
        crumbs={tenantCrumbs(tenant, collaborator)}
        title={project.name}
        subtitle={
          <>
            {tenant.name} · namespace <code className="font-mono text-xs">{project.namespace}</code> · your role: <strong>{primaryRoleLabel(detail.roles, { collaborator })}</strong>
            {ownEnd && (
              <>
                {" "}
                · your access ends <Time at={ownEnd} day /> ·{" "}
                <Link href={`/tenants/${tenant.slug}/projects/${project.slug}/extension`} className="font-medium text-brand-700 hover:underline">
                  Ask for more time
                </Link>
              </>
            )}
            {archived && (
              <>
                {" "}
                · <Badge>archived <Time at={project.archivedAt!} day /></Badge>
              </>
            )}
          </>
        }
        actions={
          canRequest || (detail.canEdit && !archived) ? (
            <>
              {canRequest && (
                <Link href={`${base}/quota/new`} className={buttonClass("primary")}>
                  Request quota
                </Link>
              )}
              {detail.canEdit && !archived && (
                <>
                  <ActionDialog
                    triggerLabel="Edit"
                    triggerKind="secondary"
                    title="Edit project"
                    description="The slug and namespace never change."
                    submitLabel="Save"
                    action={updateProjectAction}
                    fields={[
                      ...target,
                      { kind: "hidden", name: "version", value: String(project.version) },
                      { kind: "text", name: "name", label: "Name", defaultValue: project.name },
                      { kind: "textarea", name: "description", label: "Description", defaultValue: project.description },
                    ]}
                  />
                  <ActionDialog
                    triggerLabel="Archive"
                    triggerKind="secondary"
                    title={`Archive ${project.name}?`}
                    description="It stays readable with its history, but takes no new access or changes. This cannot be undone from the portal."
                    submitLabel="Archive project"
                    action={archiveProjectAction}
                    fields={target}
                  />
                </>
              )}
            </>
          ) : undefined
        }
      />
      {project.description && <p className="mb-6 max-w-prose text-sm text-slate-700">{project.description}</p>}
      <div className="mb-6 grid gap-4 md:grid-cols-2" data-testid="project-at-a-glance">
        {quotaNow && <QuotaUsePanel now={quotaNow} href={`${base}/quota`} />}
        {month && <MonthSpendPanel status={month} currency={config().currency} href={`${base}/spend`} />}
        {requests && <OpenRequestsPanel requests={requests} href={`${base}/quota`} requestHref={(r) => `${base}/quota/requests/${r.id}`} />}
        {ending.length > 0 && (
          <EndingGrantsPanel
            grants={ending}
            href={`${base}/quota`}
            actionOf={(id) => {
              const offer = offers.get(id);
              return offer ? <ExtendGrant action={requestQuotaExtensionAction} tenant={tenant.slug} project={project.slug} offer={extendOfferProps(offer, zone)} currency={config().currency} requestHref={`${base}/quota/requests`} /> : null;
            }}
          />
        )}
        {showCluster && (
          <GlancePanel title="Latest cluster change" href="#cluster-objects" linkLabel="Cluster objects">
            <LatestChange change={latestChange ?? null} now={ctx.now} />
          </GlancePanel>
        )}
      </div>
      {share && (
        <div className="mb-6">
          <ShareNowCard share={share} projectName={project.name} />
        </div>
      )}
      <Card
        title="Who has access"
        description="Everyone who can act in this project, and how their access came."
        actions={
          <div className="flex flex-wrap items-center gap-2">
            <a href={`/tenants/${tenant.slug}/projects/${project.slug}/access/export`} className={buttonClass()} download>
              Export CSV
            </a>
            {manage && (
              <>
                <ActionDialog
                  triggerLabel="Grant access"
                  triggerKind="secondary"
                  title="Grant a project role"
                  description="For members and service accounts of this tenant. People outside the tenant are invited as collaborators."
                  submitLabel="Grant"
                  action={grantProjectRoleAction}
                  fields={
                    candidates.length
                      ? [...target, { kind: "select", name: "principalId", label: "Who", options: candidates }, { kind: "select", name: "role", label: "Role", options: GRANT_ROLE_OPTIONS, defaultValue: "member" }]
                      : [...target, { kind: "hidden", name: "principalId", value: "" }]
                  }
                />
                <ActionDialog
                  triggerLabel="Invite collaborator"
                  title="Invite an external collaborator"
                  description={`Someone outside the tenant, for this project only. Their access ends at the expiry (at most ${maxDays} days); you are recorded as sponsor.`}
                  submitLabel="Create invitation"
                  action={inviteCollaboratorAction}
                  fields={[
                    ...target,
                    { kind: "email", name: "email", label: "Email", placeholder: "researcher@university.example" },
                    { kind: "select", name: "role", label: "Role", options: PROJECT_ROLE_OPTIONS, defaultValue: "member" },
                    {
                      kind: "date",
                      name: "expiresAt",
                      label: "Access expires",
                      defaultValue: dateInputValue(new Date(ctx.now.getTime() + 30 * DAY)),
                      min: dateInputValue(new Date(ctx.now.getTime() + DAY)),
                      max: dateInputValue(new Date(ctx.now.getTime() + maxDays * DAY)),
                    },
                  ]}
                />
              </>
            )}
          </div>
        }
      >
        {access.length === 0 ? (
          <EmptyState title="Nobody has access yet">Tenant admins can grant roles on this project.</EmptyState>
        ) : (
          <DataTable caption={`Access to ${project.name}`} columns={["Name", "Role", "Through", "Expires", "Granted by", ...(manage ? [""] : [])]}>
            {access.map((a) => (
              <tr key={`${a.principalId}-${a.via}-${a.group ?? ""}`}>
                <Cell>
                  <span className="font-medium">{a.displayName}</span>
                  {a.email && <p className="text-xs text-slate-500">{a.email}</p>}
                </Cell>
                <Cell>
                  <Badge tone={a.role === "tenant admin" ? "blue" : "slate"}>{a.role}</Badge> {a.collaborator && <Badge tone="amber">external collaborator</Badge>}{" "}
                  {a.kind === "service_account" && <Badge>service account</Badge>}
                </Cell>
                <Cell className="text-slate-600">{accessThrough(a)}</Cell>
                <Cell className="text-slate-600">{a.expiresAt ? <Time at={a.expiresAt} day /> : "never"}</Cell>
                <Cell className="text-slate-600">{a.grantedBy ?? "—"}</Cell>
                {manage && (
                  <Cell className="text-right">
                    {a.grantId && (
                      <ActionDialog
                        triggerLabel="Revoke"
                        triggerKind="link"
                        danger
                        title={`Revoke ${a.displayName}'s project role?`}
                        description="Their access through this grant ends now."
                        submitLabel="Revoke"
                        action={revokeProjectGrantAction}
                        fields={[...target, { kind: "hidden", name: "grantId", value: a.grantId }]}
                      />
                    )}
                  </Cell>
                )}
              </tr>
            ))}
          </DataTable>
        )}
      </Card>
      {showCluster && (
        <div className="mt-6" id="cluster-objects">
          <ClusterObjects
            mode={cluster.mode}
            server={cluster.server}
            namespace={project.namespace}
            objects={clusterObjects}
            latestChange={latestChange ?? null}
            scheduled={scheduled}
            now={ctx.now}
            yamlHref={`/tenants/${tenant.slug}/projects/${project.slug}/cluster.yaml`}
          />
        </div>
      )}
    </>
  );
}
