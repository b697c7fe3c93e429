import "server-only";
import { and, asc, count, desc, eq, isNull, sql } from "drizzle-orm";
import { accessReviewItems, accessReviews, tenants } from "@/db/schema";
import type { Resource } from "@/lib/auth/actor";
import type { CommandContext } from "@/lib/auth/context";
import { can, mayCloseReview } from "@/lib/auth/policy";
import { isOwnItem } from "./assign";
import { tenantBySlug } from "@/lib/tenancy/lookup";
import { AppError } from "@/lib/errors";

export type ReviewSummary = {
  id: string;
  title: string;
  tenantId: string | null;
  tenantName: string | null;
  deadline: Date;
  rule: "revoke" | "keep_and_flag";
  openedAt: Date;
  openedByLabel: string;
  deadlineAppliedAt: Date | null;
  total: number;
  decided: number;
  revoked: number;
  flagged: number;
};

export type ReviewItem = typeof accessReviewItems.$inferSelect & { canDecide: boolean; own: boolean };

const summaryColumns = {
  id: accessReviews.id,
  title: accessReviews.title,
  tenantId: accessReviews.tenantId,
  tenantName: tenants.name,
  deadline: accessReviews.deadline,
  rule: accessReviews.rule,
  openedAt: accessReviews.openedAt,
  openedByLabel: accessReviews.openedByLabel,
  deadlineAppliedAt: accessReviews.deadlineAppliedAt,
  // count(id), not count(*): a review without items has one all-null row in the left join.
  total: sql<number>`count(${accessReviewItems.id})::int`,
  decided: sql<number>`count(${accessReviewItems.decision})::int`,
  revoked: sql<number>`count(*) filter (where ${accessReviewItems.decision} = 'revoke')::int`,
  flagged: sql<number>`count(*) filter (where ${accessReviewItems.flagged})::int`,
};

/** Reviews with their progress, newest first: of one tenant, of the platform (null), or all (undefined). */
async function summaries(ctx: CommandContext, tenantId: string | null | undefined): Promise<ReviewSummary[]> {
  return ctx.db
    .select(summaryColumns)
    .from(accessReviews)
    .leftJoin(tenants, eq(tenants.id, accessReviews.tenantId))
    .leftJoin(accessReviewItems, eq(accessReviewItems.reviewId, accessReviews.id))
    .where(tenantId === undefined ? undefined : tenantId === null ? isNull(accessReviews.tenantId) : eq(accessReviews.tenantId, tenantId))
    .groupBy(accessReviews.id, tenants.name)
    .orderBy(desc(accessReviews.openedAt));
}

/** The reviews page of a tenant: all of them for its admins, else those with items assigned to this person. */
export async function tenantReviews(ctx: CommandContext, tenantSlug: string) {
  const tenant = await tenantBySlug(ctx.db, tenantSlug).catch((e: unknown) => {
    if (e instanceof AppError) return null;
    throw e;
  });
  if (!tenant) return null;
  const canManage = can(ctx.actor, "access_review.manage", { kind: "tenant", tenantId: tenant.id }, ctx.now);
  if (canManage) return { tenant, canManage, reviews: await summaries(ctx, tenant.id) };
  if (!can(ctx.actor, "access_review.item.decide", { kind: "review_item", tenantId: tenant.id, reviewerId: ctx.actor.principalId }, ctx.now)) return null;
  const mine = await assignedCounts(ctx, tenant.id);
  return mine.length ? { tenant, canManage, reviews: mine } : null;
}

/** Reviews of this tenant with items assigned to the actor by name, counting only those items. */
async function assignedCounts(ctx: CommandContext, tenantId: string): Promise<ReviewSummary[]> {
  return ctx.db
    .select(summaryColumns)
    .from(accessReviewItems)
    .innerJoin(accessReviews, eq(accessReviews.id, accessReviewItems.reviewId))
    .leftJoin(tenants, eq(tenants.id, accessReviews.tenantId))
    .where(and(eq(accessReviews.tenantId, tenantId), eq(accessReviewItems.reviewerPrincipalId, ctx.actor.principalId)))
    .groupBy(accessReviews.id, tenants.name)
    .orderBy(desc(accessReviews.openedAt));
}

/** How many undecided items of open reviews are assigned to the actor by name in this tenant (for the tenant's tabs). */
export async function assignedOpenItemCount(ctx: CommandContext, tenantId: string): Promise<number> {
  const [row] = await ctx.db
    .select({ n: count() })
    .from(accessReviewItems)
    .innerJoin(accessReviews, eq(accessReviews.id, accessReviewItems.reviewId))
    .where(and(eq(accessReviews.tenantId, tenantId), eq(accessReviewItems.reviewerPrincipalId, ctx.actor.principalId), isNull(accessReviewItems.decision)));
  return Number(row?.n ?? 0);
}

/** The admin area's list: the platform's own reviews and every tenant's. */
export async function platformReviewList(ctx: CommandContext) {
  if (!can(ctx.actor, "access_review.platform", { kind: "platform" }, ctx.now)) return null;
  const all = await summaries(ctx, undefined);
  return { platform: all.filter((r) => r.tenantId === null), tenants: all.filter((r) => r.tenantId !== null) };
}

/**
 * One review as this person may see it: every item for those who manage its
 * scope, else only the items they may decide (a sponsor's). Null when they may
 * see nothing of it, so a foreign id and a missing one look the same.
 */
export async function reviewDetail(ctx: CommandContext, reviewId: string) {
  if (!/^[0-9a-f-]{36}$/i.test(reviewId)) return null;
  const [row] = await ctx.db.select({ review: accessReviews, tenantName: tenants.name, tenantSlug: tenants.slug }).from(accessReviews).leftJoin(tenants, eq(tenants.id, accessReviews.tenantId)).where(eq(accessReviews.id, reviewId));
  if (!row) return null;
  const { review } = row;
  const scope: Resource = review.tenantId ? { kind: "tenant", tenantId: review.tenantId } : { kind: "platform" };
  const canManage = can(ctx.actor, review.tenantId ? "access_review.manage" : "access_review.platform", scope, ctx.now);
  const all = await ctx.db
    .select()
    .from(accessReviewItems)
    .where(eq(accessReviewItems.reviewId, reviewId))
    .orderBy(asc(accessReviewItems.reviewerLabel), asc(accessReviewItems.kind), asc(accessReviewItems.principalLabel), asc(accessReviewItems.access));
  const open = review.deadlineAppliedAt === null && review.deadline.getTime() > ctx.now.getTime();
  const items: ReviewItem[] = all.flatMap((item) => {
    const mayDecide = can(ctx.actor, "access_review.item.decide", { kind: "review_item", tenantId: review.tenantId, reviewerId: item.reviewerPrincipalId }, ctx.now);
    if (!mayDecide && !canManage) return [];
    const own = isOwnItem(item, ctx.actor.principalId);
    return [{ ...item, own, canDecide: mayDecide && open && !own && item.decision === null }];
  });
  if (items.length === 0 && !canManage) return null;
  const groups = [...new Set(items.map((i) => i.reviewerLabel))].map((label) => {
    const list = items.filter((i) => i.reviewerLabel === label);
    return { label, reviewer: list[0]!.reviewer, items: list, decided: list.filter((i) => i.decision !== null).length };
  });
  return {
    review,
    tenant: review.tenantId ? { name: row.tenantName!, slug: row.tenantSlug! } : null,
    canManage,
    open,
    /** Whether this person may apply the rule now (the opener or a platform admin, while it is open). */
    canClose: open && mayCloseReview(ctx.actor, review, ctx.now),
    items,
    groups,
    decided: items.filter((i) => i.decision !== null).length,
  };
}
