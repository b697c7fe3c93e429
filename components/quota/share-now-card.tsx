import { Badge, Card, formatDateTime } from "@/components/ui";
import type { LiveMode, ShareNow } from "@/lib/quota/share-now";
import { FlavourQuotaTable, liveKey, type LiveFlavourUse } from "./flavour-table";

/**
 * "Share now" on a project's page: the plan per flavour beside what Kueue
 * holds for the project at this moment, and the workloads that wait, with
 * why and where they stand. Record-only says no cluster is connected and
 * shows the plan; a cluster that cannot be read says why. Presentation only.
 */
export function ShareNowCard({ share, projectName }: { share: ShareNow; projectName: string }) {
  const lines = share.lines.map((l) => ({ flavor: l.flavor, resource: l.resource, guarantee: l.guaranteed, burst: l.burst, lendLimit: l.lendLimit }));
  const live: LiveFlavourUse | null = share.mode === "live" ? Object.fromEntries(share.lines.map((l) => [liveKey(l.flavor, l.resource), { inUse: l.inUse, borrowed: l.borrowed, lent: l.lent }])) : null;
  const caption = `Share of ${projectName} now, by flavour`;
  return (
    <Card title="Share now" description={describe(share, projectName)}>
      <div className="space-y-4" data-testid="share-now">
        <LiveModeNotice live={share} />
        <FlavourQuotaTable lines={lines} caption={caption} live={live} lentEstimated />
        {share.mode === "live" && (
          <>
            <p className="text-xs text-slate-500">
              In use is the quota Kueue has reserved for the project&apos;s workloads; borrowed is the part above its guarantee. Lent is an estimate: Kueue reports what each queue borrows, not from whom, so it
              is the smaller of the unused guarantee others may borrow and what the tenant&apos;s other projects borrow.
            </p>
            <PendingList share={share} />
          </>
        )}
      </div>
    </Card>
  );
}

/** Why there are no live figures, when there are none: no cluster connected, or the cluster could not be read. */
export function LiveModeNotice({ live }: { live: Pick<LiveMode, "mode"> & { message?: string } }) {
  if (live.mode === "record-only")
    return (
      <p className="text-sm text-slate-700">
        <Badge tone="amber">No cluster connected</Badge> The portal records plans without applying them, so there is no live use to show: below is the plan only.
      </p>
    );
  if (live.mode === "unavailable")
    return (
      <p role="status" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
        <strong>Live figures unavailable.</strong> {live.message} Below is the plan only.
      </p>
    );
  return null;
}

function describe(share: ShareNow, projectName: string): string {
  switch (share.mode) {
    case "live":
      return `What Kueue holds for ${projectName}, read from ${share.server} at ${formatDateTime(share.readAt)}.`;
    case "no-kueue":
      return `Kueue is not managed by this portal, so ${projectName}'s guarantee is a hard quota: nothing is borrowed or lent through it.`;
    default:
      return `What ${projectName} is planned to hold per flavour.`;
  }
}

function PendingList({ share }: { share: Extract<ShareNow, { mode: "live" }> }) {
  return (
    <section aria-labelledby="pending-heading">
      <h3 id="pending-heading" className="mb-2 text-sm font-semibold text-slate-900">
        Waiting workloads ({share.pending.length})
      </h3>
      {share.pending.length === 0 ? (
        <p className="text-sm text-slate-600">Nothing waits: every workload submitted to the project&apos;s queues has its quota.</p>
      ) : (
        <ul className="divide-y divide-slate-100 rounded-md border border-slate-200" data-testid="pending-workloads">
          {share.pending.map((w) => (
            <li key={w.name} className="px-3 py-2 text-sm">
              <div className="flex flex-wrap items-center gap-2">
                <span className="break-all font-mono text-xs font-medium text-slate-900">{w.name}</span>
                {w.tier && <Badge tone={w.tier === "preemptible" ? "amber" : "blue"}>{w.tier}</Badge>}
                {w.queue && <span className="text-xs text-slate-500">queue {w.queue}</span>}
                {w.evicted && <Badge tone="red">evicted, waiting again</Badge>}
                <span className="ml-auto text-xs text-slate-700">
                  {w.positionInQueue !== null ? (
                    <>
                      <strong>#{w.positionInQueue}</strong> in its queue{w.positionInClusterQueue !== null && w.positionInClusterQueue !== w.positionInQueue ? `, #${w.positionInClusterQueue} in the cluster queue` : ""}
                    </>
                  ) : (
                    "position unknown"
                  )}
                </span>
              </div>
              {w.reason && <p className="mt-1 break-words text-slate-600">Why it waits: {w.reason}</p>}
            </li>
          ))}
        </ul>
      )}
      {share.positionsNote && <p className="mt-2 text-xs text-slate-500">{share.positionsNote}</p>}
    </section>
  );
}
