import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { accessReviewItems, groupMappings } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { loadActor } from "@/lib/auth/load-actor";
import { toCsv } from "@/lib/csv";
import { recordClaimGroups } from "@/lib/groups/claim";
import { mapGroup } from "@/lib/groups/commands";
import { databaseLabel } from "@/test/database";
import { appErrorOf, auditLog } from "@/test/fixtures";
import { freshReviewedTenant } from "@/test/reviews";
import { contextFor, DAY, seededDatabase, uniqueEmail, userWithEmail } from "@/test/tenancy";
import { decideReviewItems, openTenantReview } from "./commands";
import { REVIEW_CSV_COLUMNS } from "./csv";
import { applyDueReviewDeadlines } from "./deadline";
import { reviewDetail } from "./queries";

/** Access that comes from identity provider groups, in a tenant review: one item per mapping; revoking removes the mapping. */

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const DEADLINE = new Date(NOW.getTime() + 14 * DAY);

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
beforeAll(() => {
  db = seeded.db;
});

/** A tenant whose group "ml-team-<n>" is viewer of the tenant, with two people in it by their groups claim. */
async function tenantWithGroup() {
  const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
  const admin = await contextFor(db, t.admin, NOW);
  const group = `ml-team-${t.slug}`;
  const mapping = await executeCommand(mapGroup, admin, { tenant: t.slug, group, project: "", role: "viewer" });
  const people = [await userWithEmail(db, uniqueEmail("grouped"), SEEDED_AT), await userWithEmail(db, uniqueEmail("grouped"), SEEDED_AT)];
  for (const p of people) await recordClaimGroups(db, p, [group], NOW);
  return { ...t, adminCtx: admin, group, mappingId: mapping.id, people };
}

describe(`group-derived access in a review (${databaseLabel()})`, () => {
  it("lists each mapping once for the tenant admins, naming everyone it reaches, and exports it", async () => {
    const t = await tenantWithGroup();
    const { reviewId } = await executeCommand(openTenantReview, t.adminCtx, { tenant: t.slug, deadline: DEADLINE.toISOString(), rule: "keep_and_flag" });
    const items = (await db.select().from(accessReviewItems).where(eq(accessReviewItems.reviewId, reviewId))).filter((i) => i.kind === "group_mapping");
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ subjectId: t.mappingId, principalId: null, principalLabel: `group ${t.group}`, reviewer: "tenant_admins" });
    expect(items[0]!.access).toMatch(new RegExp(`^viewer of the tenant via group ${t.group}; reaches 2 people: .+\\. Revoking removes the group mapping for everyone in the group$`));
    expect((items[0]!.detail as { people: { principalId: string }[] }).people.map((p) => p.principalId).sort()).toEqual([...t.people].sort());
    const csv = toCsv((await reviewDetail(t.adminCtx, reviewId))!.items, REVIEW_CSV_COLUMNS);
    expect(csv).toContain(`,group ${t.group},,group mapping,Tenant admins,,,,`);
  });

  it("revoking removes the mapping, audited, and everyone in the group loses the access at once", async () => {
    const t = await tenantWithGroup();
    const { reviewId } = await executeCommand(openTenantReview, t.adminCtx, { tenant: t.slug, deadline: DEADLINE.toISOString(), rule: "keep_and_flag" });
    const item = (await db.select().from(accessReviewItems).where(eq(accessReviewItems.reviewId, reviewId))).find((i) => i.kind === "group_mapping")!;
    expect((await loadActor(db, t.people[0]!, []))!.memberships.some((m) => m.tenantId === t.tenantId)).toBe(true);

    await executeCommand(decideReviewItems, t.adminCtx, { reviewId, itemIds: [item.id], decision: "revoke" });
    expect(await db.select().from(groupMappings).where(eq(groupMappings.id, t.mappingId))).toHaveLength(0);
    for (const p of t.people) expect((await loadActor(db, p, []))!.memberships.some((m) => m.tenantId === t.tenantId)).toBe(false);
    const deleted = (await auditLog(db)).filter((e) => e.action === "group_mapping.deleted" && e.targetId === t.mappingId);
    expect(deleted).toHaveLength(1);
    expect(deleted[0]!.actorPrincipalId).toBe(t.admin);
  });

  it("is not decided by someone the group reaches: it is their own access too", async () => {
    const t = await tenantWithGroup();
    await recordClaimGroups(db, t.secondAdmin, [t.group], NOW);
    const { reviewId } = await executeCommand(openTenantReview, t.adminCtx, { tenant: t.slug, deadline: DEADLINE.toISOString(), rule: "keep_and_flag" });
    const item = (await db.select().from(accessReviewItems).where(eq(accessReviewItems.reviewId, reviewId))).find((i) => i.kind === "group_mapping")!;
    const inGroup = await contextFor(db, t.secondAdmin, NOW);
    expect((await appErrorOf(executeCommand(decideReviewItems, inGroup, { reviewId, itemIds: [item.id], decision: "keep" }))).code).toBe("forbidden");
    expect((await reviewDetail(inGroup, reviewId))!.items.find((i) => i.id === item.id)).toMatchObject({ own: true, canDecide: false });
    await executeCommand(decideReviewItems, t.adminCtx, { reviewId, itemIds: [item.id], decision: "keep" });
  });

  it("keeps and flags a mapping nobody decided under keep and flag, leaving it in place", async () => {
    const t = await tenantWithGroup();
    const { reviewId } = await executeCommand(openTenantReview, t.adminCtx, { tenant: t.slug, deadline: DEADLINE.toISOString(), rule: "keep_and_flag" });
    await applyDueReviewDeadlines(db, new Date(DEADLINE.getTime() + 60_000));
    const item = (await db.select().from(accessReviewItems).where(eq(accessReviewItems.reviewId, reviewId))).find((i) => i.kind === "group_mapping")!;
    expect(item).toMatchObject({ decision: "keep", flagged: true });
    expect(await db.select().from(groupMappings).where(eq(groupMappings.id, t.mappingId))).toHaveLength(1);
  });
});
