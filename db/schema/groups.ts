import { sql } from "drizzle-orm";
import { check, index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { principals } from "./identity";
import { projectRole, projects, tenantRole, tenants } from "./tenancy";

/**
 * An identity provider's group mapped to a role: in the whole tenant
 * (project_id null, tenant_role set) or on one project of it (project_role
 * set). Whoever is in the group holds the role for as long as they are in it
 * (lib/groups/derived.ts). The group is named by `group_name` as typed;
 * `group_key` is its matching form (trimmed, lower-case: lib/groups/group-key.ts),
 * compared with the keys of SCIM groups' displayName and externalId and of
 * the groups claim's values.
 */
export const groupMappings = pgTable(
  "group_mappings",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id),
    projectId: uuid("project_id").references(() => projects.id),
    groupName: text("group_name").notNull(),
    groupKey: text("group_key").notNull(),
    tenantRole: tenantRole("tenant_role"),
    projectRole: projectRole("project_role"),
    createdBy: uuid("created_by").references(() => principals.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // One role per group and scope: a second mapping of the same group to the same place is a change, not an addition.
    uniqueIndex("group_mappings_tenant_group_unique").on(t.tenantId, t.groupKey).where(sql`${t.projectId} is null`),
    uniqueIndex("group_mappings_project_group_unique").on(t.projectId, t.groupKey).where(sql`${t.projectId} is not null`),
    index("group_mappings_group_key_idx").on(t.groupKey),
    check(
      "group_mappings_one_role",
      sql`(${t.projectId} is null and ${t.tenantRole} is not null and ${t.projectRole} is null) or (${t.projectId} is not null and ${t.projectRole} is not null and ${t.tenantRole} is null)`,
    ),
    // A meter role is a service account's; groups hold people.
    // Compared as text: migrations run in one transaction, where the enum value "meter" added earlier cannot be named yet.
    check("group_mappings_no_meter", sql`${t.projectRole} is null or ${t.projectRole}::text <> 'meter'`),
  ],
);

/**
 * The values of a person's groups claim at their latest sign-in through the
 * identity provider, replaced at each sign-in. Sessions older than
 * ALLOT_SESSION_RECHECK_MINUTES are sent to sign in again, so what is here is
 * never older than that for anyone who can act.
 */
export const principalClaimGroups = pgTable(
  "principal_claim_groups",
  {
    principalId: uuid("principal_id")
      .notNull()
      .references(() => principals.id, { onDelete: "cascade" }),
    groupKey: text("group_key").notNull(),
    groupName: text("group_name").notNull(),
    seenAt: timestamp("seen_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.principalId, t.groupKey] }), index("principal_claim_groups_key_idx").on(t.groupKey)],
);
