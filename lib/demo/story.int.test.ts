import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { config, parseConfig } from "@/lib/config";
import { effectiveQuotaAt, gpusByModelAt, grantInForce } from "@/lib/quota/effective";
import { clusterAllocation, grantsOfProjects, loadPools, loadQuotaPolicy, loadRates } from "@/lib/quota/store";
import { monthlyCost, ratesInForce } from "@/lib/quota/cost";
import { capacityAtMinNowMax } from "@/lib/quota/capacity";
import { tenantEnvelope } from "@/lib/quota/envelope-store";
import { loadDesiredTenant } from "@/lib/cluster/desired-from-db";
import { databaseLabel } from "@/test/database";
import { rowsOf } from "@/test/fixtures";
import { seededDatabase } from "@/test/tenancy";
import { poolSizesOverlapping } from "@/lib/quota/pool-sizes";
import { DEMO_H100_NODES_BEFORE_GROWTH, DEMO_H100_POOL } from "./pools";
import { DEMO_REQUEST_PREFIX } from "./quota";
import { demoUsageWindow, seedDemoUsage } from "./usage";

/**
 * The demo data tells one story: every hour of demo usage fits within the
 * project's effective quota at that hour, the grants are of the resources the
 * usage uses, the guarantees fit the nodes the pools have now, and every grant
 * comes from an approved request of the same amounts. A seed edit that breaks
 * any of it (more GPUs in the usage than granted, a grant on a pool that does
 * not exist) fails here.
 */
const SEEDED_AT = new Date("2026-06-01T00:00:00.000Z");
const NOW = new Date("2026-06-15T14:30:00.000Z");
const GiB = 2 ** 30;
const seeded = seededDatabase(SEEDED_AT);
let db: Database;

// 90 days of hourly usage are ingested here: seconds alone, minutes on a loaded machine.
beforeAll(async () => {
  db = seeded.db;
  expect(await seedDemoUsage(db, NOW)).toBe(true);
}, 300_000);

type UsageHour = { project_id: string; slug: string; resource: string; hour: Date | string; quantity: number };

describe(`the demo story (${databaseLabel()})`, () => {
  it("every hour of demo usage fits within the project's effective quota then, per resource", async () => {
    const usage = await rowsOf<UsageHour>(
      db,
      sql`select u.project_id::text, p.slug, u.resource, u.hour, sum(u.quantity)::float8 as quantity
          from usage_hourly u join projects p on p.id = u.project_id
          where u.resource in ('cpu', 'memory', 'storage') or u.resource like 'gpu:%'
          group by u.project_id, p.slug, u.resource, u.hour`,
    );
    expect(usage.length).toBeGreaterThan(4 * 90 * 24 * 3);
    const projectIds = [...new Set(usage.map((u) => u.project_id))];
    expect(projectIds).toHaveLength(4);
    const grants = await grantsOfProjects(db, projectIds);
    const base = config().cluster.defaultProjectQuota;
    const over: string[] = [];
    for (const u of usage) {
      const at = new Date(u.hour);
      const spans = grants.get(u.project_id) ?? [];
      const quota = effectiveQuotaAt(base, spans, at);
      const limit = u.resource.startsWith("gpu:")
        ? (gpusByModelAt(spans, at)[u.resource.slice(4)] ?? 0)
        : u.resource === "cpu"
          ? quota.cpuCores
          : u.resource === "memory"
            ? quota.memoryBytes / GiB
            : quota.storageBytes / GiB;
      if (u.quantity > limit + 1e-9) over.push(`${u.slug} ${u.resource} ${at.toISOString()}: ${u.quantity} > ${limit}`);
    }
    expect(over.slice(0, 10)).toEqual([]);
  });

  it("the grants are of the GPU models the usage uses, and each project's grant covers the whole usage window", async () => {
    const used = await rowsOf<{ slug: string; resource: string }>(
      db,
      sql`select distinct p.slug, u.resource from usage_hourly u join projects p on p.id = u.project_id where u.resource like 'gpu:%' order by 1, 2`,
    );
    const granted = await rowsOf<{ slug: string; resource: string; starts_at: Date | string; ends_at: Date | string | null }>(
      db,
      sql`select p.slug, 'gpu:' || g.gpu_model as resource, g.starts_at, g.ends_at from quota_grants g join projects p on p.id = g.project_id where g.gpu_count > 0 order by 1, 2`,
    );
    expect(granted.map((g) => `${g.slug} ${g.resource}`)).toEqual(used.map((u) => `${u.slug} ${u.resource}`));
    const { from } = demoUsageWindow(NOW);
    for (const g of granted) {
      expect(new Date(g.starts_at).getTime(), g.slug).toBeLessThanOrEqual(from.getTime());
      expect(g.ends_at, g.slug).toBeNull();
    }
  });

  it("guarantees fit the nodes the pools have now (not their autoscaling maximum), and the platform counts them allocated", async () => {
    const pools = await loadPools(db);
    const present: Record<string, number> = {};
    for (const p of pools) if (p.gpuModel) present[p.gpuModel] = (present[p.gpuModel] ?? 0) + p.nodeCount * p.gpusPerNode;
    const cpuPresent = pools.reduce((a, p) => a + p.nodeCount * p.cpuPerNode, 0);
    const memoryPresent = pools.reduce((a, p) => a + p.nodeCount * p.memoryBytesPerNode, 0);

    const { total } = await clusterAllocation(db, config().cluster, NOW);
    expect(total.gpusByModel).toEqual({ H100: 24, L4: 4, "A100 1g.10gb": 14 });
    for (const [model, n] of Object.entries(total.gpusByModel)) expect(n, model).toBeLessThanOrEqual(present[model] ?? 0);
    expect(total.cpuCores).toBeLessThanOrEqual(cpuPresent);
    expect(total.memoryBytes).toBeLessThanOrEqual(memoryPresent);
  });

  it("the envelopes hold exactly what their projects are guaranteed, and all guarantees fit the pools at their autoscaler minimum; burst, lend limit and weight tell the sweeps-borrow-pretraining story", async () => {
    const [pools, policy] = await Promise.all([loadPools(db), loadQuotaPolicy(db)]);
    const atMin = capacityAtMinNowMax(pools, policy.overcommit);
    const guaranteedByModel: Record<string, number> = {};
    for (const slug of Object.keys(seeded.tenantId)) {
      const { rows } = await tenantEnvelope(db, seeded.tenantId[slug]!, NOW);
      for (const r of rows) {
        expect(r.allocated, `${slug} ${r.line.flavor}`).toBe(r.line.guarantee);
        expect(r.burstAllocated, `${slug} ${r.line.flavor} burst`).toBeLessThanOrEqual(r.line.burst);
        guaranteedByModel[r.line.flavor] = (guaranteedByModel[r.line.flavor] ?? 0) + r.line.guarantee;
      }
    }
    expect(guaranteedByModel).toEqual({ H100: 24, L4: 4, "A100 1g.10gb": 14 });
    for (const [model, n] of Object.entries(guaranteedByModel)) expect(n, model).toBeLessThanOrEqual(atMin.find((c) => c.resource === `gpu:${model}`)!.atMin);

    const kueue = parseConfig({ ALLOT_KUEUE: "1" }).cluster;
    const vision = (await loadDesiredTenant(db, seeded.tenantId["vision-lab"]!, kueue, NOW))!;
    const language = (await loadDesiredTenant(db, seeded.tenantId["language-models"]!, kueue, NOW))!;
    const detector = vision.projects.find((p) => p.slug === "detector-training")!;
    const pretraining = language.projects.find((p) => p.slug === "pretraining")!;
    expect(detector.quota.flavors!.find((f) => f.flavor === "H100")).toMatchObject({ guarantee: 8, burst: 8, lendLimit: null });
    expect(pretraining.quota.flavors!.find((f) => f.flavor === "H100")).toMatchObject({ guarantee: 16, burst: 0, lendLimit: 8 });
    expect(pretraining.fairShareWeight).toBe(2);
    // What detector-training may borrow is there to borrow: pretraining lends 8.
    expect(detector.quota.burst!.gpus["nvidia.com/gpu"]).toBeLessThanOrEqual(8);
  });

  it("the pools' size history covers the usage window, the H100 pool grew from 3 to 4 nodes in it, and every hour's GPU usage fits the pools as they were then", async () => {
    const spans = await poolSizesOverlapping(db, new Date(0), new Date("2100-01-01T00:00:00Z"));
    const { from, to } = demoUsageWindow(NOW);
    const pools = await loadPools(db);
    expect(new Set(spans.map((x) => x.poolId))).toEqual(new Set(pools.map((p) => p.id)));
    for (const p of pools) {
      const own = spans.filter((x) => x.poolId === p.id);
      expect(own[0]!.validFrom.getTime(), p.name).toBeLessThanOrEqual(from.getTime());
      expect(own.at(-1), p.name).toMatchObject({ validTo: null, nodeCount: p.nodeCount });
    }
    const h100 = spans.filter((x) => x.poolName === DEMO_H100_POOL);
    expect(h100.map((x) => x.nodeCount)).toEqual([DEMO_H100_NODES_BEFORE_GROWTH, 4]);
    expect(h100[1]!.validFrom.getTime()).toBeGreaterThan(from.getTime());
    expect(h100[1]!.validFrom.getTime()).toBeLessThan(to.getTime());

    const usage = await rowsOf<{ resource: string; hour: Date | string; quantity: number }>(
      db,
      sql`select resource, hour, sum(quantity)::float8 as quantity from usage_hourly where resource like 'gpu:%' group by resource, hour`,
    );
    const over: string[] = [];
    for (const u of usage) {
      const t = new Date(u.hour).getTime();
      const present = spans
        .filter((x) => `gpu:${x.gpuModel}` === u.resource && x.validFrom.getTime() <= t && (x.validTo === null || t < x.validTo.getTime()))
        .reduce((a, x) => a + x.nodeCount * x.gpusPerNode, 0);
      if (u.quantity > present) over.push(`${u.resource} ${new Date(t).toISOString()}: ${u.quantity} > ${present}`);
    }
    expect(usage.length).toBeGreaterThan(90 * 24);
    expect(over.slice(0, 10)).toEqual([]);
  });

  it("every grant comes from an approved demo request of the same amounts, and no request is left waiting or without its grant", async () => {
    const rows = await rowsOf<{
      status: string;
      justification: string;
      request_amounts: string;
      grant_amounts: string | null;
      grants: number;
      decided: boolean;
    }>(
      db,
      sql`select r.status::text, r.justification,
            concat_ws(' ', r.gpu_model, r.gpu_count, r.cpu_cores, r.memory_bytes, r.storage_bytes) as request_amounts,
            max(concat_ws(' ', g.gpu_model, g.gpu_count, g.cpu_cores, g.memory_bytes, g.storage_bytes)) as grant_amounts,
            count(g.id)::int as grants, (r.decided_by is not null and r.decided_at is not null) as decided
          from quota_requests r left join quota_grants g on g.request_id = r.id
          group by r.id`,
    );
    expect(rows).toHaveLength(4);
    for (const r of rows) {
      expect(r.status).toBe("approved");
      expect(r.justification.startsWith(DEMO_REQUEST_PREFIX), r.justification).toBe(true);
      expect(r.grants).toBe(1);
      expect(r.grant_amounts).toBe(r.request_amounts);
      expect(r.decided).toBe(true);
    }
    const orphans = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from quota_grants where request_id is null`);
    expect(orphans[0]!.n).toBe(0);
    // Every grant is in force now: the story's quota is today's quota.
    const spans = [...(await grantsOfProjects(db, await projectIds())).values()].flat();
    expect(spans.every((g) => grantInForce(g, NOW))).toBe(true);
  });

  it("each demo request carries the estimate a real request would have had when asked, at the rate card of that day", async () => {
    const rows = await rowsOf<{ gpu_model: string | null; gpu_count: number; cpu_cores: number; memory_bytes: string; storage_bytes: string; monthly_cost: string; created_at: Date | string }>(
      db,
      sql`select gpu_model, gpu_count, cpu_cores, memory_bytes::text, storage_bytes::text, monthly_cost::text, created_at from quota_requests`,
    );
    const rateRows = await loadRates(db);
    for (const r of rows) {
      const amounts = { gpus: r.gpu_model ? [{ model: r.gpu_model, count: r.gpu_count, burst: 0 }] : [], cpuCores: Number(r.cpu_cores), memoryBytes: Number(r.memory_bytes), storageBytes: Number(r.storage_bytes) };
      const expected = monthlyCost(amounts, ratesInForce(rateRows, new Date(r.created_at))).monthly;
      expect(expected).toBeGreaterThan(0);
      expect(Number(r.monthly_cost)).toBe(expected);
    }
  });

  it("is seeded once: a second call adds no request or grant", async () => {
    const count = sql`select (select count(*) from quota_requests)::int as requests, (select count(*) from quota_grants)::int as grants`;
    const before = await rowsOf(db, count);
    expect(await seedDemoUsage(db, new Date(NOW.getTime() + 86_400_000))).toBe(false);
    expect(await rowsOf(db, count)).toEqual(before);
  });
});

async function projectIds(): Promise<string[]> {
  return (await rowsOf<{ id: string }>(db, sql`select id::text from projects`)).map((r) => r.id);
}
