import { bigint, doublePrecision, index, integer, jsonb, numeric, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { principals } from "./identity";
import { quotaRequests } from "./quota";

/**
 * The content of a quota request before each edit by its requester: revision
 * n is what the request said until it became revision n + 1. The request row
 * holds the newest revision; nothing here is ever updated, so an approver can
 * see what changed and the audit can tell what was approved.
 */
export const quotaRequestRevisions = pgTable(
  "quota_request_revisions",
  {
    requestId: uuid("request_id")
      .notNull()
      .references(() => quotaRequests.id),
    revision: integer("revision").notNull(),
    gpuModel: text("gpu_model"),
    gpuCount: integer("gpu_count").notNull(),
    cpuCores: doublePrecision("cpu_cores").notNull(),
    memoryBytes: bigint("memory_bytes", { mode: "number" }).notNull(),
    storageBytes: bigint("storage_bytes", { mode: "number" }).notNull(),
    /** The request's lines then (flavour, resource, guarantee, burst), as quota_request_lines held them. */
    lines: jsonb("lines").$type<{ flavor: string; resource: string; guarantee: number; burst: number }[]>().notNull(),
    endsAt: timestamp("ends_at", { withTimezone: true }),
    justification: text("justification").notNull(),
    monthlyCost: numeric("monthly_cost", { precision: 18, scale: 2 }).notNull(),
    /** When this revision was written (the request's creation, or the edit that made it). */
    writtenAt: timestamp("written_at", { withTimezone: true }).notNull(),
    /** When the next edit replaced it. */
    replacedAt: timestamp("replaced_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("quota_request_revisions_unique").on(t.requestId, t.revision)],
);

/** The conversation between a request's requester and those who decide it; append-only. */
export const quotaRequestComments = pgTable(
  "quota_request_comments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    requestId: uuid("request_id")
      .notNull()
      .references(() => quotaRequests.id),
    authorPrincipalId: uuid("author_principal_id").references(() => principals.id, { onDelete: "set null" }),
    /** The author as shown at the time, so a deleted principal's comment still reads. */
    authorLabel: text("author_label").notNull(),
    /** The request's revision the comment was written against. */
    revision: integer("revision").notNull(),
    body: text("body").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("quota_request_comments_request_idx").on(t.requestId, t.createdAt)],
);
