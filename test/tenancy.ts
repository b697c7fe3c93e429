import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll } from "vitest";
import type { Database } from "@/db/client";
import { memberships, principals, projectGrants, projects, tenants } from "@/db/schema";
import type { Actor } from "@/lib/auth/actor";
import type { CommandContext } from "@/lib/auth/context";
import { loadActor } from "@/lib/auth/load-actor";
import { findOrCreateUserByEmail } from "@/lib/auth/users";
import { AppError } from "@/lib/errors";
import { seedDemoData } from "@/db/seed";
import { freshTestDatabase } from "./database";
import { rowsOf } from "./fixtures";

/**
 * Helpers for the tenancy and identity integration tests: set-up rows written
 * straight to the database (the thing under test is then a command), actors
 * for any principal, and a fingerprint of every table a command may write, so
 * a refusal can be shown to have written nothing at all.
 */

export type SeededDatabase = { handle: Awaited<ReturnType<typeof freshTestDatabase>>; db: Database; tenantId: Record<string, string> };

/**
 * The database of one test file: fresh, migrated and seeded with the demo data
 * before its tests (filled in by a beforeAll registered here), closed after.
 */
export function seededDatabase(seededAt: Date): SeededDatabase {
  const seeded = {} as SeededDatabase;
  beforeAll(async () => {
    seeded.handle = await freshTestDatabase();
    seeded.db = seeded.handle.db;
    await seedDemoData(seeded.db, seededAt);
    seeded.tenantId = await tenantIdsBySlug(seeded.db);
  });
  afterAll(async () => {
    await seeded.handle?.close();
  });
  return seeded;
}

export const SETUP_ACTOR = { principalId: null, label: "test:setup" } as const;
export const DAY = 86_400_000;
export const HOUR = 3_600_000;

let counter = 0;
/** A name no other test in this process has used: "<stem>-<n>". */
export function unique(stem: string): string {
  counter += 1;
  return `${stem}-${counter}`;
}
export function uniqueEmail(stem: string): string {
  return `${unique(stem)}@example.com`;
}

export async function tenantIdsBySlug(db: Database): Promise<Record<string, string>> {
  const rows = await db.select({ id: tenants.id, slug: tenants.slug }).from(tenants);
  return Object.fromEntries(rows.map((t) => [t.slug, t.id]));
}

export async function projectIdOf(db: Database, tenantSlug: string, projectSlug: string): Promise<string> {
  const [row] = await db
    .select({ id: projects.id })
    .from(projects)
    .innerJoin(tenants, eq(tenants.id, projects.tenantId))
    .where(and(eq(tenants.slug, tenantSlug), eq(projects.slug, projectSlug)));
  if (!row) throw new Error(`no project ${tenantSlug}/${projectSlug}`);
  return row.id;
}

/** A user principal for this email, created the way an invitee's first sign-in would find it. */
export async function userWithEmail(db: Database, email: string, now: Date): Promise<string> {
  return db.transaction(async (tx) => (await findOrCreateUserByEmail(tx, email, SETUP_ACTOR, now)).principalId);
}

/** The actor of any principal, loaded as a request would; fails if the principal is disabled. */
export async function actorOfPrincipal(db: Database, principalId: string): Promise<Actor> {
  const actor = await loadActor(db, principalId, []);
  if (!actor) throw new Error(`principal ${principalId} has no actor (disabled or missing)`);
  return actor;
}

export async function contextFor(db: Database, principalId: string, now: Date): Promise<CommandContext> {
  return { actor: await actorOfPrincipal(db, principalId), db, now };
}

/** A new user holding a tenant membership: set-up for tests of what admins do to members. */
export async function newMember(db: Database, tenantId: string, role: "tenant_admin" | "member" | "viewer", now: Date): Promise<string> {
  const principalId = await userWithEmail(db, uniqueEmail("member"), now);
  await db.insert(memberships).values({ tenantId, principalId, role, createdAt: now });
  return principalId;
}

export async function addGrant(
  db: Database,
  grant: { projectId: string; principalId: string; role: "member" | "viewer"; expiresAt: Date | null; grantedBy: string | null; createdAt: Date },
): Promise<string> {
  const [row] = await db.insert(projectGrants).values(grant).returning({ id: projectGrants.id });
  return row!.id;
}

export async function disablePrincipal(db: Database, principalId: string, at: Date): Promise<void> {
  await db.update(principals).set({ disabledAt: at }).where(eq(principals.id, principalId));
}

/** Every table a tenancy or identity command may write. */
export const WRITABLE_TABLES = [
  "tenants",
  "projects",
  "principals",
  "users",
  "service_accounts",
  "api_tokens",
  "federation_trusts",
  "federation_exchanges",
  "platform_admins",
  "memberships",
  "project_grants",
  "access_extension_requests",
  "reminders_sent",
  "invitations",
  "audit_events",
  "cluster_changes",
  "cluster_change_attempts",
  "cluster_scheduled_changes",
  "cluster_objects",
  "quota_requests",
  "quota_request_events",
  "quota_grants",
  "quota_grant_lines",
  "quota_request_lines",
  "quota_request_revisions",
  "quota_request_comments",
  "tenant_quota_envelopes",
  "project_quota_settings",
  "notifications",
  "webhook_deliveries",
  "usage_hourly",
  "usage_daily",
  "project_budgets",
  "spend_alerts",
  "usage_sources",
] as const;

/** An md5 of each table's full contents: equal fingerprints mean nothing was inserted, changed or deleted. */
export async function fingerprint(db: Database, tables: readonly string[] = WRITABLE_TABLES): Promise<Record<string, string>> {
  // One round trip: a column per table.
  const columns = tables.map(
    (table) => sql`(select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from ${sql.identifier(table)} t) as ${sql.identifier(table)}`,
  );
  const [row] = await rowsOf<Record<string, string>>(db, sql`select ${sql.join(columns, sql`, `)}`);
  return row!;
}

export type Outcome = "ok" | "forbidden" | "not_found" | "conflict" | "validation" | "unauthenticated";

/** How a command call ended: "ok", or the AppError code. Anything unexpected is rethrown. */
export async function outcomeOf(promise: Promise<unknown>): Promise<Outcome> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

/**
 * Run `work` while another connection holds `FOR UPDATE` locks on the rows
 * `lockQuery` selects, and release them only once `waiters` backends are queued
 * behind those locks. On PostgreSQL this forces the commands in `work` to
 * really race for the same rows; PGlite is one session that runs transactions
 * one after another, so there `work` simply runs.
 */
export async function racingBehindLock<T>(
  db: Database,
  kind: "pglite" | "postgres",
  lockQuery: ReturnType<typeof sql>,
  waiters: number,
  work: () => Promise<T>,
): Promise<T> {
  if (kind === "pglite") return work();
  let result!: Promise<T>;
  await db.transaction(async (tx) => {
    await tx.execute(lockQuery);
    result = work();
    result.catch(() => undefined); // observed below, after the locks are released
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [row] = await rowsOf<{ n: number | string }>(
        db,
        sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if (Number(row!.n) >= waiters) break;
      if (Date.now() > deadline) throw new Error(`only ${row!.n} of ${waiters} backends queued behind the lock`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  return result;
}
