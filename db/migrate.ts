import path from "node:path";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import postgres from "postgres";
import type { AllotConfig } from "@/lib/config";
import type { DatabaseHandle } from "./client";

export const migrationsFolder = path.join(process.cwd(), "db", "migrations");

/** An arbitrary constant: replicas starting together take turns migrating. */
const MIGRATION_LOCK_KEY = 7_418_001;

/** `folder`: today's migrations; the upgrade test passes a release's own folder to make its schema. */
export async function runMigrations(handle: DatabaseHandle, target: AllotConfig["database"], folder = migrationsFolder): Promise<void> {
  if (target.kind === "pglite") {
    await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder: folder });
    return;
  }
  // One dedicated connection holds a session-level advisory lock for the whole
  // run, so two replicas starting at once never apply the same migration twice.
  const client = postgres(target.url, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migratePostgres(drizzlePostgres(client), { migrationsFolder: folder });
    await client`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}
