import { Time } from "@/components/time";
import { needsSecondApproval } from "@/lib/quota/policy";
import type { QueueEntry } from "@/lib/quota/queries";
import { addedPeriodCostPhrase, describeAmounts, formatMoney } from "@/lib/quota/view-helpers";
import { UsageSummary } from "./usage-summary";

/**
 * What a platform admin decides on for an extension: the grant as it stands,
 * its end now and the end asked, its monthly rate at the rate card now and
 * what the added period costs at it, and the project's use and spend. The
 * quota now does not change (the grant is in force), so there is no before
 * and after. Presentation only; the entry comes from approvalQueue / requestDetail.
 */
export function ExtensionPictureView({ entry, currency, compact = false }: { entry: QueueEntry; currency: string; compact?: boolean }) {
  const x = entry.extensionPicture;
  if (!x) return null;
  const H = compact ? "h4" : "h3";
  const heading = "text-sm font-semibold text-slate-900";
  const added = addedPeriodCostPhrase(x.monthly, x.from, x.to, currency);
  const moved = x.grantEndsAt !== null && x.grantEndsAt.getTime() !== x.from.getTime();
  return (
    <div className={`grid grid-cols-1 gap-6 ${compact ? "lg:grid-cols-2" : "md:grid-cols-2"}`} data-testid="extension-picture">
      <section aria-label="The grant extended" className="min-w-0">
        <H className={heading}>The grant</H>
        <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-600">Holds</dt>
          <dd className="text-slate-900">{describeAmounts(entry.amounts)}</dd>
          <dt className="text-slate-600">Since</dt>
          <dd className="text-slate-900"><Time at={x.grantStartsAt} day /></dd>
          <dt className="text-slate-600">Ends now</dt>
          <dd className="text-slate-900"><Time at={x.from} /></dd>
          <dt className="text-slate-600">Asked to end</dt>
          <dd className="font-medium text-slate-900"><Time at={x.to} /></dd>
        </dl>
        {moved && (
          <p role="note" className="mt-2 rounded-md bg-amber-50 px-3 py-2 text-xs font-medium text-amber-900">
            The grant&apos;s end moved since this was asked (it now ends <Time at={x.grantEndsAt!} />): approving is refused; reject it, and the requester can ask again.
          </p>
        )}
      </section>
      <section aria-label="Cost of the extension" className="min-w-0">
        <H className={heading}>Cost</H>
        <p className="mt-1 text-sm text-slate-800">
          About <strong className="font-medium">{formatMoney(x.monthly, currency)}</strong> a month at the rate card now
          {added && (
            <>
              , <strong className="font-medium" data-testid="extension-added-cost">{added}</strong>
            </>
          )}
          .
        </p>
        <p className="mt-2 text-xs text-slate-600">
          The project&apos;s quota now does not change: the grant is in force. Approving moves its end, and the cluster change scheduled for the old end, to the new one.
          {needsSecondApproval(x.monthly, entry.assessment.policy) && <strong className="font-medium text-amber-800"> Above the second-approval limit: two different platform admins must approve.</strong>}
        </p>
      </section>
      <section aria-label="Use and spend" className="min-w-0">
        <H className={heading}>Use and spend of {entry.projectName}</H>
        <div className="mt-1">
          {entry.usage ? <UsageSummary summary={entry.usage} currency={currency} projectName={entry.projectName} /> : <p className="text-sm text-slate-500">You may not see this project&apos;s spend.</p>}
        </div>
      </section>
    </div>
  );
}
