import { bigint, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { projects } from "./tenancy";

/**
 * The data versions spend reports are computed from, each moved in the same
 * transaction as the change it counts (lib/metering/spend-generations.ts):
 * a project's usage generation by every ingest of its usage, and the named
 * versions ("rates", "grants") by a price change and a new quota grant.
 */
export const usageGenerations = pgTable("usage_generations", {
  projectId: uuid("project_id")
    .primaryKey()
    .references(() => projects.id),
  generation: bigint("generation", { mode: "number" }).notNull(),
});

export const spendVersions = pgTable("spend_versions", {
  name: text("name").primaryKey(),
  generation: bigint("generation", { mode: "number" }).notNull(),
});

/**
 * Spend reports' usage figures computed once per scope, window and data
 * version (lib/metering/report-cache.ts), shared by every replica. An entry
 * is served only for its own scope and only while its fingerprint (the data
 * versions it was computed from) is the current one.
 */
export const spendReportCache = pgTable(
  "spend_report_cache",
  {
    /** sha256 of the scope, window and money settings. */
    cacheKey: text("cache_key").primaryKey(),
    /** "project:<id>", "tenant:<id>" or "platform": checked again on every read. */
    scope: text("scope").notNull(),
    fingerprint: text("fingerprint").notNull(),
    /** The figures as JSON text (exact: numbers survive JSON as the doubles they were). */
    body: text("body").notNull(),
    computedAt: timestamp("computed_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("spend_report_cache_computed_idx").on(t.computedAt)],
);
