import { sql } from "drizzle-orm";
import { boolean, check, index, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { principals } from "./identity";
import { tenants } from "./tenancy";

/** What is done at the deadline with an item nobody decided: take the access away, or leave it and flag it. */
export const accessReviewRule = pgEnum("access_review_rule", ["revoke", "keep_and_flag"]);
export const accessReviewItemKind = pgEnum("access_review_item_kind", ["membership", "project_grant", "collaborator", "service_account", "platform_admin", "group_mapping"]);
export const accessReviewDecision = pgEnum("access_review_decision", ["keep", "revoke"]);
/** Who an item is for: the tenant's admins, a collaborator's sponsor, or the platform admins (a platform review). */
export const accessReviewReviewer = pgEnum("access_review_reviewer", ["tenant_admins", "sponsor", "platform_admins"]);

/**
 * An access review: a snapshot, taken when it is opened, of every access in a
 * tenant (tenant_id set) or of the platform's own (tenant_id null: platform
 * admins and platform-scoped service accounts), each listed as an item for
 * its reviewer. At the deadline the rule decides what nobody did;
 * `deadline_applied_at` is set once, in the transaction that does it, so two
 * workers can never apply it twice. A review is open until then (or until it
 * is closed early, which applies the rule at once).
 */
export const accessReviews = pgTable(
  "access_reviews",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id").references(() => tenants.id),
    title: text("title").notNull(),
    deadline: timestamp("deadline", { withTimezone: true }).notNull(),
    rule: accessReviewRule("rule").notNull(),
    openedBy: uuid("opened_by").references(() => principals.id, { onDelete: "set null" }),
    openedByLabel: text("opened_by_label").notNull(),
    openedAt: timestamp("opened_at", { withTimezone: true }).notNull(),
    deadlineAppliedAt: timestamp("deadline_applied_at", { withTimezone: true }),
  },
  (t) => [
    index("access_reviews_tenant_idx").on(t.tenantId, t.openedAt),
    index("access_reviews_due_idx").on(t.deadline).where(sql`${t.deadlineAppliedAt} is null`),
    // One open review per tenant, and one of the platform (tenant_id null, folded to the nil uuid): two opened at once cannot both commit.
    uniqueIndex("access_reviews_one_open").on(sql`coalesce(${t.tenantId}, '00000000-0000-0000-0000-000000000000'::uuid)`).where(sql`${t.deadlineAppliedAt} is null`),
  ],
);

/**
 * One access as it was when the review opened (labels copied, so the result
 * still reads after the access or the person is gone), and what became of it.
 * A decision is written only where none is (`decision is null` in the update),
 * so a reviewer and the deadline never both decide an item.
 */
export const accessReviewItems = pgTable(
  "access_review_items",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    reviewId: uuid("review_id")
      .notNull()
      .references(() => accessReviews.id, { onDelete: "cascade" }),
    kind: accessReviewItemKind("kind").notNull(),
    /** The row reviewed: a membership, a project grant, a service account's or a platform admin's principal. */
    subjectId: uuid("subject_id").notNull(),
    principalId: uuid("principal_id").references(() => principals.id, { onDelete: "set null" }),
    principalLabel: text("principal_label").notNull(),
    /** A person's email (null for a service account): names tell two people apart only sometimes. */
    principalEmail: text("principal_email"),
    projectId: uuid("project_id"),
    projectLabel: text("project_label"),
    /** The role, or for a service account its tokens, as snapshot text. */
    access: text("access").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    /** A service account's tokens live when the review opened: [{ prefix, expiresAt, lastUsedAt }]. */
    detail: jsonb("detail"),
    reviewer: accessReviewReviewer("reviewer").notNull(),
    reviewerPrincipalId: uuid("reviewer_principal_id").references(() => principals.id, { onDelete: "set null" }),
    reviewerLabel: text("reviewer_label").notNull(),
    decision: accessReviewDecision("decision"),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    decidedBy: uuid("decided_by").references(() => principals.id, { onDelete: "set null" }),
    /** Who decided, as it reads in the result: a person's email, or "rule: revoke at deadline". */
    decidedByLabel: text("decided_by_label"),
    /** Kept by the deadline's rule (or because revoking was refused there): someone should look at it. */
    flagged: boolean("flagged").notNull().default(false),
    /** What the decision did when it was not plain: the access was already gone, a revocation was refused and why. */
    note: text("note"),
  },
  (t) => [
    uniqueIndex("access_review_items_subject_unique").on(t.reviewId, t.kind, t.subjectId),
    index("access_review_items_review_idx").on(t.reviewId),
    index("access_review_items_reviewer_idx").on(t.reviewerPrincipalId).where(sql`${t.decision} is null`),
    check("access_review_items_decided_whole", sql`(${t.decision} is null) = (${t.decidedAt} is null) and (${t.decision} is null) = (${t.decidedByLabel} is null)`),
  ],
);
