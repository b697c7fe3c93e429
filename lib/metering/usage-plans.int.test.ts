import { beforeAll, describe, expect, it } from "vitest";
import { databaseLabel } from "@/test/database";
import { fullScansOf, plannedReadsOf } from "@/test/query-plans";
import { recordStatements } from "@/test/sql-statements";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { borrowedByResource } from "./borrowed";
import { focusSourceRows } from "./focus-query";
import { ensureUsagePartitions, utcMonthsLater } from "./partitions";
import { dailyCosts, spendByResource, spendSeries, windowHasDemoData } from "./spend";
import { resolveWindow, spendQueryInput } from "./window";

/**
 * The usage tables grow by a row per project, resource and hour: a project's
 * query must reach its rows through an index, never by reading the whole table.
 * Each usage query a project's spend page, API answer and export send is
 * recorded and planned again with sequential scans switched off
 * (test/query-plans.ts): a plan that still scans usage_hourly or usage_daily
 * in full has no index to use.
 */
const NOW = new Date("2026-05-06T12:00:00Z");
const seeded = seededDatabase(new Date("2026-04-01T00:00:00Z"));

const USAGE_TABLES = ["usage_hourly", "usage_daily"] as const;

function windowOf(granularity: "hour" | "day" | "month") {
  const r = resolveWindow(spendQueryInput.parse({ range: "custom", from: "2026-04-20", to: "2026-05-05", granularity }), NOW);
  if (!("window" in r)) throw new Error("the days resolve");
  return r.window;
}

describe(`a project's usage queries go through an index (${databaseLabel()})`, () => {
  it("every statement on usage_hourly or usage_daily of the project's series, drivers, borrowing, daily costs and export", async () => {
    const db = seeded.db;
    const scope = { projectId: await projectIdOf(db, "vision-lab", "detector-training") };
    const { statements } = await recordStatements(async () => {
      for (const granularity of ["hour", "day", "month"] as const) {
        const window = windowOf(granularity);
        await spendSeries(db, scope, window, granularity);
        await focusSourceRows(db, scope, window);
      }
      const window = windowOf("day");
      await spendByResource(db, scope, window);
      await borrowedByResource(db, scope, window);
      await dailyCosts(db, scope, window);
      await windowHasDemoData(db, scope, window);
    });
    const usage = statements.filter((s) => /\busage_(hourly|daily)\b/.test(s.text));
    // Both tables are read: hours by the hourly series, borrowing and export, days by the rest.
    expect(usage.some((s) => s.text.includes("usage_hourly"))).toBe(true);
    expect(usage.some((s) => s.text.includes("usage_daily"))).toBe(true);
    for (const s of usage) expect(await fullScansOf(db, s, USAGE_TABLES), s.text.slice(0, 200)).toEqual([]);
  });

  it("would catch a query with no index to use", async () => {
    // Quantity has no index: filtering the hourly table by it alone must show as a full scan.
    expect(await fullScansOf(seeded.db, { text: "select count(*) from usage_hourly where quantity = $1", params: ["3"], wave: 0 }, USAGE_TABLES)).toEqual(["usage_hourly"]);
  });
});

/**
 * The usage tables are partitioned by month (migration 0027): a project's
 * year must be planned on that year's twelve partitions only (the planner
 * prunes the others by the window's bounds), each through an index. Months
 * exist on both sides of the year, so a query that lost its window would plan
 * on them and fail here.
 */
describe(`a project's year reads only the year's monthly partitions, each through an index (${databaseLabel()})`, () => {
  const YEAR_FROM = new Date("2025-04-01T00:00:00Z");
  const yearMonths = Array.from({ length: 12 }, (_, i) => utcMonthsLater(YEAR_FROM, i).toISOString().slice(0, 7).replace("-", "m"));
  const partitionsOf = (table: string) => yearMonths.map((m) => `${table}_y${m}`).sort();

  function yearWindow() {
    const r = resolveWindow(spendQueryInput.parse({ range: "custom", from: "2025-04-01", to: "2026-03-31", granularity: "month" }), NOW);
    if (!("window" in r)) throw new Error("the year resolves");
    return r.window;
  }

  beforeAll(async () => {
    // Months before and after the year (besides the seeded ones around NOW).
    await ensureUsagePartitions(seeded.db, new Date("2024-10-01T00:00:00Z"), new Date("2026-08-01T00:00:00Z"));
  });

  it("every usage statement of the project's year: series, drivers, borrowing, daily costs, demo flag and export", async () => {
    const db = seeded.db;
    const scope = { projectId: await projectIdOf(db, "vision-lab", "detector-training") };
    const window = yearWindow();
    const { statements } = await recordStatements(async () => {
      await spendSeries(db, scope, window, "month");
      await spendByResource(db, scope, window);
      await borrowedByResource(db, scope, window);
      await dailyCosts(db, scope, window);
      await windowHasDemoData(db, scope, window);
      await focusSourceRows(db, scope, window);
    });
    const usage = statements.filter((s) => /\busage_(hourly|daily)\b/.test(s.text));
    expect(usage.some((s) => s.text.includes("usage_hourly"))).toBe(true);
    const planned = { usage_hourly: 0, usage_daily: 0 };
    for (const s of usage) {
      const reads = (await plannedReadsOf(db, s)).filter((r) => r.table === "usage_hourly" || r.table === "usage_daily");
      for (const table of ["usage_hourly", "usage_daily"] as const) {
        const months = [...new Set(reads.filter((r) => r.table === table).map((r) => r.relation))].sort();
        // A statement reads a table's twelve months or none of them (the hourly table for some, the rollup for others).
        if (months.length === 0) continue;
        planned[table] += 1;
        expect(months, `${table} in ${s.text.slice(0, 200)}`).toEqual(partitionsOf(table));
      }
      expect(reads.filter((r) => r.node === "Seq Scan").map((r) => r.relation), s.text.slice(0, 200)).toEqual([]);
    }
    // Borrowing reads a year of hours (hourly series and exports stop at 31 days); the series, drivers, daily costs and export the rollup.
    expect(planned.usage_hourly).toBeGreaterThanOrEqual(1);
    expect(planned.usage_daily).toBeGreaterThanOrEqual(4);
  });

  it("would catch a project query without the window's bounds, and a sequential scan of the hourly months", async () => {
    const db = seeded.db;
    const projectId = await projectIdOf(db, "vision-lab", "detector-training");
    const unbounded = await plannedReadsOf(db, { text: "select sum(quantity) from usage_hourly where project_id = $1", params: [projectId], wave: 0 });
    const months = new Set(unbounded.map((r) => r.relation));
    expect(months).toContain("usage_hourly_y2024m10");
    expect(months.size).toBeGreaterThan(12);
    // Quantity has no index: each month is read in full, and counts as a full scan of usage_hourly.
    const byQuantity = { text: "select count(*) from usage_hourly where quantity = $1", params: ["3"], wave: 0 };
    const scans = (await plannedReadsOf(db, byQuantity)).filter((r) => r.node === "Seq Scan");
    expect(scans.map((r) => r.table)).toContain("usage_hourly");
    expect(scans.map((r) => r.relation)).toEqual(expect.arrayContaining(partitionsOf("usage_hourly")));
    expect(await fullScansOf(db, byQuantity, USAGE_TABLES)).toEqual(["usage_hourly"]);
  });
});
