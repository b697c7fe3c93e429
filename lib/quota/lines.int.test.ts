import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, DatabaseHandle } from "@/db/client";
import { migrationsFolder, runMigrations } from "@/db/migrate";
import { rowsOf } from "@/db/rows";
import { quotaGrantLines, quotaGrants, quotaRequests } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { loadDesiredTenant } from "@/lib/cluster/desired-from-db";
import { parseConfig, type AllotConfig } from "@/lib/config";
import { databaseLabel, emptyTestDatabase } from "@/test/database";
import { appErrorOf, contextOf } from "@/test/fixtures";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { GiB, type QuotaAmounts } from "./amounts";
import { approveQuotaRequest, createQuotaRequest } from "./commands/requests";
import { effectiveQuotaAt } from "./effective";
import { insertGrant, linesOfGrants, linesOfRequests } from "./grant-store";
import { linesOfAmounts } from "./lines";

/** A row written with the fixed columns only (one GPU model), as the previous release wrote it, as amounts. */
const legacyAmounts = (r: { gpuModel: string | null; gpuCount: number; cpuCores: number; memoryBytes: number; storageBytes: number }): QuotaAmounts => ({
  gpus: r.gpuModel && r.gpuCount > 0 ? [{ model: r.gpuModel, count: r.gpuCount, burst: 0 }] : [],
  cpuCores: r.cpuCores,
  memoryBytes: r.memoryBytes,
  storageBytes: r.storageBytes,
});
import { grantsOfProjects } from "./store";

/**
 * The reshape of the quota model onto lines: migration 0011 turns every
 * grant and request of the fixed columns into lines that give the same
 * quota, rows the previous release writes during a rollout get their lines
 * at commit, and burst flows from a request to the desired state.
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");

/** A migrations folder holding today's migrations up to `lastIndex` (the schema a release before it made). */
function migrationsUpTo(lastIndex: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allot-migrations-"));
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: { idx: number; tag: string }[] };
  const kept = journal.entries.filter((e) => e.idx <= lastIndex);
  fs.mkdirSync(path.join(dir, "meta"));
  fs.writeFileSync(path.join(dir, "meta", "_journal.json"), JSON.stringify({ ...journal, entries: kept }));
  for (const e of kept) fs.copyFileSync(path.join(migrationsFolder, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  return dir;
}

describe(`migration 0011 backfills quota lines (${databaseLabel()})`, () => {
  let handle: DatabaseHandle & { target: AllotConfig["database"] };
  let db: Database;
  beforeAll(async () => {
    handle = await emptyTestDatabase();
    db = handle.db;
    await runMigrations(handle, handle.target, migrationsUpTo(10));
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("gives every grant and request the lines of its columns, and the same effective quota", async () => {
    await db.execute(sql`insert into tenants (id, slug, name) values ('00000000-0000-4000-8000-000000000001', 't', 'T')`);
    await db.execute(sql`insert into projects (id, tenant_id, slug, name, namespace) values ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001', 'p', 'P', 't--p')`);
    await db.execute(sql`insert into node_pools (name, gpu_model, gpu_resource, gpus_per_node, node_count, cpu_per_node, memory_bytes_per_node) values ('mig', 'A100 1g.10gb', 'nvidia.com/mig-1g.10gb', 56, 2, 96, ${GiB})`);
    const legacy = [
      { gpu_model: "H100", gpu_resource: "nvidia.com/gpu", gpu_count: 8, cpu_cores: 12.5, memory_bytes: 64 * GiB, storage_bytes: 0, ends_at: null },
      { gpu_model: "A100 1g.10gb", gpu_resource: "nvidia.com/mig-1g.10gb", gpu_count: 7, cpu_cores: 0.1, memory_bytes: 0, storage_bytes: 500 * GiB, ends_at: "2027-01-01T00:00:00Z" },
      { gpu_model: null, gpu_resource: null, gpu_count: 0, cpu_cores: 0.2, memory_bytes: 3 * GiB, storage_bytes: 0, ends_at: null },
    ];
    for (const g of legacy) {
      await db.execute(
        sql`insert into quota_grants (project_id, gpu_model, gpu_resource, gpu_count, cpu_cores, memory_bytes, storage_bytes, starts_at, ends_at) values ('00000000-0000-4000-8000-000000000002', ${g.gpu_model}, ${g.gpu_resource}, ${g.gpu_count}, ${g.cpu_cores}, ${g.memory_bytes}, ${g.storage_bytes}, ${"2026-11-01T00:00:00Z"}, ${g.ends_at})`,
      );
      await db.execute(
        sql`insert into quota_requests (tenant_id, project_id, gpu_model, gpu_count, cpu_cores, memory_bytes, storage_bytes, justification) values ('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', ${g.gpu_model}, ${g.gpu_count}, ${g.cpu_cores}, ${g.memory_bytes}, ${g.storage_bytes}, 'legacy request')`,
      );
    }

    await runMigrations(handle, handle.target);

    const grants = await db.select().from(quotaGrants).orderBy(asc(quotaGrants.cpuCores));
    const lines = await linesOfGrants(
      db,
      grants.map((g) => g.id),
    );
    for (const g of grants) expect(lines.get(g.id) ?? []).toEqual(linesOfAmounts(legacyAmounts(g), g.gpuModel && g.gpuResource ? { [g.gpuModel]: g.gpuResource } : {}));
    const requests = await db.select().from(quotaRequests).orderBy(asc(quotaRequests.cpuCores));
    const requestLines = await linesOfRequests(
      db,
      requests.map((r) => r.id),
    );
    // A request's GPU resource comes from the pool that serves its model, nvidia.com/gpu where none does.
    for (const r of requests) expect(requestLines.get(r.id) ?? []).toEqual(linesOfAmounts(legacyAmounts(r), r.gpuModel ? { [r.gpuModel]: r.gpuModel === "A100 1g.10gb" ? "nvidia.com/mig-1g.10gb" : "nvidia.com/gpu" } : {}));

    // The quota from lines is the quota the columns gave, at every boundary.
    const spans = (await grantsOfProjects(db, ["00000000-0000-4000-8000-000000000002"])).get("00000000-0000-4000-8000-000000000002")!;
    const base = { cpuCores: 1, memoryBytes: GiB, storageBytes: GiB, pvcCount: 3 };
    for (const at of [new Date("2026-12-01T00:00:00Z"), new Date("2027-01-01T00:00:00Z")]) {
      const q = effectiveQuotaAt(base, spans, at, ["nvidia.com/gpu", "nvidia.com/mig-1g.10gb"]);
      const inForce = legacy.filter((g) => g.ends_at === null || at < new Date(g.ends_at));
      expect(q.cpuCores).toBeCloseTo(1 + inForce.reduce((s, g) => s + g.cpu_cores, 0), 9);
      expect(q.memoryBytes).toBe(GiB + inForce.reduce((s, g) => s + g.memory_bytes, 0));
      expect(q.storageBytes).toBe(GiB + inForce.reduce((s, g) => s + g.storage_bytes, 0));
      expect(q.gpus["nvidia.com/mig-1g.10gb"]).toBe(inForce.filter((g) => g.gpu_resource === "nvidia.com/mig-1g.10gb").reduce((s, g) => s + g.gpu_count, 0));
      expect(q.gpus["nvidia.com/gpu"]).toBe(8);
    }
  });

  it("gives a grant the previous release writes (columns only) its lines at commit, and leaves this release's lines alone", async () => {
    const projectId = "00000000-0000-4000-8000-000000000002";
    const [old] = await rowsOf<{ id: string }>(
      db,
      sql`insert into quota_grants (project_id, gpu_model, gpu_resource, gpu_count, cpu_cores, memory_bytes, storage_bytes, starts_at) values (${projectId}, 'H100', 'nvidia.com/gpu', 2, 4, 0, 0, ${NOW.toISOString()}) returning id`,
    );
    expect(((await linesOfGrants(db, [old!.id])).get(old!.id) ?? []).map((l) => [l.flavor, l.resource, l.guarantee])).toEqual([
      ["default", "cpu", 4],
      ["H100", "nvidia.com/gpu", 2],
    ]);
    const lines = linesOfAmounts({ gpus: [{ model: "H100", count: 0, burst: 3 }], cpuCores: 0, memoryBytes: 0, storageBytes: 0 }, { H100: "nvidia.com/gpu" });
    const id = await db.transaction((tx) => insertGrant(tx, { projectId, lines, startsAt: NOW, endsAt: null, createdAt: NOW }));
    expect(await db.select({ burst: quotaGrantLines.burst, guarantee: quotaGrantLines.guarantee }).from(quotaGrantLines).where(eq(quotaGrantLines.grantId, id))).toEqual([{ burst: "3", guarantee: "0" }]);
  });
});

describe(`burst GPUs from a request to the desired state (${databaseLabel()})`, () => {
  const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
  const globalConfig = globalThis as unknown as { allotConfig?: AllotConfig };
  let previous: AllotConfig | undefined;
  beforeAll(() => {
    previous = globalConfig.allotConfig;
  });
  afterAll(() => {
    globalConfig.allotConfig = previous;
  });
  const ask = async (gpuBurst: string) =>
    executeCommand(createQuotaRequest, await contextOf(seeded.db, "data-scientist", NOW), {
      tenant: "vision-lab",
      project: "detector-training",
      gpuModel: "H100",
      gpuCount: "2",
      gpuBurst,
      justification: "Hyper-parameter sweeps that can be preempted.",
    });

  it("refuses burst without Kueue, naming the field", async () => {
    globalConfig.allotConfig = parseConfig({ ALLOT_KUEUE: "0" });
    const error = await appErrorOf(ask("4"));
    expect(error.code).toBe("validation");
    expect(error.fields).toHaveProperty("gpuBurst");
  });

  it("with Kueue: never approved by a rule; approved, the project holds the burst beside its guarantee, the quota caps both", async () => {
    const config = parseConfig({ ALLOT_KUEUE: "1" });
    globalConfig.allotConfig = config;
    const projectId = await projectIdOf(seeded.db, "vision-lab", "detector-training");
    const before = (await loadDesiredTenant(seeded.db, seeded.tenantId["vision-lab"]!, config.cluster, NOW))!.projects.find((p) => p.id === projectId)!;
    const { request, autoApproved } = await ask("4");
    expect(autoApproved).toBe(false);
    expect((await linesOfRequests(seeded.db, [request.id])).get(request.id)).toEqual([{ flavor: "H100", resource: "nvidia.com/gpu", guarantee: 2, burst: 4, lendLimit: null }]);

    await executeCommand(approveQuotaRequest, await contextOf(seeded.db, "platform-admin", NOW), { requestId: request.id, version: request.version });
    const after = (await loadDesiredTenant(seeded.db, seeded.tenantId["vision-lab"]!, config.cluster, NOW))!.projects.find((p) => p.id === projectId)!;
    expect(after.quota.gpus["nvidia.com/gpu"]).toBe(before.quota.gpus["nvidia.com/gpu"]! + 2);
    expect(after.quota.burst!.gpus["nvidia.com/gpu"]).toBe((before.quota.burst?.gpus["nvidia.com/gpu"] ?? 0) + 4);
    const h100 = after.quota.flavors!.find((f) => f.flavor === "H100")!;
    expect(h100.burst).toBe((before.quota.flavors!.find((f) => f.flavor === "H100")?.burst ?? 0) + 4);
    expect(after.fairShareWeight).toBe(1);
  });
});
