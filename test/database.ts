import { sql } from "drizzle-orm";
import { openDatabase, type DatabaseHandle } from "@/db/client";
import { runMigrations } from "@/db/migrate";
import type { AllotConfig } from "@/lib/config";

/**
 * A migrated, empty database for one integration test file: an in-memory
 * PGlite by default, or the PostgreSQL named by DATABASE_URL (wiped first, so
 * only a local server is accepted).
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
  const target = { kind: "postgres", url } as const;
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
