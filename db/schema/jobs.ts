import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Who runs the periodic loops (drift checks, usage ingest, alerts, expiry
 * sweeps, webhook retries) for a named job: one holder at a time across all
 * replicas, on a lease it renews while alive. A holder that dies stops
 * renewing, and another replica takes over once the lease ends.
 */
export const leaderLeases = pgTable("leader_leases", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  leaseUntil: timestamp("lease_until", { withTimezone: true }).notNull(),
});
