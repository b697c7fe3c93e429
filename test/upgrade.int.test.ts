import fs from "node:fs";
import path from "node:path";
import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { runMigrations } from "@/db/migrate";
import { rowsOf } from "@/db/rows";
import { clusterChanges, memberships, projectGrants, projects, tenants } from "@/db/schema";
import { describeAuditVerification } from "@/lib/audit/describe-verification";
import { verifyAuditLog } from "@/lib/audit/verify-with-checkpoints";
import { grantPlatformAdmin } from "@/lib/auth/platform-admins";
import { queueReconcileOfEverything } from "@/lib/cluster/commands";
import { renderAllToFiles } from "@/lib/cluster/render-all";
import { reconcileDue } from "@/lib/cluster/worker";
import { parseConfig } from "@/lib/config";
import { reachableTenants } from "@/lib/tenancy/queries";
import { databaseLabel, emptyTestDatabase } from "@/test/database";
import { contextFor } from "@/test/tenancy";

/**
 * An upgrade from release 0.1.0 (commit 15198fe): its schema, made by its own
 * migrations, holding what its own code wrote (test/upgrade/0.1.0, regenerated
 * by test/upgrade/make-fixture.sh), is migrated to today's schema. The data
 * must all be there, the audit chain must still verify, today's queries and
 * commands must run on it, and no column 0.1.0 reads may have gone (expand,
 * then contract a release later: 0.1.0 pods keep working during a rollout).
 */
const fixture = path.join(process.cwd(), "test", "upgrade", "0.1.0");
const data = fs.readFileSync(path.join(fixture, "data.sql"), "utf8");
const seededAt = new Date(fs.readFileSync(path.join(fixture, "seeded-at"), "utf8").trim());
const settings = parseConfig({}).cluster;
/** Long before 0.1.0's seed made its pools. */
const EARLY_USAGE_HOUR = new Date(Date.UTC(seededAt.getUTCFullYear() - 1, 0, 1));

/** Rows per table, as 0.1.0 wrote them: one INSERT each in the dump. */
const rowsInDump = new Map<string, number>();
for (const m of data.matchAll(/^INSERT INTO public\.(\w+) /gm)) rowsInDump.set(m[1]!, (rowsInDump.get(m[1]!) ?? 0) + 1);

let handle: Awaited<ReturnType<typeof emptyTestDatabase>>;
let db: Database;
let columnsAt010: string[];

async function columns(): Promise<string[]> {
  const rows = await rowsOf<{ c: string }>(db, sql`select table_name || '.' || column_name as c from information_schema.columns where table_schema = 'public' order by 1`);
  return rows.map((r) => r.c);
}

beforeAll(async () => {
  handle = await emptyTestDatabase();
  db = handle.db;
  await runMigrations(handle, handle.target, path.join(fixture, "migrations"));
  columnsAt010 = await columns();
  // The dump has many statements: each driver's own multi-statement entry point.
  const client = (db as unknown as { $client: { exec?: (q: string) => Promise<unknown>; unsafe?: (q: string) => Promise<unknown> } }).$client;
  await (handle.kind === "pglite" ? client.exec!(data) : client.unsafe!(data));
  // Usage pushed for an hour before any pool was recorded (0.1.0 priced every hour on the present pools).
  await db.execute(
    sql`insert into usage_hourly (project_id, tenant_id, resource, hour, source, quantity) select id, tenant_id, 'cpu', ${EARLY_USAGE_HOUR.toISOString()}::timestamptz, 'push', 2 from projects order by slug limit 1`,
  );
  await runMigrations(handle, handle.target);
}, 120_000);

afterAll(async () => {
  await handle?.close();
});

describe(`upgrade from 0.1.0 to today's schema (${databaseLabel()})`, () => {
  it("applies today's migrations after 0.1.0's, and keeps every column 0.1.0 reads", async () => {
    const journal = (f: string) => (JSON.parse(fs.readFileSync(f, "utf8")) as { entries: unknown[] }).entries.length;
    const [applied] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    expect(applied!.n).toBe(journal(path.join(process.cwd(), "db", "migrations", "meta", "_journal.json")));
    expect(journal(path.join(fixture, "migrations", "meta", "_journal.json"))).toBeLessThan(applied!.n);
    const now = new Set(await columns());
    expect(columnsAt010.length).toBeGreaterThan(50);
    expect(columnsAt010.filter((c) => !now.has(c))).toEqual([]);
  });

  it("keeps every row 0.1.0 wrote: tenants, projects, grants, users, audit events, cluster state", async () => {
    expect(rowsInDump.get("tenants")).toBe(3);
    expect(rowsInDump.get("project_grants")).toBeGreaterThan(0);
    for (const [table, count] of rowsInDump) {
      const [rows] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from ${sql.identifier(table)}`);
      expect([table, rows!.n]).toEqual([table, count]);
    }
    expect((await db.select({ slug: tenants.slug }).from(tenants).orderBy(asc(tenants.slug))).map((t) => t.slug)).toEqual(["language-models", "robotics", "vision-lab"]);
    const grants = await db.select({ project: projects.slug }).from(projectGrants).innerJoin(projects, eq(projects.id, projectGrants.projectId));
    expect(grants.length).toBe(rowsInDump.get("project_grants"));
  });

  it("gives every pool 0.1.0 wrote a size history: one open span of its nodes from the first hour of usage, before the pool was recorded", async () => {
    const rows = await rowsOf<{ name: string; nodes: number; from_created: boolean; open: boolean; spans: number }>(
      db,
      sql`select p.name, s.node_count as nodes, s.valid_from = ${EARLY_USAGE_HOUR.toISOString()}::timestamptz and s.valid_from < p.created_at as from_created, s.valid_to is null as open, count(*) over (partition by p.id)::int as spans
          from node_pools p join node_pool_sizes s on s.pool_id = p.id and s.node_count = p.node_count and s.gpus_per_node = p.gpus_per_node and s.pool_name = p.name
          order by p.name`,
    );
    expect(rows.map((r) => r.name)).toHaveLength(rowsInDump.get("node_pools")!);
    expect(rows.every((r) => r.from_created && r.open && r.spans === 1)).toBe(true);
    const [all] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from node_pool_sizes`);
    expect(all!.n).toBe(rowsInDump.get("node_pools"));
  });

  it("keeps every pool 0.1.0 wrote as it was: its GPU model is its one requestable profile (migration 0026 adds no further one)", async () => {
    const pools = await rowsOf<{ name: string; gpu_model: string | null; profiles: number; span_profiles: number }>(
      db,
      sql`select p.name, p.gpu_model, jsonb_array_length(p.gpu_profiles)::int as profiles, jsonb_array_length(s.gpu_profiles)::int as span_profiles from node_pools p join node_pool_sizes s on s.pool_id = p.id order by p.name`,
    );
    expect(pools).toHaveLength(rowsInDump.get("node_pools")!);
    expect(pools.some((p) => p.gpu_model !== null)).toBe(true);
    expect(pools.every((p) => p.profiles === 0 && p.span_profiles === 0)).toBe(true);
  });

  it("verifies the audit chain 0.1.0 wrote, as allot verify-audit does", async () => {
    const result = await verifyAuditLog(db, { publicKey: null, dir: null });
    expect(result.chain).toEqual({ intact: true, events: rowsInDump.get("audit_events") });
    expect(describeAuditVerification(result).status).not.toBe("failed");
  });

  it("runs today's queries and commands on the upgraded data, and the chain goes on from 0.1.0's", async () => {
    const now = new Date(seededAt.getTime() + 86_400_000);
    // A tenant admin 0.1.0 made sees their tenant and its projects through today's query.
    const [member] = await db
      .select({ principalId: memberships.principalId, tenantId: memberships.tenantId, slug: tenants.slug })
      .from(memberships)
      .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
      .where(eq(memberships.role, "tenant_admin"))
      .orderBy(asc(tenants.slug))
      .limit(1);
    const reachable = await reachableTenants(await contextFor(db, member!.principalId, now));
    const theirs = reachable.find((t) => t.slug === member!.slug);
    const projectsOfTenant = await db.select({ slug: projects.slug }).from(projects).where(eq(projects.tenantId, member!.tenantId));
    expect(projectsOfTenant.length).toBeGreaterThan(0);
    expect(theirs?.projects.map((p) => p.slug).sort()).toEqual(projectsOfTenant.map((p) => p.slug).sort());

    const rendered = await renderAllToFiles(db, settings, now);
    expect(rendered.objects).toBeGreaterThanOrEqual(rowsInDump.get("cluster_objects")!);
    await queueReconcileOfEverything(db, now);
    const processed = await reconcileDue({ db, settings, client: null, clock: () => now, workerId: "upgraded" });
    expect(processed).toBeGreaterThan(0);
    expect(await db.select().from(clusterChanges).where(eq(clusterChanges.status, "pending"))).toEqual([]);

    // Today's commands (the reconcile above, an admin grant) append to 0.1.0's chain, and it verifies whole.
    const before = (await verifyAuditLog(db, { publicKey: null, dir: null })).chain.events;
    expect(before).toBeGreaterThan(rowsInDump.get("audit_events")!);
    await grantPlatformAdmin(db, "after-upgrade@example.com", { principalId: null, label: "system:cli" }, now);
    const after = await verifyAuditLog(db, { publicKey: null, dir: null });
    expect(after.chain.intact).toBe(true);
    expect(after.chain.events).toBeGreaterThan(before);
  });
});
