import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { principals } from "./identity";

/**
 * SCIM 2.0 provisioning (RFC 7643/7644). A SCIM User is a person principal
 * however it was made (sign-in, admin, SCIM); this table holds only what SCIM
 * adds to it. A person without a row here has never been touched by SCIM:
 * version 0, no externalId, name parts unknown.
 */
export const scimUsers = pgTable(
  "scim_users",
  {
    principalId: uuid("principal_id")
      .primaryKey()
      .references(() => principals.id, { onDelete: "cascade" }),
    externalId: text("external_id"),
    givenName: text("given_name"),
    familyName: text("family_name"),
    /** Bumped by every SCIM write; the ETag is W/"<version>". */
    version: integer("version").notNull().default(1),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * DELETE disables the principal and keeps it (its audit history and its
     * tenants' service accounts stay), but RFC 7644 3.6 wants 404 for it from
     * then on: it is hidden from SCIM until a POST with its userName brings it back.
     */
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [index("scim_users_external_id_idx").on(t.externalId)],
);

/** Bearer tokens of SCIM clients (an IdP). Stored as SHA-256 like service account tokens; shown once. */
export const scimTokens = pgTable(
  "scim_tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("scim_tokens_prefix_unique").on(t.prefix)],
);

/** Groups as the IdP sends them; a role mapping reads them (members are person principals). */
export const scimGroups = pgTable(
  "scim_groups",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    displayName: text("display_name").notNull(),
    externalId: text("external_id"),
    version: integer("version").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("scim_groups_display_name_unique").on(t.displayName)],
);

export const scimGroupMembers = pgTable(
  "scim_group_members",
  {
    groupId: uuid("group_id")
      .notNull()
      .references(() => scimGroups.id, { onDelete: "cascade" }),
    principalId: uuid("principal_id")
      .notNull()
      .references(() => principals.id, { onDelete: "cascade" }),
    addedAt: timestamp("added_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.principalId] }), index("scim_group_members_principal_idx").on(t.principalId)],
);
