import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { CommandContext } from "@/lib/auth/context";
import { executeCommand } from "@/lib/auth/command";
import { seedDemoUsage } from "@/lib/demo/usage";
import { addRate } from "@/lib/quota/commands/capacity";
import { databaseLabel } from "@/test/database";
import { contextOf, rowsOf } from "@/test/fixtures";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { ingestUsage } from "./ingest";
import { platformSpendReport, projectSpendReport, tenantSpendReport, type SpendReport } from "./report";
import { resolveWindow, spendQueryInput, type ResolvedWindow } from "./window";

/**
 * The spend reports' cache (report-cache.ts) on the demo story: a report
 * served from the cache is the freshly computed one to the cent; an ingest
 * and a price change are seen by the very next read; an entry is never
 * served for another scope, even when its row claims to be the asked one's.
 */
const SEEDED_AT = new Date("2026-06-01T00:00:00.000Z");
const NOW = new Date("2026-06-15T14:30:00.000Z");
const seeded = seededDatabase(SEEDED_AT);
let admin: CommandContext;
let alex: CommandContext;
let projectId: string;
let tenantId: string;

function windowOf(range: "7d" | "30d", granularity: "hour" | "day"): ResolvedWindow {
  const resolved = resolveWindow(spendQueryInput.parse({ range, granularity }), NOW);
  if (!("window" in resolved)) throw new Error("a named window resolves");
  return resolved.window;
}
const entries = async () => (await rowsOf<{ n: number }>(seeded.db, sql`select count(*)::int as n from spend_report_cache`))[0]!.n;
const emptyCache = () => seeded.db.execute(sql`delete from spend_report_cache`);
const asJson = (r: SpendReport) => JSON.parse(JSON.stringify(r)) as unknown;

beforeAll(async () => {
  expect(await seedDemoUsage(seeded.db, NOW)).toBe(true);
  admin = await contextOf(seeded.db, "platform-admin", NOW);
  alex = await contextOf(seeded.db, "vision-admin", NOW);
  projectId = await projectIdOf(seeded.db, "vision-lab", "detector-training");
  tenantId = seeded.tenantId["vision-lab"]!;
}, 240_000);

describe(`cached spend reports (${databaseLabel()})`, () => {
  it.each([
    ["30d", "day"],
    ["7d", "hour"],
  ] as const)("%s by %s: the cached report of each scope is the fresh one, to the cent", async (range, granularity) => {
    const window = windowOf(range, granularity);
    const reports = {
      project: () => projectSpendReport(alex, "vision-lab", "detector-training", window),
      tenant: () => tenantSpendReport(alex, "vision-lab", window),
      platform: () => platformSpendReport(admin, window),
    };
    for (const produce of Object.values(reports)) {
      await emptyCache();
      const fresh = await produce();
      expect(await entries()).toBe(1);
      const cached = await produce();
      expect(fresh.totalCost).toBeGreaterThan(0);
      expect(asJson(cached)).toEqual(asJson(fresh));
    }
  });

  it("serves the stored entry while the data stays as it was (it is the cache that answers)", async () => {
    const window = windowOf("30d", "day");
    await emptyCache();
    const fresh = await projectSpendReport(alex, "vision-lab", "detector-training", window);
    // Tamper with the stored figures: an unchanged fingerprint means the entry is served as stored.
    await seeded.db.execute(sql`update spend_report_cache set body = replace(body, '"demo":true', '"demo":false')`);
    expect(fresh.demo).toBe(true);
    expect((await projectSpendReport(alex, "vision-lab", "detector-training", window)).demo).toBe(false);
    await emptyCache();
  });

  it("an ingest is seen by the next read of the project, its tenant and the platform", async () => {
    const window = windowOf("30d", "day");
    const read = () => Promise.all([projectSpendReport(alex, "vision-lab", "detector-training", window), tenantSpendReport(alex, "vision-lab", window), platformSpendReport(admin, window)]);
    const before = await read();
    expect(asJson((await read())[0])).toEqual(asJson(before[0]));
    // 10 more H100-hours at 4.10 in an hour of the window.
    const hour = new Date("2026-06-10T03:00:00.000Z");
    await ingestUsage(seeded.db, "cache-test", [{ projectId, tenantId, resource: "gpu:H100", hour, quantity: 10 }], NOW);
    const after = await read();
    for (let i = 0; i < 3; i++) expect(Math.round((after[i]!.totalCost - before[i]!.totalCost) * 100)).toBe(4100);
    // And the new figures are the fresh ones.
    await emptyCache();
    const fresh = await read();
    for (let i = 0; i < 3; i++) expect(asJson(after[i]!)).toEqual(asJson(fresh[i]!));
  });

  it("a price change is seen by the next read", async () => {
    const window = windowOf("30d", "day");
    const before = await projectSpendReport(alex, "vision-lab", "detector-training", window);
    const cpu = before.byResource.find((r) => r.resource === "cpu")!;
    expect(cpu.quantity).toBeGreaterThan(0);
    // A higher CPU price from before the window reprices every CPU hour in it.
    await executeCommand(addRate, admin, { resource: "cpu", unitPrice: "1.000", effectiveFrom: "2026-05-01" });
    const after = await projectSpendReport(alex, "vision-lab", "detector-training", window);
    expect(after.byResource.find((r) => r.resource === "cpu")!.cost).toBeGreaterThan(cpu.cost);
    await emptyCache();
    expect(asJson(await projectSpendReport(alex, "vision-lab", "detector-training", window))).toEqual(asJson(after));
  });

  it("never serves an entry for another scope, even one whose row names the asked scope", async () => {
    const window = windowOf("30d", "day");
    await emptyCache();
    const vision = await tenantSpendReport(admin, "vision-lab", window);
    const language = await tenantSpendReport(admin, "language-models", window);
    expect(language.totalCost).not.toBe(vision.totalCost);
    // Move language-models' figures into vision-lab's row: the key is vision-lab's but the row now claims another scope.
    await seeded.db.execute(sql`
      update spend_report_cache v set body = l.body, scope = l.scope
      from spend_report_cache l where v.scope = ${`tenant:${tenantId}`} and l.scope <> v.scope`);
    const again = await tenantSpendReport(admin, "vision-lab", window);
    expect(asJson(again)).toEqual(asJson(vision));
    // A member of vision-lab asking for language-models is refused before any cache is read.
    await expect(tenantSpendReport(alex, "language-models", window)).rejects.toMatchObject({ code: "not_found" });
  });
});
