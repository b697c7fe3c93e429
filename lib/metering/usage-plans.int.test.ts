import { describe, expect, it } from "vitest";
import { databaseLabel } from "@/test/database";
import { fullScansOf } from "@/test/query-plans";
import { recordStatements } from "@/test/sql-statements";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { borrowedByResource } from "./borrowed";
import { focusSourceRows } from "./focus-query";
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
