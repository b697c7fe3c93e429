import type { QueueEntry } from "@/lib/quota/queries";
import { minorDigits } from "@/lib/money";
import { fitNote } from "@/lib/quota/capacity";
import { budgetBasisOf, checkBudget, formatMoney } from "@/lib/quota/view-helpers";
import { BudgetCheckNote } from "./budget-check";
import { CohortTable } from "./cohort-table";
import { DiffView } from "./diff-view";
import { SharingCheck } from "./sharing-check";
import { CapacityTable, CostLines, QuotaComparison, SharesTable } from "./quota-tables";
import { UsageSummary } from "./usage-summary";

/**
 * What a platform admin decides on: the project's quota now and after, its
 * use and spend (this month against the budget, the last 30 days), the
 * cost estimate and how it sits with the budget, the capacity of the affected resources before and after,
 * every tenant's share, and the exact change to the cluster. Presentation
 * only; the entry comes from approvalQueue / requestDetail.
 */
export function DecisionPicture({ entry, currency, compact = false }: { entry: QueueEntry; currency: string; compact?: boolean }) {
  const a = entry.assessment;
  const H = compact ? "h4" : "h3";
  const heading = "text-sm font-semibold text-slate-900";
  // The requesting tenant's share after approval, for the resources the request adds to.
  const own = a.shares.find((x) => x.tenant === entry.tenantSlug)?.shares ?? {};
  const after = Object.fromEntries(a.capacity.filter((l) => l.capacity > 0).map((l) => [l.resource, (own[l.resource] ?? 0) + (l.after - l.before) / l.capacity]));
  return (
    <div className="space-y-6">
      <div className={`grid grid-cols-1 gap-6 ${compact ? "lg:grid-cols-2" : "md:grid-cols-2"}`}>
        <section aria-label="Quota of the project" className="min-w-0">
          <H className={heading}>Quota of {entry.projectName}</H>
          <QuotaComparison caption={`Quota of ${entry.projectName} now and after approval`} now={a.current} after={a.after} />
        </section>
        <section aria-label="Use and spend" className="min-w-0">
          <H className={heading}>Use and spend of {entry.projectName}</H>
          <div className="mt-1">
            {entry.usage ? (
              <UsageSummary summary={entry.usage} currency={currency} projectName={entry.projectName} />
            ) : (
              <p className="text-sm text-slate-500">You may not see this project&apos;s spend.</p>
            )}
          </div>
        </section>
        <section aria-label="Cost estimate" className="min-w-0">
          <H className={heading}>Cost estimate</H>
          <CostLines caption="Estimated monthly cost of the request" estimate={a.estimate} currency={currency} totalLabel="Added per month" />
          <p className="mt-2 text-xs text-slate-500">
            The project&apos;s quota now comes to {formatMoney(a.current.monthly.monthly, currency)} a month at the rate card.
            {a.secondApproval && <strong className="font-medium text-amber-800"> Above the second-approval limit: two different platform admins must approve.</strong>}
          </p>
          {entry.usage && (
            <BudgetCheckNote
              className="mt-2"
              currency={currency}
              check={checkBudget(budgetBasisOf(entry.usage.budget, entry.usage.lastUsageDay !== null), a.estimate.monthly, minorDigits(currency))}
            />
          )}
        </section>
        <section aria-label="Capacity impact" className="min-w-0">
          <H className={heading}>Capacity impact</H>
          <CapacityTable caption="Capacity before and after approval" lines={a.capacity} policy={a.policy} />
          {a.capacity.some((l) => l.exceeds) &&
            (a.capacity.every((l) => !l.exceeds || l.fit.kind === "grows") ? (
              <p role="note" className="mt-2 rounded-md bg-amber-50 px-3 py-2 text-xs font-medium text-amber-900">
                Approving as asked allocates more than the nodes present hold at the overcommit in force; it{" "}
                {a.capacity
                  .filter((l) => l.exceeds)
                  .map((l) => fitNote(l))
                  .join("; ")}
                .
              </p>
            ) : (
              <p role="note" className="mt-2 rounded-md bg-red-50 px-3 py-2 text-xs font-medium text-red-800">
                Approving as asked allocates more than the node pools can hold at the overcommit in force, even at their autoscaler maximum:{" "}
                {a.capacity
                  .filter((l) => l.exceeds)
                  .map((l) => `${l.resource === "memory" ? "memory" : l.label} ${fitNote(l)}`)
                  .join("; ")}
                .
              </p>
            ))}
        </section>
        {a.sharing.length > 0 && (
          <section aria-label="Guarantees and bursts across all tenants" className="min-w-0 space-y-2">
            <H className={heading}>Guarantees and bursts across all tenants</H>
            <p className="text-xs text-slate-500">
              Guarantees must fit the pools at their autoscaler minimum (what stays however far they shrink); bursts are preemptible and bounded by burst limits and the autoscaler maximum.
            </p>
            <SharingCheck lines={a.sharing} />
          </section>
        )}
        <section aria-label="Tenant shares" className="min-w-0">
          <H className={heading}>Share of the cluster by tenant</H>
          <SharesTable
            caption="Each tenant's share of the cluster per resource"
            shares={a.shares}
            highlight={entry.tenantSlug}
            keys={a.capacity.map((l) => l.resource)}
            after={after}
          />
        </section>
        {a.cohort.length > 0 && (
          <section aria-label="Cohort" className="min-w-0 space-y-3">
            <H className={heading}>Cohort of {entry.tenantSlug}</H>
            <p className="text-xs text-slate-500">
              The tenant&apos;s projects share idle guarantees among themselves (and, through the platform cohort, with other tenants); when capacity is scarce, borrowed capacity is divided by fair-share weight.
            </p>
            {a.cohort.map((c) => (
              <CohortTable key={`${c.line.flavor}/${c.line.resource}`} tenant={entry.tenantSlug} line={c.line} before={c.before} after={c.after} />
            ))}
          </section>
        )}
      </div>
      <section aria-label="Change to the cluster" className="min-w-0">
        <H className={heading}>Change to the cluster</H>
        <p className="mb-2 text-xs text-slate-500">The project&apos;s rendered objects now and with the quota after approval, as applied by the reconcile worker.</p>
        <DiffView diff={entry.diff} label={`Diff of the cluster objects for ${entry.tenantSlug}/${entry.projectSlug}`} className={compact ? "max-h-72" : "max-h-[32rem]"} />
      </section>
    </div>
  );
}
