import { sql } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase, type DatabaseHandle } from "@/db/client";
import { runMigrations } from "@/db/migrate";
import type { AllotConfig } from "@/lib/config";

/**
 * A migrated, empty database for one integration test file: an in-memory
 * PGlite by default, or the PostgreSQL named by DATABASE_URL (wiped first, so
 * only a local server is accepted). Integration files run in parallel, one per
 * vitest worker: on PostgreSQL each worker gets its own database beside
 * DATABASE_URL's (see workerDatabaseUrl), so no file wipes another's schema.
 */
export async function freshTestDatabase(): Promise<DatabaseHandle & { target: AllotConfig["database"] }> {
  const handle = await emptyTestDatabase();
  await runMigrations(handle, handle.target);
  return handle;
}

/** The same database with nothing in it, not even today's migrations (the upgrade test makes an older schema). */
export async function emptyTestDatabase(): Promise<DatabaseHandle & { target: AllotConfig["database"] }> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const target = { kind: "pglite", dataDir: "memory://" } as const;
    return { ...openDatabase(target), target };
  }
  assertLocalDatabase(url);
  const target = { kind: "postgres", url: await workerDatabaseUrl(url) } as const;
  const handle = openDatabase(target);
  // The audit log refuses TRUNCATE and DELETE by design, so start from empty schemas instead.
  await handle.db.execute(sql`drop schema if exists public cascade`);
  await handle.db.execute(sql`drop schema if exists drizzle cascade`);
  await handle.db.execute(sql`create schema public`);
  return { ...handle, target };
}

export function assertLocalDatabase(url: string): void {
  const host = new URL(url).hostname;
  if (!["127.0.0.1", "localhost", "::1", "[::1]", ""].includes(host)) {
    throw new Error(`Refusing to run integration tests against ${host}: they wipe the database. Point DATABASE_URL at a local server.`);
  }
}

export function databaseLabel(): string {
  return process.env.DATABASE_URL ? "PostgreSQL" : "PGlite";
}

/** Suffix of the per-worker databases, so the integration project's teardown finds and drops them. */
export const WORKER_DATABASE_SUFFIX = "_w";

/**
 * DATABASE_URL's database for a single test process; inside a vitest worker of a project that sets
 * ALLOT_TEST_DATABASE_PER_WORKER, a database of its own named after the worker ("<name>_w2"),
 * created on first use. Two files running at once would otherwise drop each other's schema.
 */
export async function workerDatabaseUrl(url: string): Promise<string> {
  const worker = process.env.VITEST_POOL_ID;
  if (!worker || !process.env.ALLOT_TEST_DATABASE_PER_WORKER) return url;
  const parsed = new URL(url);
  const name = `${decodeURIComponent(parsed.pathname.slice(1)) || "postgres"}${WORKER_DATABASE_SUFFIX}${worker}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // Only this worker ever creates this name, so checking first cannot race.
    const existing = await admin`select 1 from pg_database where datname = ${name}`;
    if (existing.length === 0) await admin.unsafe(`create database "${name.replaceAll('"', '""')}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  parsed.pathname = `/${encodeURIComponent(name)}`;
  return parsed.toString();
}

/** Drops the per-worker databases beside DATABASE_URL's (the integration project's global teardown). */
export async function dropWorkerDatabases(url: string): Promise<void> {
  assertLocalDatabase(url);
  const base = decodeURIComponent(new URL(url).pathname.slice(1)) || "postgres";
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const prefix = `${base}${WORKER_DATABASE_SUFFIX}`;
    const rows = await admin<{ datname: string }[]>`select datname from pg_database`;
    const workers = rows.map((r) => r.datname).filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)));
    for (const name of workers) await admin.unsafe(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}
