import { jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Instance-wide facts such as "demo data seeded", kept so start-up steps run once. */
export const instanceSettings = pgTable("instance_settings", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
