import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
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
 * An external OIDC issuer a service account trusts instead of holding a static
 * token (keyless automation, lib/federation): a JWT from `issuer` for
 * `audience` whose subject matches `subjectPattern` (exact, or a glob with `*`)
 * and whose other claims equal `claimConditions` is exchanged for a short-lived
 * token of the account. Nothing secret is stored: keys come from the issuer.
 */
export const federationTrusts = pgTable(
  "federation_trusts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    serviceAccountId: uuid("service_account_id")
      .notNull()
      .references(() => serviceAccounts.principalId, { onDelete: "cascade" }),
    name: text("name").notNull(),
    issuer: text("issuer").notNull(),
    audience: text("audience").notNull(),
    subjectPattern: text("subject_pattern").notNull(),
    /** Claim name -> the value it must equal (string, number or boolean); {} for none. */
    claimConditions: jsonb("claim_conditions").$type<Record<string, string | number | boolean>>().notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    createdBy: uuid("created_by").references(() => principals.id, { onDelete: "set null" }),
    /** Null: in force until revoked. */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("federation_trusts_account_name_unique").on(t.serviceAccountId, t.name), index("federation_trusts_issuer_idx").on(t.issuer)],
);

/**
 * Subject tokens already exchanged, so each is used once: keyed by issuer and
 * the SHA-256 of its jti (or of the whole token when it has none), kept until
 * the token's own expiry, after which it is refused anyway.
 */
export const federationExchanges = pgTable(
  "federation_exchanges",
  {
    key: text("key").primaryKey(),
    trustId: uuid("trust_id").references(() => federationTrusts.id, { onDelete: "set null" }),
    exchangedAt: timestamp("exchanged_at", { withTimezone: true }).notNull(),
    subjectExpiresAt: timestamp("subject_expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("federation_exchanges_expiry_idx").on(t.subjectExpiresAt)],
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
    /** Set on a short-lived token issued by exchanging an external OIDC token under this trust; null for minted tokens. */
    federationTrustId: uuid("federation_trust_id").references(() => federationTrusts.id, { onDelete: "cascade" }),
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
