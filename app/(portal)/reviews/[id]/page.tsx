import { notFound, redirect } from "next/navigation";
import { ReviewGroup, type ReviewRow } from "@/components/review-group";
import { RULE_WORDS, reviewState } from "@/components/review-list";
import { ActionDialog } from "@/components/action-dialog";
import { Card, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { KIND_LABELS } from "@/lib/reviews/assign";
import { reviewDetail, type ReviewItem } from "@/lib/reviews/queries";
import { closeReviewNowAction, decideReviewItemsAction } from "../actions";
import { Time } from "@/components/time";
import { labelInstant } from "@/lib/format";
import { viewerTimeZone } from "@/lib/server/time-zone";

export const metadata = { title: "Access review" };

function rowOf(i: ReviewItem, zone: string): ReviewRow {
  return {
    id: i.id,
    principal: i.principalLabel,
    email: i.principalEmail,
    kind: KIND_LABELS[i.kind],
    access: i.access,
    expires: i.expiresAt ? labelInstant(i.expiresAt, zone, true) : null,
    decision: i.decision,
    flagged: i.flagged,
    decidedAt: i.decidedAt ? labelInstant(i.decidedAt, zone) : null,
    decidedBy: i.decidedByLabel,
    note: i.note,
    canDecide: i.canDecide,
    own: i.own,
  };
}

/** One review: its items grouped by reviewer, progress, keep/revoke controls, and the CSV of the result. */
export default async function ReviewPage({ params }: { params: Promise<{ id: string }> }) {
  const ctx = await currentContext();
  const zone = await viewerTimeZone();
  if (!ctx) redirect("/sign-in");
  const { id } = await params;
  const detail = await reviewDetail(ctx, id);
  if (!detail) notFound();
  const { review, tenant, items, groups, decided } = detail;
  const crumbs = tenant
    ? [
        { href: `/tenants/${tenant.slug}`, label: tenant.name },
        { href: `/tenants/${tenant.slug}/reviews`, label: "Access reviews" },
      ]
    : [
        { href: "/admin", label: "Admin" },
        { href: "/admin/reviews", label: "Access reviews" },
      ];
  const revoked = items.filter((i) => i.decision === "revoke").length;
  const flagged = items.filter((i) => i.flagged).length;
  const percent = items.length ? Math.round((decided / items.length) * 100) : 100;

  return (
    <>
      <PageHeader
        crumbs={crumbs}
        title={review.title}
        subtitle={
          <>
            {tenant ? `Access of ${tenant.name}` : "The platform's own access"} as it was on <Time at={review.openedAt} />, opened by {review.openedByLabel}. {reviewState(review, ctx.now)}
          </>
        }
        actions={
          <>
            <a href={`/reviews/${review.id}/export`} className="inline-flex items-center justify-center rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 shadow-sm hover:bg-slate-50">
              Export CSV
            </a>
            {detail.canClose && (
              <ActionDialog
                triggerLabel="Close review now"
                triggerKind="secondary"
                danger={review.rule === "revoke"}
                title="Close this review now?"
                description={`The ${items.length - decided} item${items.length - decided === 1 ? "" : "s"} nobody decided will be decided now as at the deadline: the rule will ${RULE_WORDS[review.rule]}. Nobody can decide items afterwards, and the next review of this scope can be opened.`}
                submitLabel="Close and apply the rule"
                action={closeReviewNowAction}
                fields={[{ kind: "hidden", name: "reviewId", value: review.id }]}
              />
            )}
          </>
        }
      />
      <div className="space-y-6">
        <Card>
          <div className="flex flex-wrap items-center justify-between gap-3 text-sm text-slate-700">
            <p>
              <strong className="tabular-nums" data-testid="review-progress">
                {decided} of {items.length} decided
              </strong>{" "}
              · {decided - revoked} kept{flagged ? ` (${flagged} flagged)` : ""} · {revoked} revoked · {items.length - decided} left
              {!detail.canManage && " · the items assigned to you"}
            </p>
            <p>
              Deadline <Time at={review.deadline} />: then the rule will {RULE_WORDS[review.rule]}.
            </p>
          </div>
          <div className="mt-3 h-2 overflow-hidden rounded-full bg-slate-100" role="progressbar" aria-label="Decided" aria-valuemin={0} aria-valuemax={items.length} aria-valuenow={decided}>
            <div className="h-full bg-brand-600" style={{ width: `${percent}%` }} />
          </div>
        </Card>
        {groups.length === 0 && <Card>Nothing was there to review when this review opened.</Card>}
        {groups.map((g) => (
          <ReviewGroup
            key={g.label}
            reviewId={review.id}
            title={g.label}
            progress={`${g.decided} of ${g.items.length} decided`}
            rows={g.items.map((i) => rowOf(i, zone))}
            action={decideReviewItemsAction}
          />
        ))}
      </div>
    </>
  );
}
