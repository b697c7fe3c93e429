import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";

/**
 * The data versions a cached spend report was computed from
 * (report-cache.ts). Each is moved inside the transaction of the change it
 * counts, so a reader sees the new figures and the new version together, or
 * neither: a cached figure is never older than the last committed ingest or
 * price.
 */

/** Move the usage generation of the projects an ingest batch wrote to; call at the ingest's commit point. */
export async function bumpUsageGenerations(tx: Database, projectIds: readonly string[]): Promise<void> {
  if (projectIds.length === 0) return;
  await tx.execute(sql`
    insert into usage_generations (project_id, generation)
    select p::uuid, 1 from jsonb_array_elements_text(${JSON.stringify([...new Set(projectIds)].sort())}::jsonb) as p
    on conflict (project_id) do update set generation = usage_generations.generation + 1`);
}

/** What else reports read that changes by command: the rate card ("rates") and the quota grants ("grants", for borrowed GPU use). */
export type SpendVersionName = "rates" | "grants";

/** Move a named version; call inside the transaction that changes what it names. */
export async function bumpSpendVersion(tx: Database, name: SpendVersionName): Promise<void> {
  await tx.execute(sql`
    insert into spend_versions (name, generation) values (${name}, 1)
    on conflict (name) do update set generation = spend_versions.generation + 1`);
}
