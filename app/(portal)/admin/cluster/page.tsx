import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { ActionForm, type FieldSpec } from "@/components/action-form";
import { buttonClass } from "@/components/button-class";
import { ChangeStatusBadge, DriftList, plural, truncate } from "@/components/cluster-status";
import { Cell, DataTable } from "@/components/table";
import { Card, EmptyState, formatDateTime, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { can } from "@/lib/auth/policy";
import { CHANGE_STATUSES, CHANGES_PAGE_SIZE, changeCounts, clusterChangesPage, driftedObjects, type ChangeListItem, type ChangeStatus } from "@/lib/cluster/queries";
import { failureAdvice } from "@/lib/cluster/failure-advice";
import { clusterRuntime } from "@/lib/cluster/runtime";
import { scheduledClusterChanges, type ScheduledChangeItem } from "@/lib/cluster/scheduled-queries";
import { noDriftWording, shownWording, waitingWording } from "@/lib/cluster/status-wording";
import { config } from "@/lib/config";
import { checkDriftNowAction, reconcileEverythingAction, reconcileTargetAction, retryClusterChangeAction } from "./actions";
import { Time } from "@/components/time";
import { viewerTimeZone } from "@/lib/server/time-zone";

export const metadata = { title: "Cluster" };
export const dynamic = "force-dynamic";

const SHOWN_REASONS = 3;

function statusFilter(value: string | string[] | undefined): ChangeStatus | undefined {
  return typeof value === "string" && (CHANGE_STATUSES as readonly string[]).includes(value) ? (value as ChangeStatus) : undefined;
}

/** The `before` of a page link: a change id. Anything else (a hand-edited link) shows the newest page. */
function beforeId(value: string | string[] | undefined): number | undefined {
  return typeof value === "string" && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : undefined;
}

/** The cluster page's address with its status filter, at the page of changes before `before` (the newest without one). */
function changesHref(status: ChangeStatus | undefined, before?: number): string {
  const query = new URLSearchParams([...(status ? [["status", status]] : []), ...(before !== undefined ? [["before", String(before)]] : [])]).toString();
  return query ? `/admin/cluster?${query}` : "/admin/cluster";
}

export default async function ClusterPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  if (!can(ctx.actor, "cluster.view", { kind: "platform" }, ctx.now)) notFound();
  const canManage = can(ctx.actor, "cluster.manage", { kind: "platform" }, ctx.now);
  const sp = await searchParams;
  const status = statusFilter(sp.status);
  const before = beforeId(sp.before);
  const runtime = clusterRuntime(config().cluster);
  const live = runtime.mode === "live";
  const [counts, drifted, { changes, older }, scheduled] = await Promise.all([
    changeCounts(ctx.db),
    driftedObjects(ctx.db),
    clusterChangesPage(ctx.db, { status, before }),
    scheduledClusterChanges(ctx.db, ctx.now),
  ]);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const noDrift = noDriftWording(runtime.mode);

  return (
    <>
      <PageHeader
        crumbs={[{ href: "/admin", label: "Admin" }]}
        title="Cluster"
        subtitle="How the portal's desired state reaches the cluster: every change, its attempts, and drift."
        actions={
          canManage ? (
            <>
              <ActionForm action={reconcileEverythingAction} fields={[]} submitLabel="Reconcile everything" pendingLabel="Queueing…" />
              {live && <ActionForm action={checkDriftNowAction} fields={[]} submitLabel="Check drift now" pendingLabel="Checking…" />}
            </>
          ) : undefined
        }
      />

      <div className="space-y-6">
        <Card title="Connection">
          {live ? (
            <p className="text-sm text-slate-700" data-testid="cluster-mode">
              <strong>Live</strong>: changes are applied with server-side apply to API server <code className="font-mono text-xs">{runtime.server ?? "(unknown)"}</code>.
            </p>
          ) : (
            <p className="text-sm text-slate-700" data-testid="cluster-mode">
              <strong>record-only: no cluster connected.</strong> Changes are rendered, validated and stored as plans; download them as YAML to apply with kubectl or a GitOps
              tool.
            </p>
          )}
        </Card>

        <Card title="Drift" description="Objects whose live state differs from what the portal applied, or that are gone from the cluster.">
          {drifted.length === 0 ? (
            <EmptyState title={noDrift.title}>{noDrift.body}</EmptyState>
          ) : (
            <DataTable caption="Drifted objects" columns={["Tenant", "Namespace", "Object", "What differs", ...(canManage ? ["Action"] : [])]}>
              {drifted.map((o) => (
                <tr key={o.id}>
                  <Cell className="whitespace-nowrap font-medium">{o.tenantSlug ?? "platform"}</Cell>
                  <Cell className="font-mono text-xs">{o.namespace ? <Namespace name={o.namespace} /> : <span className="font-sans text-slate-500">cluster-scoped</span>}</Cell>
                  <Cell>
                    <span className="block">{o.kind}</span>
                    <span className="sr-only">/</span>
                    <span className="font-mono text-xs">{o.name}</span>
                  </Cell>
                  <Cell>
                    <DriftList drift={o.drift} />
                  </Cell>
                  {canManage && (
                    <Cell className="whitespace-nowrap text-right">
                      <ActionForm
                        action={reconcileTargetAction}
                        fields={[...(o.tenantId ? [{ kind: "hidden", name: "tenantId", value: o.tenantId } satisfies FieldSpec] : []), ...(o.projectId ? [{ kind: "hidden", name: "projectId", value: o.projectId } satisfies FieldSpec] : [])]}
                        submitLabel="Reconcile now"
                        pendingLabel="Queueing…"
                      />
                    </Cell>
                  )}
                </tr>
              ))}
            </DataTable>
          )}
        </Card>

        <ScheduledChanges scheduled={scheduled} />

        <Card
          title="Changes"
          description={`Newest first; showing ${shownWording(changes.length, status ? counts[status] : total, status ? `${status} change` : "change", before)}. A change renders its target from the database as it is when a worker takes it.`}
        >
          <div className="space-y-4">
            <StatusFilter active={status} counts={counts} total={total} />
            {changes.length === 0 ? (
              before !== undefined ? (
                <EmptyState title={`No ${status ? `${status} ` : ""}changes before #${before}`}>
                  <Link href={changesHref(status)} className="text-brand-700 hover:underline">
                    Show the newest
                  </Link>
                </EmptyState>
              ) : status ? (
                <EmptyState title={`No ${status} changes`}>
                  <Link href="/admin/cluster" className="text-brand-700 hover:underline">
                    Show all changes
                  </Link>
                </EmptyState>
              ) : (
                <EmptyState title="No cluster changes yet">Changes appear here as soon as desired state changes: a new tenant or project, a member, a grant.</EmptyState>
              )
            ) : (
              <DataTable
                caption={status ? `Cluster changes: ${status}` : "Cluster changes"}
                columns={["#", "Target", "Reasons", "Status", "Attempts", "Last error", "Created", "Finished"]}
              >
                {changes.map((c) => (
                  <ChangeRows key={c.id} change={c} canRetry={canManage} now={ctx.now} />
                ))}
              </DataTable>
            )}
            {(older !== null || before !== undefined) && (
              <nav aria-label="Pages of changes" className="flex flex-wrap gap-3">
                {before !== undefined && (
                  <Link href={changesHref(status)} className={buttonClass()}>
                    Back to the newest
                  </Link>
                )}
                {older !== null && (
                  <Link href={changesHref(status, older)} className={buttonClass()} data-testid="changes-older-page">
                    Older {CHANGES_PAGE_SIZE} changes
                  </Link>
                )}
              </nav>
            )}
          </div>
        </Card>
      </div>
    </>
  );
}

/**
 * Changes the cluster makes later by itself (cluster_scheduled_changes): an
 * access that expires, a quota grant that starts or ends. They are not in the
 * outbox yet, so they are listed apart, each "scheduled for" its instant; the
 * count is the length of the list beside it.
 */
function ScheduledChanges({ scheduled }: { scheduled: ScheduledChangeItem[] }) {
  return (
    <Card title="Scheduled changes" description="Made later without anyone acting, when an access or a quota grant starts or ends; the worker enqueues each at its instant.">
      <p className="mb-3 text-sm text-slate-700" data-testid="scheduled-count">
        {scheduled.length === 0 ? "Nothing scheduled." : `${plural(scheduled.length, "change")} scheduled.`}
      </p>
      {scheduled.length > 0 && (
        <DataTable caption="Scheduled cluster changes" columns={["Target", "Reason", "When"]}>
          {scheduled.map((s) => (
            <tr key={s.id}>
              <Cell>
                <span className="block font-medium text-slate-900">{s.tenantSlug}</span>
                <span className="sr-only"> / </span>
                {s.namespace ? (
                  <span className="font-mono text-xs">
                    <Namespace name={s.namespace} />
                  </span>
                ) : (
                  <span className="whitespace-nowrap text-xs text-slate-600">tenant-wide (Kueue)</span>
                )}
              </Cell>
              <Cell className="text-xs text-slate-700">{s.reason}</Cell>
              <Cell className="whitespace-nowrap text-xs text-slate-700">
                scheduled for <Time at={s.dueAt} />
              </Cell>
            </tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}

function StatusFilter({ active, counts, total }: { active: ChangeStatus | undefined; counts: Record<ChangeStatus, number>; total: number }) {
  const items: { label: string; href: string; count: number; current: boolean; alarming: boolean }[] = [
    { label: "all", href: "/admin/cluster", count: total, current: !active, alarming: false },
    ...CHANGE_STATUSES.map((s) => ({ label: s, href: `/admin/cluster?status=${s}`, count: counts[s], current: active === s, alarming: s === "failed" && counts[s] > 0 })),
  ];
  return (
    <nav aria-label="Filter changes by status">
      <ul className="flex flex-wrap gap-2 text-sm">
        {items.map((i) => (
          <li key={i.label}>
            <Link
              href={i.href}
              aria-current={i.current ? "page" : undefined}
              className={`inline-flex items-center gap-2 rounded-md border px-3 py-1.5 ${
                i.current ? "border-brand-600 bg-brand-50 text-brand-900" : i.alarming ? "border-red-200 bg-red-50 text-red-800 hover:bg-red-100" : "border-slate-200 text-slate-700 hover:bg-slate-50"
              }`}
            >
              {i.label} <span className="font-semibold tabular-nums">{i.count}</span>
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** A namespace may break after its "--" (tenant--project), so a narrow column stays readable. */
function Namespace({ name }: { name: string }) {
  const cut = name.indexOf("--");
  return cut === -1 ? (
    <>{name}</>
  ) : (
    <>
      {name.slice(0, cut + 2)}
      <wbr />
      {name.slice(cut + 2)}
    </>
  );
}

/** "tenant / namespace" (the namespace links to the project), "tenant / tenant-wide (Kueue)" for its cluster-scoped objects, or the platform's flavours. */
function ChangeTarget({ change: c }: { change: ChangeListItem }) {
  if (c.tenantSlug === null) {
    return (
      <>
        <span className="block font-medium text-slate-900">platform</span>
        <span className="sr-only"> / </span>
        <span className="whitespace-nowrap text-xs text-slate-600">node pool flavours (Kueue)</span>
      </>
    );
  }
  return (
    <>
      <span className="block font-medium text-slate-900">{c.tenantSlug}</span>
      <span className="sr-only"> / </span>
      {c.projectSlug && c.namespace ? (
        <Link href={`/tenants/${c.tenantSlug}/projects/${c.projectSlug}`} className="font-mono text-xs text-brand-700 hover:underline">
          <Namespace name={c.namespace} />
        </Link>
      ) : (
        <span className="whitespace-nowrap text-xs text-slate-600">tenant-wide (Kueue)</span>
      )}
    </>
  );
}

/** Date over time, so the two time columns stay narrow. */
async function When({ at }: { at: Date | null }) {
  if (!at) return <span className="text-slate-500">—</span>;
  const [date, time] = formatDateTime(at, await viewerTimeZone()).split(", ");
  return (
    <time dateTime={at.toISOString()} title={formatDateTime(at)}>
      <span className="block whitespace-nowrap">{date}</span>
      <span className="block whitespace-nowrap">{time}</span>
    </time>
  );
}

/**
 * One change: its line, and under it a disclosure the width of the table with
 * its attempts, full error, deletions and YAML. Two rows, so the details are
 * not squeezed into a column; the line above has no divider, so they read as one.
 */
async function ChangeRows({ change: c, canRetry, now }: { change: ChangeListItem; canRetry: boolean; now: Date }) {
  const zone = await viewerTimeZone();
  const reasons = c.reasons.slice(-SHOWN_REASONS);
  const advice = failureAdvice(c);
  const earlier = c.reasons.length - reasons.length;
  return (
    <>
      <tr className="border-b-0">
        <Cell className="pb-1 font-mono text-xs text-slate-500">{c.id}</Cell>
        <Cell className="pb-1">
          <ChangeTarget change={c} />
        </Cell>
        <Cell className="pb-1 text-xs text-slate-700">
          <ul>
            {reasons.map((r, i) => (
              <li key={i}>{r}</li>
            ))}
          </ul>
          {earlier > 0 && <p className="text-slate-500">and {earlier} earlier</p>}
        </Cell>
        <Cell className="pb-1">
          <ChangeStatusBadge status={c.status} />
          {c.status === "pending" && c.nextAttemptAt.getTime() > now.getTime() && <p className="mt-1 text-xs text-slate-500">{waitingWording(c, now, (d) => formatDateTime(d, zone))}</p>}
          {canRetry && c.status === "failed" && (
            <ActionForm action={retryClusterChangeAction} fields={[{ kind: "hidden", name: "changeId", value: String(c.id) }]} submitLabel="Retry" pendingLabel="Retrying…" className="mt-2" />
          )}
        </Cell>
        <Cell className="pb-1 tabular-nums">{c.attempts}</Cell>
        <Cell className="min-w-40 pb-1 text-xs">
          {c.lastError ? <p className="text-red-700">{truncate(c.lastError, 100)}</p> : <span className="text-slate-500">—</span>}
          {c.status === "failed" && advice && (
            <p className="mt-1 text-slate-700" data-testid="change-advice">
              <span className="font-medium text-slate-900">What to do:</span> {advice.text}
            </p>
          )}
        </Cell>
        <Cell className="pb-1 text-xs text-slate-600">
          <When at={c.createdAt} />
        </Cell>
        <Cell className="pb-1 text-xs text-slate-600">
          <When at={c.finishedAt} />
        </Cell>
      </tr>
      <tr>
        <td colSpan={8} className="px-5 pb-2.5">
          <details>
            <summary className="cursor-pointer text-xs font-medium text-brand-700">
              {plural(c.attemptLog.length, "attempt")}
              {c.lastError ? ", full error" : ""} and YAML<span className="sr-only"> of change {c.id}</span>
            </summary>
            {/* No wider than the table its other rows make. */}
            <div className="mt-2 grid w-0 min-w-full gap-4 text-xs text-slate-700 md:grid-cols-2">
              <div className="space-y-2">
                <p className="font-medium text-slate-900">Attempts</p>
                {c.attemptLog.length === 0 ? (
                  <p className="text-slate-500">No attempt yet.</p>
                ) : (
                  <ol className="space-y-2">
                    {c.attemptLog.map((a) => (
                      <li key={a.id} className="rounded-md border border-slate-200 px-2 py-1.5">
                        <p>
                          <span className="font-medium text-slate-900">Attempt {a.attempt}</span> · {a.outcome ?? (a.finishedAt ? "unknown" : "running, or its worker stopped")}
                        </p>
                        <p className="text-slate-500">
                          started <Time at={a.startedAt} /> by <span className="font-mono">{a.worker}</span>
                        </p>
                        {a.error && <p className="mt-1 whitespace-pre-wrap break-words text-red-700">{a.error}</p>}
                      </li>
                    ))}
                  </ol>
                )}
              </div>
              <div className="space-y-3">
                {c.lastError && (
                  <div>
                    <p className="font-medium text-slate-900">Last error</p>
                    <p className="whitespace-pre-wrap break-words text-red-700">{c.lastError}</p>
                  </div>
                )}
                {advice && (
                  <div>
                    <p className="font-medium text-slate-900">What to do</p>
                    <p>{advice.text}</p>
                  </div>
                )}
                {earlier > 0 && (
                  <div>
                    <p className="font-medium text-slate-900">All reasons</p>
                    <ul className="list-disc pl-4">
                      {c.reasons.map((r, i) => (
                        <li key={i}>{r}</li>
                      ))}
                    </ul>
                  </div>
                )}
                <div>
                  <p className="font-medium text-slate-900">{c.mode === "live" ? "Deleted" : "To delete"}</p>
                  {c.deletions && c.deletions.length > 0 ? (
                    <ul className="font-mono">
                      {c.deletions.map((d) => (
                        <li key={`${d.kind}/${d.namespace ?? ""}/${d.name}`}>
                          {d.kind} {d.namespace ? `${d.namespace}/` : ""}
                          {d.name}
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <p className="text-slate-500">nothing</p>
                  )}
                </div>
                <p>
                  <a href={`/admin/cluster/changes/${c.id}/yaml`} className={buttonClass()} download>
                    YAML<span className="sr-only"> of change {c.id}</span>
                  </a>{" "}
                  <span className="text-slate-500">{c.objects ? plural(c.objects.length, "object") : "not rendered yet"}</span>
                </p>
              </div>
            </div>
          </details>
        </td>
      </tr>
    </>
  );
}
