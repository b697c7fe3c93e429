import Link from "next/link";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState } from "@/components/ui";
import type { LineArithmetic } from "@/lib/quota/sharing-arithmetic";
import { lineSentence } from "@/lib/quota/sharing-words";

/**
 * The capacity page's "Sharing arithmetic": per GPU line what the pools hold
 * at their autoscaler minimum, now and at their maximum, what all tenants
 * are guaranteed and may burst, in a sentence and a narrow table; then per
 * tenant cohort what it is guaranteed, may burst and lends. Two tables of
 * five columns rather than one wide one, so it reads at 1280 px without
 * scrolling. Presentation only.
 */
export function SharingCard({ lines, live }: { lines: readonly LineArithmetic[]; live: boolean }) {
  const tenantRows = lines.flatMap((l) => l.tenants.map((t) => ({ line: l, t })));
  return (
    <Card
      title="Sharing arithmetic"
      description={
        <>
          Per GPU line: guarantees across all tenants (envelopes where set, else their projects’ guarantees) must fit the pools at their autoscaler minimum, after the overcommit in force; bursts
          are preemptible, bounded by the burst limits and the autoscaler maximum.{" "}
          {live
            ? "These are the limits the portal renders to Kueue; what each cohort uses, borrows and lends at this moment is under “Cohorts now”, from the ClusterQueues’ status."
            : "No cluster is connected (record-only): these are the planned limits, there is no live use to compare them with."}
        </>
      }
    >
      {lines.length === 0 ? (
        <EmptyState title="No GPU lines yet">GPU pools and GPU quota appear here once a pool with GPUs is added or a tenant holds GPUs.</EmptyState>
      ) : (
        <div className="space-y-6">
          <ul className="space-y-2 text-sm text-slate-700">
            {lines.map((l) => (
              <li key={l.key} className={`rounded-md px-3 py-2 ${l.headroomAtMin < 0 ? "bg-red-50 text-red-800" : !l.burstWithinMaximum ? "bg-amber-50 text-amber-900" : "bg-slate-50"}`}>
                {lineSentence(l)}
              </li>
            ))}
          </ul>
          <DataTable caption="Guarantees and bursts per GPU line against the pools at minimum, now and maximum" columns={["GPU line", "Pools hold: min / now / max", "Guaranteed", "Burst limits", "Peak demand"]}>
            {lines.map((l) => (
              <tr key={l.key}>
                <Cell className="font-medium text-slate-900">
                  {l.flavor}
                  <span className="block font-mono text-xs font-normal text-slate-500">{l.resource}</span>
                </Cell>
                <Cell className="whitespace-nowrap tabular-nums">
                  {l.capacity.atMin} / {l.capacity.now} / {l.capacity.atMax}
                </Cell>
                <Cell className="whitespace-nowrap tabular-nums">
                  {l.guaranteed}
                  <span className={`block text-xs ${l.headroomAtMin < 0 ? "font-medium text-red-700" : "text-slate-500"}`}>
                    {l.headroomAtMin < 0 ? `${-l.headroomAtMin} over the minimum` : `${l.headroomAtMin} left at the minimum`}
                  </span>
                </Cell>
                <Cell className="whitespace-nowrap tabular-nums">{l.burst}</Cell>
                <Cell className="whitespace-nowrap tabular-nums">
                  {l.peak}
                  <span className="block text-xs text-slate-500">
                    {l.growthFromBorrowing > 0 ? `borrowing could add ${l.growthFromBorrowing}` : "no growth from borrowing"}
                    {!l.burstWithinMaximum && (
                      <span className="ml-1">
                        <Badge tone="amber">above the maximum</Badge>
                      </span>
                    )}
                  </span>
                </Cell>
              </tr>
            ))}
          </DataTable>
          <div>
            <h3 className="text-sm font-semibold text-slate-900">Per tenant cohort</h3>
            <p className="mt-0.5 text-sm text-slate-500">What each tenant is guaranteed and may burst on a line, and what its projects lend to others of their guarantees.</p>
            {tenantRows.length === 0 ? (
              <p className="mt-3 text-sm text-slate-500">No tenant holds GPUs yet.</p>
            ) : (
              <div className="mt-2">
                <DataTable caption="Guaranteed, burst and lendable per tenant cohort and GPU line" columns={["Tenant", "GPU line", "Guaranteed", "Burst limit", "Lends"]}>
                  {tenantRows.map(({ line, t }) => (
                    <tr key={`${t.slug}/${line.key}`}>
                      <Cell className="font-medium text-slate-900">
                        <Link href={`/tenants/${t.slug}`} className="hover:underline">
                          {t.name}
                        </Link>
                        {!t.active && <span className="block text-xs font-normal text-slate-500">disabled: its envelope still counts</span>}
                      </Cell>
                      <Cell className="whitespace-nowrap">{line.flavor}</Cell>
                      <Cell className="whitespace-nowrap tabular-nums">
                        {t.guarantee}
                        <span className="block text-xs text-slate-500">{t.fromEnvelope ? "envelope" : "projects’ guarantees"}</span>
                      </Cell>
                      <Cell className="whitespace-nowrap tabular-nums">{t.burst}</Cell>
                      <Cell className="whitespace-nowrap tabular-nums">{t.lendable}</Cell>
                    </tr>
                  ))}
                </DataTable>
              </div>
            )}
          </div>
        </div>
      )}
    </Card>
  );
}
