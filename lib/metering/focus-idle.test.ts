import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sumMinor, toMinor } from "@/lib/money";
import { chargeBackPeriod, type GuaranteeWeight } from "./chargeback";
import { FOCUS_COLUMN_NAMES, focusCsv, focusRows, type FocusSourceRow } from "./focus";
import { idleFocusRows, mergeIdleRows, PLATFORM_ACCOUNT, type IdleDay, type IdleProject } from "./focus-idle";

const DAY = 86_400_000;
const START = Date.parse("2026-03-30T00:00:00Z");
const window = (days: number) => ({ from: new Date(START), to: new Date(START + days * DAY) });

const PROJECTS: IdleProject[] = [
  { projectId: "p-1", slug: "detector", name: "Detector", tenantId: "t-1", tenantSlug: "vision", tenantName: "Vision", costCentre: "CC-1" },
  { projectId: "p-2", slug: "segmenter", name: "Segmenter", tenantId: "t-1", tenantSlug: "vision", tenantName: "Vision", costCentre: "CC-1" },
  { projectId: "p-3", slug: "chat", name: "Chat", tenantId: "t-2", tenantSlug: "speech", tenantName: "Speech", costCentre: "" },
];
const byId = new Map(PROJECTS.map((p) => [p.projectId, p]));
const cents = (rows: readonly { BilledCost: number | null }[]) => sumMinor(rows.map((r) => toMinor(r.BilledCost ?? 0, 2)));

function day(i: number, idle: number, charged: [string, number][] = []): IdleDay {
  return { from: new Date(START + i * DAY), to: new Date(START + (i + 1) * DAY), idle, charged: new Map(charged) };
}

describe("idle capacity as FOCUS lines", () => {
  it("apart: one platform line per day, an Adjustment with no quantity, charged to no project", () => {
    const rows = idleFocusRows([day(0, 12_345), day(1, 7)], byId, { platform: true }, "day", window(2), "USD", 2);
    expect(rows.map((r) => [r.ChargePeriodStart, r.ChargePeriodEnd, r.BilledCost])).toEqual([
      ["2026-03-30T00:00:00Z", "2026-03-31T00:00:00Z", 123.45],
      ["2026-03-31T00:00:00Z", "2026-04-01T00:00:00Z", 0.07],
    ]);
    expect(rows[0]).toMatchObject({
      BillingAccountId: PLATFORM_ACCOUNT.id,
      ChargeCategory: "Adjustment",
      ChargeClass: null,
      ConsumedQuantity: null,
      ConsumedUnit: null,
      PricingQuantity: null,
      PricingUnit: null,
      SubAccountId: null,
      ResourceType: "Idle capacity",
      ServiceCategory: "Compute",
      x_IdleCost: "apart",
      x_Tenant: null,
      Tags: {},
    });
    expect(rows[1]!.BillingPeriodStart).toBe("2026-03-01T00:00:00Z");
    // A tenant's or project's export has no idle apart: it is charged to nobody.
    expect(idleFocusRows([day(0, 12_345)], byId, { tenantId: "t-1" }, "day", window(1), "USD", 2)).toEqual([]);
  });

  it("chargeback: each project's share is its own line on its tenant's account, and what is left stays apart", () => {
    const days = [day(0, 1_001, [["p-1", 500], ["p-2", 250], ["p-3", 250]]), day(1, -300)];
    const rows = idleFocusRows(days, byId, { platform: true }, "day", window(2), "EUR", 2);
    expect(rows.map((r) => [r.ChargePeriodStart.slice(0, 10), r.BillingAccountId, r.SubAccountId, r.x_IdleCost, r.BilledCost])).toEqual([
      ["2026-03-30", "t-2", "p-3", "chargeback", 2.5],
      ["2026-03-30", "t-1", "p-1", "chargeback", 5],
      ["2026-03-30", "t-1", "p-2", "chargeback", 2.5],
      ["2026-03-30", "platform", null, "apart", 0.01],
      ["2026-03-31", "platform", null, "apart", -3],
    ]);
    expect(rows[1]).toMatchObject({ ChargeCategory: "Adjustment", BillingCurrency: "EUR", Tags: { tenant: "vision", project: "detector", costCentre: "CC-1" } });
    expect(rows[1]!.ChargeDescription).toMatch(/charged back to Detector/);
    expect(rows[4]!.ChargeDescription).toMatch(/negative/);
    // A negative cost stays a number in the CSV (no formula guard on a plain number).
    expect(focusCsv([rows[4]!], 2)).toContain(",-3.00,-3.00,-3.00,-3.00,EUR,");
    expect(idleFocusRows(days, byId, { tenantId: "t-1" }, "day", window(2), "EUR", 2).map((r) => r.SubAccountId)).toEqual(["p-1", "p-2"]);
    expect(idleFocusRows(days, byId, { projectId: "p-3" }, "day", window(2), "EUR", 2).map((r) => r.BilledCost)).toEqual([2.5]);
  });

  it("month granularity: a line per project and month, the month cut to the window", () => {
    const days = [day(0, 100, [["p-1", 60]]), day(1, 100, [["p-1", 60]]), day(2, 100, [["p-1", 60]])];
    const rows = idleFocusRows(days, byId, { platform: true }, "month", window(3), "USD", 2);
    expect(rows.map((r) => [r.ChargePeriodStart, r.ChargePeriodEnd, r.x_IdleCost, r.BilledCost])).toEqual([
      ["2026-03-30T00:00:00Z", "2026-04-01T00:00:00Z", "chargeback", 1.2],
      ["2026-03-30T00:00:00Z", "2026-04-01T00:00:00Z", "apart", 0.8],
      ["2026-04-01T00:00:00Z", "2026-04-02T00:00:00Z", "chargeback", 0.6],
      ["2026-04-01T00:00:00Z", "2026-04-02T00:00:00Z", "apart", 0.4],
    ]);
    // A line in April belongs to April's billing period.
    expect(rows[2]!.BillingPeriodStart).toBe("2026-04-01T00:00:00Z");
  });

  it("for any days, odd cents and split: the lines add up to the idle exactly, the charged ones to the charge, each tenant's to its share", () => {
    const weight = fc.record({ projectId: fc.constantFrom("p-1", "p-2", "p-3"), weight: fc.bigInt({ min: 0n, max: 10n ** 9n }) });
    fc.assert(
      fc.property(
        fc.array(fc.record({ idle: fc.integer({ min: -99_999, max: 9_999_999 }), weights: fc.array(weight, { maxLength: 4 }), charge: fc.boolean() }), { minLength: 1, maxLength: 40 }),
        fc.constantFrom("day" as const, "month" as const, "hour" as const),
        (input, granularity) => {
          const days = input.map((d, i) => {
            const weights: GuaranteeWeight[] = d.weights.map((w) => ({ ...w, tenantId: byId.get(w.projectId)!.tenantId }));
            return day(i, d.idle, d.charge ? [...chargeBackPeriod(d.idle, weights)] : []);
          });
          const w = window(days.length);
          const rows = idleFocusRows(days, byId, { platform: true }, granularity, w, "USD", 2);
          expect(cents(rows)).toBe(sumMinor(days.map((d) => d.idle)));
          const charged = days.flatMap((d) => [...d.charged.values()]);
          expect(cents(rows.filter((r) => r.x_IdleCost === "chargeback"))).toBe(sumMinor(charged));
          for (const tenantId of ["t-1", "t-2"]) {
            const own = days.flatMap((d) => [...d.charged].filter(([p]) => byId.get(p)!.tenantId === tenantId).map(([, v]) => v));
            expect(cents(idleFocusRows(days, byId, { tenantId }, granularity, w, "USD", 2))).toBe(sumMinor(own));
          }
          for (const r of rows) {
            expect(r.ChargeCategory).toBe("Adjustment");
            expect(r.BilledCost).not.toBe(0);
            expect(r.ConsumedQuantity).toBeNull();
          }
        },
      ),
      { numRuns: 200, seed: 20261206 },
    );
  });
});

describe("use and idle in one export", () => {
  const use = (periodStart: string, projectId: string, resource: string, cost: number): FocusSourceRow => {
    const p = byId.get(projectId)!;
    const start = new Date(periodStart);
    return {
      periodStart: start,
      periodEnd: new Date(start.getTime() + DAY),
      tenantId: p.tenantId,
      tenantSlug: p.tenantSlug,
      tenantName: p.tenantName,
      costCentre: p.costCentre,
      projectId,
      projectSlug: p.slug,
      projectName: p.name,
      resource,
      quantity: 1,
      cost,
      unpricedQuantity: 0,
    };
  };

  it("orders by period, tenant and project, a project's idle after its use and the platform's last", () => {
    const usage = focusRows(
      [use("2026-03-30T00:00:00Z", "p-1", "cpu", 1), use("2026-03-30T00:00:00Z", "p-3", "cpu", 2), use("2026-03-31T00:00:00Z", "p-2", "gpu:H100", 3)],
      "USD",
      2,
    );
    const idle = idleFocusRows([day(0, 900, [["p-1", 300], ["p-3", 300]]), day(1, 50)], byId, { platform: true }, "day", window(2), "USD", 2);
    const merged = mergeIdleRows(usage, idle);
    expect(merged.map((r) => `${r.ChargePeriodStart.slice(5, 10)} ${r.x_Project ?? "-"} ${r.ChargeCategory}`)).toEqual([
      "03-30 chat Usage",
      "03-30 chat Adjustment",
      "03-30 detector Usage",
      "03-30 detector Adjustment",
      "03-30 - Adjustment",
      "03-31 segmenter Usage",
      "03-31 - Adjustment",
    ]);
    expect(cents(merged)).toBe(600 + 950);
    // The CSV writes every column, empty where a line has no value.
    const csv = focusCsv(merged, 2).trimEnd().split("\r\n");
    expect(csv[0]).toBe(FOCUS_COLUMN_NAMES.join(","));
    expect(csv[5]).toContain(',Adjustment,,"Idle capacity of the node pools, shown apart and charged to no one",');
    expect(csv[5]!.split(",").at(-1)).toBe("apart");
  });
});
