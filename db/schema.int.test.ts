import { readFileSync } from "node:fs";
import path from "node:path";
import { getTableName, is, sql } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isUniqueViolation } from "@/lib/errors";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { rejectionOf, rowsOf, errorText } from "@/test/fixtures";
import type { Database } from "./client";
import { migrationsFolder, runMigrations } from "./migrate";
import * as schema from "./schema";
import { memberships, principals, projectGrants, projects, tenants, users } from "./schema";

const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };

/** Every table the drizzle schema declares: the migrations must create exactly these. */
const EXPECTED_TABLES = (Object.values(schema) as unknown[])
  .flatMap((value) => (is(value, PgTable) ? [getTableName(value)] : []))
  .sort();

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
});
afterAll(async () => {
  await handle?.close();
});

async function publicTables(): Promise<string[]> {
  const rows = await rowsOf<{ name: string }>(
    db,
    // The monthly partitions of the usage tables (migration 0027) are storage of their parents, not tables of the schema.
    sql`select table_name as name from information_schema.tables t where table_schema = 'public' and table_type = 'BASE TABLE'
        and not exists (select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = t.table_schema and c.relname = t.table_name and c.relispartition)
        order by table_name`,
  );
  return rows.map((r) => r.name);
}

async function appliedMigrations() {
  return rowsOf<{ id: number; hash: string; created_at: string | number }>(db, sql`select id, hash, created_at from drizzle.__drizzle_migrations order by id`);
}

async function auditTriggers(): Promise<string[]> {
  const rows = await rowsOf<{ name: string }>(
    db,
    sql`select tgname as name from pg_trigger where tgrelid = 'audit_events'::regclass and not tgisinternal order by tgname`,
  );
  return rows.map((r) => r.name);
}

async function expectUniqueViolation(write: Promise<unknown>, constraint: string) {
  const error = await rejectionOf(write);
  expect(isUniqueViolation(error), errorText(error)).toBe(true);
  expect(errorText(error)).toContain(constraint);
}

describe(`migrations (${databaseLabel()})`, () => {
  it("apply cleanly: every table, every journal entry, the append-only triggers", async () => {
    expect(EXPECTED_TABLES).toEqual(expect.arrayContaining(["audit_events", "memberships", "project_grants", "projects", "tenants", "users"]));
    expect(await publicTables()).toEqual(EXPECTED_TABLES);
    expect(await appliedMigrations()).toHaveLength(journal.entries.length);
    expect(await auditTriggers()).toEqual(["audit_events_append_only", "audit_events_no_truncate"]);
  });

  it("running them again changes nothing and keeps the data", async () => {
    const [tenant] = await db.insert(tenants).values({ slug: "kept", name: "Kept" }).returning();
    const before = await appliedMigrations();

    await runMigrations(handle, handle.target);

    expect(await appliedMigrations()).toEqual(before);
    expect(await publicTables()).toEqual(EXPECTED_TABLES);
    expect(await auditTriggers()).toHaveLength(2);
    expect(await db.select().from(tenants)).toEqual([tenant]);
  });

  it("replicas starting together on an empty database apply each migration once", async () => {
    await db.execute(sql`drop schema if exists public cascade`);
    await db.execute(sql`drop schema if exists drizzle cascade`);
    await db.execute(sql`create schema public`);
    expect(await publicTables()).toEqual([]);

    if (handle.kind === "postgres") {
      // Each run takes its own connection and queues on the migration advisory lock.
      await Promise.all([runMigrations(handle, handle.target), runMigrations(handle, handle.target), runMigrations(handle, handle.target)]);
    } else {
      // PGlite is one process holding its data directory: replicas cannot share it, runs are sequential.
      await runMigrations(handle, handle.target);
      await runMigrations(handle, handle.target);
    }

    expect(await appliedMigrations()).toHaveLength(journal.entries.length);
    expect(await publicTables()).toEqual(EXPECTED_TABLES);
    expect(await auditTriggers()).toHaveLength(2);
  });
});

describe(`unique constraints (${databaseLabel()})`, () => {
  async function newPrincipal(name: string): Promise<string> {
    const [p] = await db.insert(principals).values({ kind: "user", displayName: name }).returning({ id: principals.id });
    return p!.id;
  }
  async function newTenant(slug: string): Promise<string> {
    const [t] = await db.insert(tenants).values({ slug, name: slug }).returning({ id: tenants.id });
    return t!.id;
  }
  async function newProject(tenantId: string, slug: string, namespace: string): Promise<string> {
    const [p] = await db.insert(projects).values({ tenantId, slug, name: slug, namespace }).returning({ id: projects.id });
    return p!.id;
  }

  it("tenant slug", async () => {
    await newTenant("uq-tenant");
    await expectUniqueViolation(newTenant("uq-tenant"), "tenants_slug_unique");
  });

  it("project slug within a tenant, but the same slug in another tenant is fine", async () => {
    const a = await newTenant("uq-a");
    const b = await newTenant("uq-b");
    await newProject(a, "train", "uq-a--train");
    await expectUniqueViolation(newProject(a, "train", "uq-a--train-2"), "projects_tenant_slug_unique");
    await expect(newProject(b, "train", "uq-b--train")).resolves.toBeTypeOf("string");
  });

  it("namespace across all tenants", async () => {
    const a = await newTenant("uq-ns-a");
    const b = await newTenant("uq-ns-b");
    await newProject(a, "one", "shared-ns");
    await expectUniqueViolation(newProject(b, "two", "shared-ns"), "projects_namespace_unique");
  });

  it("membership per (tenant, principal), while one principal may join several tenants", async () => {
    const a = await newTenant("uq-m-a");
    const b = await newTenant("uq-m-b");
    const p = await newPrincipal("Member");
    await db.insert(memberships).values({ tenantId: a, principalId: p, role: "member" });
    await expectUniqueViolation(db.insert(memberships).values({ tenantId: a, principalId: p, role: "viewer" }), "memberships_tenant_principal_unique");
    await expect(db.insert(memberships).values({ tenantId: b, principalId: p, role: "viewer" })).resolves.toBeDefined();
  });

  it("grant per (project, principal), while one principal may hold grants on several projects", async () => {
    const t = await newTenant("uq-g");
    const one = await newProject(t, "one", "uq-g--one");
    const two = await newProject(t, "two", "uq-g--two");
    const p = await newPrincipal("Grantee");
    await db.insert(projectGrants).values({ projectId: one, principalId: p, role: "member" });
    await expectUniqueViolation(db.insert(projectGrants).values({ projectId: one, principalId: p, role: "viewer" }), "project_grants_project_principal_unique");
    await expect(db.insert(projectGrants).values({ projectId: two, principalId: p, role: "viewer" })).resolves.toBeDefined();
  });

  it("user email, and OIDC identity only where a subject is set", async () => {
    const [p1, p2, p3, p4] = [await newPrincipal("U1"), await newPrincipal("U2"), await newPrincipal("U3"), await newPrincipal("U4")];
    await db.insert(users).values({ principalId: p1, email: "same@example.com" });
    await expectUniqueViolation(db.insert(users).values({ principalId: p2, email: "same@example.com" }), "users_email_unique");

    // Users not yet signed in have no subject: any number of them may exist.
    await db.insert(users).values({ principalId: p2, email: "two@example.com" });
    await db.insert(users).values({ principalId: p3, email: "three@example.com", oidcIssuer: "https://idp", oidcSubject: "sub-1" });
    await expectUniqueViolation(
      db.insert(users).values({ principalId: p4, email: "four@example.com", oidcIssuer: "https://idp", oidcSubject: "sub-1" }),
      "users_oidc_identity_unique",
    );
    await expect(db.insert(users).values({ principalId: p4, email: "four@example.com", oidcIssuer: "https://other-idp", oidcSubject: "sub-1" })).resolves.toBeDefined();
  });
});
