import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/db/client";
import { auditEvents } from "@/db/schema";
import { metrics } from "@/lib/observability/metrics";
import { databaseLabel } from "@/test/database";
import { rejectionOf, rowsOf, errorText } from "@/test/fixtures";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { ingestUsage, type UsageSample } from "./ingest";
import { ensureUsagePartitions, listUsagePartitions } from "./partitions";
import { applyUsageRetention, usagePartitionsJob } from "./retention";

/**
 * usage_hourly and usage_daily are partitioned by UTC month (migration 0027):
 * a batch's months are created before its rows, once however many senders and
 * replicas ask at the same moment; a month without a partition refuses rows
 * (there is no DEFAULT partition); retention drops whole months of both
 * tables, with an audit event, and nothing of the months it keeps.
 */
const SEEDED_AT = new Date("2026-03-01T00:00:00.000Z");
const NOW = new Date("2026-03-10T00:00:00.000Z");
const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let projectId: string;
let tenantId: string;

const sample = (resource: string, hour: string, quantity: number): UsageSample => ({ projectId, tenantId, resource, hour: new Date(hour), quantity });
const partitionNames = async () => (await listUsagePartitions(db)).map((p) => p.name);
const monthsOf = async () => [...new Set((await listUsagePartitions(db)).map((p) => p.month))];

beforeAll(async () => {
  db = seeded.db;
  projectId = await projectIdOf(db, "vision-lab", "detector-training");
  tenantId = seeded.tenantId["vision-lab"]!;
});

describe(`monthly usage partitions (${databaseLabel()})`, () => {
  it("a batch for months without partitions creates them first, and each row lands in its month's", async () => {
    expect(await partitionNames()).not.toContain("usage_hourly_y2023m01");
    await ingestUsage(db, "push:partitions", [sample("cpu", "2023-01-31T23:00:00Z", 2), sample("cpu", "2023-02-01T00:00:00Z", 3)], NOW);
    const hourly = await rowsOf<{ part: string; quantity: number }>(db, sql`select tableoid::regclass::text as part, quantity from usage_hourly where source = 'push:partitions' order by hour`);
    expect(hourly).toEqual([
      { part: "usage_hourly_y2023m01", quantity: 2 },
      { part: "usage_hourly_y2023m02", quantity: 3 },
    ]);
    const daily = await rowsOf<{ part: string; day: string }>(
      db,
      sql`select tableoid::regclass::text as part, day::text as day from usage_daily where project_id = ${projectId} and day < '2023-03-01' order by day`,
    );
    expect(daily).toEqual([
      { part: "usage_daily_y2023m01", day: "2023-01-31" },
      { part: "usage_daily_y2023m02", day: "2023-02-01" },
    ]);
    // A batch of months that exist creates nothing.
    expect(await ensureUsagePartitions(db, new Date("2023-01-05T00:00:00Z"), new Date("2023-02-05T00:00:00Z"))).toBe(0);
  });

  it("has no DEFAULT partition: a row of a month without a partition is refused, not stored where retention cannot reach it", async () => {
    const error = await rejectionOf(db.execute(sql`insert into usage_hourly (project_id, tenant_id, resource, hour, source, quantity) values (${projectId}, ${tenantId}, 'cpu', '1990-01-01T00:00:00Z', 'push:stray', 1)`));
    expect(errorText(error)).toMatch(/no partition of relation "usage_hourly" found for row/);
    const [defaults] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from pg_partitioned_table where partdefid <> 0`);
    expect(defaults!.n).toBe(0);
  });

  it("senders and replicas creating the same months at once create each partition once, and their batches all land", async () => {
    // On PostgreSQL the pool's connections run these at once, and a second handle is another replica; PGlite is one session.
    const replica = seeded.handle.kind === "postgres" ? openDatabase(seeded.handle.target) : null;
    try {
      const other = replica?.db ?? db;
      const from = new Date("2022-01-15T00:00:00Z");
      const to = new Date("2022-06-15T00:00:00Z");
      const created = await Promise.all([ensureUsagePartitions(db, from, to), ensureUsagePartitions(db, from, to), ensureUsagePartitions(other, from, to), ensureUsagePartitions(other, from, to)]);
      expect(created.reduce((a, b) => a + b, 0)).toBe(12);
      const names = await partitionNames();
      for (const m of ["01", "02", "03", "04", "05", "06"]) {
        expect(names.filter((n) => n === `usage_hourly_y2022m${m}` || n === `usage_daily_y2022m${m}`)).toHaveLength(2);
      }
      // Two senders, on two replicas, each the first to write a new month.
      await Promise.all([
        ingestUsage(db, "push:race-a", [sample("memory", "2021-07-01T05:00:00Z", 1), sample("memory", "2021-08-01T05:00:00Z", 1)], NOW),
        ingestUsage(other, "push:race-b", [sample("memory", "2021-07-01T05:00:00Z", 2), sample("memory", "2021-08-01T05:00:00Z", 2)], NOW),
      ]);
      const [sum] = await rowsOf<{ q: number; days: number }>(
        db,
        sql`select (select sum(quantity) from usage_hourly where source like 'push:race-%')::float8 as q, (select sum(quantity) from usage_daily where project_id = ${projectId} and day between '2021-07-01' and '2021-08-31')::float8 as days`,
      );
      expect(sum).toEqual({ q: 6, days: 6 });
    } finally {
      await replica?.close();
    }
  });

  it("the leader's job makes this month's partitions and the next two ahead of the rows", async () => {
    const job = usagePartitionsJob(db, () => null);
    await job.run(NOW);
    const months = await monthsOf();
    for (const m of ["2026-03-01", "2026-04-01", "2026-05-01"]) expect(months).toContain(m);
    // Nothing left to do, nothing to say.
    expect(await job.run(NOW)).toBeNull();
  });

  it("retention drops whole months older than the horizon, hourly and rollup together, audited, and keeps the rest untouched", async () => {
    await ingestUsage(db, "push:retention", [sample("cpu", "2025-12-31T23:00:00Z", 5), sample("cpu", "2026-01-01T00:00:00Z", 7)], NOW);
    const kept = async () =>
      rowsOf<{ hourly: number; daily: number }>(
        db,
        sql`select (select count(*) from usage_hourly where hour >= '2026-01-01T00:00:00Z')::int as hourly, (select count(*) from usage_daily where day >= '2026-01-01')::int as daily`,
      );
    const keptBefore = await kept();
    const [decemberCost] = await rowsOf<{ cost: string }>(db, sql`select coalesce(sum(cost), 0)::text as cost from usage_daily where day >= '2025-12-01' and day < '2026-01-01'`);
    const droppedBefore = (await metrics().usageMonthsDropped.get()).values[0]?.value ?? 0;

    // Unset, nothing is dropped.
    expect((await applyUsageRetention(db, null, NOW)).dropped).toEqual([]);

    // Two months kept before March 2026: January and February (and March itself).
    const run = await applyUsageRetention(db, 2, NOW);
    expect(run.retainedFrom).toEqual(new Date("2026-01-01T00:00:00Z"));
    const droppedMonths = run.dropped.map((d) => d.month);
    expect(droppedMonths).toEqual(expect.arrayContaining(["2021-07-01", "2022-01-01", "2023-01-01", "2025-12-01"]));
    expect(droppedMonths.every((m) => m < "2026-01-01")).toBe(true);
    expect((await monthsOf()).every((m) => m >= "2026-01-01")).toBe(true);
    const december = run.dropped.find((d) => d.month === "2025-12-01")!;
    expect(december.hourlyRows).toBeGreaterThanOrEqual(1);
    expect(december.cost).toBe(decemberCost!.cost);
    // The kept months are whole: the first hour of January is still there, and nothing from it on was touched.
    expect(await kept()).toEqual(keptBefore);
    const [january] = await rowsOf<{ q: number }>(db, sql`select quantity as q from usage_hourly where source = 'push:retention'`);
    expect(january).toEqual({ q: 7 });

    const [event] = await db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "usage.month_dropped"), eq(auditEvents.targetId, "2025-12")));
    expect(event).toMatchObject({ actorLabel: "system:usage-retention", targetType: "usage_month", tenantId: null });
    expect(event!.after).toMatchObject({ retentionMonths: 2, retainedFrom: "2026-01-01", partitions: ["usage_daily_y2025m12", "usage_hourly_y2025m12"] });
    expect((await metrics().usageMonthsDropped.get()).values[0]!.value).toBe(droppedBefore + run.dropped.length);

    // Run again: nothing more to drop.
    expect((await applyUsageRetention(db, 2, NOW)).dropped).toEqual([]);
  });
});
