import "server-only";
import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { accessReviewItems, accessReviews, tenants } from "@/db/schema";
import { config } from "@/lib/config";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf, type CommandContext } from "@/lib/auth/context";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { notify, platformAdminIds, tenantAdminIds } from "@/lib/notify/in-app";
import { futureInstant, uuidInput } from "@/lib/tenancy/inputs";
import { onTenant, tenantAddress } from "@/lib/tenancy/targets";
import { isOwnItem, planPlatformItems, planTenantItems, type PlannedItem } from "./assign";
import { revokeItemAccess } from "./revoke";
import { platformSnapshot, tenantSnapshot } from "./snapshot";
import { FUTURE_DATE, atMostChars, atMostItems, oneOf } from "@/lib/input/messages";

const DAY = 86_400_000;
/** A review that runs longer than a quarter is no longer a review of the access it listed. */
export const MAX_REVIEW_DAYS = 90;

export const reviewPath = (reviewId: string) => `/reviews/${reviewId}`;

const reviewSettings = z.object({
  title: z.string().trim().max(120, atMostChars(120)).default(""),
  deadline: futureInstant,
  rule: z.enum(["revoke", "keep_and_flag"], { message: "Choose revoke, or keep and flag." }),
});

function checkDeadline(now: Date, deadline: Date) {
  if (deadline.getTime() <= now.getTime()) throw new AppError("validation", undefined, { deadline: [FUTURE_DATE] });
  if (deadline.getTime() > now.getTime() + MAX_REVIEW_DAYS * DAY) throw new AppError("validation", undefined, { deadline: [`Enter a date at most ${MAX_REVIEW_DAYS} days from now.`] });
}

/** A second review of the same scope would split its reviewers' attention and race the first's revocations. */
function alreadyOpen(scopeName: string, open: { title: string; deadline: Date }) {
  return new AppError("conflict", `An access review of ${scopeName} is already open ("${open.title}", deadline ${formatDate(open.deadline)}). Close it or wait for its deadline before opening another.`);
}

/**
 * Open a review of one scope, at most one at a time: the check gives the
 * clear message, and the partial unique index access_reviews_one_open
 * (migration 0018) refuses the second of two opened at the same moment.
 */
async function openReview(ctx: CommandContext, scope: { tenantId: string | null; name: string }, settings: z.output<typeof reviewSettings>, plan: (tx: Database) => Promise<{ planned: PlannedItem[]; emails: Map<string, string> }>) {
  checkDeadline(ctx.now, settings.deadline);
  const openOfScope = (db: Database) =>
    db
      .select({ title: accessReviews.title, deadline: accessReviews.deadline })
      .from(accessReviews)
      .where(and(scope.tenantId === null ? isNull(accessReviews.tenantId) : eq(accessReviews.tenantId, scope.tenantId), isNull(accessReviews.deadlineAppliedAt)));
  try {
    return await ctx.db.transaction(async (tx) => {
      const [open] = await openOfScope(tx);
      if (open) throw alreadyOpen(scope.name, open);
      const { planned, emails } = await plan(tx);
      return insertReview(tx, ctx, scope, settings, planned, emails);
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const [open] = await openOfScope(ctx.db);
    throw alreadyOpen(scope.name, open ?? { title: "opened just now", deadline: settings.deadline });
  }
}

/** Write the review and its items, audit it and tell the reviewers, in the caller's transaction. */
async function insertReview(
  tx: Database,
  ctx: CommandContext,
  scope: { tenantId: string | null; name: string },
  settings: z.output<typeof reviewSettings>,
  planned: PlannedItem[],
  emails: Map<string, string>,
) {
  const actor = auditActorOf(ctx.actor);
  const title = settings.title || `Access review of ${scope.name}, ${formatDate(ctx.now)}`;
  const [review] = await tx
    .insert(accessReviews)
    .values({ tenantId: scope.tenantId, title, deadline: settings.deadline, rule: settings.rule, openedBy: ctx.actor.principalId, openedByLabel: actor.label, openedAt: ctx.now })
    .returning();
  if (planned.length > 0) {
    await tx.insert(accessReviewItems).values(planned.map((p) => ({ ...p, reviewId: review!.id, principalEmail: (p.principalId ? emails.get(p.principalId) : undefined) ?? (p.detail && "email" in p.detail ? p.detail.email : null) })));
  }
  await recordAudit(tx, {
    actor,
    at: ctx.now,
    tenantId: scope.tenantId,
    action: "access_review.opened",
    target: { type: "access_review", id: review!.id },
    after: { title, deadline: settings.deadline, rule: settings.rule, items: planned.length },
  });
  const named = planned.flatMap((p) => (p.reviewerPrincipalId ? [p.reviewerPrincipalId] : []));
  const admins = scope.tenantId ? await tenantAdminIds(tx, scope.tenantId) : await platformAdminIds(tx);
  await notify(tx, [...admins, ...named], { kind: "access_review.opened", title: `Access review: ${title}`, body: `Decide by ${formatDate(settings.deadline)}.`, link: reviewPath(review!.id) }, ctx.now);
  return { reviewId: review!.id, items: planned.length };
}

/** Open a review of one tenant: its memberships, project grants, collaborators and service accounts with their tokens. */
export const openTenantReview = defineCommand({
  name: "openTenantReview",
  input: tenantAddress.extend(reviewSettings.shape),
  target: onTenant("access_review.manage"),
  async run(ctx, input, { tenantId }) {
    const [tenant] = await ctx.db.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, tenantId));
    return openReview(ctx, { tenantId, name: tenant!.name }, input, async (tx) => {
      const { snapshot, emails } = await tenantSnapshot(tx, tenantId, ctx.now);
      return { planned: planTenantItems(snapshot), emails };
    });
  },
});

/** Open a review of the platform's own access: platform admins and platform-scoped service accounts. */
export const openPlatformReview = defineCommand({
  name: "openPlatformReview",
  input: reviewSettings,
  target: () => Promise.resolve({ action: "access_review.platform" as const, resource: { kind: "platform" as const } }),
  async run(ctx, input) {
    return openReview(ctx, { tenantId: null, name: "the platform" }, input, async (tx) => {
      const { snapshot, emails } = await platformSnapshot(tx, ctx.now, config().platformAdminEmails);
      return { planned: planPlatformItems(snapshot, () => randomUUID()), emails };
    });
  },
});

/** Item ids as a form sends them (one field, comma-separated) or as a list. */
const itemIds = z.preprocess(
  (v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v),
  z.array(uuidInput, { message: "Select the items to decide." }).min(1, "Select at least one item.").max(500, atMostItems(500)),
);

/**
 * Keep or revoke items of one review, one or many at once. All items must be
 * for the same reviewer (a group on the review page), so the policy decides
 * on one resource. Nobody decides their own access. A revocation takes the
 * access away in the same transaction as the decision; if any item cannot be
 * decided (decided meanwhile, a refusal), none is.
 */
export const decideReviewItems = defineCommand({
  name: "decideReviewItems",
  input: z.object({ reviewId: uuidInput, itemIds, decision: z.enum(["keep", "revoke"], { message: oneOf(["keep", "revoke"]) }) }),
  async target(ctx, input) {
    const rows = await ctx.db
      .select({ tenantId: accessReviews.tenantId, reviewer: accessReviewItems.reviewer, reviewerId: accessReviewItems.reviewerPrincipalId })
      .from(accessReviewItems)
      .innerJoin(accessReviews, eq(accessReviews.id, accessReviewItems.reviewId))
      .where(and(eq(accessReviewItems.reviewId, input.reviewId), inArray(accessReviewItems.id, input.itemIds)));
    if (rows.length !== new Set(input.itemIds).size) throw new AppError("not_found", "Some of these items are not in this review.");
    const first = rows[0]!;
    if (rows.some((r) => r.reviewer !== first.reviewer || r.reviewerId !== first.reviewerId)) {
      throw new AppError("validation", undefined, { itemIds: ["Select items assigned to one reviewer."] });
    }
    return { action: "access_review.item.decide" as const, resource: { kind: "review_item" as const, tenantId: first.tenantId, reviewerId: first.reviewerId } };
  },
  async run(ctx, input, { tenantId }) {
    const by = { actor: auditActorOf(ctx.actor), now: ctx.now };
    return ctx.db.transaction(async (tx) => {
      const [review] = await tx.select().from(accessReviews).where(eq(accessReviews.id, input.reviewId));
      if (review!.deadlineAppliedAt || review!.deadline.getTime() <= ctx.now.getTime()) {
        throw new AppError("conflict", "The deadline of this review has passed: its rule decides what was not reviewed.");
      }
      const items = await tx.select().from(accessReviewItems).where(inArray(accessReviewItems.id, input.itemIds)).orderBy(asc(accessReviewItems.id)).for("update");
      if (items.some((i) => isOwnItem(i, ctx.actor.principalId))) {
        throw new AppError("forbidden", "Nobody reviews their own access: another admin decides that item.");
      }
      const decided = items.find((i) => i.decision !== null);
      if (decided) throw new AppError("conflict", `${decided.principalLabel} (${decided.access}) was decided meanwhile by ${decided.decidedByLabel}. Reload and try again.`);
      for (const item of items) await decideItem(tx, by, ctx.actor.principalId, tenantId, item, input.decision, false, null);
      return { decided: items.length, decision: input.decision };
    });
  },
});

type ItemRow = typeof accessReviewItems.$inferSelect;

/**
 * Write one decision where none is yet (the update's `decision is null` makes
 * a second writer find nothing), revoke when asked, and audit it. Shared with
 * the deadline job (decidedBy null, `by` the rule).
 */
export async function decideItem(tx: Database, by: { actor: AuditActor; now: Date }, decidedBy: string | null, tenantId: string | null, item: ItemRow, decision: "keep" | "revoke", flagged: boolean, note: string | null) {
  const revokeNote = decision === "revoke" ? await revokeItemAccess(tx, by, tenantId, item) : null;
  const [written] = await tx
    .update(accessReviewItems)
    .set({ decision, decidedAt: by.now, decidedBy, decidedByLabel: by.actor.label, flagged, note: note ?? revokeNote })
    .where(and(eq(accessReviewItems.id, item.id), isNull(accessReviewItems.decision)))
    .returning();
  if (!written) throw new AppError("conflict", `${item.principalLabel} (${item.access}) was decided meanwhile. Reload and try again.`);
  await recordAudit(tx, {
    actor: by.actor,
    at: by.now,
    tenantId,
    action: "access_review.item_decided",
    target: { type: "access_review_item", id: item.id },
    after: { reviewId: item.reviewId, kind: item.kind, principal: item.principalLabel, access: item.access, decision, flagged, note: written.note },
  });
}
