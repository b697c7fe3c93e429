import os from "node:os";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { config, type AllotConfig } from "@/lib/config";
import { installDbSpans } from "@/lib/observability/db-spans";
import { otlpEndpointConfigured } from "@/lib/observability/tracing";
import { acquireDataDirLock } from "./data-dir-lock";
import { preparingStatements } from "./prepared-statements";
import * as schema from "./schema";

export type Schema = typeof schema;
/** Either driver's database, or a transaction of it: commands accept both. */
export type Database = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

export type DatabaseHandle = {
  db: Database;
  kind: "pglite" | "postgres";
  close: () => Promise<void>;
};

/** postgres.js pool size per process. */
export const POSTGRES_POOL_MAX = 10;

/**
 * Names this process's connections in pg_stat_activity (PostgreSQL truncates at 63 bytes), so a
 * DBA sees which replica holds which connection and /metrics can count this process's pool.
 */
export const APPLICATION_NAME = `allot ${os.hostname()}:${process.pid}`.slice(0, 63);

export function openDatabase(target: AllotConfig["database"]): DatabaseHandle {
  // Next bundles drizzle once per server layer (instrumentation, routes, pages),
  // each with its own PgPreparedQuery prototype: the hook goes on the copy that
  // builds this database, not only on the one registerTracing imported.
  if (otlpEndpointConfigured()) installDbSpans();
  if (target.kind === "postgres") {
    const client = postgres(target.url, { max: POSTGRES_POOL_MAX, onnotice: () => {}, connection: { application_name: APPLICATION_NAME } });
    return {
      db: drizzlePostgres(preparingStatements(client), { schema }),
      kind: "postgres",
      close: () => client.end({ timeout: 5 }),
    };
  }
  // PGlite is a single-process database: a second process opening the same
  // directory would corrupt it, so the directory is locked while open.
  const releaseLock = target.dataDir === "memory://" ? () => {} : acquireDataDirLock(target.dataDir);
  // pg_trgm: the audit log's substring filters are served by trigram indexes (migration 0024).
  const client = new PGlite(target.dataDir, { extensions: { pg_trgm } });
  return {
    db: drizzlePglite(client, { schema }),
    kind: "pglite",
    close: async () => {
      await client.close();
      releaseLock();
    },
  };
}

const globalForDb = globalThis as unknown as { allotDb?: DatabaseHandle };

/** The process-wide database, opened on first use (one instance survives hot reloads). */
export function databaseHandle(): DatabaseHandle {
  globalForDb.allotDb ??= openDatabase(config().database);
  return globalForDb.allotDb;
}

/** Close the process-wide database if it was opened (on shutdown). */
export async function closeDatabase(): Promise<void> {
  const handle = globalForDb.allotDb;
  globalForDb.allotDb = undefined;
  await handle?.close();
}

/** Make `handle` the process-wide database (tests that call route handlers in-process). */
export function installDatabase(handle: DatabaseHandle): void {
  globalForDb.allotDb = handle;
}

export function db(): Database {
  return databaseHandle().db;
}
