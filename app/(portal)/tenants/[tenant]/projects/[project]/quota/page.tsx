import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { buttonClass } from "@/components/button-class";
import { ActionDialog } from "@/components/action-dialog";
import { quotaKeyLabel } from "@/components/quota/envelope-card";
import { FlavourQuotaTable } from "@/components/quota/flavour-table";
import { keyOfLine } from "@/lib/quota/envelope";
import { requestQuotaExtensionAction, setProjectSharingAction } from "./actions";
import { ExtendGrant } from "@/components/quota/extend-grant";
import { extendOfferProps, extensionOffers } from "@/lib/quota/extension-offers";
import { QuotaComparison } from "@/components/quota/quota-tables";
import { RequestTable } from "@/components/quota/request-table";
import { UsageSummary } from "@/components/quota/usage-summary";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState, PageHeader, projectCrumbs } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { viewerTimeZone } from "@/lib/server/time-zone";
import { can, isCollaboratorOn } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { projectUsageSummaries } from "@/lib/metering/project-summaries";
import { gpusByModelOfLines, isGpuLine, type QuotaLine } from "@/lib/quota/lines";
import { projectQuota, projectRequests } from "@/lib/quota/queries";
import { formatBytes, formatCores } from "@/lib/quota/view-helpers";
import { projectDetail } from "@/lib/tenancy/queries";
import { Time } from "@/components/time";

type Params = Promise<{ tenant: string; project: string }>;
const none = <span className="text-slate-500">—</span>;

/** A grant's GPUs in one line: "2 × H100 + burst 4", "−2 × H100" for quota moved away; null without GPUs. */
function describeGrantGpus(lines: readonly QuotaLine[]): string | null {
  const parts = lines
    .filter(isGpuLine)
    .map((l) => [l.guarantee !== 0 ? `${l.guarantee < 0 ? "−" : ""}${Math.abs(l.guarantee)} × ${l.flavor}` : `${l.flavor}:`, l.burst > 0 ? `burst ${l.burst}` : null].filter(Boolean).join(" + "));
  return parts.length > 0 ? parts.join(", ") : null;
}

export async function generateMetadata({ params }: { params: Params }) {
  const { tenant, project } = await params;
  return { title: `Quota · ${project} · ${tenant}` };
}

export default async function ProjectQuotaPage({ params }: { params: Params }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const { tenant: tenantSlug, project: projectSlug } = await params;
  const detail = await projectDetail(ctx, tenantSlug, projectSlug);
  if (!detail) notFound();
  const { tenant, project } = detail;
  const [quota, requests] = await Promise.all([projectQuota(ctx, tenant.slug, project.slug).catch(() => null), projectRequests(ctx, tenant.slug, project.slug)]);
  if (!quota || !requests) notFound();
  const resource = { kind: "project", tenantId: tenant.id, projectId: project.id } as const;
  const usage = can(ctx.actor, "project.spend.view", resource, ctx.now) ? ((await projectUsageSummaries(ctx.db, [project.id], ctx.now)).get(project.id) ?? null) : null;
  const open = project.archivedAt === null && tenant.status === "active";
  const canRequest = open && can(ctx.actor, "project.quota.request", resource, ctx.now);
  const collaborator = isCollaboratorOn(ctx.actor, tenant.id) && !ctx.actor.isPlatformAdmin;
  const currency = config().currency;
  const base = `/tenants/${tenant.slug}/projects/${project.slug}`;
  const pending = requests.filter((r) => r.status === "pending").length;
  const kueue = config().cluster.render.kueue.enabled;
  const canShare = open && kueue && can(ctx.actor, "project.sharing.manage", resource, ctx.now);
  const lendKeys = quota.lines.filter((l) => l.guarantee > 0 && l.resource !== "storage").map(keyOfLine);
  const zone = await viewerTimeZone();
  const offers = await extensionOffers(ctx, { tenantId: tenant.id, projectId: project.id, open }, quota.grants);

  return (
    <>
      <PageHeader
        crumbs={projectCrumbs(tenant, project, collaborator)}
        title="Quota"
        subtitle={
          <>
            What {project.name} may use on the cluster (namespace <code className="font-mono text-xs">{project.namespace}</code>), the grants it is made of, and the requests for more.
            {!open && (
              <>
                {" "}
                <Badge tone="red">{project.archivedAt ? "archived" : "tenant disabled"}</Badge>
              </>
            )}
          </>
        }
        actions={
          canRequest ? (
            <Link href={`${base}/quota/new`} className={buttonClass("primary")}>
              Request quota
            </Link>
          ) : undefined
        }
      />
      <div className="space-y-6">
        <Card title="Quota now" description={
            <>
              The starting quota plus every grant in force at <Time at={ctx.now} />. The project&apos;s ResourceQuota is rendered from it.
            </>
          }>
          <div className="grid gap-6 md:grid-cols-[minmax(0,28rem)_1fr]">
            <QuotaComparison caption={`Effective quota of ${project.name}`} now={{ quota: quota.effective, gpusByModel: quota.gpusByModel, burstByModel: gpusByModelOfLines(quota.lines, "burst") }} nowLabel="Quota" />
            <div className="space-y-3 text-sm">
              {usage && (
                <section aria-labelledby="usage-heading" className="rounded-md border border-slate-200 bg-slate-50 px-3 py-2" data-testid="usage-note">
                  <h3 id="usage-heading" className="mb-1 font-semibold text-slate-900">
                    Use and spend
                  </h3>
                  <UsageSummary summary={usage} currency={currency} projectName={project.name} />
                </section>
              )}
              {pending > 0 && (
                <p className="text-slate-700">
                  {pending} request{pending === 1 ? "" : "s"} waiting for a platform admin: see Requests below.
                </p>
              )}
              {canRequest && (
                <p className="text-slate-600">
                  Need more?{" "}
                  <Link href={`${base}/quota/new`} className="font-medium text-brand-700 underline hover:no-underline">
                    Request quota
                  </Link>{" "}
                  and see the cost before you send it.
                </p>
              )}
            </div>
          </div>
        </Card>

        <Card
          title="Quota by flavour"
          actions={
            canShare ? (
              <ActionDialog
                triggerLabel="Sharing"
                triggerKind="secondary"
                title={`How ${project.name} shares`}
                description="The fair-share weight counts when GPUs are scarce: a project with weight 2 is entitled to twice the borrowed capacity of one with weight 1. A lend limit keeps part of a guarantee from being borrowed by other projects while it is unused; empty lends all of it."
                submitLabel="Save"
                action={setProjectSharingAction}
                fields={[
                  { kind: "hidden", name: "tenant", value: tenant.slug },
                  { kind: "hidden", name: "project", value: project.slug },
                  { kind: "text", name: "fairShareWeight", label: "Fair-share weight", defaultValue: String(quota.fairShareWeight), hint: "A number such as 1 or 2.5; 0 to 1000." },
                  { kind: "select", name: "quota", label: "Lend limit for", options: [{ value: "", label: "No change" }, ...lendKeys.map((k) => ({ value: k, label: quotaKeyLabel(k) }))] },
                  { kind: "text", name: "lendLimit", label: "Lend limit", hint: "GPUs as whole devices, CPU in cores, memory in GiB. Empty: all of the guarantee may be lent." },
                ]}
              />
            ) : undefined
          }
          description={
            kueue
              ? `Per node-pool flavour: what ${project.name} can always get, how much more it may borrow from its cohort for preemptible work, and how much of its guarantee others may borrow while it is unused. Fair-share weight ${quota.fairShareWeight}. The namespace's ResourceQuota caps guarantee plus burst.`
              : `Per node-pool flavour: what ${project.name} holds. Burst and lending are borrowed through Kueue, which this portal does not manage, so the guarantee is a hard quota.`
          }
        >
          <FlavourQuotaTable lines={quota.lines} caption={`Quota of ${project.name} by flavour`} />
        </Card>

        <Card
          title="Grants"
          description={`What the quota is made of. Time-bound grants end on their own; the quota then drops and the cluster follows.${offers.size > 0 ? " Extend one before it ends to keep it longer: a platform admin decides." : ""}`}
        >
          <DataTable caption={`Grants of ${project.name}`} columns={["Source", "GPUs", "CPU cores", "Memory", "Storage", "PVCs", "From", "Until", "State", ...(offers.size > 0 ? ["Extend"] : [])]}>
            <tr>
              <Cell className="font-medium text-slate-900">Starting quota</Cell>
              <Cell>{none}</Cell>
              <Cell className="tabular-nums">{formatCores(quota.base.cpuCores)}</Cell>
              <Cell className="whitespace-nowrap tabular-nums">{formatBytes(quota.base.memoryBytes)}</Cell>
              <Cell className="whitespace-nowrap tabular-nums">{formatBytes(quota.base.storageBytes)}</Cell>
              <Cell className="tabular-nums">{quota.base.pvcCount}</Cell>
              <Cell className="whitespace-nowrap text-slate-600"><Time at={project.createdAt} day /></Cell>
              <Cell className="text-slate-600">permanent</Cell>
              <Cell>
                <Badge tone="green">in force</Badge>
              </Cell>
              {offers.size > 0 && <Cell>{none}</Cell>}
            </tr>
            {quota.grants.map((g) => {
              const state = g.inForce ? "in force" : g.startsAt.getTime() > ctx.now.getTime() ? "starts later" : "ended";
              const offer = offers.get(g.id);
              return (
                <tr key={g.id}>
                  <Cell>
                    {g.requestId ? (
                      <Link href={`${base}/quota/requests/${g.requestId}`} className="font-medium text-brand-700 hover:underline">
                        Request<span className="sr-only"> of <Time at={g.startsAt} day /></span>
                      </Link>
                    ) : (
                      <span className="text-slate-700">Grant</span>
                    )}
                  </Cell>
                  <Cell className="whitespace-nowrap tabular-nums">{describeGrantGpus(g.lines) ?? none}</Cell>
                  <Cell className="tabular-nums">{g.amounts.cpuCores > 0 ? `+${formatCores(g.amounts.cpuCores)}` : none}</Cell>
                  <Cell className="whitespace-nowrap tabular-nums">{g.amounts.memoryBytes > 0 ? `+${formatBytes(g.amounts.memoryBytes)}` : none}</Cell>
                  <Cell className="whitespace-nowrap tabular-nums">{g.amounts.storageBytes > 0 ? `+${formatBytes(g.amounts.storageBytes)}` : none}</Cell>
                  <Cell>{none}</Cell>
                  <Cell className="whitespace-nowrap text-slate-600">
                    <Time at={g.startsAt} day />
                  </Cell>
                  <Cell className="whitespace-nowrap text-slate-600">
                    {g.endsAt ? (
                      <Time at={g.endsAt} day />
                    ) : (
                      "permanent"
                    )}
                  </Cell>
                  <Cell>
                    <Badge tone={state === "in force" ? "green" : "slate"}>{state}</Badge>
                  </Cell>
                  {offers.size > 0 && <Cell>{offer ? <ExtendGrant action={requestQuotaExtensionAction} tenant={tenant.slug} project={project.slug} offer={extendOfferProps(offer, zone)} currency={currency} requestHref={`${base}/quota/requests`} /> : none}</Cell>}
                </tr>
              );
            })}
          </DataTable>
          {quota.grants.length === 0 && <p className="mt-3 text-sm text-slate-500">No grants yet: the project holds the starting quota only.</p>}
        </Card>

        <Card title="Requests" description={requests.length ? `Newest first.${pending ? ` ${pending} waiting for a platform admin.` : ""}` : undefined}>
          {requests.length === 0 ? (
            <EmptyState title="No quota requests yet">
              {canRequest ? (
                <>
                  Ask for GPUs, CPU, memory or storage with{" "}
                  <Link href={`${base}/quota/new`} className="text-brand-700 underline hover:no-underline">
                    Request quota
                  </Link>
                  . Small requests are approved automatically; larger ones go to the platform admins.
                </>
              ) : (
                "Members and tenant admins of the project can ask for more quota."
              )}
            </EmptyState>
          ) : (
            <RequestTable caption={`Quota requests of ${project.name}`} requests={requests} currency={currency} />
          )}
        </Card>
      </div>
    </>
  );
}
