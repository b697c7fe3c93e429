import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { seedDemoUsage } from "@/lib/demo/usage";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { projectMonthAtAGlance, tenantMonthAtAGlance } from "./month-at-a-glance";
import { projectBudgetStatus, tenantBudgetStatus } from "./report";

/**
 * The home pages' month at a glance carries the spend pages' figures and their
 * demo mark: demo usage is marked as demo wherever it shows, on the homes too.
 */
const SEEDED_AT = new Date("2026-06-01T00:00:00.000Z");
const NOW = new Date("2026-06-15T14:30:00.000Z");
const seeded = seededDatabase(SEEDED_AT);
let db: Database;

beforeAll(() => {
  db = seeded.db;
});

describe(`the month at a glance (${databaseLabel()})`, () => {
  it("is marked demo once the month holds generated demo usage, and its figures are the spend report's", async () => {
    const project = { tenantId: seeded.tenantId["vision-lab"]!, projectId: await projectIdOf(db, "vision-lab", "detector-training") };
    const admin = await contextOf(db, "vision-admin", NOW);
    expect((await projectMonthAtAGlance(admin, project))!.demo).toBe(false);
    expect((await tenantMonthAtAGlance(admin, project.tenantId))!.demo).toBe(false);

    expect(await seedDemoUsage(db, NOW)).toBe(true);
    const projectGlance = (await projectMonthAtAGlance(admin, project))!;
    const tenantGlance = (await tenantMonthAtAGlance(admin, project.tenantId))!;
    expect(projectGlance.demo).toBe(true);
    expect(tenantGlance.demo).toBe(true);
    expect(projectGlance.month.monthToDate).toBeGreaterThan(0);
    const { demo: _p, ...projectFigures } = projectGlance;
    const { demo: _t, ...tenantFigures } = tenantGlance;
    expect(projectFigures).toEqual(await projectBudgetStatus(db, project.projectId, NOW));
    expect(tenantFigures).toEqual(await tenantBudgetStatus(db, project.tenantId, NOW));
  }, 300_000);

  it("is not shown to someone who may not see the spend", async () => {
    const project = { tenantId: seeded.tenantId["language-models"]!, projectId: await projectIdOf(db, "language-models", "pretraining") };
    expect(await projectMonthAtAGlance(await contextOf(db, "data-scientist", NOW), project)).toBeNull();
  });
});
