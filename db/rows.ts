import type { SQL } from "drizzle-orm";
import type { Database } from "./client";

/** Rows of a raw query, whichever driver: PGlite answers `{ rows }`, postgres.js an array. */
export async function rowsOf<T extends Record<string, unknown>>(db: Database, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
