import { sql } from "drizzle-orm";
import { index, integer, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./tenancy";

/**
 * A principal is anything that can hold a role: a person (user) or a machine
 * (service account). Roles hang off principals, never off users directly, so a
 * service account is a first-class actor (DESIGN.md principle 1).
 */
export const principalKind = pgEnum("principal_kind", ["user", "service_account"]);

export const principals = pgTable("principals", {
  id: uuid("id").primaryKey().defaultRandom(),
  kind: principalKind("kind").notNull(),
  displayName: text("display_name").notNull(),
  disabledAt: timestamp("disabled_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export const users = pgTable(
  "users",
  {
    principalId: uuid("principal_id")
      .primaryKey()
      .references(() => principals.id, { onDelete: "cascade" }),
    /** Stored lower-cased; the identity we match OIDC sign-ins and invitations on. */
    email: text("email").notNull(),
    oidcIssuer: text("oidc_issuer"),
    oidcSubject: text("oidc_subject"),
  },
  (t) => [
    uniqueIndex("users_email_unique").on(t.email),
    uniqueIndex("users_oidc_identity_unique")
      .on(t.oidcIssuer, t.oidcSubject)
      .where(sql`${t.oidcSubject} is not null`),
  ],
);

export const serviceAccounts = pgTable(
  "service_accounts",
  {
    principalId: uuid("principal_id")
      .primaryKey()
      .references(() => principals.id, { onDelete: "cascade" }),
    /** Null for platform-scoped automation accounts owned by the platform team. */
    tenantId: uuid("tenant_id").references(() => tenants.id),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    /** Who made it, for the record only: the account does not depend on that person. */
    createdBy: uuid("created_by").references(() => principals.id, { onDelete: "set null" }),
  },
  (t) => [
    uniqueIndex("service_accounts_tenant_name_unique").on(t.tenantId, t.name),
    // NULLs are distinct in a unique index, so platform-scoped names need their own.
    uniqueIndex("service_accounts_platform_name_unique").on(t.name).where(sql`${t.tenantId} is null`),
  ],
);

/** Where a principal's platform admin role came from, so each source can be revoked on its own. */
export const platformAdminSource = pgEnum("platform_admin_source", ["cli", "oidc_group", "seed"]);

export const platformAdmins = pgTable("platform_admins", {
  principalId: uuid("principal_id")
    .primaryKey()
    .references(() => principals.id, { onDelete: "cascade" }),
  source: platformAdminSource("source").notNull(),
  grantedAt: timestamp("granted_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Server-side record of each sign-in. The browser holds a signed JWT naming the
 * session id; ending the row here (sign-out, disabling a principal) ends the
 * session even if a copy of the cookie survives.
 */
export const authSessions = pgTable(
  "auth_sessions",
  {
    id: text("id").primaryKey(),
    principalId: uuid("principal_id")
      .notNull()
      .references(() => principals.id, { onDelete: "cascade" }),
    method: text("method").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    endedAt: timestamp("ended_at", { withTimezone: true }),
  },
  (t) => [index("auth_sessions_principal_idx").on(t.principalId)],
);

/**
 * Bearer tokens of service accounts. The token is shown once; we keep its
 * public prefix (to find and list it) and the SHA-256 of the whole token.
 */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    serviceAccountId: uuid("service_account_id")
      .notNull()
      .references(() => serviceAccounts.principalId, { onDelete: "cascade" }),
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    createdBy: uuid("created_by").references(() => principals.id, { onDelete: "set null" }),
    /** Null: does not expire (the admin confirmed that when minting). */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("api_tokens_prefix_unique").on(t.prefix), index("api_tokens_service_account_idx").on(t.serviceAccountId)],
);

/**
 * Failed token authentications per key (a client address or a token prefix)
 * in a fixed window. In the database rather than in memory so that every
 * replica counts the same failures: N replicas must not allow N times the
 * attempts (lib/api/rate-limit.ts).
 */
export const authFailureCounts = pgTable("auth_failure_counts", {
  key: text("key").primaryKey(),
  windowStartedAt: timestamp("window_started_at", { withTimezone: true }).notNull(),
  failures: integer("failures").notNull(),
});
