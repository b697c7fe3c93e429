import { Badge, Card, formatDateTime } from "@/components/ui";
import type { LiveMode, ShareNow } from "@/lib/quota/share-now";
import { FlavourQuotaTable, flavourName, formatLineAmount, liveCells, liveKey, planCells, resourceName, type LiveFlavourUse } from "./flavour-table";
import { viewerTimeZone } from "@/lib/server/time-zone";

/**
 * "Share now" on a project's page: the plan per flavour beside what Kueue
 * holds for the project at this moment, and the workloads that wait, with
 * why and where they stand. Record-only says no cluster is connected and
 * shows the plan; a cluster that cannot be read says why. Presentation only.
 */
export async function ShareNowCard({ share, projectName }: { share: ShareNow; projectName: string }) {
  const zone = await viewerTimeZone();
  const lines = share.lines.map((l) => ({ flavor: l.flavor, resource: l.resource, guarantee: l.guaranteed, burst: l.burst, lendLimit: l.lendLimit }));
  const live: LiveFlavourUse | null = share.mode === "live" ? Object.fromEntries(share.lines.map((l) => [liveKey(l.flavor, l.resource), { inUse: l.inUse, borrowed: l.borrowed, lent: l.lent }])) : null;
  const caption = `Share of ${projectName} now, by flavour`;
  return (
    <Card title="Share now" description={describe(share, projectName, zone)}>
      <div className="space-y-4" data-testid="share-now">
        <LiveModeNotice live={share} />
        {share.lines.length === 0 ? (
          <FlavourQuotaTable lines={lines} caption={caption} live={live} lentEstimated />
        ) : (
          <>
            {/* Eight columns do not fit a phone: there each line is a short list, live figures first. */}
            <div className="hidden sm:block">
              <FlavourQuotaTable lines={lines} caption={caption} live={live} lentEstimated />
            </div>
            <ShareLineList share={share} caption={caption} />
          </>
        )}
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

/** The lines on a narrow screen: one block per flavour and resource, the same figures as the table's. */
function ShareLineList({ share, caption }: { share: ShareNow; caption: string }) {
  return (
    <ul aria-label={caption} className="divide-y divide-slate-100 sm:hidden" data-testid="share-lines">
      {share.lines.map((l) => {
        const plan = planCells(l);
        const use = share.mode === "live" ? liveCells(l.resource, l) : null;
        // Live figures on the first row, the plan on the second: three to a row fit a phone without wrapping a number.
        const figures: [string, string][] = [
          ...(use ? ([["In use", use.inUse], ["Borrowed", use.borrowed], ["Lent (est.)", use.lent]] as [string, string][]) : []),
          ["Guaranteed", formatLineAmount(l.resource, Math.max(0, l.guaranteed))],
          ["Burst limit", plan.burst],
          ["Others may borrow", plan.othersMayBorrow],
        ];
        return (
          <li key={liveKey(l.flavor, l.resource)} className="py-2">
            <p className="text-sm font-medium text-slate-900">
              {flavourName(l.flavor)} <span className="font-normal text-slate-600">· {resourceName(l.resource)}</span>
            </p>
            <dl className="mt-1 grid grid-cols-3 gap-x-3 gap-y-1.5">
              {figures.map(([term, value]) => (
                <div key={term}>
                  <dt className="text-xs text-slate-500">{term}</dt>
                  <dd className="whitespace-nowrap text-sm tabular-nums text-slate-900">{value}</dd>
                </div>
              ))}
            </dl>
          </li>
        );
      })}
    </ul>
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

function describe(share: ShareNow, projectName: string, zone: string): string {
  switch (share.mode) {
    case "live":
      return `What Kueue holds for ${projectName}, read from ${share.server} at ${formatDateTime(share.readAt, zone)}.`;
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
              {w.reason && (
                <div className="mt-1 text-slate-600">
                  <p className="break-words">Why it waits: {w.explanation?.sentence ?? w.reason}</p>
                  {w.explanation && (
                    <details className="mt-1 text-xs text-slate-500">
                      <summary className="cursor-pointer">Kueue’s message</summary>
                      <p className="mt-1 break-all font-mono">{w.reason}</p>
                    </details>
                  )}
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {share.positionsNote && <p className="mt-2 text-xs text-slate-500">{share.positionsNote}</p>}
    </section>
  );
}
