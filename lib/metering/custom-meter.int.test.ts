import { beforeAll, describe, expect, it } from "vitest";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { addRate } from "@/lib/quota/commands/capacity";
import { capacityOverview } from "@/lib/quota/capacity-queries";
import { config } from "@/lib/config";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf } from "@/test/fixtures";
import { HOUR, projectIdOf, seededDatabase } from "@/test/tenancy";
import { focusCsv, FOCUS_COLUMN_NAMES } from "./focus";
import { focusExport } from "./focus-query";
import { ingestUsage } from "./ingest";
import { projectSpendReport } from "./report";
import { pricingOf } from "./units";
import { resolveWindow, spendQueryInput } from "./window";

/**
 * A custom meter (a key the push API accepts, here acc.widgets) can be priced
 * on the rate card with its own unit. Before it is, its usage is "unpriced"
 * in the report, the FOCUS rows (cost cells empty) and the rate card, never
 * a zero cost; once priced (from a past instant), the same usage is costed.
 */
const NOW = new Date("2026-05-10T12:00:00Z");
const DAY = "2026-05-08";
const seeded = seededDatabase(new Date("2026-05-01T00:00:00Z"));
let admin: CommandContext;
let projectId: string;
let tenantId: string;

const windowOf = () => {
  const r = resolveWindow(spendQueryInput.parse({ range: "custom", from: DAY, to: DAY }), NOW);
  if (!("window" in r)) throw new Error("the day resolves");
  return r.window;
};

beforeAll(async () => {
  admin = await contextOf(seeded.db, "platform-admin", NOW);
  projectId = await projectIdOf(seeded.db, "vision-lab", "detector-training");
  tenantId = seeded.tenantId["vision-lab"]!;
  const hour = Date.parse(`${DAY}T09:00:00Z`);
  // 40 widgets over two hours, pushed by a meter.
  await ingestUsage(
    seeded.db,
    "push:test",
    [0, 1].map((i) => ({ projectId, tenantId, resource: "acc.widgets", hour: new Date(hour + i * HOUR), quantity: 20 })),
    NOW,
  );
});

describe(`custom meters on the rate card (${databaseLabel()})`, () => {
  it("shows an unpriced meter as unpriced everywhere, never as zero cost", async () => {
    const report = await projectSpendReport(admin, "vision-lab", "detector-training", windowOf());
    const widgets = report.byResource.find((r) => r.resource === "acc.widgets")!;
    expect(widgets).toMatchObject({ quantity: 40, unpricedQuantity: 40 });
    expect(pricingOf(widgets)).toBe("unpriced");
    expect(report.unpricedResources).toContain("acc.widgets");

    const focus = await focusExport(admin, { kind: "project", tenant: "vision-lab", project: "detector-training" }, windowOf());
    const row = focus.rows.find((r) => r.ResourceType === "acc.widgets")!;
    expect(row).toMatchObject({ BilledCost: null, EffectiveCost: null, ListCost: null, ContractedCost: null, ConsumedQuantity: 40, x_UnpricedQuantity: 40, ServiceCategory: "Other" });
    const line = focusCsv([row], 2).split("\r\n")[1]!.split(",");
    expect(line[FOCUS_COLUMN_NAMES.indexOf("BilledCost")]).toBe("");

    const overview = await capacityOverview(admin, config().cluster);
    expect(overview!.rateCard.find((l) => l.resource === "acc.widgets")).toMatchObject({ missing: true, current: null });
  });

  it("prices the meter per its own unit, from a past instant, and the same usage is costed", async () => {
    const error = await appErrorOf(executeCommand(addRate, admin, { resource: "acc.widgets", unitPrice: "0.125", effectiveFrom: "2026-05-01" }));
    expect(error.fields!.unit![0]).toMatch(/Enter the unit of a custom meter/);

    const row = await executeCommand(addRate, admin, { resource: "acc.widgets", unit: "widget", unitPrice: "0.125", effectiveFrom: "2026-05-01" });
    expect(row).toMatchObject({ resource: "acc.widgets", unit: "widget", unitPrice: "0.125000" });
    const other = await appErrorOf(executeCommand(addRate, admin, { resource: "acc.widgets", unit: "gadget", unitPrice: "0.2", effectiveFrom: "2026-06-01" }));
    expect(other.fields!.unit![0]).toMatch(/Enter widget/);

    const report = await projectSpendReport(admin, "vision-lab", "detector-training", windowOf());
    const widgets = report.byResource.find((r) => r.resource === "acc.widgets")!;
    // 40 widgets × 0.125 = 5.00, repriced from the hourly table when the back-dated price was added.
    expect(widgets).toMatchObject({ quantity: 40, unpricedQuantity: 0, cost: 5 });
    expect(pricingOf(widgets)).toBe("priced");
    expect(report.unpricedResources).not.toContain("acc.widgets");

    const focus = await focusExport(admin, { kind: "project", tenant: "vision-lab", project: "detector-training" }, windowOf());
    expect(focus.rows.find((r) => r.ResourceType === "acc.widgets")).toMatchObject({ BilledCost: 5, x_UnpricedQuantity: 0 });

    const overview = await capacityOverview(admin, config().cluster);
    expect(overview!.rateCard.find((l) => l.resource === "acc.widgets")).toMatchObject({ missing: false, unit: "widget", current: { unitPrice: "0.125000", unit: "widget" } });
  });
});
