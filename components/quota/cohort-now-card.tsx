import Link from "next/link";
import { Badge, Card, EmptyState, formatDateTime } from "@/components/ui";
import type { EnvelopeLine } from "@/lib/quota/envelope";
import type { CohortLineNow, LiveMode, PlatformShareNow, TenantShareNow } from "@/lib/quota/share-now";
import { formatLineAmount } from "./flavour-table";
import { MiniTable, Td } from "./quota-tables";
import { LiveModeNotice } from "./share-now-card";
import { viewerTimeZone } from "@/lib/server/time-zone";

/**
 * A tenant's cohort now (tenant page) and every tenant's (capacity page):
 * per line, what is guaranteed and may burst beside what Kueue says is in
 * use, borrowed and lent at this moment. The tenant page lists each project
 * and the cohort's total; the platform page each tenant's total beside its
 * envelope. Without a cluster, the plan only, and the card says so.
 * Presentation only.
 */

const lineName = (l: { flavor: string; resource: string }) => (l.flavor === "default" ? ({ cpu: "CPU", memory: "Memory" }[l.resource] ?? l.resource) : `${l.flavor} GPUs`);
const isLive = (live: LiveMode) => live.mode === "live";
const LENT_NOTE =
  "In use is the quota Kueue has reserved for workloads; borrowed is the part above the guarantees. Lent is an estimate: Kueue reports what each queue borrows, not from whom, so a project lends the smaller of its unused lendable guarantee and what the tenant's other projects borrow.";

function liveDescription(live: LiveMode, what: string, zone: string): string {
  if (live.mode === "live") return `${what}, read from ${live.server} at ${formatDateTime(live.readAt, zone)}.`;
  if (live.mode === "no-kueue") return `${what}: Kueue is not managed by this portal, so guarantees are hard quotas and nothing is borrowed or lent through it.`;
  return `${what}: the plan.`;
}

function columns(live: boolean, first: string) {
  return [first, "Guaranteed", "Burst limit", ...(live ? ["In use", "Borrowed", "Lent (est.)"] : [])];
}

function Figures({ l, live }: { l: { resource: string; guaranteed: number; burst: number; inUse: number; borrowed: number; lent: number }; live: boolean }) {
  const fmt = (n: number) => formatLineAmount(l.resource, n);
  return (
    <>
      <Td>{fmt(Math.max(0, l.guaranteed))}</Td>
      <Td>{l.burst > 0 ? `+${fmt(l.burst)}` : "none"}</Td>
      {live && (
        <>
          <Td>{fmt(l.inUse)}</Td>
          <Td className={l.borrowed > 0 ? "font-medium text-brand-700" : ""}>{fmt(l.borrowed)}</Td>
          <Td>{fmt(l.lent)}</Td>
        </>
      )}
    </>
  );
}

function weightedShareNote(cohort: { name: string; weightedShare: number | null } | null): string | null {
  if (!cohort || cohort.weightedShare === null) return null;
  return `Kueue's weighted share of the cohort ${cohort.name}: ${cohort.weightedShare.toLocaleString("en-US")} (0 while within its guarantees; higher the more it borrows for its weight).`;
}

export async function TenantCohortCard({ now, tenantName }: { now: TenantShareNow; tenantName: string }) {
  const zone = await viewerTimeZone();
  const live = isLive(now);
  const { share } = now;
  const note = weightedShareNote(share.cohort);
  return (
    <Card title="Cohort now" description={liveDescription(now, `How ${tenantName}'s projects use the quota they are guaranteed, and what they borrow from each other`, zone)}>
      <div className="space-y-4" data-testid="cohort-now">
        <LiveModeNotice live={now} />
        {share.totals.length === 0 ? (
          <EmptyState title="No quota to share yet">The tenant&apos;s open projects hold no CPU, memory or GPU quota.</EmptyState>
        ) : (
          share.totals.map((t) => (
            <MiniTable key={`${t.flavor}/${t.resource}`} caption={`${lineName(t)} of ${tenantName} by project`} columns={columns(live, lineName(t))}>
              {share.projects.flatMap((p) =>
                p.lines
                  .filter((l) => l.flavor === t.flavor && l.resource === t.resource)
                  .map((l) => (
                    <tr key={p.slug}>
                      <Td first className="text-slate-700">
                        {p.name}
                      </Td>
                      <Figures l={l} live={live} />
                    </tr>
                  )),
              )}
              <tr className="border-t border-slate-300 font-semibold text-slate-900" data-testid="cohort-total">
                <Td first>Cohort total</Td>
                <Figures l={t} live={live} />
              </tr>
            </MiniTable>
          ))
        )}
        {live && <p className="text-xs text-slate-500">{LENT_NOTE}</p>}
        {note && <p className="text-xs text-slate-500">{note}</p>}
      </div>
    </Card>
  );
}

function envelopeOf(envelope: readonly EnvelopeLine[], l: CohortLineNow): EnvelopeLine | undefined {
  return envelope.find((e) => e.flavor === l.flavor && e.resource === l.resource);
}

export async function PlatformCohortsCard({ now }: { now: PlatformShareNow }) {
  const zone = await viewerTimeZone();
  const live = isLive(now);
  const rows = now.cohorts.flatMap((c) => c.totals.map((t) => ({ c, t })));
  return (
    <Card title="Cohorts now" description={liveDescription(now, "Per tenant cohort, what its projects are guaranteed beside what they use, borrow and lend", zone)}>
      <div className="space-y-4" data-testid="cohorts-now">
        <LiveModeNotice live={now} />
        {rows.length === 0 ? (
          <EmptyState title="No cohort holds quota yet">Tenants appear here once their projects hold quota.</EmptyState>
        ) : (
          <MiniTable caption="Use, borrowing and lending per tenant cohort and line" columns={columns(live, "Tenant and line")}>
            {rows.map(({ c, t }) => {
              const e = envelopeOf(c.envelope, t);
              return (
                <tr key={`${c.tenantSlug}/${t.flavor}/${t.resource}`}>
                  <Td first>
                    <Link href={`/tenants/${c.tenantSlug}`} className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-900">
                      {c.tenantName}
                    </Link>{" "}
                    {!c.active && <Badge>disabled</Badge>}
                    <span className="block text-xs text-slate-500">
                      {lineName(t)}
                      {e ? ` · envelope ${formatLineAmount(t.resource, e.guarantee)}${e.burst > 0 ? ` + ${formatLineAmount(t.resource, e.burst)} burst` : ""}` : ""}
                    </span>
                  </Td>
                  <Figures l={t} live={live} />
                </tr>
              );
            })}
          </MiniTable>
        )}
        <p className="text-xs text-slate-500">
          Guaranteed is what the tenant&apos;s open projects hold (their ClusterQueues&apos; nominal quota, starting quota included); the envelope is what the platform approved for the tenant to divide.
          {live ? ` ${LENT_NOTE}` : ""}
        </p>
        {now.cohorts.some((c) => weightedShareNote(c.cohort)) && (
          <ul className="space-y-0.5 text-xs text-slate-500">
            {now.cohorts.map((c) => {
              const note = weightedShareNote(c.cohort);
              return note ? <li key={c.tenantSlug}>{c.tenantName}: {note}</li> : null;
            })}
          </ul>
        )}
      </div>
    </Card>
  );
}
