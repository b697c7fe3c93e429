import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { buttonClass } from "@/components/button-class";
import { inputClass } from "@/components/form";
import { DecisionActions } from "@/components/quota/decision-actions";
import { DecisionPicture } from "@/components/quota/decision-picture";
import { ExtensionPictureView } from "@/components/quota/extension-picture";
import { RequestStatusBadge } from "@/components/quota/request-status";
import { TenantRequestQueue } from "@/components/tenant-request-queue";
import { Card, EmptyState, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { config } from "@/lib/config";
import { requestableGpuModels } from "@/lib/quota/commands/requests";
import { largeRequestThreshold } from "@/lib/quota/policy";
import { decodeCursor } from "@/lib/input/cursor";
import { approvalQueuePage, pendingRequestCount, pendingTenantRequests, QUEUE_PAGE_SIZE, type QueueEntry, type QueueFilter } from "@/lib/quota/queries";
import { loadQuotaPolicy } from "@/lib/quota/store";
import { addedPeriodCostPhrase, describeAmounts, formatMoney, periodCostPhrase } from "@/lib/quota/view-helpers";
import { allTenantsForAdmin } from "@/lib/tenancy/queries";
import { approveQuotaRequestAction, rejectQuotaRequestAction } from "./actions";
import { Time } from "@/components/time";

export const metadata = { title: "Approval queue" };
export const dynamic = "force-dynamic";

const SIZES = [
  { value: "gpu", label: "Asks for GPUs" },
  { value: "small", label: "No GPUs" },
  // Labelled with the threshold in force: the second-approval limit when one is set (largeRequestThreshold).
  { value: "large", label: "Large" },
] as const;

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (typeof v === "string" && v !== "" ? v : undefined);

export default async function ApprovalQueuePage({ searchParams }: { searchParams: SearchParams }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const sp = await searchParams;
  const size = one(sp.size);
  const filter: QueueFilter = { tenant: one(sp.tenant), gpuModel: one(sp.gpuModel), size: SIZES.some((s) => s.value === size) ? (size as QueueFilter["size"]) : undefined };
  // A page starts after the cursor of the one before (keyset pagination); a link whose cursor does not parse shows the first page.
  const after = one(sp.after);
  const cursor = after ? (decodeCursor(after) ?? undefined) : undefined;
  const page = await approvalQueuePage(ctx, filter, { after: cursor });
  if (!page) notFound();
  const { entries, next } = page;
  const [total, tenants, models, tenantRequests, policy] = await Promise.all([
    pendingRequestCount(ctx),
    allTenantsForAdmin(ctx),
    requestableGpuModels(ctx.db),
    pendingTenantRequests(ctx),
    loadQuotaPolicy(ctx.db),
  ]);
  const largeAbove = largeRequestThreshold(policy);
  const filtered = Boolean(filter.tenant || filter.gpuModel || filter.size);
  const currency = config().currency;

  return (
    <>
      <PageHeader
        crumbs={[{ href: "/admin", label: "Admin" }]}
        title="Approval queue"
        subtitle={
          <span data-testid="queue-count">
            {total === 0 ? "No quota request is waiting." : `${total} quota request${total === 1 ? "" : "s"} waiting, oldest first.`}
            {filtered && ` Filtered: ${entries.length} shown${next ? " on this page, more on the next" : ""}.`}
            {cursor && " A later page."}
          </span>
        }
      />
      <div className="space-y-6">
        <form method="get" action="/admin/requests" className="flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm" aria-label="Filter the queue">
          <label className="text-sm">
            <span className="mb-1 block font-medium text-slate-800">Tenant</span>
            <select name="tenant" defaultValue={filter.tenant ?? ""} className={inputClass}>
              <option value="">All tenants</option>
              {(tenants ?? []).map((t) => (
                <option key={t.slug} value={t.slug}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
          <label className="text-sm">
            <span className="mb-1 block font-medium text-slate-800">GPU model</span>
            <select name="gpuModel" defaultValue={filter.gpuModel ?? ""} className={inputClass}>
              <option value="">Any</option>
              {models.map((m) => (
                <option key={m.model} value={m.model}>
                  {m.model}
                </option>
              ))}
            </select>
          </label>
          <label className="text-sm">
            <span className="mb-1 block font-medium text-slate-800">Size</span>
            <select name="size" defaultValue={filter.size ?? ""} className={inputClass}>
              <option value="">Any size</option>
              {SIZES.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.value === "large"
                    ? `Over ${formatMoney(largeAbove, currency).replace(/\.00$/, "")} a month${policy.secondApprovalAboveMonthlyCost !== null ? " (second approval)" : ""}`
                    : s.label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className={buttonClass()}>
            Filter
          </button>
          {filtered && (
            <Link href="/admin/requests" className="py-1.5 text-sm text-brand-700 hover:underline">
              Clear filters
            </Link>
          )}
        </form>

        {entries.length === 0 ? (
          <Card>
            {filtered ? (
              <EmptyState title="No waiting request matches these filters">
                <Link href="/admin/requests" className="text-brand-700 hover:underline">
                  Show the whole queue
                </Link>
              </EmptyState>
            ) : (
              <EmptyState title="Nothing to decide">Quota requests that the automatic rules do not approve wait here, oldest first.</EmptyState>
            )}
          </Card>
        ) : (
          <ol className="space-y-6" aria-label="Quota requests waiting for a decision">
            {entries.map((e) => (
              <li key={e.id}>
                <QueueItem entry={e} currency={currency} now={ctx.now} />
              </li>
            ))}
          </ol>
        )}

        {(next || cursor) && (
          <nav aria-label="Pages of the queue" className="flex gap-3">
            {cursor && (
              <Link href={queueHref(filter)} className={buttonClass()}>
                Back to the oldest
              </Link>
            )}
            {next && (
              <Link href={queueHref(filter, next)} className={buttonClass()} data-testid="queue-next-page">
                Next {QUEUE_PAGE_SIZE} requests
              </Link>
            )}
          </nav>
        )}

        {tenantRequests && <TenantRequestQueue rows={tenantRequests} currentPrincipalId={ctx.actor.principalId} />}
      </div>
    </>
  );
}

/** The queue's address with its filters, at the page after `cursor` (the first page without one). */
function queueHref(filter: QueueFilter, cursor?: string): string {
  const query = new URLSearchParams(Object.entries({ ...filter, after: cursor }).filter((e): e is [string, string] => typeof e[1] === "string")).toString();
  return query ? `/admin/requests?${query}` : "/admin/requests";
}

function waited(from: Date, now: Date): string {
  const minutes = Math.max(0, Math.round((now.getTime() - from.getTime()) / 60_000));
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? "" : "s"} ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} hour${hours === 1 ? "" : "s"} ago`;
  return `${Math.round(hours / 24)} days ago`;
}

function QueueItem({ entry: e, currency, now }: { entry: QueueEntry; currency: string; now: Date }) {
  const href = `/tenants/${e.tenantSlug}/projects/${e.projectSlug}/quota/requests/${e.id}`;
  const headingId = `request-${e.id}`;
  const x = e.extensionPicture;
  const monthly = x ? x.monthly : e.assessment.estimate.monthly;
  const periodCost = x ? addedPeriodCostPhrase(x.monthly, x.from, x.to, currency) : periodCostPhrase(monthly, now, e.endsAt, currency);
  return (
    <article aria-labelledby={headingId} className="min-w-0 rounded-lg border border-slate-200 bg-white shadow-sm" data-testid="queue-entry">
      <header className="flex flex-wrap items-start justify-between gap-4 border-b border-slate-100 px-5 py-3">
        <div className="min-w-0">
          <h2 id={headingId} className="text-base font-semibold text-slate-900">
            <Link href={href} className="hover:underline">
              {x ? "Extend " : ""}
              {describeAmounts(e.amounts)} for {e.tenantSlug}/{e.projectName}
            </Link>
          </h2>
          <p className="mt-0.5 text-sm text-slate-600">
            {x ? <>from <Time at={x.from} /> to <Time at={x.to} /></> : e.endsAt ? <>until <Time at={e.endsAt} /></> : "permanent"} · asked by <strong className="font-medium text-slate-800">{e.requester ?? "a deleted principal"}</strong>{" "}
            <Time at={e.createdAt}>{waited(e.createdAt, now)}</Time>{" "}
            · about <strong className="font-medium text-slate-800">{formatMoney(monthly, currency)}</strong> a month
            {periodCost && (
              <>
                , <strong className="font-medium text-slate-800">{periodCost}</strong>
              </>
            )}
          </p>
          <div className="mt-1">
            {x && (
              <span className="mr-2 inline-flex items-center rounded-full bg-brand-50 px-2 py-0.5 text-xs font-medium text-brand-700 ring-1 ring-inset ring-brand-100" data-testid="extension-badge">
                Extension of a grant
              </span>
            )}
            <RequestStatusBadge status={e.status} awaitingSecondApproval={e.awaitingSecondApproval} />
            {e.revision > 1 && (
              <Link href={href} className="ml-2 text-xs font-medium text-amber-900 underline underline-offset-2" data-testid="edited-badge">
                Edited by the requester: revision {e.revision}, see what changed
              </Link>
            )}
          </div>
        </div>
        <DecisionActions request={{ ...e, extending: x && { from: x.from, monthly: x.monthly } }} currency={currency} approveAction={approveQuotaRequestAction} rejectAction={rejectQuotaRequestAction} now={now} />
      </header>
      <div className="space-y-5 px-5 py-4">
        <blockquote className="border-l-4 border-slate-200 pl-3 text-sm text-slate-800">
          <span className="sr-only">Justification: </span>
          {e.justification}
        </blockquote>
        {x ? <ExtensionPictureView entry={e} currency={currency} compact /> : <DecisionPicture entry={e} currency={currency} compact />}
        <p className="text-sm">
          <Link href={href} className="font-medium text-brand-700 hover:underline">
            Open the request<span className="sr-only"> for {e.tenantSlug}/{e.projectName}</span>
          </Link>
          <span className="text-slate-600"> for its revisions, the conversation with the requester and the tenant&apos;s earlier requests and grants.</span>
        </p>
      </div>
    </article>
  );
}
