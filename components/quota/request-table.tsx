import Link from "next/link";
import { Cell, DataTable } from "../table";

import type { RequestListItem } from "@/lib/quota/queries";
import { describeAmounts, formatMoney } from "@/lib/quota/view-helpers";
import { RequestStatusBadge } from "./request-status";
import { Time } from "@/components/time";

const requestHref = (r: RequestListItem) => `/tenants/${r.tenantSlug}/projects/${r.projectSlug}/quota/requests/${r.id}`;

/** Quota requests as a table, newest first as given; the project column for lists across projects. */
export function RequestTable({ caption, requests, currency, showProject = false }: { caption: string; requests: readonly RequestListItem[]; currency: string; showProject?: boolean }) {
  return (
    <DataTable caption={caption} columns={["Date", ...(showProject ? ["Project"] : []), "Asked for", "Until", "Requester", "Estimate / month", "Status"]}>
      {requests.map((r) => (
        <tr key={r.id}>
          <Cell className="whitespace-nowrap">
            <Link href={requestHref(r)} className="font-medium text-brand-700 hover:underline">
              <Time at={r.createdAt} day />
              <span className="sr-only"> request for {describeAmounts(r.amounts)}</span>
            </Link>
          </Cell>
          {showProject && (
            <Cell>
              <Link href={`/tenants/${r.tenantSlug}/projects/${r.projectSlug}/quota`} className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-900">
                {r.projectName}
              </Link>
            </Cell>
          )}
          <Cell className="text-slate-800">
            {r.extension && <span className="font-medium">Extension: </span>}
            {describeAmounts(r.amounts)}
          </Cell>
          <Cell className="whitespace-nowrap text-slate-600">
            {r.extension && <span><Time at={r.extension.from} day /> → </span>}
            {r.endsAt ? <Time at={r.endsAt} day /> : "permanent"}
          </Cell>
          <Cell className="text-slate-600">{r.requester ?? "—"}</Cell>
          <Cell className="whitespace-nowrap tabular-nums text-slate-800">{formatMoney(r.monthlyCost, currency)}</Cell>
          <Cell>
            <RequestStatusBadge status={r.status} awaitingSecondApproval={r.awaitingSecondApproval} />
          </Cell>
        </tr>
      ))}
    </DataTable>
  );
}
