import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { accessReviews } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import type { Resource } from "@/lib/auth/actor";
import { mayCloseReview, type Action } from "@/lib/auth/policy";
import { AppError } from "@/lib/errors";
import { uuidInput } from "@/lib/tenancy/inputs";
import { applyRuleWithin, RULE_LABELS } from "./deadline";

/**
 * Close a review before its deadline: its rule decides what nobody decided,
 * now instead of at the deadline, so the next review of the scope can open.
 * The review is claimed the way the deadline job claims it (deadline_applied_at
 * set where still null), so the job and a second click find it closed.
 */
export const closeReviewNow = defineCommand({
  name: "closeReviewNow",
  input: z.object({ reviewId: uuidInput }),
  async target(ctx, input): Promise<{ action: Action; resource: Resource }> {
    const [review] = await ctx.db.select({ tenantId: accessReviews.tenantId }).from(accessReviews).where(eq(accessReviews.id, input.reviewId));
    if (!review) throw new AppError("not_found", "This access review does not exist.");
    return review.tenantId === null
      ? { action: "access_review.platform", resource: { kind: "platform" } }
      : { action: "access_review.close", resource: { kind: "tenant", tenantId: review.tenantId } };
  },
  async run(ctx, input) {
    const actor = auditActorOf(ctx.actor);
    return ctx.db.transaction(async (tx) => {
      const [current] = await tx.select().from(accessReviews).where(eq(accessReviews.id, input.reviewId));
      if (!mayCloseReview(ctx.actor, current!, ctx.now)) {
        throw new AppError("forbidden", `Only the admin who opened this review (${current!.openedByLabel}) or a platform admin can close it early.`);
      }
      const [review] = await tx
        .update(accessReviews)
        .set({ deadlineAppliedAt: ctx.now })
        .where(and(eq(accessReviews.id, input.reviewId), isNull(accessReviews.deadlineAppliedAt)))
        .returning();
      if (!review) throw new AppError("conflict", "This review is already closed: its rule has decided what was not reviewed.");
      // The decisions read as the rule's, with who applied it early.
      const by = { actor: { principalId: actor.principalId, label: `${RULE_LABELS[review.rule]}, closed early by ${actor.label}` }, now: ctx.now };
      const result = await applyRuleWithin(tx, review, by, "not reviewed before the review was closed");
      await recordAudit(tx, {
        actor,
        at: ctx.now,
        tenantId: review.tenantId,
        action: "access_review.closed",
        target: { type: "access_review", id: review.id },
        after: { rule: review.rule, deadline: review.deadline, ...result },
      });
      return { reviewId: review.id, ...result };
    });
  },
});
