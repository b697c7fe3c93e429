import { sql } from "drizzle-orm";
import { boolean, check, date, doublePrecision, index, integer, numeric, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { principals } from "./identity";
import { projects, tenants } from "./tenancy";

/**
 * Hourly usage per project and resource, one row per source. Resource keys are
 * the rate card's ("gpu:<model>", "cpu", "memory", "storage", "inference") or a
 * custom meter's. Quantities are in consumed units: GPU-hours, core-hours,
 * GiB-hours (memory and storage), requests. For CPU and memory, quantity is
 * max(requested, used), both kept beside it so the figure can be traced.
 * Rows are replaced, never added to, when a source sends an hour again: the
 * key (project, resource, hour, source) is what makes a retried batch harmless.
 *
 * Partitioned by UTC month on `hour` (PARTITION BY RANGE, migration
 * 0027_usage_partitions): this is the logical table drizzle queries; the
 * partitions are made by lib/metering/partitions.ts before rows arrive and
 * dropped whole by retention (lib/metering/retention.ts).
 */
export const usageHourly = pgTable(
  "usage_hourly",
  {
    /**
     * No foreign keys here, on purpose: they cost a third of ingest time, and
     * ingest writes usage_daily (which has them) in the same statement, so a
     * sample for a project that does not exist still fails the whole batch.
     */
    projectId: uuid("project_id").notNull(),
    /** Copied from the project so tenant and platform windows need no join. */
    tenantId: uuid("tenant_id").notNull(),
    resource: text("resource").notNull(),
    /** The start of the hour (UTC); the hour covers [hour, hour + 1h). */
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    /** "prometheus", "push:<service account id>", or "demo" for generated demo data. */
    source: text("source").notNull(),
    quantity: doublePrecision("quantity").notNull(),
    requested: doublePrecision("requested"),
    used: doublePrecision("used"),
    /** Average busy fraction (0–1) of the allocated GPUs in this hour, where DCGM reports it. */
    gpuUtilization: doublePrecision("gpu_utilization"),
    ingestedAt: timestamp("ingested_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Hour second: one index serves both the ingest key and a project's hours in a window.
    primaryKey({ name: "usage_hourly_pk", columns: [t.projectId, t.hour, t.resource, t.source] }),
    check("usage_hourly_quantity", sql`${t.quantity} >= 0 and ${t.quantity} < 1e12`),
    check("usage_hourly_utilization", sql`${t.gpuUtilization} is null or (${t.gpuUtilization} >= 0 and ${t.gpuUtilization} <= 1)`),
  ],
);

/**
 * The daily rollup of usage_hourly, summed over sources, with its cost at the
 * rates in force at each hour. Kept current incrementally by every ingest (in
 * the same transaction) and recomputed for the affected days when a price is
 * added. Exact decimals so sums over projects and days add up to the cent.
 * Partitioned by UTC month on `day`, like usage_hourly and with the same months
 * (migration 0027_usage_partitions), so retention drops a month of both.
 */
export const usageDaily = pgTable(
  "usage_daily",
  {
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id),
    resource: text("resource").notNull(),
    /** The UTC day. */
    day: date("day", { mode: "string" }).notNull(),
    quantity: numeric("quantity", { precision: 24, scale: 9 }).notNull(),
    cost: numeric("cost", { precision: 24, scale: 9 }).notNull(),
    /** Quantity in hours that had no price on the rate card (cost leaves it out). */
    unpricedQuantity: numeric("unpriced_quantity", { precision: 24, scale: 9 }).notNull().default("0"),
    /** GPU-hours that carry a utilisation figure, and the sum of GPU-hours × utilisation over them. */
    gpuMeasuredHours: numeric("gpu_measured_hours", { precision: 24, scale: 9 }).notNull().default("0"),
    gpuBusyHours: numeric("gpu_busy_hours", { precision: 24, scale: 9 }).notNull().default("0"),
    /** True when any of the day's rows came from generated demo data. */
    hasDemo: boolean("has_demo").notNull().default(false),
  },
  (t) => [
    primaryKey({ name: "usage_daily_pk", columns: [t.projectId, t.day, t.resource] }),
    index("usage_daily_tenant_day_idx").on(t.tenantId, t.day),
    index("usage_daily_day_idx").on(t.day),
  ],
);

/** A project's monthly budget in the configured currency, set by its tenant admins. */
export const projectBudgets = pgTable("project_budgets", {
  projectId: uuid("project_id")
    .primaryKey()
    .references(() => projects.id),
  monthlyAmount: numeric("monthly_amount", { precision: 18, scale: 2 }).notNull(),
  updatedBy: uuid("updated_by").references(() => principals.id, { onDelete: "set null" }),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  version: integer("version").notNull().default(1),
});

/**
 * Alerts already sent, so each is sent once: budget thresholds ("budget_50",
 * "budget_80", "budget_100", "forecast") per project and month, and idle GPU
 * flags ("gpu_idle") per project and week (period = the Monday).
 */
export const spendAlerts = pgTable(
  "spend_alerts",
  {
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id),
    kind: text("kind").notNull(),
    period: date("period", { mode: "string" }).notNull(),
    /** The figures that triggered it (spend, budget, forecast, utilisation, idle cost). */
    detail: text("detail").notNull().default(""),
    sentAt: timestamp("sent_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ name: "spend_alerts_pk", columns: [t.projectId, t.kind, t.period] }), index("spend_alerts_sent_idx").on(t.sentAt)],
);

/** How far each pulling source (Prometheus) has ingested: hours before nextHour are done. */
export const usageSources = pgTable("usage_sources", {
  source: text("source").primaryKey(),
  nextHour: timestamp("next_hour", { withTimezone: true }).notNull(),
  lastRunAt: timestamp("last_run_at", { withTimezone: true }),
  lastError: text("last_error"),
  lastSamples: integer("last_samples").notNull().default(0),
});
