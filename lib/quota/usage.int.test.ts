import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Database } from "@/db/client";
import { instanceSettings, projectBudgets } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { ingestUsage, type UsageSample } from "@/lib/metering/ingest";
import { last30DaysWindow, projectUsageSummaries } from "@/lib/metering/project-summaries";
import { budgetStatus } from "@/lib/metering/report";
import { spendByResource } from "@/lib/metering/spend";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { DAY, projectIdOf, seededDatabase } from "@/test/tenancy";
import { createQuotaRequest } from "./commands/requests";
import { DEFAULT_QUOTA_POLICY, type QuotaPolicy } from "./policy";
import { approvalQueue, requestDetail } from "./queries";
import { QUOTA_POLICY_KEY } from "./store";

// The queue must load every entry's use and spend in one batch: count the calls.
vi.mock("@/lib/metering/project-summaries", async (importOriginal) => {
  const original = await importOriginal<typeof import("@/lib/metering/project-summaries")>();
  return { ...original, projectUsageSummaries: vi.fn(original.projectUsageSummaries) };
});

/**
 * The approval queue's use and spend of each project, from metering: one
 * batch for all entries whose figures equal the spend pages' per-project
 * queries (budgetStatus, spendByResource), an empty state for a project
 * with no usage, and the "large" filter following the second-approval limit.
 */
const SEEDED_AT = new Date("2026-03-01T08:00:00.000Z");
const NOW = new Date("2026-03-20T12:00:00.000Z");
const seeded = seededDatabase(SEEDED_AT);
let db: Database;
const ids: Record<string, string> = {};

const as = (key: Parameters<typeof contextOf>[1], now = NOW): Promise<CommandContext> => contextOf(db, key, now);
const HOUR = 3_600_000;
const hour = (iso: string) => new Date(iso);

async function setPolicy(p: QuotaPolicy) {
  await db.insert(instanceSettings).values({ key: QUOTA_POLICY_KEY, value: p, updatedAt: NOW }).onConflictDoUpdate({ target: instanceSettings.key, set: { value: p } });
}

beforeAll(async () => {
  db = seeded.db;
  for (const [tenant, project] of [
    ["vision-lab", "detector-training"],
    ["vision-lab", "segmentation-research"],
    ["language-models", "chat-eval"],
    ["language-models", "pretraining"],
  ] as const) {
    ids[project] = await projectIdOf(db, tenant, project);
  }
  const vision = seeded.tenantId["vision-lab"]!;
  const language = seeded.tenantId["language-models"]!;
  const samples: UsageSample[] = [];
  // Detector training: 8 H100s an hour at noon each day from 1 to 19 March (DCGM measured on even days), CPU beside them,
  // a day in February (in the 30 days, not the month) and one in January (outside both).
  for (let d = 1; d <= 19; d++) {
    const at = hour(`2026-03-${String(d).padStart(2, "0")}T12:00:00Z`);
    samples.push({ projectId: ids["detector-training"]!, tenantId: vision, resource: "gpu:H100", hour: at, quantity: 8, gpuUtilization: d % 2 === 0 ? 0.25 + d / 100 : null });
    samples.push({ projectId: ids["detector-training"]!, tenantId: vision, resource: "cpu", hour: at, quantity: 32 });
  }
  samples.push({ projectId: ids["detector-training"]!, tenantId: vision, resource: "gpu:H100", hour: hour("2026-02-25T09:00:00Z"), quantity: 4 });
  samples.push({ projectId: ids["detector-training"]!, tenantId: vision, resource: "gpu:H100", hour: hour("2026-01-05T09:00:00Z"), quantity: 4 });
  // Today so far counts in the month.
  samples.push({ projectId: ids["detector-training"]!, tenantId: vision, resource: "gpu:H100", hour: hour("2026-03-20T08:00:00Z"), quantity: 2 });
  // Chat evaluation: CPU and a meter with no price, this month only.
  for (let d = 10; d <= 19; d++) {
    samples.push({ projectId: ids["chat-eval"]!, tenantId: language, resource: "cpu", hour: hour(`2026-03-${d}T03:00:00Z`), quantity: 10 });
    samples.push({ projectId: ids["chat-eval"]!, tenantId: language, resource: "tokens", hour: hour(`2026-03-${d}T03:00:00Z`), quantity: 1000 });
  }
  // Pretraining: usage long ago only.
  samples.push({ projectId: ids["pretraining"]!, tenantId: language, resource: "gpu:H100", hour: hour("2026-01-10T00:00:00Z"), quantity: 16, gpuUtilization: 0.9 });
  await ingestUsage(db, "push:test", samples, NOW);
  await db.insert(projectBudgets).values({ projectId: ids["detector-training"]!, monthlyAmount: "15000.00", updatedAt: NOW });
  await setPolicy(DEFAULT_QUOTA_POLICY);
});

describe(`use and spend in the approval queue (${databaseLabel()})`, () => {
  it("summarises many projects at once with the same figures as the per-project spend queries", async () => {
    const summaries = await projectUsageSummaries(db, Object.values(ids), NOW);
    const window = last30DaysWindow(NOW);
    expect(window).toMatchObject({ from: new Date("2026-02-19T00:00:00Z"), to: new Date("2026-03-21T00:00:00Z"), lastDay: "2026-03-20" });
    for (const [slug, id] of Object.entries(ids)) {
      const s = summaries.get(id)!;
      const budget = slug === "detector-training" ? 15000 : null;
      expect(s.budget, slug).toEqual(await budgetStatus(db, { projectId: id }, budget, NOW));
      expect(s.last30Days.byResource, slug).toEqual(await spendByResource(db, { projectId: id }, window));
    }

    const detector = summaries.get(ids["detector-training"]!)!;
    // Each day is a line rounded to the cent (lib/money.ts): 8 H100-hours × 4.10 = 32.80, CPU 32 × 0.031 = 0.992 → 0.99.
    // 19 days of both and 2 H100-hours today: 19 × 32.80 + 8.20 + 19 × 0.99 = 650.21.
    expect(detector.budget.monthlyAmount).toBe(15000);
    expect(detector.budget.month.monthToDate).toBe(650.21);
    // The last 7 complete days ran at 32.80 + 0.99 = 33.79 a day; over the 11.5 days left that is 388.585 → 388.59.
    expect(detector.budget.month.dailyRate).toBe(33.79);
    expect(detector.budget.month.forecast).toBe(650.21 + 388.59);
    expect(detector.budget.usedShare).toBe(65021 / 1500000);
    // 30 days: 19 × 32.80 + 16.40 (4 H100-hours) + 8.20, and 19 × 0.99.
    expect(detector.last30Days.totalCost).toBe(666.61);
    expect(detector.last30Days.byResource.map((r) => r.resource)).toEqual(["gpu:H100", "cpu"]);
    // Measured on the 9 even days only: the busy share of those GPU-hours.
    const busy = [2, 4, 6, 8, 10, 12, 14, 16, 18].reduce((sum, d) => sum + 8 * (0.25 + d / 100), 0);
    expect(detector.gpuUtilization).toBeCloseTo(busy / (9 * 8), 9);
    expect(detector.lastUsageDay).toBe("2026-03-20");
    expect(detector.demo).toBe(false);

    const chat = summaries.get(ids["chat-eval"]!)!;
    expect(chat.budget.monthlyAmount).toBeNull();
    expect(chat.budget.usedShare).toBeNull();
    expect(chat.gpuUtilization).toBeNull();
    expect(chat.last30Days.unpricedResources).toEqual(["tokens"]);

    // Usage long ago: known, but nothing in the month or the 30 days.
    const pretraining = summaries.get(ids["pretraining"]!)!;
    expect(pretraining).toMatchObject({ lastUsageDay: "2026-01-10", gpuUtilization: null, last30Days: { totalCost: 0, byResource: [] }, budget: { month: { monthToDate: 0, forecast: 0 } } });
  });

  it("says a project with no usage has none, with no figures of its own", async () => {
    const empty = (await projectUsageSummaries(db, [ids["segmentation-research"]!], NOW)).get(ids["segmentation-research"]!)!;
    expect(empty).toMatchObject({ lastUsageDay: null, gpuUtilization: null, demo: false, last30Days: { totalCost: 0, byResource: [], unpricedResources: [] } });
    expect(empty.budget).toMatchObject({ monthlyAmount: null, usedShare: null, forecastShare: null, month: { monthToDate: 0, forecast: 0, dailyRate: 0 } });
    expect(await projectUsageSummaries(db, [], NOW)).toEqual(new Map());
  });

  it("loads every entry's use and spend in one batch, and shows it on the request page too", async () => {
    const justification = "Training runs for the next milestone.";
    const detector = await executeCommand(createQuotaRequest, await as("data-scientist", new Date(NOW.getTime() - 3 * HOUR)), { tenant: "vision-lab", project: "detector-training", gpuModel: "H100", gpuCount: "4", justification });
    await executeCommand(createQuotaRequest, await as("vision-admin", new Date(NOW.getTime() - 2 * HOUR)), { tenant: "vision-lab", project: "segmentation-research", cpuCores: "16", justification });
    await executeCommand(createQuotaRequest, await as("language-admin", new Date(NOW.getTime() - HOUR)), { tenant: "language-models", project: "chat-eval", gpuModel: "H100", gpuCount: "1", justification });

    const spy = vi.mocked(projectUsageSummaries);
    spy.mockClear();
    const entries = (await approvalQueue(await as("platform-admin")))!;
    expect(entries.map((e) => e.projectSlug)).toEqual(["detector-training", "segmentation-research", "chat-eval"]);
    expect(spy).toHaveBeenCalledTimes(1);
    expect([...spy.mock.calls[0]![1]].sort()).toEqual([ids["detector-training"], ids["segmentation-research"], ids["chat-eval"]].sort());

    const expected = await projectUsageSummaries(db, Object.values(ids), NOW);
    for (const e of entries) expect(e.usage, e.projectSlug).toEqual(expected.get(e.projectId));
    expect(entries[1]!.usage!.lastUsageDay).toBeNull();

    const detail = (await requestDetail(await as("platform-admin"), detector.request.id))!;
    expect(detail.picture!.usage).toEqual(expected.get(ids["detector-training"]!));
    // Those who may not decide get no picture at all.
    expect((await requestDetail(await as("data-scientist"), detector.request.id))!.picture).toBeNull();
  });

  it("calls a request large above the second-approval limit, or above 5,000 a month when none is set", async () => {
    const admin = await as("platform-admin");
    const large = async () => ((await approvalQueue(admin, { size: "large" })) ?? []).map((e) => `${e.projectSlug} ${e.monthlyCost}`);
    // 4 × H100 = 11,972 a month, 1 × H100 = 2,993, 16 cores = 362.08.
    expect(await large()).toEqual(["detector-training 11972"]);
    await setPolicy({ ...DEFAULT_QUOTA_POLICY, secondApprovalAboveMonthlyCost: 2500 });
    try {
      expect(await large()).toEqual(["detector-training 11972", "chat-eval 2993"]);
      await setPolicy({ ...DEFAULT_QUOTA_POLICY, secondApprovalAboveMonthlyCost: 300 });
      expect(await large()).toEqual(["detector-training 11972", "segmentation-research 362.08", "chat-eval 2993"]);
    } finally {
      await setPolicy(DEFAULT_QUOTA_POLICY);
    }
  });

  it("keeps a project's budget out of another's summary", async () => {
    const [row] = await db.select().from(projectBudgets).where(eq(projectBudgets.projectId, ids["detector-training"]!));
    expect(row).toBeDefined();
    const summaries = await projectUsageSummaries(db, [ids["chat-eval"]!, ids["detector-training"]!], new Date(NOW.getTime() + DAY));
    expect(summaries.get(ids["chat-eval"]!)!.budget.monthlyAmount).toBeNull();
    expect(summaries.get(ids["detector-training"]!)!.budget.monthlyAmount).toBe(15000);
  });
});
