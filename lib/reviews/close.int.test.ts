import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { accessReviewItems, accessReviews, projectGrants } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { databaseLabel } from "@/test/database";
import { appErrorOf, auditLog, contextOf } from "@/test/fixtures";
import { freshReviewedTenant } from "@/test/reviews";
import { contextFor, DAY, seededDatabase } from "@/test/tenancy";
import { closeReviewNow } from "./close";
import { decideReviewItems, openPlatformReview, openTenantReview } from "./commands";
import { applyDueReviewDeadlines } from "./deadline";

/** Closing a review before its deadline: the rule decides now, only for its opener or a platform admin, once. */

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const DEADLINE = new Date(NOW.getTime() + 30 * DAY);
const CLOSED_AT = new Date(NOW.getTime() + DAY);

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
beforeAll(() => {
  db = seeded.db;
});

const itemsOf = (reviewId: string) => db.select().from(accessReviewItems).where(eq(accessReviewItems.reviewId, reviewId));

describe(`closing a review now (${databaseLabel()})`, () => {
  it("applies the rule to undecided items at once, leaves decisions alone, audits it and lets the next review open", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    const admin = await contextFor(db, t.admin, NOW);
    const { reviewId } = await executeCommand(openTenantReview, admin, { tenant: t.slug, deadline: DEADLINE.toISOString(), rule: "revoke" });
    const rows = await itemsOf(reviewId);
    const keptByHand = rows.find((r) => r.subjectId === t.memberGrant)!;
    await executeCommand(decideReviewItems, admin, { reviewId, itemIds: [keptByHand.id], decision: "keep" });

    const closer = await contextFor(db, t.admin, CLOSED_AT);
    const result = await executeCommand(closeReviewNow, closer, { reviewId });
    expect(result).toMatchObject({ reviewId, undecided: rows.length - 1 });

    const after = await itemsOf(reviewId);
    expect(after.every((r) => r.decision !== null)).toBe(true);
    expect(after.find((r) => r.id === keptByHand.id)).toMatchObject({ decision: "keep", decidedBy: t.admin, decidedAt: NOW });
    // The collaborator's grant was revoked by the rule, as the closer, before the deadline.
    const guestItem = after.find((r) => r.subjectId === t.guestGrant)!;
    expect(guestItem).toMatchObject({ decision: "revoke", decidedAt: CLOSED_AT });
    expect(guestItem.decidedByLabel).toMatch(/^rule: revoke at deadline, closed early by /);
    expect(await db.select().from(projectGrants).where(eq(projectGrants.id, t.guestGrant))).toHaveLength(0);
    const [review] = await db.select().from(accessReviews).where(eq(accessReviews.id, reviewId));
    expect(review!.deadlineAppliedAt).toEqual(CLOSED_AT);

    const closed = (await auditLog(db)).filter((e) => e.action === "access_review.closed" && e.targetId === reviewId);
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({ actorPrincipalId: t.admin, tenantId: t.tenantId });

    // Closed once: a second close and the deadline job find nothing to do.
    expect((await appErrorOf(executeCommand(closeReviewNow, closer, { reviewId }))).code).toBe("conflict");
    expect(await applyDueReviewDeadlines(db, new Date(DEADLINE.getTime() + 60_000))).toMatchObject({ reviews: 0 });
    // The next review of the tenant opens without waiting for the first's deadline.
    // (The rule revoked one of the two admins' memberships; a platform admin opens it.)
    const next = await executeCommand(openTenantReview, await contextOf(db, "platform-admin", CLOSED_AT), { tenant: t.slug, deadline: DEADLINE.toISOString(), rule: "keep_and_flag" });
    expect(next.reviewId).not.toBe(reviewId);
  });

  it("keeps and flags under the rule keep and flag, naming the early close", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    const { reviewId } = await executeCommand(openTenantReview, await contextFor(db, t.admin, NOW), { tenant: t.slug, deadline: DEADLINE.toISOString(), rule: "keep_and_flag" });
    await executeCommand(closeReviewNow, await contextOf(db, "platform-admin", CLOSED_AT), { reviewId });
    for (const r of await itemsOf(reviewId)) expect(r).toMatchObject({ decision: "keep", flagged: true, note: "not reviewed before the review was closed" });
    expect(await db.select().from(projectGrants).where(eq(projectGrants.id, t.guestGrant))).toHaveLength(1);
  });

  it("is refused to the tenant's other admins, members, other tenants' admins and unknown reviews, changing nothing", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    const { reviewId } = await executeCommand(openTenantReview, await contextFor(db, t.admin, NOW), { tenant: t.slug, deadline: DEADLINE.toISOString(), rule: "revoke" });
    const otherAdmin = await appErrorOf(executeCommand(closeReviewNow, await contextFor(db, t.secondAdmin, CLOSED_AT), { reviewId }));
    expect(otherAdmin.code).toBe("forbidden");
    expect(otherAdmin.message).toMatch(/who opened this review/);
    expect((await appErrorOf(executeCommand(closeReviewNow, await contextFor(db, t.member, CLOSED_AT), { reviewId }))).code).toBe("forbidden");
    expect((await appErrorOf(executeCommand(closeReviewNow, await contextOf(db, "vision-admin", CLOSED_AT), { reviewId }))).code).toMatch(/forbidden|not_found/);
    expect((await appErrorOf(executeCommand(closeReviewNow, await contextFor(db, t.admin, CLOSED_AT), { reviewId: "00000000-0000-4000-8000-000000000000" }))).code).toBe("not_found");
    expect((await appErrorOf(executeCommand(closeReviewNow, await contextFor(db, t.admin, CLOSED_AT), { reviewId: "nope" }))).fields).toHaveProperty("reviewId");
    expect((await itemsOf(reviewId)).every((r) => r.decision === null)).toBe(true);
    const [review] = await db.select().from(accessReviews).where(eq(accessReviews.id, reviewId));
    expect(review!.deadlineAppliedAt).toBeNull();
  });

  it("closes a platform review for a platform admin", async () => {
    const { reviewId } = await executeCommand(openPlatformReview, await contextOf(db, "platform-admin", NOW), { deadline: DEADLINE.toISOString(), rule: "keep_and_flag" });
    expect((await appErrorOf(executeCommand(closeReviewNow, await contextOf(db, "vision-admin", CLOSED_AT), { reviewId }))).code).toBe("forbidden");
    await executeCommand(closeReviewNow, await contextOf(db, "platform-admin", CLOSED_AT), { reviewId });
    expect((await itemsOf(reviewId)).every((r) => r.decision === "keep" && r.flagged)).toBe(true);
  });
});
