import { beforeAll, describe, expect, it } from "vitest";
import type { CommandContext } from "@/lib/auth/context";
import { subtractMoney, sumMoney } from "@/lib/money";
import { insertGrant } from "@/lib/quota/grant-store";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { HOUR, projectIdOf, seededDatabase } from "@/test/tenancy";
import { ingestUsage } from "./ingest";
import { platformSpendReport, projectSpendReport, tenantSpendReport } from "./report";
import { resolveWindow, spendQueryInput } from "./window";

/**
 * Cost reports split GPU use within the guarantee from use borrowed beyond
 * it: hour by hour against the grants in force then, priced at that hour's
 * rate, and the two parts add up to the cost shown to the cent on every
 * scope.
 */
const NOW = new Date("2026-05-10T12:00:00Z");
const DAY = "2026-05-08";
const seeded = seededDatabase(new Date("2026-05-01T00:00:00Z"));
let admin: CommandContext;

const windowOf = () => {
  const r = resolveWindow(spendQueryInput.parse({ range: "custom", from: DAY, to: DAY }), NOW);
  if (!("window" in r)) throw new Error("the day resolves");
  return r.window;
};

beforeAll(async () => {
  const db = seeded.db;
  admin = await contextOf(db, "platform-admin", NOW);
  const projectId = await projectIdOf(db, "vision-lab", "detector-training");
  const tenantId = seeded.tenantId["vision-lab"]!;
  const nine = Date.parse(`${DAY}T09:00:00Z`);
  // 2 H100 guaranteed from 10:00 on (none before), with burst 8.
  await db.transaction((tx) =>
    insertGrant(tx, { projectId, lines: [{ flavor: "H100", resource: "nvidia.com/gpu", guarantee: 2, burst: 8, lendLimit: null }], startsAt: new Date(nine + HOUR), endsAt: null, createdAt: NOW }),
  );
  // 09:00 3.3 GPU-hours (all borrowed: no guarantee yet), 10:00 5.25 (3.25 borrowed), 11:00 1.5 (none borrowed).
  await ingestUsage(
    db,
    "push:test",
    [3.3, 5.25, 1.5].map((quantity, i) => ({ projectId, tenantId, resource: "gpu:H100", hour: new Date(nine + i * HOUR), quantity })),
    NOW,
  );
});

describe(`borrowed GPU use in cost reports (${databaseLabel()})`, () => {
  it("counts use beyond the guarantee in force each hour, and the two parts add up to the cost to the cent, on every scope", async () => {
    const reports = [
      await projectSpendReport(admin, "vision-lab", "detector-training", windowOf()),
      await tenantSpendReport(admin, "vision-lab", windowOf()),
      await platformSpendReport(admin, windowOf()),
    ];
    for (const report of reports) {
      const h100 = report.byResource.find((r) => r.resource === "gpu:H100")!;
      expect(h100.quantity).toBeCloseTo(10.05, 9);
      expect(h100.borrowed!.quantity).toBeCloseTo(6.55, 9);
      // Priced at the demo-free seed's rate card: the borrowed part is its own rounded line, within = cost − borrowed.
      const within = subtractMoney(h100.cost, h100.borrowed!.cost, 2);
      expect(sumMoney([within, h100.borrowed!.cost], 2)).toBe(h100.cost);
      expect(h100.borrowed!.cost).toBeGreaterThan(0);
      expect(within).toBeGreaterThan(0);
      expect(h100.borrowed!.cost / h100.cost).toBeCloseTo(6.55 / 10.05, 2);
    }
  });

  it("a project with no use beyond its guarantee shows none borrowed", async () => {
    const report = await projectSpendReport(admin, "vision-lab", "segmentation-research", windowOf());
    expect(report.byResource.filter((r) => (r.borrowed?.quantity ?? 0) > 0)).toEqual([]);
  });
});
