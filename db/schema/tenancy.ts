import { sql } from "drizzle-orm";
import { index, integer, jsonb, numeric, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { principals } from "./identity";

export const isolationTier = pgEnum("isolation_tier", ["shared", "dedicated"]);
export const tenantStatus = pgEnum("tenant_status", ["active", "disabled"]);
export const tenantRole = pgEnum("tenant_role", ["tenant_admin", "member", "viewer"]);
/** "meter" is for service accounts only: it may push usage for the project and nothing else. */
export const projectRole = pgEnum("project_role", ["member", "viewer", "meter"]);

export const tenants = pgTable(
  "tenants",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    isolationTier: isolationTier("isolation_tier").notNull().default("shared"),
    costCentre: text("cost_centre").notNull().default(""),
    status: tenantStatus("status").notNull().default("active"),
    /** A sandboxing RuntimeClass (e.g. gvisor) for the tenant's namespaces; set by platform admins. */
    runtimeClass: text("runtime_class"),
    /**
     * Annotations put on every service account of the tenant for workload
     * identity (AWS IRSA, GKE, Azure), with {tenant} {project} {namespace}
     * {serviceAccount} placeholders. Never static credentials.
     */
    workloadIdentity: jsonb("workload_identity").$type<Record<string, string>>(),
    version: integer("version").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("tenants_slug_unique").on(t.slug)],
);

export const projects = pgTable(
  "projects",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    /** Fixed when the project is created, so renaming never moves workloads. */
    namespace: text("namespace").notNull(),
    /** Archived projects keep their history but take no new work or access. */
    archivedAt: timestamp("archived_at", { withTimezone: true }),
    /**
     * The project's fair-share weight against the other projects of its
     * cohort when GPUs are scarce (Kueue's ClusterQueue fairSharing.weight).
     * One per project, not per flavour: Kueue weighs a whole ClusterQueue.
     */
    fairShareWeight: numeric("fair_share_weight").notNull().default("1"),
    version: integer("version").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("projects_tenant_slug_unique").on(t.tenantId, t.slug),
    uniqueIndex("projects_namespace_unique").on(t.namespace),
  ],
);

/** A principal's role in a whole tenant. `version` guards concurrent edits. */
export const memberships = pgTable(
  "memberships",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id),
    principalId: uuid("principal_id")
      .notNull()
      .references(() => principals.id, { onDelete: "cascade" }),
    role: tenantRole("role").notNull(),
    version: integer("version").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("memberships_tenant_principal_unique").on(t.tenantId, t.principalId),
    index("memberships_principal_idx").on(t.principalId),
  ],
);

/**
 * A role on one project. Without a tenant membership this is an external
 * collaborator's grant, and then it must expire (enforced where grants are made).
 */
export const projectGrants = pgTable(
  "project_grants",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id),
    principalId: uuid("principal_id")
      .notNull()
      .references(() => principals.id, { onDelete: "cascade" }),
    role: projectRole("role").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    grantedBy: uuid("granted_by").references(() => principals.id, { onDelete: "set null" }),
    version: integer("version").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("project_grants_project_principal_unique").on(t.projectId, t.principalId),
    index("project_grants_principal_idx").on(t.principalId),
    index("project_grants_expiry_idx").on(t.expiresAt).where(sql`${t.expiresAt} is not null`),
  ],
);

/**
 * An invitation to join a tenant (tenantRole set) or to work on one project as
 * an external collaborator (projectId, projectRole and grantExpiresAt set).
 * The link carries a single-use token; only its hash is stored.
 */
export const invitations = pgTable(
  "invitations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id),
    projectId: uuid("project_id").references(() => projects.id),
    email: text("email").notNull(),
    tenantRole: tenantRole("tenant_role"),
    projectRole: projectRole("project_role"),
    grantExpiresAt: timestamp("grant_expires_at", { withTimezone: true }),
    tokenHash: text("token_hash").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    invitedBy: uuid("invited_by").references(() => principals.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    acceptedBy: uuid("accepted_by").references(() => principals.id, { onDelete: "set null" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("invitations_token_hash_unique").on(t.tokenHash), index("invitations_tenant_idx").on(t.tenantId)],
);
