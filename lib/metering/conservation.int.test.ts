import fc from "fast-check";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { nodePools, projects, rates } from "@/db/schema";
import { ratesInForce } from "@/lib/quota/cost";
import { databaseLabel } from "@/test/database";
import { seededDatabase } from "@/test/tenancy";
import { ingestUsage, type UsageSample } from "./ingest";
import { clusterCost, spendByResource, spendSeries } from "./spend";
import { isPoolResource, pricingDivisor, resourceKind } from "./units";

/**
 * Cost conservation on random data: for any window, the sum of every
 * project's cost plus idle equals the cluster cost, and the cluster cost is
 * what the pools' capacity and the non-pool usage cost hour by hour at the
 * rate in force, computed here without the rollup or the SQL pricing.
 */
const seeded = seededDatabase(new Date("2026-01-01T00:00:00Z"));
let db: Database;
let projectRows: { id: string; tenantId: string }[];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.parse("2026-05-01T00:00:00Z");
const SPAN_DAYS = 6;
const RESOURCES = ["gpu:H100", "gpu:A100 1g.10gb", "cpu", "memory", "storage", "inference", "tokens"] as const;
const GiB = 2 ** 30;

beforeAll(async () => {
  db = seeded.db;
  projectRows = await db.select({ id: projects.id, tenantId: projects.tenantId }).from(projects);
});

const price = fc.integer({ min: 0, max: 5_000 }).map((c) => c / 1000);
const scenario = fc.record({
  pools: fc.array(
    fc.record({
      gpuModel: fc.constantFrom(null, "H100", "A100 1g.10gb"),
      gpusPerNode: fc.integer({ min: 1, max: 8 }),
      nodeCount: fc.integer({ min: 0, max: 4 }),
      cpuPerNode: fc.integer({ min: 0, max: 64 }),
      memoryGiB: fc.integer({ min: 0, max: 512 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  // Per resource, up to three prices, each from an hour inside (or just before) the span; "tokens" may have none.
  rates: fc.array(fc.record({ resource: fc.constantFrom(...RESOURCES), hour: fc.integer({ min: -24, max: SPAN_DAYS * 24 }), price }), { maxLength: 12 }),
  samples: fc.array(
    fc.record({
      project: fc.nat(),
      resource: fc.constantFrom(...RESOURCES),
      hour: fc.integer({ min: 0, max: SPAN_DAYS * 24 - 1 }),
      quantity: fc.integer({ min: 0, max: 100_000 }).map((q) => q / 100),
      source: fc.constantFrom("push:a", "push:b", "prometheus"),
    }),
    { maxLength: 60 },
  ),
  window: fc.tuple(fc.integer({ min: 0, max: SPAN_DAYS }), fc.integer({ min: 0, max: SPAN_DAYS })).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
});

async function reset() {
  await db.execute(sql`delete from usage_daily`);
  await db.execute(sql`delete from usage_hourly`);
  await db.execute(sql`delete from rates`);
  await db.execute(sql`delete from node_pools`);
}

describe(`cost conservation (${databaseLabel()})`, () => {
  it("projects + idle = cluster cost = capacity + non-pool usage, for any window", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        await reset();
        if (s.pools.length) {
          await db.insert(nodePools).values(
            s.pools.map((p, i) => ({
              name: `pool-${i}`,
              gpuModel: p.gpuModel,
              gpuResource: p.gpuModel === null ? null : p.gpuModel === "H100" ? "nvidia.com/gpu" : "nvidia.com/mig-1g.10gb",
              gpusPerNode: p.gpuModel === null ? 0 : p.gpusPerNode,
              nodeCount: p.nodeCount,
              cpuPerNode: p.cpuPerNode,
              memoryBytesPerNode: p.memoryGiB * GiB,
            })),
          );
        }
        const rateRows = [...new Map(s.rates.map((r) => [`${r.resource}@${r.hour}`, r])).values()].map((r) => ({
          resource: r.resource,
          unitPrice: r.price,
          effectiveFrom: new Date(START + r.hour * HOUR),
        }));
        if (rateRows.length) await db.insert(rates).values(rateRows.map((r) => ({ ...r, unitPrice: r.unitPrice.toFixed(3) })));

        // One sample per (project, resource, hour, source): a later duplicate replaces the earlier, as ingest does.
        const bySource = new Map<string, UsageSample[]>();
        const kept = new Map<string, { sample: UsageSample; source: string }>();
        for (const x of s.samples) {
          const p = projectRows[x.project % projectRows.length]!;
          const sample: UsageSample = { projectId: p.id, tenantId: p.tenantId, resource: x.resource, hour: new Date(START + x.hour * HOUR), quantity: x.quantity };
          kept.set(`${p.id}|${x.resource}|${x.hour}|${x.source}`, { sample, source: x.source });
        }
        for (const { sample, source } of kept.values()) bySource.set(source, [...(bySource.get(source) ?? []), sample]);
        for (const [source, samples] of bySource) await ingestUsage(db, source, samples, new Date(START));

        const window = { from: new Date(START + s.window[0] * DAY), to: new Date(START + s.window[1] * DAY) };
        const inWindow = (t: Date) => t >= window.from && t < window.to;

        // Expected, hour by hour, from the generated data alone.
        let expectedCapacity = 0;
        for (let t = window.from.getTime(); t < window.to.getTime(); t += HOUR) {
          const prices = ratesInForce(rateRows, new Date(t));
          for (const p of s.pools) {
            const n = p.nodeCount;
            if (p.gpuModel) expectedCapacity += p.gpusPerNode * n * (prices.get(`gpu:${p.gpuModel}`) ?? 0);
            expectedCapacity += p.cpuPerNode * n * (prices.get("cpu") ?? 0) + p.memoryGiB * n * (prices.get("memory") ?? 0);
          }
        }
        let expectedOther = 0;
        let expectedUsage = 0;
        for (const { sample } of kept.values()) {
          if (!inWindow(sample.hour)) continue;
          const unit = ratesInForce(rateRows, sample.hour).get(sample.resource) ?? 0;
          const cost = (sample.quantity * unit) / pricingDivisor(resourceKind(sample.resource));
          expectedUsage += cost;
          if (!isPoolResource(sample.resource)) expectedOther += cost;
        }

        const cluster = await clusterCost(db, window);
        let projectSum = 0;
        for (const p of projectRows) projectSum += (await spendByResource(db, { projectId: p.id }, window)).reduce((a, r) => a + r.cost, 0);
        const [daily, hourly, monthly] = await Promise.all((["day", "hour", "month"] as const).map((g) => spendSeries(db, { platform: true }, window, g)));

        expect(cluster.capacityCost).toBeCloseTo(expectedCapacity, 5);
        expect(cluster.otherCost).toBeCloseTo(expectedOther, 5);
        expect(projectSum).toBeCloseTo(expectedUsage, 5);
        expect(projectSum + cluster.idleCost).toBeCloseTo(cluster.totalCost, 5);
        // The rollup (day, month) and the hourly table priced in SQL (hour) tell the same story.
        for (const series of [daily!, hourly!, monthly!]) expect(series.reduce((a, r) => a + r.cost, 0)).toBeCloseTo(expectedUsage, 5);
      }),
      { numRuns: 25, seed: 20261202 },
    );
  }, 120_000);
});
