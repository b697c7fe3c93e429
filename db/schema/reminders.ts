import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { principals } from "./identity";
import { projectGrants, projects, tenants } from "./tenancy";

/** What a reminder is about: a project grant (a collaborator's or a time-bound member's) or a service-account token. */
export const reminderSubject = pgEnum("reminder_subject", ["project_grant", "api_token"]);

/**
 * Expiry reminders already sent. The key is the reminder itself: one subject,
 * one expiry instant, one threshold (days before). Senders insert here with
 * ON CONFLICT DO NOTHING in the transaction that writes the notices and
 * webhook deliveries, so however many workers run at once each reminder goes
 * out once; an expiry that moves is a new instant and gets its own reminders.
 * subject_id has no foreign key: the record outlives a revoked grant or token.
 */
export const remindersSent = pgTable(
  "reminders_sent",
  {
    subjectKind: reminderSubject("subject_kind").notNull(),
    subjectId: uuid("subject_id").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    thresholdDays: integer("threshold_days").notNull(),
    tenantId: uuid("tenant_id").references(() => tenants.id),
    /** Who was told in the portal (principal ids). */
    recipients: jsonb("recipients").$type<string[]>().notNull().default([]),
    sentAt: timestamp("sent_at", { withTimezone: true }).notNull(),
    /** When the last of its mails was handed to SMTP; null without SMTP, or while some are still pending. */
    mailedAt: timestamp("mailed_at", { withTimezone: true }),
    /**
     * Mails not yet accepted by the SMTP server (written with the row when SMTP
     * is set, emptied to null as they go out): the next reminder run retries
     * them while the subject has not expired, without a second notice or
     * webhook event (lib/reminders/send.ts).
     */
    mailPending: jsonb("mail_pending").$type<{ to: string; subject: string; text: string }[]>(),
  },
  (t) => [primaryKey({ name: "reminders_sent_pk", columns: [t.subjectKind, t.subjectId, t.expiresAt, t.thresholdDays] }), index("reminders_sent_sent_idx").on(t.sentAt)],
);

export const extensionRequestStatus = pgEnum("extension_request_status", ["pending", "granted", "declined"]);

/**
 * A grant holder's request to keep access longer, answered by the sponsor or a
 * tenant admin. At most one pending request per grant (partial unique index).
 */
export const accessExtensionRequests = pgTable(
  "access_extension_requests",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id),
    grantId: uuid("grant_id")
      .notNull()
      .references(() => projectGrants.id, { onDelete: "cascade" }),
    requestedBy: uuid("requested_by")
      .notNull()
      .references(() => principals.id, { onDelete: "cascade" }),
    /** The grant's expiry when the request was made. */
    currentExpiresAt: timestamp("current_expires_at", { withTimezone: true }).notNull(),
    requestedUntil: timestamp("requested_until", { withTimezone: true }).notNull(),
    reason: text("reason").notNull(),
    status: extensionRequestStatus("status").notNull().default("pending"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    decidedBy: uuid("decided_by").references(() => principals.id, { onDelete: "set null" }),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    decisionNote: text("decision_note"),
  },
  (t) => [
    uniqueIndex("access_extension_requests_one_pending").on(t.grantId).where(sql`${t.status} = 'pending'`),
    index("access_extension_requests_tenant_idx").on(t.tenantId, t.status, t.createdAt),
  ],
);
