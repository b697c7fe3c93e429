import Link from "next/link";

import { requestPath } from "@/lib/quota/places";
import type { RequestHistory } from "@/lib/quota/request-conversation";
import { describeAmounts } from "@/lib/quota/view-helpers";
import { RequestStatusBadge } from "./request-status";
import { Time } from "@/components/time";

const SOURCES: Record<string, string> = { request: "from a request", onboarding: "at onboarding", move: "moved by a tenant admin", demo: "demo data" };

/**
 * What the tenant asked for before and what the project holds from earlier
 * grants, beside a request being decided: lists rather than tables, so they
 * read on a phone too. Presentation only.
 */
export function RequestHistoryView({ history, tenantSlug, projectName }: { history: RequestHistory; tenantSlug: string; projectName: string }) {
  const heading = "text-sm font-semibold text-slate-900";
  return (
    <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
      <section aria-labelledby="history-requests" className="min-w-0">
        <h3 id="history-requests" className={heading}>
          Earlier requests of the tenant
        </h3>
        {history.tenantRequests.length === 0 ? (
          <p className="mt-1 text-sm text-slate-600">None: this is the tenant&apos;s first request.</p>
        ) : (
          <ul className="mt-2 divide-y divide-slate-100 text-sm" data-testid="history-requests">
            {history.tenantRequests.map((r) => (
              <li key={r.id} className="py-2">
                <p className="flex flex-wrap items-center gap-x-2">
                  <Link href={requestPath(tenantSlug, r.projectSlug, r.id)} className="font-medium text-brand-700 underline-offset-2 hover:underline">
                    {describeAmounts(r.amounts)}
                  </Link>
                  <RequestStatusBadge status={r.status} />
                </p>
                <p className="text-xs text-slate-600">
                  {r.projectName} · asked <Time at={r.createdAt} day /> by {r.requester ?? "a deleted principal"}
                  {r.decidedAt ? <> · decided <Time at={r.decidedAt} day /></> : ""} · {r.endsAt ? <>until <Time at={r.endsAt} day /></> : "permanent"}
                </p>
                {r.decisionNote && <p className="mt-0.5 text-xs text-slate-700">“{r.decisionNote}”</p>}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="history-grants" className="min-w-0">
        <h3 id="history-grants" className={heading}>
          Grants of {projectName}
        </h3>
        {history.projectGrants.length === 0 ? (
          <p className="mt-1 text-sm text-slate-600">None: the project holds only the starting quota.</p>
        ) : (
          <ul className="mt-2 divide-y divide-slate-100 text-sm" data-testid="history-grants">
            {history.projectGrants.map((g) => (
              <li key={g.id} className="py-2">
                <p className="font-medium text-slate-900">{describeAmounts(g.amounts)}</p>
                <p className="text-xs text-slate-600">
                  {SOURCES[g.source] ?? g.source} · from <Time at={g.startsAt} day /> {g.endsAt ? <>until <Time at={g.endsAt} day /></> : "(permanent)"}
                </p>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
