import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { projects, tenants } from "./tenancy";

/**
 * pending   waiting for a worker (or for next_attempt_at after a retryable failure)
 * applying  claimed by a worker until claimed_until; a crashed worker's claim lapses
 * applied   the cluster has the objects (live mode)
 * recorded  rendered and stored as a plan: no cluster connected (record-only mode)
 * failed    gave up: not retryable, or out of attempts; an admin can retry it
 * superseded a newer change for the same target was applied first
 */
export const clusterChangeStatus = pgEnum("cluster_change_status", ["pending", "applying", "applied", "recorded", "failed", "superseded"]);

/**
 * The outbox: one row per change of desired state that the cluster must follow,
 * written in the same transaction as the change itself. The target is a whole
 * project (its namespace and everything in it), a tenant's cluster-scoped
 * objects (its Kueue cohort and ClusterQueues), or the platform's Kueue
 * ResourceFlavors (one per pool flavour, shared by every tenant). The objects
 * are rendered when a worker takes the change, from the database as it is then, so a change that
 * waited never applies stale state.
 */
export const clusterChanges = pgTable(
  "cluster_changes",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** Null for the platform's own objects (Kueue ResourceFlavors, target "platform:flavors"). */
    tenantId: uuid("tenant_id").references(() => tenants.id),
    /** Null for the tenant's cluster-scoped objects. */
    projectId: uuid("project_id").references(() => projects.id),
    /** "project:<id>", "tenant:<id>" or "platform:flavors": at most one pending change per target. */
    targetKey: text("target_key").notNull(),
    /** Why the change was asked for, newest last (coalesced changes keep every reason). */
    reasons: jsonb("reasons").$type<string[]>().notNull(),
    status: clusterChangeStatus("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    claimedBy: text("claimed_by"),
    claimedUntil: timestamp("claimed_until", { withTimezone: true }),
    /** "live" or "record-only", set when a worker takes it. */
    mode: text("mode"),
    /** The rendered manifests, in apply order, as last rendered. */
    objects: jsonb("objects").$type<Record<string, unknown>[]>(),
    /** Owned objects that were no longer desired and were deleted (or would be, in record-only mode). */
    deletions: jsonb("deletions").$type<{ apiVersion: string; kind: string; namespace?: string; name: string }[]>(),
    lastError: text("last_error"),
    /**
     * Why the last attempt did not apply, as a word the pages turn into what to
     * do: the API's Status reason, ours (Timeout, ConnectionRefused,
     * FlavorsNotReady, ...), InvalidObject or http_<code>. Null with no error,
     * and on changes whose last attempt was before migration 0025.
     */
    lastErrorReason: text("last_error_reason"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("cluster_changes_one_pending_per_target").on(t.targetKey).where(sql`${t.status} = 'pending'`),
    index("cluster_changes_due_idx").on(t.status, t.nextAttemptAt),
    index("cluster_changes_target_idx").on(t.targetKey, t.id),
    index("cluster_changes_project_idx").on(t.projectId, t.id),
  ],
);

/**
 * A cluster change that must happen at a future instant by itself: a project
 * grant's expiry, a quota grant's start or end. Written in the same transaction
 * as the grant (through the outbox helpers), so no crash can lose it, and kept
 * apart from the outbox so a change asked for now never pulls it forward or
 * swallows it. One row per target and instant; the worker's recovery scan
 * enqueues the due ones (`lib/cluster/scheduled.ts`), so nothing rests on a
 * timer in memory.
 */
export const clusterScheduledChanges = pgTable(
  "cluster_scheduled_changes",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id),
    /** Null for the tenant's cluster-scoped objects (the Kueue ClusterQueue). */
    projectId: uuid("project_id").references(() => projects.id),
    /** The outbox target the change is for: "project:<id>" or "tenant:<id>". */
    targetKey: text("target_key").notNull(),
    dueAt: timestamp("due_at", { withTimezone: true }).notNull(),
    reason: text("reason").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** Set when the recovery scan put it into the outbox, with the change it became. */
    enqueuedAt: timestamp("enqueued_at", { withTimezone: true }),
    changeId: bigint("change_id", { mode: "number" }).references(() => clusterChanges.id),
  },
  (t) => [
    uniqueIndex("cluster_scheduled_changes_target_due_unique").on(t.targetKey, t.dueAt),
    index("cluster_scheduled_changes_due_idx").on(t.dueAt).where(sql`${t.enqueuedAt} is null`),
  ],
);

/** One try at applying a change: when, by which worker, and what the API server said. */
export const clusterChangeAttempts = pgTable(
  "cluster_change_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    changeId: bigint("change_id", { mode: "number" })
      .notNull()
      .references(() => clusterChanges.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    worker: text("worker").notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    /** applied, recorded, retry, failed, or null while running (or when the worker died). */
    outcome: text("outcome"),
    error: text("error"),
  },
  (t) => [index("cluster_change_attempts_change_idx").on(t.changeId, t.attempt)],
);

export const clusterObjectStatus = pgEnum("cluster_object_status", ["planned", "applying", "applied", "failed", "drifted"]);

/**
 * Every object the portal owns, as last rendered, with what we know of it on
 * the cluster. The project page and the drift list read this table; the
 * cluster itself stays the truth for what is live.
 */
export const clusterObjects = pgTable(
  "cluster_objects",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Null for the platform's own objects (the shared Kueue ResourceFlavors). */
    tenantId: uuid("tenant_id").references(() => tenants.id),
    projectId: uuid("project_id").references(() => projects.id),
    apiVersion: text("api_version").notNull(),
    kind: text("kind").notNull(),
    /** Empty for cluster-scoped objects, so the unique index covers them. */
    namespace: text("namespace").notNull().default(""),
    name: text("name").notNull(),
    manifest: jsonb("manifest").$type<Record<string, unknown>>().notNull(),
    status: clusterObjectStatus("status").notNull(),
    lastChangeId: bigint("last_change_id", { mode: "number" }),
    /** Fields the portal owns that differ on the cluster; "missing" when the object is gone. */
    drift: jsonb("drift").$type<{ path: string; desired: unknown; live: unknown }[] | "missing">(),
    error: text("error"),
    appliedAt: timestamp("applied_at", { withTimezone: true }),
    checkedAt: timestamp("checked_at", { withTimezone: true }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("cluster_objects_identity_unique").on(t.kind, t.namespace, t.name),
    index("cluster_objects_project_idx").on(t.projectId),
    index("cluster_objects_tenant_idx").on(t.tenantId),
  ],
);
