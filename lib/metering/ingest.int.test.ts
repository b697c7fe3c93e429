import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { rates } from "@/db/schema";
import { databaseLabel } from "@/test/database";
import { rowsOf } from "@/test/fixtures";
import { HOUR, projectIdOf, seededDatabase } from "@/test/tenancy";
import { ingestUsage, type UsageSample } from "./ingest";
import { recomputeDailyRollup } from "./rollup";

/**
 * Ingest on a real database: a sample replaces its source's earlier figure,
 * so a retried batch never double counts; the daily rollup moves with every
 * batch and equals a recomputation from the hourly table; a price added later
 * reprices the days from its start when the rollup is recomputed.
 */
const SEEDED_AT = new Date("2026-03-01T00:00:00.000Z");
const NOW = new Date("2026-03-10T00:00:00.000Z");
const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let projectId: string;
let tenantId: string;

type DailyRow = { resource: string; day: string; quantity: string; cost: string; unpriced_quantity: string; gpu_measured_hours: string; gpu_busy_hours: string; has_demo: boolean };
const daily = (pid: string) =>
  rowsOf<DailyRow>(db, sql`select resource, day::text as day, quantity::text, cost::text, unpriced_quantity::text, gpu_measured_hours::text, gpu_busy_hours::text, has_demo from usage_daily where project_id = ${pid} order by day, resource`);
const asNumbers = (rows: DailyRow[]) =>
  rows.map((r) => ({ resource: r.resource, day: r.day, quantity: Number(r.quantity), cost: Number(Number(r.cost).toFixed(6)), unpriced: Number(r.unpriced_quantity), measured: Number(r.gpu_measured_hours), busy: Number(Number(r.gpu_busy_hours).toFixed(9)), demo: r.has_demo }));

const at = (iso: string) => new Date(iso);
const sample = (resource: string, hour: string, quantity: number, extra: Partial<UsageSample> = {}): UsageSample => ({ projectId, tenantId, resource, hour: at(hour), quantity, ...extra });

beforeAll(async () => {
  db = seeded.db;
  projectId = await projectIdOf(db, "vision-lab", "detector-training");
  tenantId = seeded.tenantId["vision-lab"]!;
});

describe(`usage ingest (${databaseLabel()})`, () => {
  it("stores a batch and rolls it up per day at the rate in force each hour", async () => {
    await ingestUsage(db, "push:a", [
      sample("gpu:H100", "2026-03-02T10:00:00Z", 2, { gpuUtilization: 0.5 }),
      sample("gpu:H100", "2026-03-02T11:00:00Z", 4, { gpuUtilization: 0.25 }),
      sample("cpu", "2026-03-02T10:00:00Z", 8, { requested: 8, used: 3.5 }),
      sample("storage", "2026-03-02T10:00:00Z", 730),
      sample("inference", "2026-03-02T10:00:00Z", 5000),
      sample("tokens", "2026-03-02T10:00:00Z", 10),
    ], NOW);
    // Seeded prices from 2026-01-01: H100 4.10/GPU-hour, cpu 0.031/core-hour, storage 0.08/GiB-month, inference 0.02/1,000.
    expect(asNumbers(await daily(projectId))).toEqual([
      { resource: "cpu", day: "2026-03-02", quantity: 8, cost: 0.248, unpriced: 0, measured: 0, busy: 0, demo: false },
      { resource: "gpu:H100", day: "2026-03-02", quantity: 6, cost: 24.6, unpriced: 0, measured: 6, busy: 2, demo: false },
      { resource: "inference", day: "2026-03-02", quantity: 5000, cost: 0.1, unpriced: 0, measured: 0, busy: 0, demo: false },
      { resource: "storage", day: "2026-03-02", quantity: 730, cost: 0.08, unpriced: 0, measured: 0, busy: 0, demo: false },
      { resource: "tokens", day: "2026-03-02", quantity: 10, cost: 0, unpriced: 10, measured: 0, busy: 0, demo: false },
    ]);
  });

  it("a retried batch changes nothing, and a corrected figure replaces the old one", async () => {
    const before = await daily(projectId);
    await ingestUsage(db, "push:a", [sample("gpu:H100", "2026-03-02T10:00:00Z", 2, { gpuUtilization: 0.5 })], NOW);
    expect(await daily(projectId)).toEqual(before);

    await ingestUsage(db, "push:a", [sample("gpu:H100", "2026-03-02T10:00:00Z", 3, { gpuUtilization: null })], NOW);
    const gpu = asNumbers(await daily(projectId)).find((r) => r.resource === "gpu:H100")!;
    expect(gpu).toMatchObject({ quantity: 7, cost: 28.7, measured: 4, busy: 1 });
  });

  it("another source's figure for the same hour is added, not replaced", async () => {
    await ingestUsage(db, "prometheus", [sample("gpu:H100", "2026-03-02T10:00:00Z", 1)], NOW);
    const gpu = asNumbers(await daily(projectId)).find((r) => r.resource === "gpu:H100")!;
    expect(gpu.quantity).toBe(8);
  });

  it("refuses a batch naming the same key twice, and writes nothing", async () => {
    const before = await daily(projectId);
    await expect(
      ingestUsage(db, "push:a", [sample("cpu", "2026-03-03T00:00:00Z", 1), sample("cpu", "2026-03-03T00:00:00Z", 2)], NOW),
    ).rejects.toThrow(/samples 0 and 1/);
    expect(await daily(projectId)).toEqual(before);
  });

  it("one batch of new, corrected and resent samples stores each once and moves the rollup by the differences", async () => {
    await ingestUsage(db, "push:mix", [sample("cpu", "2026-03-05T00:00:00Z", 4, { requested: 4, used: 2 }), sample("cpu", "2026-03-05T01:00:00Z", 4, { requested: 4, used: 2 })], NOW);
    await ingestUsage(db, "push:mix", [
      sample("cpu", "2026-03-05T00:00:00Z", 4, { requested: 4, used: 2 }), // resent, unchanged
      sample("cpu", "2026-03-05T01:00:00Z", 6, { requested: 4, used: 6 }), // corrected
      sample("cpu", "2026-03-05T02:00:00Z", 5, { requested: 4, used: 5 }), // new
    ], NOW);
    const hourly = await rowsOf<{ hour: string; quantity: number; used: number }>(db, sql`select to_char(hour at time zone 'UTC', 'HH24') as hour, quantity, used from usage_hourly where source = 'push:mix' order by hour`);
    expect(hourly.map((r) => [r.hour, Number(r.quantity), Number(r.used)])).toEqual([["00", 4, 2], ["01", 6, 6], ["02", 5, 5]]);
    const cpu = asNumbers(await daily(projectId)).find((r) => r.resource === "cpu" && r.day === "2026-03-05")!;
    expect(cpu).toMatchObject({ quantity: 15, cost: 0.465 });
  });

  it("a batch the hourly table refuses (a quantity out of range) leaves the rollup as it was", async () => {
    const before = await daily(projectId);
    // Refused by the COPY of new rows (after the rollup moved), and by the replacement of an existing row.
    const refused = (e: unknown) => /usage_hourly_quantity/.test(`${String(e)} ${String((e as { cause?: unknown }).cause)}`);
    await expect(ingestUsage(db, "push:mix", [sample("cpu", "2026-03-05T03:00:00Z", 1), sample("cpu", "2026-03-05T04:00:00Z", 1e13)], NOW)).rejects.toSatisfy(refused);
    await expect(ingestUsage(db, "push:mix", [sample("cpu", "2026-03-05T02:00:00Z", 1e13)], NOW)).rejects.toSatisfy(refused);
    expect(await daily(projectId)).toEqual(before);
    expect(await rowsOf(db, sql`select 1 from usage_hourly where source = 'push:mix' and quantity > 5`)).toEqual([{ "?column?": 1 }]);
  });

  it("concurrent batches for the same keys leave the rollup equal to the hourly table", async () => {
    const batch = (q: number) => Array.from({ length: 24 }, (_, h) => sample("memory", new Date(Date.parse("2026-03-04T00:00:00Z") + h * HOUR).toISOString(), q + h));
    await Promise.all([ingestUsage(db, "push:b", batch(10), NOW), ingestUsage(db, "push:b", batch(20), NOW), ingestUsage(db, "push:c", batch(1), NOW)]);
    const incremental = asNumbers(await daily(projectId));
    await recomputeDailyRollup(db, { projectId });
    expect(asNumbers(await daily(projectId))).toEqual(incremental);
  });

  it("a price added later reprices the hours from its start when the rollup is recomputed", async () => {
    await db.insert(rates).values({ resource: "gpu:H100", unitPrice: "5.00", effectiveFrom: at("2026-03-02T11:00:00Z"), createdAt: NOW });
    await recomputeDailyRollup(db, { resource: "gpu:H100", fromDay: "2026-03-02" });
    const gpu = asNumbers(await daily(projectId)).find((r) => r.resource === "gpu:H100")!;
    // 10:00 holds 3 (push:a) + 1 (prometheus) at 4.10; 11:00 holds 4 at 5.00.
    expect(gpu.cost).toBeCloseTo(4 * 4.1 + 4 * 5, 6);
  });
});
