import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { recomputeDailyRollup } from "@/lib/metering/rollup";
import { databaseLabel } from "@/test/database";
import { auditLog, rowsOf } from "@/test/fixtures";
import { DAY, HOUR, projectIdOf, seededDatabase } from "@/test/tenancy";
import { DEMO_USAGE_DAYS, DEMO_USAGE_PROJECTS, demoUsageSamples, demoUsageWindow, seedDemoUsage } from "./usage";

/**
 * Demo usage on a real database: 90 days of hourly samples for the four demo
 * projects, stored once under the "demo" source through ingest, with a daily
 * rollup marked as demo that equals a recomputation from the hourly table.
 */
const SEEDED_AT = new Date("2026-06-01T00:00:00.000Z");
// Not on the hour: the window ends at 14:00, the last complete hour starting 13:00.
const NOW = new Date("2026-06-15T14:30:00.000Z");
const WINDOW_START = new Date("2026-03-17T14:00:00.000Z");
const LAST_HOUR = new Date("2026-06-15T13:00:00.000Z");
const seeded = seededDatabase(SEEDED_AT);
let db: Database;

type DailyRow = { project_id: string; resource: string; day: string; quantity: string; cost: string; unpriced_quantity: string; gpu_measured_hours: string; gpu_busy_hours: string; has_demo: boolean };
const dailyRows = () =>
  rowsOf<DailyRow>(
    db,
    sql`select project_id::text, resource, day::text as day, quantity::text, cost::text, unpriced_quantity::text, gpu_measured_hours::text, gpu_busy_hours::text, has_demo
        from usage_daily order by project_id, day, resource`,
  );
const one = async <T extends Record<string, unknown>>(query: ReturnType<typeof sql>) => (await rowsOf<T>(db, query))[0]!;

beforeAll(() => {
  db = seeded.db;
});

describe(`demo usage (${databaseLabel()})`, () => {
  it("the window is the 90 days of hours up to the last complete hour", () => {
    expect(demoUsageWindow(NOW)).toEqual({ from: WINDOW_START, to: new Date(LAST_HOUR.getTime() + HOUR) });
    expect(DEMO_USAGE_DAYS * DAY).toBe(LAST_HOUR.getTime() + HOUR - WINDOW_START.getTime());
  });

  it("is deterministic: the same window gives the same samples, and an hour's GPU figures do not depend on where the window starts", () => {
    const refs = [{ slug: "chat-eval", projectId: "p", tenantId: "t" }] as const;
    const a = demoUsageSamples(refs, WINDOW_START, new Date(WINDOW_START.getTime() + 48 * HOUR));
    expect(demoUsageSamples(refs, WINDOW_START, new Date(WINDOW_START.getTime() + 48 * HOUR))).toEqual(a);
    const later = demoUsageSamples(refs, new Date(WINDOW_START.getTime() + 24 * HOUR), new Date(WINDOW_START.getTime() + 48 * HOUR));
    const gpu = (s: typeof a) => s.filter((x) => x.resource.startsWith("gpu:") || x.resource === "inference").slice(-10);
    expect(gpu(later).map((s) => [s.resource, s.hour, s.gpuUtilization])).toEqual(gpu(a).map((s) => [s.resource, s.hour, s.gpuUtilization]));
  });

  it("stores 90 days of hourly demo usage for every demo project through ingest", async () => {
    const started = performance.now();
    expect(await seedDemoUsage(db, NOW)).toBe(true);
    console.log(`seedDemoUsage on ${databaseLabel()}: ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const sources = await rowsOf<{ source: string }>(db, sql`select distinct source from usage_hourly`);
    expect(sources).toEqual([{ source: "demo" }]);

    for (const [tenantSlug, projectSlug] of DEMO_USAGE_PROJECTS) {
      const projectId = await projectIdOf(db, tenantSlug, projectSlug);
      // CPU, memory and storage are sampled every hour of the window.
      const cover = await one<{ hours: number; first: Date | string; last: Date | string; resources: string }>(
        sql`select count(distinct hour)::int as hours, min(hour) as first, max(hour) as last, string_agg(distinct resource, ',' order by resource) as resources
            from usage_hourly where project_id = ${projectId} and resource = 'cpu'`,
      );
      expect(cover.hours, projectSlug).toBe(DEMO_USAGE_DAYS * 24);
      expect(new Date(cover.first).getTime(), projectSlug).toBe(WINDOW_START.getTime());
      expect(new Date(cover.last).getTime(), projectSlug).toBe(LAST_HOUR.getTime());
      // 90 whole days touch 91 UTC days when the window does not start at midnight.
      const days = await one<{ days: number; demo: boolean }>(sql`select count(distinct day)::int as days, bool_and(has_demo) as demo from usage_daily where project_id = ${projectId}`);
      expect(days, projectSlug).toEqual({ days: DEMO_USAGE_DAYS + 1, demo: true });
    }

    const resources = await rowsOf<{ resource: string }>(db, sql`select distinct resource from usage_hourly order by resource`);
    expect(resources.map((r) => r.resource)).toEqual(["cpu", "gpu:A100 1g.10gb", "gpu:H100", "gpu:L4", "inference", "memory", "storage"]);
    // Every hour is priced (the seeded rate card starts 2026-01-01).
    expect(await one<{ unpriced: string }>(sql`select sum(unpriced_quantity)::text as unpriced from usage_daily`)).toEqual({ unpriced: "0.000000000" });
  });

  it("tells the intended story: busy pretraining, bursty detector training, idle segmentation GPUs, max(request, use)", async () => {
    const util = async (tenantSlug: string, projectSlug: string, resource: string) =>
      one<{ avg: number; lo: number; hi: number; min_gpus: number; max_gpus: number; hours: number }>(
        sql`select (sum(gpu_utilization * quantity) / sum(quantity))::float8 as avg, min(gpu_utilization)::float8 as lo, max(gpu_utilization)::float8 as hi,
              min(quantity)::float8 as min_gpus, max(quantity)::float8 as max_gpus, count(*)::int as hours
            from usage_hourly where project_id = ${await projectIdOf(db, tenantSlug, projectSlug)} and resource = ${resource}`,
      );
    const pretraining = await util("language-models", "pretraining", "gpu:H100");
    expect(pretraining.lo).toBeGreaterThanOrEqual(0.7);
    expect(pretraining.hi).toBeLessThanOrEqual(0.95);
    expect(pretraining.max_gpus).toBe(16);
    expect(pretraining.hours).toBeGreaterThan(0.95 * DEMO_USAGE_DAYS * 24);

    const detector = await util("vision-lab", "detector-training", "gpu:H100");
    expect(detector.min_gpus).toBeGreaterThanOrEqual(4);
    expect(detector.max_gpus).toBeLessThanOrEqual(8);
    expect(detector.hours).toBeLessThan(0.5 * DEMO_USAGE_DAYS * 24);
    expect(detector.avg).toBeGreaterThan(0.35);
    expect(detector.avg).toBeLessThan(0.75);

    const segmentation = await util("vision-lab", "segmentation-research", "gpu:L4");
    expect(segmentation).toMatchObject({ min_gpus: 4, max_gpus: 4, hours: DEMO_USAGE_DAYS * 24 });
    expect(segmentation.avg).toBeLessThan(0.1);

    const chat = await util("language-models", "chat-eval", "gpu:A100 1g.10gb");
    expect(chat.hours).toBe(DEMO_USAGE_DAYS * 24);

    const wrong = await one<{ n: number }>(
      sql`select count(*)::int as n from usage_hourly where resource in ('cpu', 'memory')
            and (requested is null or used is null or quantity <> greatest(requested, used))`,
    );
    expect(wrong.n).toBe(0);
  });

  it("the rollup ingest built equals a recomputation from the hourly table", async () => {
    const before = await dailyRows();
    expect(before.length).toBeGreaterThan(4 * DEMO_USAGE_DAYS * 4);
    await recomputeDailyRollup(db);
    expect(await dailyRows()).toEqual(before);
  });

  it("runs once: a second call returns false and adds nothing", async () => {
    const counts = sql`select (select count(*) from usage_hourly)::int as hourly, (select sum(quantity) from usage_daily)::text as quantity, (select count(*) from instance_settings)::int as settings`;
    const before = await one(counts);
    expect(await seedDemoUsage(db, new Date(NOW.getTime() + 7 * DAY))).toBe(false);
    expect(await one(counts)).toEqual(before);
    const log = await auditLog(db);
    expect(log.filter((e) => e.action === "demo.usage_seeded")).toHaveLength(1);
  });
});
