import { sql } from "drizzle-orm";
import { bigint, check, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * Append-only, hash-chained log of every change. `seq` is assigned under an
 * advisory lock so the chain is linear and gapless; a trigger (migration 0001)
 * refuses UPDATE and DELETE.
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey(),
    at: timestamp("at", { withTimezone: true }).notNull(),
    actorPrincipalId: uuid("actor_principal_id"),
    /** Who acted, as shown at the time: survives deletion of the principal. */
    actorLabel: text("actor_label").notNull(),
    tenantId: uuid("tenant_id"),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    before: jsonb("before"),
    after: jsonb("after"),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [
    index("audit_events_tenant_idx").on(t.tenantId, t.seq),
    index("audit_events_actor_idx").on(t.actorPrincipalId, t.seq),
    // The audit page's other filters (lib/audit/queries.ts), each shown by EXPLAIN to read the whole table without one
    // at a million events when few rows match: a date range, and substrings (ILIKE '%…%') of the actor's name or email,
    // the action and the target, served by trigram indexes (pg_trgm, created by the migration; PGlite loads it in db/client.ts).
    index("audit_events_at_idx").on(t.at),
    // With a date range, listAuditEvents first finds the newest matching seq in this index alone (no table reads),
    // then walks the log backward from there: the range's position in the log costs an index scan, not a table scan.
    index("audit_events_seq_at_idx").on(t.seq, t.at),
    index("audit_events_actor_label_trgm_idx").using("gin", sql`${t.actorLabel} gin_trgm_ops`),
    index("audit_events_action_trgm_idx").using("gin", sql`${t.action} gin_trgm_ops`),
    index("audit_events_target_trgm_idx").using("gin", sql`${t.targetId} gin_trgm_ops`, sql`${t.targetType} gin_trgm_ops`),
    check("audit_events_seq_positive", sql`${t.seq} >= 1`),
  ],
);
