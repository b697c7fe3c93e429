import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { instanceSettings, nodePools, quotaGrantLines, quotaGrants, rates } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { recordPoolSize } from "@/lib/quota/pool-sizes";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { HOUR, projectIdOf, seededDatabase } from "@/test/tenancy";
import { focusCsv } from "./focus";
import { exportParts, focusCsvFile, focusExport, type FocusExportScope } from "./focus-query";
import { IDLE_COST_KEY, storedChanges } from "./idle-mode";
import { ingestUsage } from "./ingest";
import { moneyDigits } from "./money-sql";
import { resolveWindow, spendQueryInput } from "./window";

/**
 * The streamed FOCUS CSV (read part by part of the window) is byte for byte the file written
 * from the whole export at once, for every granularity and scope, across a month boundary,
 * with idle lines charged back and left apart between the usage rows.
 */
const NOW = new Date("2026-05-06T12:00:00Z");
const START = Date.parse("2026-04-28T00:00:00Z");
const seeded = seededDatabase(new Date("2026-04-01T00:00:00Z"));
let ctx: CommandContext;

function windowOf(granularity: "hour" | "day" | "month", from = "2026-04-28", to = "2026-05-03") {
  const r = resolveWindow(spendQueryInput.parse({ range: "custom", from, to, granularity }), NOW);
  if (!("window" in r)) throw new Error("the days resolve");
  return r.window;
}

async function text(stream: ReadableStream<Uint8Array>): Promise<{ text: string; chunks: number }> {
  let chunks = 0;
  let out = "";
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    chunks++;
    out += decoder.decode(r.value, { stream: true });
  }
  return { text: out + decoder.decode(), chunks };
}

beforeAll(async () => {
  const db = seeded.db;
  for (const table of ["usage_daily", "usage_hourly", "rates", "node_pool_sizes", "quota_grant_lines", "quota_grants"]) await db.execute(sql`delete from ${sql.identifier(table)}`);
  await db.execute(sql`delete from node_pools`);
  ctx = await contextOf(db, "platform-admin", NOW);
  const [pool] = await db.insert(nodePools).values({ name: "stream-pool", nodeCount: 2, cpuPerNode: 8, memoryBytesPerNode: 64 * 2 ** 30, createdAt: new Date(START) }).returning();
  await recordPoolSize(db, pool!, new Date(START));
  await db.insert(rates).values([
    { resource: "cpu", unitPrice: "0.0317", effectiveFrom: new Date(START - 30 * 24 * HOUR) },
    { resource: "memory", unitPrice: "0.0041", effectiveFrom: new Date(START - 30 * 24 * HOUR) },
  ]);
  const detector = await projectIdOf(db, "vision-lab", "detector-training");
  const segmentation = await projectIdOf(db, "vision-lab", "segmentation-research");
  const pretraining = await projectIdOf(db, "language-models", "pretraining");
  for (const [projectId, cores] of [
    [detector, "2"],
    [pretraining, "5"],
  ] as const) {
    const [grant] = await db.insert(quotaGrants).values({ projectId, startsAt: new Date(START - 24 * HOUR), source: "demo" }).returning();
    await db.insert(quotaGrantLines).values({ grantId: grant!.id, flavor: "default", resource: "cpu", guarantee: cores });
  }
  // Usage on most days (not all: an empty day writes nothing but its idle line), odd hours, three projects in two tenants.
  const samples = [];
  for (let day = 0; day < 6; day++) {
    if (day === 2) continue;
    for (const [projectId, tenant, hour, quantity] of [
      [detector, "vision-lab", 3, 1.5],
      [detector, "vision-lab", 17, 2.25],
      [segmentation, "vision-lab", 9, 0.75],
      [pretraining, "language-models", 23, 4],
    ] as const) {
      const at = new Date(START + day * 24 * HOUR + hour * HOUR);
      samples.push({ projectId, tenantId: seeded.tenantId[tenant]!, resource: "cpu", hour: at, quantity });
      samples.push({ projectId, tenantId: seeded.tenantId[tenant]!, resource: "memory", hour: at, quantity: quantity * 8 });
    }
  }
  await ingestUsage(db, "push:test", samples, NOW);
  // Charged back from the second day on: the first day's idle stays apart, the rest is charged.
  await db.insert(instanceSettings).values({ key: IDLE_COST_KEY, value: storedChanges([{ mode: "chargeback", effectiveFrom: new Date(START + 24 * HOUR) }]) });
});

describe(`a streamed FOCUS export (${databaseLabel()})`, () => {
  const scopes: [string, FocusExportScope][] = [
    ["platform", { kind: "platform" }],
    ["tenant", { kind: "tenant", tenant: "vision-lab" }],
    ["project", { kind: "project", tenant: "vision-lab", project: "detector-training" }],
  ];
  for (const granularity of ["hour", "day", "month"] as const) {
    it.each(scopes)(`by ${granularity}, %s: the same bytes as the whole export written at once, in more than one part`, async (_label, scope) => {
      const window = windowOf(granularity);
      const whole = focusCsv((await focusExport(ctx, scope, window)).rows, moneyDigits());
      const file = await focusCsvFile(ctx, scope, window);
      const streamed = await text(file.csv);
      expect(whole.split("\r\n").length).toBeGreaterThan(5);
      expect(streamed.text).toBe(whole);
      // Read part by part, not at once: the header, then a chunk per part that had rows.
      expect(streamed.chunks).toBeGreaterThan(2);
      expect(file.filename).toMatch(/^allot-focus-.+-2026-04-28-to-2026-05-03-/);
    });
  }

  it("a window with no usage streams the header and the idle lines, as the whole export does", async () => {
    const window = windowOf("day", "2026-05-05", "2026-05-05");
    const whole = focusCsv((await focusExport(ctx, { kind: "platform" }, window)).rows, moneyDigits());
    expect((await text((await focusCsvFile(ctx, { kind: "platform" }, window)).csv)).text).toBe(whole);
  });

  it("reads a window by UTC day, and by calendar month clipped to it", () => {
    expect(exportParts(windowOf("day")).map((p) => p.from.toISOString().slice(0, 10))).toEqual(["2026-04-28", "2026-04-29", "2026-04-30", "2026-05-01", "2026-05-02", "2026-05-03"]);
    expect(exportParts(windowOf("month")).map((p) => [p.from.toISOString().slice(0, 10), p.to.toISOString().slice(0, 10)])).toEqual([
      ["2026-04-28", "2026-05-01"],
      ["2026-05-01", "2026-05-04"],
    ]);
  });

  it("decides access before the first byte: another tenant's admin gets not_found, not a stream", async () => {
    const other = await contextOf(seeded.db, "language-admin", NOW);
    await expect(focusCsvFile(other, { kind: "tenant", tenant: "vision-lab" }, windowOf("day"))).rejects.toMatchObject({ code: "not_found" });
  });
});
