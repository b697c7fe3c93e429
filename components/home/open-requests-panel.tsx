import Link from "next/link";
import type { RequestListItem } from "@/lib/quota/queries";
import { describeAmounts } from "@/lib/quota/view-helpers";
import { RequestStatusBadge } from "../quota/request-status";

import { GlancePanel } from "./glance-panel";
import { Time } from "@/components/time";

/**
 * Requests that still need someone: waiting for a decision, or approved but failed to apply. An approved
 * request is not listed: with no cluster connected it stays "approved" for good, and live it is applied in seconds.
 */
export const OPEN_REQUEST_STATUSES: readonly string[] = ["pending", "apply_failed"];
const SHOWN = 4;

/** Open quota requests with their state, each a link to its timeline. Presentation only. */
export function OpenRequestsPanel({ requests, href, requestHref, showProject = false }: { requests: readonly RequestListItem[]; href: string; requestHref: (r: RequestListItem) => string; showProject?: boolean }) {
  const open = requests.filter((r) => OPEN_REQUEST_STATUSES.includes(r.status));
  return (
    <GlancePanel title="Open requests" href={href} linkLabel="All requests" testId="glance-requests">
      {open.length === 0 ? (
        <p className="text-slate-600">No request is waiting for a decision or failed to apply.</p>
      ) : (
        <ul className="space-y-2" aria-label="Open quota requests">
          {open.slice(0, SHOWN).map((r) => (
            <li key={r.id} className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
              <Link href={requestHref(r)} className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-900">
                {showProject ? `${r.projectName}: ` : ""}
                {r.extension ? <>Extend {describeAmounts(r.amounts)} to <Time at={r.endsAt!} day /></> : describeAmounts(r.amounts)}
              </Link>
              <span className="flex items-center gap-2 text-xs text-slate-600">
                <Time at={r.createdAt} day /> <RequestStatusBadge status={r.status} awaitingSecondApproval={r.awaitingSecondApproval} />
              </span>
            </li>
          ))}
          {open.length > SHOWN && <li className="text-xs text-slate-600">and {open.length - SHOWN} more</li>}
        </ul>
      )}
    </GlancePanel>
  );
}
