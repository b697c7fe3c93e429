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
    check("audit_events_seq_positive", sql`${t.seq} >= 1`),
  ],
);
