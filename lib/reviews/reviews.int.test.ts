import { and, eq, isNull, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { accessReviewItems, accessReviews, apiTokens, federationTrusts, memberships, platformAdmins, projectGrants, projects, tenants } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { authenticateToken } from "@/lib/auth/token-auth";
import { toCsv } from "@/lib/csv";
import { createServiceAccountAsOperator, mintTokenAsOperator } from "@/lib/tenancy/operator";
import { databaseLabel } from "@/test/database";
import { appErrorOf, auditLog, contextOf, personaEmail, principalIdOf, type PersonaKey } from "@/test/fixtures";
import { freshReviewedTenant } from "@/test/reviews";
import { addGrant, contextFor, DAY, fingerprint, newMember, projectIdOf, racingBehindLock, seededDatabase, uniqueEmail, userWithEmail, WRITABLE_TABLES } from "@/test/tenancy";
import { decideReviewItems, openPlatformReview, openTenantReview } from "./commands";
import { REVIEW_CSV_COLUMNS } from "./csv";
import { applyDueReviewDeadlines } from "./deadline";
import { reviewDetail, tenantReviews } from "./queries";

/** Access reviews on a real database: opening, deciding, revoking, the deadline and its exactly-once. */

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
/** Reviews of the deadline tests end here; the others later, so the deadline job never reaches them. */
const DEADLINE = new Date(NOW.getTime() + 14 * DAY);
const LATER_DEADLINE = new Date(NOW.getTime() + 60 * DAY);
const AFTER_DEADLINE = new Date(DEADLINE.getTime() + 60_000);
const REVIEW_TABLES = [...WRITABLE_TABLES, "access_reviews", "access_review_items"];

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
beforeAll(() => {
  db = seeded.db;
});

const as = (key: PersonaKey, now: Date = NOW): Promise<CommandContext> => contextOf(db, key, now);
const idOf = (key: PersonaKey) => principalIdOf(db, personaEmail(key));
const itemsOf = (reviewId: string) => db.select().from(accessReviewItems).where(eq(accessReviewItems.reviewId, reviewId));

async function rejectionMessage(write: Promise<unknown>): Promise<string> {
  try {
    await write;
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    return `${String(error)} ${cause ? String((cause as { constraint_name?: string; message?: string }).constraint_name ?? (cause as Error).message) : ""}`;
  }
  throw new Error("expected the write to be refused");
}

const open = async (ctx: CommandContext, tenant: string, rule: "revoke" | "keep_and_flag" = "revoke", deadline = LATER_DEADLINE) =>
  executeCommand(openTenantReview, ctx, { tenant, deadline: deadline.toISOString(), rule });

describe(`opening a review (${databaseLabel()})`, () => {
  it("lists every membership, grant in force, collaborator and service account with its live tokens, each for its reviewer", async () => {
    const bo = await as("language-admin");
    const pretraining = await projectIdOf(db, "language-models", "pretraining");
    // What must not be listed: an expired collaborator, a revoked token, an expired token.
    const expired = await userWithEmail(db, uniqueEmail("expired"), SEEDED_AT);
    await addGrant(db, { projectId: pretraining, principalId: expired, role: "viewer", expiresAt: new Date(NOW.getTime() - DAY), grantedBy: await idOf("language-admin"), createdAt: SEEDED_AT });
    await createServiceAccountAsOperator(db, { tenant: "language-models", name: "eval-bot", description: "", projectRoles: [{ project: "pretraining", role: "member" }] }, SEEDED_AT);
    const live = await mintTokenAsOperator(db, "language-models", "eval-bot", null, SEEDED_AT);
    const gone = await mintTokenAsOperator(db, "language-models", "eval-bot", new Date(NOW.getTime() - 1), SEEDED_AT);
    const revoked = await mintTokenAsOperator(db, "language-models", "eval-bot", null, SEEDED_AT);
    await db.update(apiTokens).set({ revokedAt: SEEDED_AT }).where(eq(apiTokens.prefix, revoked.prefix));

    const { reviewId, items } = await open(bo, "language-models");
    const rows = await itemsOf(reviewId);
    expect(rows).toHaveLength(items);

    // Everything the tenant grants now, straight from the tables, against the items.
    const tenantId = (await db.select().from(tenants).where(eq(tenants.slug, "language-models")))[0]!.id;
    const memberRows = await db.select().from(memberships).where(eq(memberships.tenantId, tenantId));
    const grantRows = (await db.select({ g: projectGrants }).from(projectGrants).innerJoin(projects, eq(projects.id, projectGrants.projectId)).where(eq(projects.tenantId, tenantId))).map((r) => r.g);
    const inForce = grantRows.filter((g) => g.expiresAt === null || g.expiresAt > NOW);
    expect(rows.filter((r) => r.kind === "membership").map((r) => r.subjectId).sort()).toEqual(memberRows.map((m) => m.id).sort());
    expect(rows.filter((r) => r.kind === "project_grant" || r.kind === "collaborator").map((r) => r.subjectId).sort()).toEqual(inForce.map((g) => g.id).sort());
    expect(inForce.length).toBe(grantRows.length - 1);

    const cleo = rows.find((r) => r.principalEmail === personaEmail("collaborator"))!;
    expect(cleo).toMatchObject({ kind: "collaborator", reviewer: "sponsor", reviewerPrincipalId: await idOf("language-admin"), access: "member on Chat evaluation" });
    const bot = rows.find((r) => r.kind === "service_account" && r.principalLabel === "eval-bot")!;
    expect(bot).toMatchObject({ reviewer: "tenant_admins", access: `service account, 1 live token: ${live.prefix}` });
    expect(JSON.stringify(bot.detail)).not.toContain(gone.prefix);
    expect(rows.find((r) => r.principalEmail === personaEmail("viewer"))).toMatchObject({ kind: "membership", access: "viewer of the tenant", reviewer: "tenant_admins" });
    expect(rows.every((r) => r.decision === null)).toBe(true);

    const opened = (await auditLog(db)).at(-1)!;
    expect(opened).toMatchObject({ action: "access_review.opened", actorLabel: personaEmail("language-admin"), targetId: reviewId });
  });

  it("is refused to viewers, members, collaborators and other tenants' admins, writing nothing", async () => {
    const before = await fingerprint(db, REVIEW_TABLES);
    expect((await appErrorOf(open(await as("viewer"), "language-models"))).code).toBe("forbidden");
    expect((await appErrorOf(open(await as("data-scientist"), "vision-lab"))).code).toBe("forbidden");
    expect((await appErrorOf(open(await as("collaborator"), "language-models"))).code).toBe("not_found");
    expect((await appErrorOf(open(await as("vision-admin"), "language-models"))).code).toBe("not_found");
    expect((await appErrorOf(executeCommand(openPlatformReview, await as("language-admin"), { deadline: DEADLINE.toISOString(), rule: "revoke" }))).code).toBe("forbidden");
    expect(await fingerprint(db, REVIEW_TABLES)).toEqual(before);
  });

  it("names the deadline field when it is past or too far", async () => {
    const bo = await as("language-admin");
    for (const deadline of [new Date(NOW.getTime() - DAY).toISOString(), new Date(NOW.getTime() + 91 * DAY).toISOString(), "soon"]) {
      const error = await appErrorOf(executeCommand(openTenantReview, bo, { tenant: "language-models", deadline, rule: "revoke" }));
      expect(Object.keys(error.fields ?? {}), deadline).toEqual(["deadline"]);
    }
    const rule = await appErrorOf(executeCommand(openTenantReview, bo, { tenant: "language-models", deadline: DEADLINE.toISOString(), rule: "shrug" }));
    expect(Object.keys(rule.fields ?? {})).toEqual(["rule"]);
  });
});

describe(`one open review at a time (${databaseLabel()})`, () => {
  it("refuses a second review of a tenant while one is open, saying which, and allows one after the first's deadline", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    const admin = await contextFor(db, t.admin, NOW);
    await executeCommand(openTenantReview, admin, { tenant: t.slug, title: "Spring review", deadline: DEADLINE.toISOString(), rule: "keep_and_flag" });
    const second = await appErrorOf(open(admin, t.slug));
    expect(second.code).toBe("conflict");
    expect(second.message).toMatch(/^An access review of Reviewed reviewed-[^ ]+ is already open \("Spring review", deadline .+\)\. Close it or wait for its deadline before opening another\.$/);
    // Another tenant's open review does not count.
    const other = await freshReviewedTenant(db, SEEDED_AT, NOW);
    await open(await contextFor(db, other.admin, NOW), other.slug);

    await applyDueReviewDeadlines(db, AFTER_DEADLINE);
    const { reviewId } = await open(await contextFor(db, t.admin, AFTER_DEADLINE), t.slug, "revoke", new Date(AFTER_DEADLINE.getTime() + 30 * DAY));
    expect(reviewId).toBeTruthy();
  });

  it("lets only one of several reviews opened at the same moment commit", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    const admins = [await contextFor(db, t.admin, NOW), await contextFor(db, t.secondAdmin, NOW)];
    const results = await Promise.allSettled([0, 1, 2, 3].map((i) => open(admins[i % 2]!, t.slug)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) {
      expect(r.reason).toMatchObject({ code: "conflict", message: expect.stringMatching(/is already open/) as unknown });
    }
    expect(await db.select().from(accessReviews).where(eq(accessReviews.tenantId, t.tenantId))).toHaveLength(1);
  });

  it("is enforced by the database itself, for a tenant and for the platform, so no code path can open a second", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    const row = (tenantId: string | null) => ({ tenantId, title: "x", deadline: LATER_DEADLINE, rule: "revoke" as const, openedByLabel: "test", openedAt: NOW });
    await db.insert(accessReviews).values(row(t.tenantId));
    expect(await rejectionMessage(db.insert(accessReviews).values(row(t.tenantId)))).toMatch(/access_reviews_one_open/);
    // A review whose deadline was applied is closed and no longer counts.
    await db.update(accessReviews).set({ deadlineAppliedAt: NOW }).where(eq(accessReviews.tenantId, t.tenantId));
    await db.insert(accessReviews).values(row(t.tenantId));

    const [platform] = await db.insert(accessReviews).values(row(null)).returning();
    expect(await rejectionMessage(db.insert(accessReviews).values(row(null)))).toMatch(/access_reviews_one_open/);
    // Closed again, so the platform review test below can open its own.
    await db.update(accessReviews).set({ deadlineAppliedAt: NOW }).where(eq(accessReviews.id, platform!.id));
  });
});

describe(`deciding (${databaseLabel()})`, () => {
  it("keeps and revokes, one by one and in bulk; a revocation takes the access away and is audited with the reviewer", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    const admin = await contextFor(db, t.admin, NOW);
    const { reviewId } = await open(admin, t.slug);
    const rows = await itemsOf(reviewId);
    const item = (pred: (r: (typeof rows)[number]) => boolean) => rows.find(pred)!;
    const memberMembership = item((r) => r.kind === "membership" && r.principalId === t.member);
    const memberGrant = item((r) => r.subjectId === t.memberGrant);
    const guestGrant = item((r) => r.subjectId === t.guestGrant);
    const secondAdmin = item((r) => r.kind === "membership" && r.principalId === t.secondAdmin);

    const auditBefore = (await auditLog(db)).length;
    await executeCommand(decideReviewItems, admin, { reviewId, itemIds: guestGrant.id, decision: "revoke" });
    expect(await db.select().from(projectGrants).where(eq(projectGrants.id, t.guestGrant))).toEqual([]);
    const guestActor = await contextFor(db, t.guest, NOW);
    expect(guestActor.actor.projectGrants).toEqual([]);
    const events = (await auditLog(db)).slice(auditBefore);
    expect(events.map((e) => [e.action, e.actorPrincipalId])).toEqual([
      ["project_grant.revoked", t.admin],
      ["access_review.item_decided", t.admin],
    ]);

    // Bulk: the member's membership and grant kept together, as a form sends them (comma-separated).
    await executeCommand(decideReviewItems, admin, { reviewId, itemIds: `${memberMembership.id},${memberGrant.id}`, decision: "keep" });
    const after = await itemsOf(reviewId);
    for (const id of [memberMembership.id, memberGrant.id]) {
      expect(after.find((r) => r.id === id)).toMatchObject({ decision: "keep", decidedBy: t.admin, flagged: false });
    }
    expect(after.find((r) => r.id === guestGrant.id)).toMatchObject({ decision: "revoke", decidedAt: NOW });

    // Deciding again, or one's own access, is refused; another admin may decide a fellow admin.
    expect((await appErrorOf(executeCommand(decideReviewItems, admin, { reviewId, itemIds: [memberGrant.id], decision: "revoke" }))).code).toBe("conflict");
    const ownItem = item((r) => r.kind === "membership" && r.principalId === t.admin);
    expect((await appErrorOf(executeCommand(decideReviewItems, admin, { reviewId, itemIds: [ownItem.id], decision: "keep" }))).message).toMatch(/own access/);
    await executeCommand(decideReviewItems, admin, { reviewId, itemIds: [secondAdmin.id], decision: "revoke" });
    expect(await db.select().from(memberships).where(and(eq(memberships.tenantId, t.tenantId), eq(memberships.principalId, t.secondAdmin)))).toEqual([]);
  });

  it("revokes a service account's tokens, so they stop authenticating", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    await createServiceAccountAsOperator(db, { tenant: t.slug, name: "pusher", description: "", projectRoles: [] }, SEEDED_AT);
    const token = await mintTokenAsOperator(db, t.slug, "pusher", null, SEEDED_AT);
    expect((await authenticateToken(db, token.token, NOW, [])).ok).toBe(true);
    const admin = await contextFor(db, t.admin, NOW);
    const { reviewId } = await open(admin, t.slug);
    const account = (await itemsOf(reviewId)).find((r) => r.kind === "service_account")!;
    await executeCommand(decideReviewItems, admin, { reviewId, itemIds: [account.id], decision: "revoke" });
    expect((await authenticateToken(db, token.token, NOW, [])).ok).toBe(false);
    expect((await db.select().from(apiTokens).where(eq(apiTokens.prefix, token.prefix)))[0]!.revokedAt).toEqual(NOW);
  });

  it("revokes a service account's federation trusts with its tokens, so no keyless exchange or exchanged token works after", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    const account = await createServiceAccountAsOperator(db, { tenant: t.slug, name: "ci", description: "", projectRoles: [] }, SEEDED_AT);
    const [trust] = await db
      .insert(federationTrusts)
      .values({ serviceAccountId: account.principalId, name: "github-ci", issuer: "https://token.actions.githubusercontent.com", audience: "allot", subjectPattern: "repo:acme/*", createdAt: SEEDED_AT })
      .returning();
    // A token the trust's exchange issued (the exchange itself is tested in lib/federation).
    const exchanged = await mintTokenAsOperator(db, t.slug, "ci", null, SEEDED_AT);
    await db.update(apiTokens).set({ federationTrustId: trust!.id }).where(eq(apiTokens.prefix, exchanged.prefix));
    const admin = await contextFor(db, t.admin, NOW);
    const { reviewId } = await open(admin, t.slug);
    const item = (await itemsOf(reviewId)).find((r) => r.kind === "service_account")!;
    expect(item.access).toBe(`service account, 1 live token: ${exchanged.prefix}; trusts github-ci`);

    await executeCommand(decideReviewItems, admin, { reviewId, itemIds: [item.id], decision: "revoke" });
    expect((await db.select().from(federationTrusts).where(eq(federationTrusts.id, trust!.id)))[0]!.revokedAt).toEqual(NOW);
    expect((await authenticateToken(db, exchanged.token, NOW, [])).ok).toBe(false);
    const audit = (await auditLog(db)).filter((e) => e.action === "federation.trust_revoked" && e.targetId === account.principalId);
    expect(audit).toMatchObject([{ actorPrincipalId: t.admin, after: { revokedTokens: [exchanged.prefix] } }]);
  });

  it("lets a sponsor decide their collaborator and nothing else; viewers and other tenants see nothing", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    // A viewer of the tenant who sponsored a guest (an admin then, say): the item is theirs by name.
    const sponsor = await newMember(db, t.tenantId, "viewer", SEEDED_AT);
    const guest = await userWithEmail(db, uniqueEmail("sponsored"), SEEDED_AT);
    const grantId = await addGrant(db, { projectId: t.projectId, principalId: guest, role: "viewer", expiresAt: new Date(NOW.getTime() + 10 * DAY), grantedBy: sponsor, createdAt: SEEDED_AT });
    const { reviewId } = await open(await contextFor(db, t.admin, NOW), t.slug);
    const rows = await itemsOf(reviewId);
    const theirs = rows.find((r) => r.subjectId === grantId)!;
    const other = rows.find((r) => r.subjectId === t.memberGrant)!;
    expect(theirs).toMatchObject({ reviewer: "sponsor", reviewerPrincipalId: sponsor });

    const asSponsor = await contextFor(db, sponsor, NOW);
    const detail = await reviewDetail(asSponsor, reviewId);
    expect(detail?.items.map((i) => i.id)).toEqual([theirs.id]);
    expect(detail?.canManage).toBe(false);
    expect((await tenantReviews(asSponsor, t.slug))?.reviews.map((r) => [r.id, r.total])).toEqual([[reviewId, 1]]);
    expect((await appErrorOf(executeCommand(decideReviewItems, asSponsor, { reviewId, itemIds: [other.id], decision: "keep" }))).code).toBe("not_found");
    // A bulk decision across two reviewers' groups is refused as such.
    expect((await appErrorOf(executeCommand(decideReviewItems, await contextFor(db, t.admin, NOW), { reviewId, itemIds: [theirs.id, other.id], decision: "keep" }))).fields).toEqual({
      itemIds: ["Select items assigned to one reviewer."],
    });
    await executeCommand(decideReviewItems, asSponsor, { reviewId, itemIds: [theirs.id], decision: "keep" });

    const member = await contextFor(db, t.member, NOW);
    expect(await reviewDetail(member, reviewId)).toBeNull();
    expect(await reviewDetail(await as("vision-admin"), reviewId)).toBeNull();
    expect((await appErrorOf(executeCommand(decideReviewItems, await as("vision-admin"), { reviewId, itemIds: [other.id], decision: "revoke" }))).code).toBe("not_found");
    expect(await reviewDetail(await as("platform-admin"), reviewId)).not.toBeNull();
  });

  it("exports the result as CSV with item, principal, kind, reviewer, decision, when and by whom", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    const admin = await contextFor(db, t.admin, NOW);
    const { reviewId } = await open(admin, t.slug);
    const rows = await itemsOf(reviewId);
    await executeCommand(decideReviewItems, admin, { reviewId, itemIds: [rows.find((r) => r.subjectId === t.memberGrant)!.id], decision: "keep" });
    await executeCommand(decideReviewItems, admin, { reviewId, itemIds: [rows.find((r) => r.subjectId === t.guestGrant)!.id], decision: "revoke" });
    const detail = (await reviewDetail(admin, reviewId))!;
    const lines = toCsv(detail.items, REVIEW_CSV_COLUMNS).trim().split("\r\n");
    expect(lines[0]).toBe("Item,Principal,Email,Kind,Reviewer,Decision,Decided at,By whom,Note");
    const adminEmail = rows.find((r) => r.principalId === t.admin)!.principalEmail!;
    // Grouped by reviewer as on the page: the sponsor's group, then the tenant admins'.
    expect(lines.filter((l) => l.includes(",kept,") || l.includes(",revoked,"))).toEqual([
      expect.stringMatching(new RegExp(`^viewer on Work,.*,external collaborator,Sponsor: .*,revoked,${NOW.toISOString()},${adminEmail},$`)),
      expect.stringMatching(new RegExp(`^member on Work,.*,project grant,Tenant admins,kept,${NOW.toISOString()},${adminEmail},$`)),
    ]);
    expect(lines).toHaveLength(rows.length + 1);
  });
});

describe(`the deadline (${databaseLabel()})`, () => {
  it("keeps and flags what nobody decided, under the rule keep and flag, and leaves decisions alone", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    const admin = await contextFor(db, t.admin, NOW);
    const { reviewId } = await open(admin, t.slug, "keep_and_flag", DEADLINE);
    const rows = await itemsOf(reviewId);
    const revokedByHand = rows.find((r) => r.subjectId === t.memberGrant)!;
    await executeCommand(decideReviewItems, admin, { reviewId, itemIds: [revokedByHand.id], decision: "revoke" });

    expect(await applyDueReviewDeadlines(db, new Date(DEADLINE.getTime() - 1))).toEqual({ reviews: 0, revoked: 0, kept: 0 });
    const applied = await applyDueReviewDeadlines(db, AFTER_DEADLINE);
    expect(applied).toMatchObject({ revoked: 0, kept: rows.length - 1 });
    const after = await itemsOf(reviewId);
    for (const r of after.filter((r) => r.id !== revokedByHand.id)) {
      expect(r).toMatchObject({ decision: "keep", flagged: true, decidedBy: null, decidedByLabel: "rule: keep and flag at deadline", decidedAt: AFTER_DEADLINE });
    }
    expect(after.find((r) => r.id === revokedByHand.id)).toMatchObject({ decision: "revoke", decidedBy: t.admin, flagged: false });
    // Nothing was taken away by the rule: the guest still holds the grant.
    expect(await db.select().from(projectGrants).where(eq(projectGrants.id, t.guestGrant))).toHaveLength(1);
    // After the deadline, reviewers are told the rule has decided.
    expect((await appErrorOf(executeCommand(decideReviewItems, await contextFor(db, t.admin, AFTER_DEADLINE), { reviewId, itemIds: [revokedByHand.id], decision: "keep" }))).code).toBe("conflict");
  });

  it("revokes what nobody decided under the rule revoke, audited as the rule; the last tenant admin is kept and flagged", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    const admin = await contextFor(db, t.admin, NOW);
    // The second admin leaves first, so the first is the last one when the rule runs.
    await db.delete(memberships).where(and(eq(memberships.tenantId, t.tenantId), eq(memberships.principalId, t.secondAdmin)));
    const { reviewId } = await open(admin, t.slug, "revoke", DEADLINE);
    const rows = await itemsOf(reviewId);
    // The member is kept by hand (membership and grant: removing the membership would take the grant with it).
    const kept = rows.find((r) => r.subjectId === t.memberGrant)!;
    const keptMembership = rows.find((r) => r.kind === "membership" && r.principalId === t.member)!;
    await executeCommand(decideReviewItems, admin, { reviewId, itemIds: [kept.id, keptMembership.id], decision: "keep" });
    const auditBefore = (await auditLog(db)).length;

    await applyDueReviewDeadlines(db, AFTER_DEADLINE);
    const after = await itemsOf(reviewId);
    expect(after.find((r) => r.id === kept.id)).toMatchObject({ decision: "keep", decidedBy: t.admin });
    expect(await db.select().from(projectGrants).where(eq(projectGrants.id, t.memberGrant))).toHaveLength(1);
    expect(await db.select().from(projectGrants).where(eq(projectGrants.id, t.guestGrant))).toEqual([]);
    expect(await db.select().from(memberships).where(and(eq(memberships.tenantId, t.tenantId), eq(memberships.principalId, t.member)))).toHaveLength(1);
    const lastAdmin = after.find((r) => r.kind === "membership" && r.principalId === t.admin)!;
    expect(lastAdmin).toMatchObject({ decision: "keep", flagged: true, decidedByLabel: "rule: revoke at deadline" });
    expect(lastAdmin.note).toMatch(/revoking was refused: A tenant must keep at least one tenant admin/);
    expect(await db.select().from(memberships).where(and(eq(memberships.tenantId, t.tenantId), eq(memberships.principalId, t.admin)))).toHaveLength(1);

    const events = (await auditLog(db)).slice(auditBefore);
    expect(new Set(events.map((e) => e.actorLabel))).toEqual(new Set(["rule: revoke at deadline"]));
    // Items are taken in id order (random uuids), so the order of the first three varies; the summary comes last.
    expect(events.map((e) => e.action).sort()).toEqual(["access_review.deadline_applied", "access_review.item_decided", "access_review.item_decided", "project_grant.revoked"]);
    expect(events.at(-1)!.action).toBe("access_review.deadline_applied");
  });

  it("is applied exactly once when workers race for it", async () => {
    const t = await freshReviewedTenant(db, SEEDED_AT, NOW);
    const { reviewId } = await open(await contextFor(db, t.admin, NOW), t.slug, "keep_and_flag", DEADLINE);
    const n = (await itemsOf(reviewId)).length;
    const kind = seeded.handle.target.kind;
    const results = await racingBehindLock(db, kind, sql`select id from access_reviews where id = ${reviewId} for update`, 3, () =>
      Promise.all([1, 2, 3].map(() => applyDueReviewDeadlines(db, AFTER_DEADLINE))),
    );
    expect(results.map((r) => r.reviews).reduce((a, b) => a + b, 0)).toBe(1);
    const events = (await auditLog(db)).filter((e) => (e.action === "access_review.deadline_applied" && e.targetId === reviewId) || (e.action === "access_review.item_decided" && (e.after as { reviewId?: string }).reviewId === reviewId));
    expect(events.filter((e) => e.action === "access_review.deadline_applied")).toHaveLength(1);
    expect(events.filter((e) => e.action === "access_review.item_decided")).toHaveLength(n);
    expect((await db.select().from(accessReviews).where(eq(accessReviews.id, reviewId)))[0]!.deadlineAppliedAt).toEqual(AFTER_DEADLINE);
    expect(await db.select().from(accessReviewItems).where(and(eq(accessReviewItems.reviewId, reviewId), isNull(accessReviewItems.decision)))).toEqual([]);
    // A later run finds nothing more to do.
    expect((await applyDueReviewDeadlines(db, new Date(AFTER_DEADLINE.getTime() + DAY))).reviews).toBe(0);
  });
});

describe(`a platform review (${databaseLabel()})`, () => {
  it("lists platform admins and platform service accounts for the platform admins; the last platform admin cannot be revoked", async () => {
    await createServiceAccountAsOperator(db, { tenant: null, name: "ops-bot", description: "", projectRoles: [] }, SEEDED_AT);
    const priya = await as("platform-admin");
    const { reviewId } = await executeCommand(openPlatformReview, priya, { deadline: LATER_DEADLINE.toISOString(), rule: "keep_and_flag" });
    const rows = await itemsOf(reviewId);
    const admins = await db.select().from(platformAdmins);
    expect(rows.filter((r) => r.kind === "platform_admin").map((r) => r.subjectId).sort()).toEqual(admins.map((a) => a.principalId).sort());
    expect(rows.find((r) => r.kind === "service_account" && r.principalLabel === "ops-bot")).toMatchObject({ reviewer: "platform_admins", access: "service account, no live tokens" });
    expect(rows.every((r) => r.reviewer === "platform_admins")).toBe(true);
    expect(await reviewDetail(await as("language-admin"), reviewId)).toBeNull();

    // ops-bot is itself a platform admin (the CLI makes platform accounts so): revoking its role leaves Priya, the last.
    const opsAdmin = rows.find((r) => r.kind === "platform_admin" && r.principalLabel === "ops-bot")!;
    await executeCommand(decideReviewItems, priya, { reviewId, itemIds: [opsAdmin.id], decision: "revoke" });
    expect((await db.select().from(platformAdmins)).map((a) => a.principalId)).toEqual([await idOf("platform-admin")]);
    const own = rows.find((r) => r.kind === "platform_admin" && r.principalId === priya.actor.principalId)!;
    expect((await appErrorOf(executeCommand(decideReviewItems, priya, { reviewId, itemIds: [own.id], decision: "revoke" }))).code).toBe("forbidden");
  });
});
