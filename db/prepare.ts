import type { AllotConfig } from "@/lib/config";
import type { DatabaseHandle } from "./client";
import { runMigrations } from "./migrate";
import { seedDemoData } from "./seed";

/** Start-up steps for the database: migrate (if enabled), then seed demo data once when demo sign-in is on. */
export async function prepareDatabase(handle: DatabaseHandle, c: AllotConfig, now: Date): Promise<{ seeded: boolean }> {
  if (c.migrateOnStart) await runMigrations(handle, c.database);
  const seeded = c.demoSignIn ? await seedDemoData(handle.db, now) : false;
  return { seeded };
}
