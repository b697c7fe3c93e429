import fc from "fast-check";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { instanceSettings, nodePools, projects, quotaGrantLines, quotaGrants, rates } from "@/db/schema";
import { databaseLabel } from "@/test/database";
import { seededDatabase } from "@/test/tenancy";
import { divideRounded, sumMinor, toMinor } from "@/lib/money";
import { endPoolSize, recordPoolSize } from "@/lib/quota/pool-sizes";
import { idleChargeback } from "./chargeback-query";
import { focusRows } from "./focus";
import { idleFocusRows, mergeIdleRows } from "./focus-idle";
import { focusSourceRows, idleDays } from "./focus-query";
import { IDLE_COST_KEY, storedChanges } from "./idle-mode";
import { ingestUsage, type UsageSample } from "./ingest";
import { clusterCost, spendByProject, spendByResource, spendByTenant, spendSeries } from "./spend";
import { isPoolResource, pricingDivisor, resourceKind } from "./units";

/**
 * Cost conservation on random data, to the cent: for any window, the sum of
 * every project's cost plus idle is exactly the cluster cost, and every split
 * of the window's spend (by resource, project, tenant, day, month, FOCUS row)
 * adds up to exactly the same total. The expected figures are computed here
 * from the generated data alone, in exact integers (bigint), without the
 * rollup or the SQL pricing: each (project, resource, day) is one line,
 * rounded half away from zero to the cent (lib/money.ts); each hour likewise
 * in hourly series; capacity is one line rounded once, each hour priced on the
 * pools as they were then (created, resized and deleted at random hours).
 */
const seeded = seededDatabase(new Date("2026-01-01T00:00:00Z"));
let db: Database;
let projectRows: { id: string; tenantId: string }[];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.parse("2026-05-01T00:00:00Z");
const SPAN_DAYS = 6;
const RESOURCES = ["gpu:H100", "gpu:A100 1g.10gb", "gpu:L4 shared x4", "cpu", "memory", "storage", "inference", "tokens"] as const;
/** A time-sliced model: each physical GPU is 4 slices, and its rate is a slice's price. */
const SLICED = "L4 shared x4";
const SLICES = 4;
const GiB = 2 ** 30;

beforeAll(async () => {
  db = seeded.db;
  projectRows = await db.select({ id: projects.id, tenantId: projects.tenantId }).from(projects);
});

/** Prices in thousandths (0.000 to 5.000) and quantities in hundredths, so the expected costs are exact fractions. */
const price = fc.integer({ min: 0, max: 5_000 });
const scenario = fc.record({
  pools: fc.array(
    fc.record({
      gpuModel: fc.constantFrom(null, "H100", "A100 1g.10gb", SLICED),
      gpusPerNode: fc.integer({ min: 1, max: 8 }),
      nodeCount: fc.integer({ min: 0, max: 4 }),
      cpuPerNode: fc.integer({ min: 0, max: 64 }),
      memoryGiB: fc.integer({ min: 0, max: 512 }),
      // Its size history, on whole hours: created, perhaps resized, perhaps deleted (the hour may fall outside the span).
      createdHour: fc.integer({ min: -24, max: SPAN_DAYS * 24 }),
      resize: fc.option(fc.record({ afterHours: fc.integer({ min: 1, max: SPAN_DAYS * 24 }), nodeCount: fc.integer({ min: 0, max: 4 }) })),
      deleteAfterHours: fc.option(fc.integer({ min: 1, max: SPAN_DAYS * 24 })),
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
      quantity: fc.integer({ min: 0, max: 100_000 }),
      source: fc.constantFrom("push:a", "push:b", "prometheus"),
    }),
    { maxLength: 60 },
  ),
  // Guarantees in force over some hours (a negative one is a move's giving side), and the rule: apart, or charged back from some hour on.
  grants: fc.array(
    fc.record({
      project: fc.nat(),
      startHour: fc.integer({ min: -24, max: SPAN_DAYS * 12 }),
      hours: fc.option(fc.integer({ min: 1, max: SPAN_DAYS * 24 }), { freq: 2 }),
      line: fc.constantFrom(["H100", "nvidia.com/gpu"], ["A100 1g.10gb", "nvidia.com/mig-1g.10gb"], ["default", "cpu"], ["default", "memory"], ["default", "storage"]),
      guarantee: fc.integer({ min: -4, max: 64 }),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  chargebackFromDay: fc.option(fc.integer({ min: -1, max: SPAN_DAYS })),
  window: fc.tuple(fc.integer({ min: 0, max: SPAN_DAYS }), fc.integer({ min: 0, max: SPAN_DAYS })).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
});

async function reset() {
  await db.execute(sql`delete from usage_daily`);
  await db.execute(sql`delete from usage_hourly`);
  await db.execute(sql`delete from rates`);
  await db.execute(sql`delete from node_pools`);
  await db.execute(sql`delete from node_pool_sizes`);
  await db.execute(sql`delete from quota_grant_lines`);
  await db.execute(sql`delete from quota_grants`);
  await db.execute(sql`delete from instance_settings where key = ${IDLE_COST_KEY}`);
}

describe(`cost conservation to the cent (${databaseLabel()})`, () => {
  it("projects + idle = cluster cost = capacity + non-pool usage, and every split of the spend adds up exactly, for any window", async () => {
    let runsCharged = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        await reset();
        // Each pool written as the capacity commands write it: the pool and its size history, at the instant of each change.
        const poolSizes: { gpuModel: string | null; gpusPerNode: number; nodeCount: number; cpuPerNode: number; memoryGiB: number; from: number; to: number }[] = [];
        for (const [i, p] of s.pools.entries()) {
          const facts = {
            gpuModel: p.gpuModel,
            gpusPerNode: p.gpuModel === null ? 0 : p.gpusPerNode,
            nodeCount: p.nodeCount,
            cpuPerNode: p.cpuPerNode,
            memoryBytesPerNode: p.memoryGiB * GiB,
          };
          const created = START + p.createdHour * HOUR;
          const [pool] = await db
            .insert(nodePools)
            .values({
              name: `pool-${i}`,
              gpuResource: p.gpuModel === null ? null : p.gpuModel === "A100 1g.10gb" ? "nvidia.com/mig-1g.10gb" : "nvidia.com/gpu",
              ...facts,
              gpuSharing: p.gpuModel === SLICED ? "time_sliced" : p.gpuModel === "A100 1g.10gb" ? "mig" : "exclusive",
              gpuSlices: p.gpuModel === SLICED ? SLICES : 1,
              createdAt: new Date(created),
            })
            .returning();
          await recordPoolSize(db, pool!, new Date(created));
          const resizedAt = p.resize ? created + p.resize.afterHours * HOUR : Infinity;
          const deletedAt = p.deleteAfterHours !== null ? created + p.deleteAfterHours * HOUR : Infinity;
          const size = (nodeCount: number, from: number, to: number) => from < to && poolSizes.push({ ...facts, nodeCount, memoryGiB: p.memoryGiB, from, to });
          size(p.nodeCount, created, Math.min(resizedAt, deletedAt));
          if (p.resize && resizedAt < deletedAt) {
            await recordPoolSize(db, { ...pool!, nodeCount: p.resize.nodeCount }, new Date(resizedAt));
            size(p.resize.nodeCount, resizedAt, deletedAt);
          }
          if (deletedAt < Infinity) await endPoolSize(db, pool!.id, new Date(deletedAt));
        }
        // Prices in thousandths (`milli`), exact here; the rate card holds them as decimal text.
        const rateRows = [...new Map(s.rates.map((r) => [`${r.resource}@${r.hour}`, r])).values()].map((r) => ({
          resource: r.resource,
          milli: r.price,
          effectiveFrom: new Date(START + r.hour * HOUR),
        }));
        if (rateRows.length) await db.insert(rates).values(rateRows.map((r) => ({ resource: r.resource, unitPrice: (r.milli / 1000).toFixed(3), effectiveFrom: r.effectiveFrom })));
        const milliInForce = (at: Date) => {
          const best = new Map<string, { milli: number; from: number }>();
          for (const r of rateRows) {
            if (r.effectiveFrom.getTime() > at.getTime()) continue;
            const seen = best.get(r.resource);
            if (!seen || r.effectiveFrom.getTime() > seen.from) best.set(r.resource, { milli: r.milli, from: r.effectiveFrom.getTime() });
          }
          return new Map([...best].map(([k, v]) => [k, v.milli]));
        };

        // One sample per (project, resource, hour, source): a later duplicate replaces the earlier, as ingest does.
        const bySource = new Map<string, UsageSample[]>();
        const kept = new Map<string, { sample: UsageSample; source: string; hundredths: number }>();
        for (const x of s.samples) {
          const p = projectRows[x.project % projectRows.length]!;
          const sample: UsageSample = { projectId: p.id, tenantId: p.tenantId, resource: x.resource, hour: new Date(START + x.hour * HOUR), quantity: x.quantity / 100 };
          kept.set(`${p.id}|${x.resource}|${x.hour}|${x.source}`, { sample, source: x.source, hundredths: x.quantity });
        }
        for (const { sample, source } of kept.values()) bySource.set(source, [...(bySource.get(source) ?? []), sample]);
        for (const [source, samples] of bySource) await ingestUsage(db, source, samples, new Date(START));

        for (const g of s.grants) {
          const p = projectRows[g.project % projectRows.length]!;
          const startsAt = new Date(START + g.startHour * HOUR);
          const [grant] = await db
            .insert(quotaGrants)
            .values({ projectId: p.id, startsAt, endsAt: g.hours === null ? null : new Date(startsAt.getTime() + g.hours * HOUR), source: "demo" })
            .returning();
          const amount = g.line[1] === "memory" ? g.guarantee * GiB : g.guarantee;
          await db.insert(quotaGrantLines).values({ grantId: grant!.id, flavor: g.line[0], resource: g.line[1], guarantee: String(amount) });
        }
        if (s.chargebackFromDay !== null) {
          const value = storedChanges([{ mode: "chargeback", effectiveFrom: new Date(START + s.chargebackFromDay * DAY) }]);
          await db.insert(instanceSettings).values({ key: IDLE_COST_KEY, value });
        }

        const window = { from: new Date(START + s.window[0] * DAY), to: new Date(START + s.window[1] * DAY) };
        const inWindow = (t: Date) => t >= window.from && t < window.to;

        // Expected capacity: Σ hours × the pools as they were that hour × price in thousandths of the currency, then one rounding to cents.
        let capacityMilli = 0n;
        for (let t = window.from.getTime(); t < window.to.getTime(); t += HOUR) {
          const prices = milliInForce(new Date(t));
          for (const p of poolSizes.filter((x) => x.from <= t && t < x.to)) {
            const n = BigInt(p.nodeCount);
            // A time-sliced pool offers, and costs, its slices: physical GPUs × slices at the slice's price.
            const units = p.gpuModel === SLICED ? p.gpusPerNode * SLICES : p.gpusPerNode;
            if (p.gpuModel) capacityMilli += BigInt(units) * n * BigInt(prices.get(`gpu:${p.gpuModel}`) ?? 0);
            capacityMilli += BigInt(p.cpuPerNode) * n * BigInt(prices.get("cpu") ?? 0) + BigInt(p.memoryGiB) * n * BigInt(prices.get("memory") ?? 0);
          }
        }
        const expectedCapacity = Number(divideRounded(capacityMilli * 100n, 1000n));

        // Expected lines: exact cost per (project, resource, day) and per (project, resource, hour) as hundredths × thousandths, over the divisor.
        const dayLines = new Map<string, { resource: string; n: bigint }>();
        const hourLines = new Map<string, { n: bigint; resource: string }>();
        for (const { sample, hundredths } of kept.values()) {
          if (!inWindow(sample.hour)) continue;
          const n = BigInt(hundredths) * BigInt(milliInForce(sample.hour).get(sample.resource) ?? 0);
          const dayKey = `${sample.projectId}|${sample.resource}|${sample.hour.toISOString().slice(0, 10)}`;
          const hourKey = `${sample.projectId}|${sample.resource}|${sample.hour.toISOString()}`;
          dayLines.set(dayKey, { resource: sample.resource, n: (dayLines.get(dayKey)?.n ?? 0n) + n });
          hourLines.set(hourKey, { resource: sample.resource, n: (hourLines.get(hourKey)?.n ?? 0n) + n });
        }
        // n is in 1e-5 of the currency (hundredths × thousandths); a line in cents is n × 100 ÷ (1e5 × divisor), rounded once.
        const cents = (l: { resource: string; n: bigint }) => Number(divideRounded(l.n * 100n, 100_000n * BigInt(pricingDivisor(resourceKind(l.resource)))));
        const expectedUsage = sumMinor([...dayLines.values()].map(cents));
        const expectedOther = sumMinor([...dayLines.values()].filter((l) => !isPoolResource(l.resource)).map(cents));
        const expectedHourly = sumMinor([...hourLines.values()].map(cents));

        const minor = (v: number) => toMinor(v, 2);
        const sum = (values: number[]) => sumMinor(values.map(minor));
        const cluster = await clusterCost(db, window, window.to);
        const byProject: number[] = [];
        for (const p of projectRows) byProject.push(sum((await spendByResource(db, { projectId: p.id }, window)).map((r) => r.cost)));
        const projectSum = sumMinor(byProject);
        const [daily, hourly, monthly] = await Promise.all((["day", "hour", "month"] as const).map((g) => spendSeries(db, { platform: true }, window, g)));
        const lastDay = new Date(Math.max(window.from.getTime(), window.to.getTime() - DAY)).toISOString().slice(0, 10);
        const focus = await focusSourceRows(db, { platform: true }, { ...window, range: "custom", granularity: "day", lastDay });

        expect(minor(cluster.capacityCost)).toBe(expectedCapacity);
        expect(minor(cluster.otherCost)).toBe(expectedOther);
        expect(minor(cluster.allocatedCost) + minor(cluster.otherCost)).toBe(expectedUsage);
        expect(projectSum).toBe(expectedUsage);
        // The equation the platform page prints, exactly.
        expect(projectSum + minor(cluster.idleCost)).toBe(minor(cluster.totalCost));
        expect(minor(cluster.capacityCost) - minor(cluster.allocatedCost)).toBe(minor(cluster.idleCost));
        // Every other split of the same window: tenants, projects, the rollup's days and months, the FOCUS rows.
        expect(sum((await spendByTenant(db, window)).map((t) => t.cost))).toBe(expectedUsage);
        expect(sum((await spendByProject(db, { platform: true }, window)).map((p) => p.cost))).toBe(expectedUsage);
        expect(sum((await spendByResource(db, { platform: true }, window)).map((r) => r.cost))).toBe(expectedUsage);
        expect(sum(daily!.map((r) => r.cost))).toBe(expectedUsage);
        expect(sum(monthly!.map((r) => r.cost))).toBe(expectedUsage);
        expect(sum(focus.map((r) => r.cost))).toBe(expectedUsage);
        // Hourly series round each project's hour: their sum is the hourly lines', stated as its own rule.
        expect(sum(hourly!.map((r) => r.cost))).toBe(expectedHourly);

        // Idle: each day's idle is that day's capacity (rounded once) less its projects' pool lines; where the rule is
        // chargeback, a day with guarantees in force and idle to charge is charged in full, to the cent, and nothing else is.
        const idle = await idleChargeback(db, window, window.to);
        for (const period of idle.periods) {
          const dayStart = Date.parse(`${period.period}T00:00:00Z`);
          let dayMilli = 0n;
          for (let t = dayStart; t < dayStart + DAY; t += HOUR) {
            const prices = milliInForce(new Date(t));
            for (const p of poolSizes.filter((x) => x.from <= t && t < x.to)) {
              const n = BigInt(p.nodeCount);
              const units = p.gpuModel === SLICED ? p.gpusPerNode * SLICES : p.gpusPerNode;
              if (p.gpuModel) dayMilli += BigInt(units) * n * BigInt(prices.get(`gpu:${p.gpuModel}`) ?? 0);
              dayMilli += BigInt(p.cpuPerNode) * n * BigInt(prices.get("cpu") ?? 0) + BigInt(p.memoryGiB) * n * BigInt(prices.get("memory") ?? 0);
            }
          }
          const dayAllocated = sumMinor([...dayLines].filter(([k, l]) => k.endsWith(`|${period.period}`) && isPoolResource(l.resource)).map(([, l]) => cents(l)));
          expect(period.idle).toBe(Number(divideRounded(dayMilli * 100n, 1000n)) - dayAllocated);
        }
        const charged = idle.periods.filter((p) => p.idle > 0 && p.weights.length > 0);
        if (charged.length > 0) runsCharged++;
        expect(idle.total).toBe(sumMinor(charged.map((p) => p.idle)));
        expect(sumMinor(idle.byProject.values())).toBe(idle.total);
        expect(sumMinor(idle.byTenant.values())).toBe(idle.total);
        for (const v of idle.byProject.values()) expect(v).toBeGreaterThan(0);
        if (s.chargebackFromDay === null) expect(idle.periods).toEqual([]);
        // In both modes, projects + idle charged back + idle left apart = the cluster's cost.
        const apart = minor(cluster.idleCost) - idle.total;
        expect(projectSum + idle.total + apart).toBe(minor(cluster.totalCost));

        // The FOCUS export under either rule: use rows + idle lines (charged back and apart) = the cluster's cost, by day
        // and by month; the idle lines charged back are the report's, per tenant and in all; use alone is the spend.
        for (const granularity of ["day", "month"] as const) {
          const w = { ...window, range: "custom" as const, granularity, lastDay };
          const { days, projects } = await idleDays(db, w, window.to);
          const use = focusRows(await focusSourceRows(db, { platform: true }, w), "USD", 2);
          const rows = mergeIdleRows(use, idleFocusRows(days, projects, { platform: true }, granularity, w, "USD", 2));
          expect(sum(rows.map((r) => r.BilledCost ?? 0))).toBe(minor(cluster.totalCost));
          expect(sum(rows.filter((r) => r.x_IdleCost === null).map((r) => r.BilledCost ?? 0))).toBe(expectedUsage);
          expect(sum(rows.filter((r) => r.x_IdleCost !== null).map((r) => r.BilledCost!))).toBe(minor(cluster.idleCost));
          expect(sum(rows.filter((r) => r.x_IdleCost === "chargeback").map((r) => r.BilledCost!))).toBe(idle.total);
          expect(sum(rows.filter((r) => r.x_IdleCost === "apart").map((r) => r.BilledCost!))).toBe(apart);
          for (const tenantId of new Set(projectRows.map((p) => p.tenantId))) {
            const own = idleFocusRows(days, projects, { tenantId }, granularity, w, "USD", 2);
            expect(sum(own.map((r) => r.BilledCost!))).toBe(idle.byTenant.get(tenantId) ?? 0);
          }
        }
      }),
      { numRuns: 25, seed: 20261202 },
    );
    // The runs did charge idle back, so the checks above were not all of empty lists.
    expect(runsCharged).toBeGreaterThan(1);
  }, 180_000);
});
