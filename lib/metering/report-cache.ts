import { createHash } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import type { Database } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { config } from "@/lib/config";
import { moneyDigits } from "./money-sql";
import type { SpendScope } from "./spend";

/**
 * Spend reports' usage figures, computed once per scope, window and data
 * version and kept in the database (spend_report_cache), so every replica
 * shares them. An entry's fingerprint is the data it was computed from, read
 * in the same statement as the entry itself:
 *
 * - the usage generation of each project the scope covers (moved by every
 *   ingest of its usage, in the ingest's transaction: spend-generations.ts);
 * - the rate card's and the quota grants' versions (moved by a price change
 *   and by a new grant);
 * - the versions of the scope's project and tenant rows (names in the lists).
 *
 * An entry is served only when its fingerprint is the current one and its
 * scope is the asked one, so no figure is older than the last committed
 * ingest or price, and no scope is ever answered with another's figures.
 * Callers decide access before asking: the figures are the scope's, the same
 * for everyone allowed to see them.
 */

const KEPT_DAYS = 2;

/** The scope as the cache names it: checked again on every read. */
export function cacheScopeOf(scope: SpendScope): string {
  if ("projectId" in scope) return `project:${scope.projectId}`;
  if ("tenantId" in scope) return `tenant:${scope.tenantId}`;
  return "platform";
}

/** The data versions the scope's figures are computed from, as one text. */
function fingerprintSql(scope: SpendScope): SQL {
  const versions = sql`(select coalesce(string_agg(name || '=' || generation, ',' order by name), '') from spend_versions)`;
  const counted = (from: SQL, column: SQL) => sql`(select count(*) || ':' || coalesce(sum(${column}), 0) from ${from})`;
  if ("projectId" in scope) {
    return sql`${counted(sql`usage_generations where project_id = ${scope.projectId}`, sql`generation`)} || '|' || ${versions}`;
  }
  if ("tenantId" in scope) {
    return sql`${counted(sql`usage_generations g join projects p on p.id = g.project_id where p.tenant_id = ${scope.tenantId}`, sql`g.generation`)}
      || '|' || ${versions}
      || '|' || ${counted(sql`projects where tenant_id = ${scope.tenantId}`, sql`version`)}
      || '|' || ${counted(sql`tenants where id = ${scope.tenantId}`, sql`version`)}`;
  }
  return sql`${counted(sql`usage_generations`, sql`generation`)} || '|' || ${versions}
    || '|' || ${counted(sql`projects`, sql`version`)} || '|' || ${counted(sql`tenants`, sql`version`)}`;
}

/** The entry's key: what the figures are of (scope, what part, window), and the money rule they were rounded by. */
export function cacheKeyOf(scope: SpendScope, part: string, window: Record<string, string>): string {
  const c = config();
  return createHash("sha256")
    .update(JSON.stringify({ scope: cacheScopeOf(scope), part, window, currency: c.currency, digits: moneyDigits() }))
    .digest("hex");
}

const globalForCache = globalThis as unknown as { allotSpendInFlight?: Map<string, Promise<unknown>> };
/** Computations in flight in this process, so concurrent misses of one entry compute it once. */
const inFlight = (globalForCache.allotSpendInFlight ??= new Map());

/**
 * The figures for (scope, part, window): the cached ones when they were
 * computed from the data as it is now, else computed, stored and returned.
 * `compute` must return JSON-safe values (no Dates, Maps or undefined).
 */
export async function cachedSpendFigures<T>(db: Database, scope: SpendScope, part: string, window: Record<string, string>, now: Date, compute: () => Promise<T>): Promise<T> {
  const key = cacheKeyOf(scope, part, window);
  const scopeName = cacheScopeOf(scope);
  const [row] = await rowsOf<{ fingerprint: string; body: string | null }>(
    db,
    sql`
      with current as (select ${fingerprintSql(scope)} as fingerprint)
      select current.fingerprint, c.body
      from current
      left join spend_report_cache c on c.cache_key = ${key} and c.scope = ${scopeName} and c.fingerprint = current.fingerprint`,
  );
  if (!row) throw new Error("the spend fingerprint query returned no row");
  if (row.body !== null) return JSON.parse(row.body) as T;

  const flight = `${key}\u0000${row.fingerprint}`;
  const running = inFlight.get(flight) as Promise<T> | undefined;
  if (running) return running;
  const computing = (async () => {
    // Read after the fingerprint, so the figures are at least as new as it says.
    const figures = await compute();
    await db.execute(sql`
      insert into spend_report_cache (cache_key, scope, fingerprint, body, computed_at)
      values (${key}, ${scopeName}, ${row.fingerprint}, ${JSON.stringify(figures)}, ${now.toISOString()}::timestamptz)
      on conflict (cache_key) do update set scope = excluded.scope, fingerprint = excluded.fingerprint, body = excluded.body, computed_at = excluded.computed_at`);
    // Entries of windows nobody asked for lately (custom ranges, past days) do not pile up.
    await db.execute(sql`delete from spend_report_cache where computed_at < ${new Date(now.getTime() - KEPT_DAYS * 86_400_000).toISOString()}::timestamptz`);
    return figures;
  })();
  inFlight.set(flight, computing);
  try {
    return await computing;
  } finally {
    inFlight.delete(flight);
  }
}
