import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { instanceSettings, nodePools, quotaGrantLines, quotaGrants, rates } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { sumMinor, toMinor } from "@/lib/money";
import { recordPoolSize } from "@/lib/quota/pool-sizes";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { HOUR, projectIdOf, seededDatabase } from "@/test/tenancy";
import { focusExport } from "./focus-query";
import { IDLE_COST_KEY, storedChanges } from "./idle-mode";
import { ingestUsage } from "./ingest";
import { platformSpendReport, tenantSpendReport } from "./report";
import { resolveWindow, spendQueryInput } from "./window";

/**
 * Odd cents in the FOCUS export's idle lines, on a known answer: a 3-core pool
 * at 0.1237 a core-hour costs 8.9064 a day, so each day rounded on its own is
 * 8.91 but three days rounded once are 26.72. Idle is charged back day by day
 * (8.91 less the day's use, by the guarantees, 1 : 2 across two tenants), so
 * the idle left apart over the window is -0.01; the platform's export carries
 * it, and its rows add up to the cluster cost to the cent.
 */
const NOW = new Date("2026-05-06T12:00:00Z");
const START = Date.parse("2026-05-01T00:00:00Z");
const seeded = seededDatabase(new Date("2026-04-01T00:00:00Z"));
let ctx: CommandContext;
const minor = (v: number) => toMinor(v, 2);
const cents = (values: readonly (number | null)[]) => sumMinor(values.map((v) => minor(v ?? 0)));

function windowOf(granularity: "day" | "month") {
  const r = resolveWindow(spendQueryInput.parse({ range: "custom", from: "2026-05-01", to: "2026-05-03", granularity }), NOW);
  if (!("window" in r)) throw new Error("the days resolve");
  return r.window;
}

beforeAll(async () => {
  const db = seeded.db;
  for (const table of ["usage_daily", "usage_hourly", "rates", "node_pool_sizes", "quota_grant_lines", "quota_grants"]) await db.execute(sql`delete from ${sql.identifier(table)}`);
  // Only this pool: the demo's pools would add capacity of their own.
  await db.execute(sql`delete from node_pools`);
  ctx = await contextOf(db, "platform-admin", NOW);
  const [pool] = await db.insert(nodePools).values({ name: "odd-cents", nodeCount: 1, cpuPerNode: 3, memoryBytesPerNode: 0, createdAt: new Date(START) }).returning();
  await recordPoolSize(db, pool!, new Date(START));
  await db.insert(rates).values({ resource: "cpu", unitPrice: "0.1237", effectiveFrom: new Date(START - 30 * 24 * HOUR) });
  const detector = await projectIdOf(db, "vision-lab", "detector-training");
  const pretraining = await projectIdOf(db, "language-models", "pretraining");
  for (const [projectId, cores] of [
    [detector, "1"],
    [pretraining, "2"],
  ] as const) {
    const [grant] = await db.insert(quotaGrants).values({ projectId, startsAt: new Date(START - 24 * HOUR), source: "demo" }).returning();
    await db.insert(quotaGrantLines).values({ grantId: grant!.id, flavor: "default", resource: "cpu", guarantee: cores });
  }
  // One core-hour on the first day: a 0.12 line.
  await ingestUsage(db, "push:test", [{ projectId: detector, tenantId: seeded.tenantId["vision-lab"]!, resource: "cpu", hour: new Date(START + 9 * HOUR), quantity: 1 }], NOW);
  await db.insert(instanceSettings).values({ key: IDLE_COST_KEY, value: storedChanges([{ mode: "chargeback", effectiveFrom: new Date(START - 24 * HOUR) }]) });
});

describe(`odd cents in the FOCUS export's idle lines (${databaseLabel()})`, () => {
  it.each(["day", "month"] as const)("by %s: the days charged back in full leave -0.01 apart, and the rows add up to the cluster cost", async (granularity) => {
    const window = windowOf(granularity);
    const platform = await platformSpendReport(ctx, window);
    const k = platform.cluster!;
    expect([k.capacityCost, k.allocatedCost, k.idleCost, platform.totalCost]).toEqual([26.72, 0.12, 26.6, 0.12]);
    // Each day's 8.91 (the first less its 0.12 of use) charged back: 8.79 + 8.91 + 8.91.
    expect(platform.idleCost.chargedBack).toBe(26.61);
    expect(platform.idleCost.apart).toBe(-0.01);

    const focus = await focusExport(ctx, { kind: "platform" }, window);
    expect(cents(focus.rows.map((r) => r.BilledCost))).toBe(minor(k.totalCost));
    const apart = focus.rows.filter((r) => r.x_IdleCost === "apart");
    expect(cents(apart.map((r) => r.BilledCost))).toBe(-1);
    expect(apart.every((r) => r.ChargeCategory === "Adjustment" && r.BillingAccountId === "platform")).toBe(true);
    const charged = focus.rows.filter((r) => r.x_IdleCost === "chargeback");
    expect(cents(charged.map((r) => r.BilledCost))).toBe(2661);
    // The 1 : 2 split, day by day by largest remainder, is the pages' split per tenant.
    for (const t of platform.byTenant!) {
      expect(cents(charged.filter((r) => r.x_Tenant === t.slug).map((r) => r.BilledCost)), t.slug).toBe(minor(t.idleChargedBack!));
      const tenant = await tenantSpendReport(ctx, t.slug, window);
      const own = await focusExport(ctx, { kind: "tenant", tenant: t.slug }, window);
      expect(cents(own.rows.filter((r) => r.x_IdleCost === "chargeback").map((r) => r.BilledCost)), t.slug).toBe(minor(tenant.idleCost.chargedBack));
    }
    // Per day 1 : 2 of 8.79 (2.93, 5.86) and twice of 8.91 (2.97, 5.94).
    expect(new Map(platform.byTenant!.map((t) => [t.slug, t.idleChargedBack]))).toEqual(new Map([["vision-lab", 8.87], ["language-models", 17.74]]));
  });
});
