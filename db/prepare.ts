import type { AllotConfig } from "@/lib/config";
import { seedDemoUsage } from "@/lib/demo/usage";
import type { DatabaseHandle } from "./client";
import { runMigrations } from "./migrate";
import { seedDemoData } from "./seed";

/**
 * Start-up steps for the database: migrate (if enabled), then, when demo
 * sign-in is on, seed the demo data and its 90 days of demo usage, each once.
 */
export async function prepareDatabase(handle: DatabaseHandle, c: AllotConfig, now: Date): Promise<{ seeded: boolean }> {
  if (c.migrateOnStart) await runMigrations(handle, c.database);
  const seeded = c.demoSignIn ? await seedDemoData(handle.db, now) : false;
  // Separate from seedDemoData (which integration tests call and must stay fast); also fills in databases seeded before demo usage existed.
  if (c.demoSignIn) await seedDemoUsage(handle.db, now);
  return { seeded };
}
