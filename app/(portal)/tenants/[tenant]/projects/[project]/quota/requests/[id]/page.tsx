import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import type { ReactNode } from "react";
import { ActionDialog } from "@/components/action-dialog";
import { ActionForm } from "@/components/action-form";
import { buttonClass } from "@/components/button-class";
import { DecisionActions } from "@/components/quota/decision-actions";
import { DecisionPicture } from "@/components/quota/decision-picture";
import { ExtendGrant } from "@/components/quota/extend-grant";
import { ExtensionPictureView } from "@/components/quota/extension-picture";
import { RequestHistoryView } from "@/components/quota/request-history";
import { RequestStatusBadge } from "@/components/quota/request-status";
import { RequestThread } from "@/components/quota/request-thread";
import { ChangeList, RevisionHistory } from "@/components/quota/revision-changes";
import { Card, formatDateTime, PageHeader, projectCrumbs } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { isCollaboratorOn } from "@/lib/auth/policy";
import { clusterRuntime } from "@/lib/cluster/runtime";
import { config } from "@/lib/config";
import type { QuotaAmounts } from "@/lib/quota/amounts";
import { extendOfferProps, extensionOffers } from "@/lib/quota/extension-offers";
import { eventGrantedAmountsOf, grantedAmountsOf } from "@/lib/quota/request-amounts";
import { projectQuota, requestDetail, type RequestDetail } from "@/lib/quota/queries";
import { addedPeriodCostPhrase, describeAmounts, formatMoney, periodCostPhrase } from "@/lib/quota/view-helpers";
import { projectDetail } from "@/lib/tenancy/queries";
import { approveQuotaRequestAction, rejectQuotaRequestAction } from "@/app/(portal)/admin/requests/actions";
import { cancelQuotaRequestAction, commentOnQuotaRequestAction, requestQuotaExtensionAction } from "../../actions";
import { Time } from "@/components/time";
import { viewerTimeZone } from "@/lib/server/time-zone";

type Params = Promise<{ tenant: string; project: string; id: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export const metadata = { title: "Quota request" };

const GRANTED_STATUSES = new Set(["approved", "auto_approved", "applied", "apply_failed", "expired"]);

export default async function QuotaRequestPage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const { tenant: tenantSlug, project: projectSlug, id } = await params;
  const [detail, project] = await Promise.all([requestDetail(ctx, id, { tenant: tenantSlug, project: projectSlug }), projectDetail(ctx, tenantSlug, projectSlug)]);
  if (!detail || !project) notFound();
  const { request: r, events, conversation } = detail;
  const { submitted, edited } = await searchParams;
  const latest = conversation.revisions.at(-1)!;
  const currency = config().currency;
  const collaborator = isCollaboratorOn(ctx.actor, project.tenant.id) && !ctx.actor.isPlatformAdmin;
  const base = `/tenants/${r.tenantSlug}/projects/${r.projectSlug}`;
  const granted = grantedOf(r);
  const askedPeriodCost = r.extension && r.endsAt ? addedPeriodCostPhrase(r.monthlyCost, r.extension.from, r.endsAt, currency) : periodCostPhrase(r.monthlyCost, r.createdAt, r.endsAt, currency);
  // The grant this request wrote (or extends), when it may be extended now: Extend sits in the header.
  const quota = await projectQuota(ctx, r.tenantSlug, r.projectSlug);
  const grantId = r.extension?.grantId ?? quota.grants.find((g) => g.requestId === r.id)?.id;
  const open = project.project.archivedAt === null && project.tenant.status === "active";
  const zone = await viewerTimeZone();
  const offer = grantId && GRANTED_STATUSES.has(r.status) ? (await extensionOffers(ctx, { tenantId: r.tenantId, projectId: r.projectId, open }, quota.grants.filter((g) => g.id === grantId))).get(grantId) : undefined;
  const recordOnly = clusterRuntime(config().cluster).mode !== "live";
  const firstApprovalByMe = r.firstApprovedBy !== null && r.firstApprovedBy === ctx.actor.principalId;

  return (
    <>
      <PageHeader
        crumbs={projectCrumbs(project.tenant, project.project, collaborator, { href: `${base}/quota`, label: "Quota" })}
        title="Quota request"
        subtitle={
          <>
            {describeAmounts(r.amounts)} for {r.projectName}, {r.endsAt ? <>until <Time at={r.endsAt} day /></> : "permanent"} · asked by {r.requester ?? "a deleted principal"} on{" "}
            <Time at={r.createdAt} day />
          </>
        }
        actions={
          detail.canCancel || conversation.canEdit || offer ? (
            <div className="flex flex-wrap items-center gap-2">
              {offer && (
                <ExtendGrant
                  action={requestQuotaExtensionAction}
                  tenant={r.tenantSlug}
                  project={r.projectSlug}
                  offer={extendOfferProps(offer, zone)}
                  currency={currency}
                  requestHref={`${base}/quota/requests`}
                />
              )}
              {conversation.canEdit && (
                <Link href={`${base}/quota/requests/${r.id}/edit`} className={buttonClass("secondary")}>
                  Edit request
                </Link>
              )}
              {detail.canCancel && (
                <ActionDialog
                  triggerLabel="Cancel request"
                  triggerKind="secondary"
                  title="Cancel this request?"
                  description="It is withdrawn before anyone decides it. You can ask again later."
                  submitLabel="Cancel request"
                  pendingLabel="Cancelling…"
                  action={cancelQuotaRequestAction}
                  fields={[{ kind: "hidden", name: "requestId", value: r.id }]}
                />
              )}
            </div>
          ) : undefined
        }
      />

      {submitted === "auto" && r.status !== "pending" && (
        <p role="status" className="mb-6 rounded-md bg-emerald-50 px-4 py-3 text-sm text-emerald-900">
          Your request was <strong>approved automatically</strong>: the quota is granted and the cluster change queued.
        </p>
      )}
      {submitted === "extension" && r.status === "pending" && (
        <p role="status" className="mb-6 rounded-md bg-brand-50 px-4 py-3 text-sm text-brand-900">
          Your extension was sent to the platform admins. Until they decide, the grant ends as it does now.
        </p>
      )}
      {submitted === "pending" && (
        <p role="status" className="mb-6 rounded-md bg-brand-50 px-4 py-3 text-sm text-brand-900">
          Your request was sent to the platform admins. You will see their decision here and in your notifications.
        </p>
      )}

      {edited && r.revision > 1 && (
        <p role="status" className="mb-6 rounded-md bg-brand-50 px-4 py-3 text-sm text-brand-900">
          Saved as revision {r.revision}. The platform admin deciding sees what you changed.
        </p>
      )}

      <div className="space-y-6">
        <Card title="Request">
          <dl className="grid gap-x-8 gap-y-4 text-sm sm:grid-cols-2" data-testid="request-summary">
            <Item label="Status">
              <RequestStatusBadge status={r.status} awaitingSecondApproval={r.awaitingSecondApproval} />
              {r.status === "approved" || r.status === "auto_approved" ? (
                <span className="mt-1 block text-xs text-slate-500">
                  {recordOnly ? "No cluster connected: the change is recorded as a plan, not applied." : "The project's cluster change is being applied."}
                </span>
              ) : null}
            </Item>
            {r.revision > 1 && (
              <Item label="Revision">
                {r.revision}
                <span className="block text-slate-600">edited by the requester since it was asked</span>
              </Item>
            )}
            {r.extension ? (
              <Item label="Asked: extend a grant">
                {describeAmounts(r.amounts)}
                <span className="block text-slate-600" data-testid="extension-ends">
                  from <Time at={r.extension.from} /> to {r.endsAt ? <Time at={r.endsAt} /> : "—"}
                </span>
              </Item>
            ) : (
              <Item label="Asked">
                {describeAmounts(r.amounts)}
                <span className="block text-slate-600">{r.endsAt ? <>until <Time at={r.endsAt} /></> : "permanent"}</span>
              </Item>
            )}
            {granted && (
              <Item label="Granted">
                <span className={granted.changed ? "font-medium text-amber-900" : ""}>{describeAmounts(granted.amounts)}</span>
                <span className="block text-slate-600">{granted.endsAt ? <>until <Time at={granted.endsAt} /></> : "permanent"}</span>
                {granted.changed && <span className="block text-xs text-amber-800">less or shorter than asked</span>}
              </Item>
            )}
            <Item label="Estimate when asked">
              {formatMoney(r.monthlyCost, currency)} a month
              {askedPeriodCost && <span className="block text-slate-600">{askedPeriodCost}</span>}
            </Item>
            <Item label="Requester">
              {r.requester ?? "—"}
              <span className="block text-slate-600"><Time at={r.createdAt} /></span>
            </Item>
            {r.decidedAt && (
              <Item label="Decided">
                <Time at={r.decidedAt} />
              </Item>
            )}
            <Item label="Justification" wide>
              <span className="whitespace-pre-wrap">{r.justification}</span>
            </Item>
            {r.decisionNote && (
              <Item label={r.status === "rejected" ? "Reason for rejection" : "Decision note"} wide>
                <span className="whitespace-pre-wrap" data-testid="decision-note">
                  {r.decisionNote}
                </span>
              </Item>
            )}
            {r.clusterChangeId !== null && (
              <Item label="Cluster change">
                <Link href={base} className="text-brand-700 underline hover:no-underline">
                  #{r.clusterChangeId}
                </Link>
                <span className="text-slate-600"> on the project&apos;s page</span>
              </Item>
            )}
          </dl>
          <p className="mt-4 text-sm">
            <Link href={`${base}/quota`} className="font-medium text-brand-700 hover:underline">
              Quota of {r.projectName} now
            </Link>
          </p>
        </Card>

        {detail.canDecide && detail.picture && (
          <Card
            title="Decide"
            description={
              <>
                Asked <Time at={r.createdAt} /> by {r.requester ?? "a deleted principal"} for {r.tenantSlug}/{r.projectSlug}.
                {r.awaitingSecondApproval && " A first platform admin approved; a second, different one completes it."}
              </>
            }
          >
            <div className="space-y-6">
              {latest.changes.length > 0 && (
                <section aria-labelledby="edited-heading" className="rounded-md border border-amber-200 bg-amber-50 p-4">
                  <h3 id="edited-heading" className="mb-2 text-sm font-semibold text-amber-950">
                    Edited: revision {latest.revision} changed this since revision {latest.revision - 1}
                  </h3>
                  <ChangeList changes={latest.changes} label={`What revision ${latest.revision} changed`} />
                  <p className="mt-2 text-xs text-amber-900">Your decision applies to revision {latest.revision}, as shown here. If the requester edits it again before you decide, you are asked to reload.</p>
                </section>
              )}
              <DecisionActions
                request={{ ...r, conflict: detail.picture.conflict, extending: detail.picture.extensionPicture && { from: detail.picture.extensionPicture.from, monthly: detail.picture.extensionPicture.monthly } }}
                currency={currency}
                approveAction={approveQuotaRequestAction}
                rejectAction={rejectQuotaRequestAction}
                now={ctx.now}
                blockedReason={firstApprovalByMe ? "You gave the first approval; a second, different platform admin must approve too." : null}
              />
              {detail.picture.extensionPicture ? <ExtensionPictureView entry={detail.picture} currency={currency} /> : <DecisionPicture entry={detail.picture} currency={currency} />}
              {detail.history && <RequestHistoryView history={detail.history} tenantSlug={r.tenantSlug} projectName={r.projectName} />}
            </div>
          </Card>
        )}

        {conversation.comments && (
          <div role="region" aria-label="Conversation">
          <Card title="Conversation" description="Between the requester and those who decide: the requester, the tenant's admins and the platform admins read it.">
            <RequestThread
              comments={conversation.comments}
              currentRevision={r.revision}
              form={
                <ActionForm
                  action={commentOnQuotaRequestAction}
                  fields={[
                    { kind: "hidden", name: "requestId", value: r.id },
                    { kind: "textarea", name: "body", label: "Your comment", hint: "Up to 4,000 characters. The other side is notified." },
                  ]}
                  submitLabel="Send comment"
                  pendingLabel="Sending…"
                />
              }
            />
          </Card>
          </div>
        )}

        {conversation.revisions.length > 1 && (
          <Card title="Revisions" description="Each edit by the requester, with what it changed. Earlier revisions are kept.">
            <RevisionHistory revisions={conversation.revisions} />
          </Card>
        )}

        <Card title="Timeline">
          {events.length === 0 ? (
            <p className="text-sm text-slate-500">Nothing recorded yet.</p>
          ) : (
            <ol className="relative space-y-4 border-l border-slate-200 pl-5" aria-label="Timeline of the request">
              {events.map((e) => (
                <li key={e.id} className="relative">
                  <span aria-hidden className={`absolute -left-[1.64rem] top-1.5 h-2.5 w-2.5 rounded-full ring-2 ring-white ${dotClass(e.kind)}`} />
                  <p className="text-sm">
                    <span className="font-medium text-slate-900">{eventTitle(e.kind)}</span> <span className="text-slate-600">by {e.actorLabel}</span>
                  </p>
                  <p className="text-xs text-slate-500">
                    <Time at={e.at} />
                  </p>
                  <EventDetail kind={e.kind} detail={e.detail} currency={currency} />
                </li>
              ))}
            </ol>
          )}
        </Card>
      </div>
    </>
  );
}

function Item({ label, children, wide = false }: { label: string; children: ReactNode; wide?: boolean }) {
  return (
    <div className={wide ? "sm:col-span-2" : ""}>
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="mt-1 text-slate-900">{children}</dd>
    </div>
  );
}

/** What was granted: as asked, or the changed amounts an admin approved. Null until something was granted. */
function grantedOf(r: RequestDetail["request"]): { amounts: QuotaAmounts; endsAt: Date | null; changed: boolean } | null {
  if (!GRANTED_STATUSES.has(r.status) || !r.decidedAt) return null;
  if (!r.granted) return { amounts: r.amounts, endsAt: r.endsAt, changed: false };
  const g = r.granted;
  return {
    amounts: grantedAmountsOf(g, r.amounts),
    endsAt: g.endsAt ? new Date(g.endsAt) : null,
    changed: true,
  };
}

const EVENT_TITLES: Record<string, string> = {
  created: "Asked",
  edited: "Edited",
  auto_approved: "Approved automatically",
  first_approval: "First approval",
  approved: "Approved",
  approved_with_changes: "Approved with changes",
  rejected: "Rejected",
  cancelled: "Cancelled",
  applied: "Applied on the cluster",
  apply_failed: "Applying on the cluster failed",
  expired: "Expired undecided",
  grant_ended: "Grant ended",
};

const eventTitle = (kind: string) => EVENT_TITLES[kind] ?? kind.replace(/_/g, " ");

function dotClass(kind: string): string {
  if (kind === "rejected" || kind === "apply_failed") return "bg-red-500";
  if (kind === "applied" || kind.startsWith("approved") || kind === "auto_approved") return "bg-emerald-500";
  if (kind === "first_approval") return "bg-amber-500";
  return "bg-slate-400";
}

/** The parts of an event's detail worth reading: the estimate, the rule, what was granted, the note, reason or error. */
async function EventDetail({ kind, detail, currency }: { kind: string; detail: Record<string, unknown> | null; currency: string }) {
  if (!detail) return null;
  const zone = await viewerTimeZone();
  const lines: string[] = [];
  if (typeof detail.estimate === "number") lines.push(`Estimate ${formatMoney(detail.estimate, typeof detail.currency === "string" ? detail.currency : currency)} a month.`);
  if (typeof detail.rule === "string") lines.push(`Rule: ${detail.rule}.`);
  const extension = detail.extension as { from?: unknown; to?: unknown } | undefined;
  if (extension && typeof extension.from === "string" && typeof extension.to === "string") {
    lines.push(`${kind === "created" ? "To extend" : "Extended"} the grant from ${formatDateTime(new Date(extension.from))} to ${formatDateTime(new Date(extension.to))}.`);
  }
  if (typeof detail.revision === "number" && kind === "edited") lines.push(`Now revision ${detail.revision}.${detail.firstApprovalWithdrawn ? " The first approval, of the earlier revision, was withdrawn." : ""}`);
  else if (typeof detail.revision === "number" && detail.revision > 1) lines.push(`Of revision ${detail.revision}.`);
  const granted = detail.granted;
  if (granted && typeof granted === "object" && (kind === "approved_with_changes" || kind === "first_approval")) {
    const endsAt = typeof detail.endsAt === "string" ? new Date(detail.endsAt) : null;
    lines.push(`Granted ${describeAmounts(eventGrantedAmountsOf(granted as Record<string, unknown>))}, ${endsAt ? `until ${formatDateTime(endsAt, zone)}` : "permanent"}.`);
  }
  if (typeof detail.note === "string") lines.push(`Note: ${detail.note}`);
  if (typeof detail.reason === "string") lines.push(`Reason: ${detail.reason}`);
  if (typeof detail.error === "string") lines.push(`Error: ${detail.error}`);
  if (typeof detail.why === "string") lines.push(`Because ${detail.why}.`);
  if (lines.length === 0) return null;
  return (
    <div className="mt-1 space-y-0.5 text-sm text-slate-700">
      {lines.map((l, i) => (
        <p key={i} className="whitespace-pre-wrap">
          {l}
        </p>
      ))}
    </div>
  );
}
