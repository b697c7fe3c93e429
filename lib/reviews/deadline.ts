import "server-only";
import { and, asc, eq, isNull, lte } from "drizzle-orm";
import type { Database } from "@/db/client";
import { accessReviewItems, accessReviews } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import type { PeriodicJob } from "@/lib/jobs/periodic";
import { decideItem } from "./commands";

export const RULE_LABELS = { revoke: "rule: revoke at deadline", keep_and_flag: "rule: keep and flag at deadline" } as const;

/**
 * Apply the rule of every review whose deadline has come to the items nobody
 * decided. Each review is claimed by setting `deadline_applied_at` where it is
 * still null, in the transaction that decides its items: a second worker's
 * claim waits on the row lock and then finds it set, so a rule is applied
 * exactly once however many workers run. A revocation the tenancy rules
 * refuse (the last tenant admin) keeps the item and flags it, with the reason.
 */
export async function applyDueReviewDeadlines(db: Database, now: Date): Promise<{ reviews: number; revoked: number; kept: number }> {
  const due = await db
    .select({ id: accessReviews.id })
    .from(accessReviews)
    .where(and(isNull(accessReviews.deadlineAppliedAt), lte(accessReviews.deadline, now)))
    .orderBy(asc(accessReviews.deadline))
    .limit(50);
  const totals = { reviews: 0, revoked: 0, kept: 0 };
  for (const { id } of due) {
    const done = await db.transaction(async (tx) => {
      const [review] = await tx
        .update(accessReviews)
        .set({ deadlineAppliedAt: now })
        .where(and(eq(accessReviews.id, id), isNull(accessReviews.deadlineAppliedAt)))
        .returning();
      if (!review) return null; // another worker applied it
      const result = await applyRuleWithin(tx, review, { actor: { principalId: null, label: RULE_LABELS[review.rule] }, now }, "not reviewed by the deadline");
      await recordAudit(tx, {
        actor: { principalId: null, label: RULE_LABELS[review.rule] },
        at: now,
        tenantId: review.tenantId,
        action: "access_review.deadline_applied",
        target: { type: "access_review", id },
        after: { rule: review.rule, ...result },
      });
      return result;
    });
    if (done) {
      totals.reviews += 1;
      totals.revoked += done.revoked;
      totals.kept += done.kept;
    }
  }
  return totals;
}

type ClaimedReview = { id: string; tenantId: string | null; rule: "revoke" | "keep_and_flag" };

/**
 * Decide every item of a review nobody decided by its rule, in the caller's
 * transaction, which has already claimed the review (set deadline_applied_at).
 * Shared by the deadline job and closing a review early.
 */
export async function applyRuleWithin(tx: Database, review: ClaimedReview, by: { actor: AuditActor; now: Date }, unreviewed: string): Promise<{ undecided: number; revoked: number; kept: number }> {
  const open = await tx
    .select()
    .from(accessReviewItems)
    .where(and(eq(accessReviewItems.reviewId, review.id), isNull(accessReviewItems.decision)))
    .orderBy(asc(accessReviewItems.id))
    .for("update");
  let revoked = 0;
  for (const item of open) {
    if (review.rule === "keep_and_flag") {
      await decideItem(tx, by, null, review.tenantId, item, "keep", true, unreviewed);
      continue;
    }
    try {
      // A savepoint: a refused revocation is undone alone, and the item is then kept and flagged.
      await tx.transaction((sp) => decideItem(sp, by, null, review.tenantId, item, "revoke", false, null));
      revoked += 1;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      await decideItem(tx, by, null, review.tenantId, item, "keep", true, `${unreviewed}; revoking was refused: ${error.message}`);
    }
  }
  return { undecided: open.length, revoked, kept: open.length - revoked };
}

/** The leader's job: look for reviews past their deadline every minute. */
export function reviewDeadlineJob(db: Database): PeriodicJob {
  return {
    name: "access-review-deadlines",
    everyMs: 60_000,
    phase: "before-reconcile",
    async run(now) {
      const r = await applyDueReviewDeadlines(db, now);
      return r.reviews ? `applied the deadline of ${r.reviews} review(s): ${r.revoked} revoked, ${r.kept} kept and flagged` : null;
    },
  };
}
