import { and, asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { auditEvents, notifications, projects, spendAlerts, webhookDeliveries } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { createWebhook } from "@/lib/notify/webhook-commands";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf, principalIdOf, personaEmail, type PersonaKey } from "@/test/fixtures";
import { fingerprint, newMember, outcomeOf, seededDatabase, WRITABLE_TABLES } from "@/test/tenancy";
import { evaluateSpendAlerts } from "./alerts";
import { projectBudget, setProjectBudget } from "./commands/budget";
import { idleGpuProjects } from "./gpu-efficiency";
import { ingestUsage, type UsageSample } from "./ingest";

/**
 * Budgets and spend alerts on a real database: who may set a budget and what
 * a refusal leaves behind (nothing), validation and optimistic versions; then
 * usage crossing 50%, 80% and 100% of a budget and its forecast, each alert
 * noticed and queued for webhooks exactly once however often the evaluation
 * runs; and idle GPU flags once per ISO week.
 *
 * Prices (seeded, from 2026-01-01): H100 4.10 per GPU-hour.
 */
const SEEDED_AT = new Date("2026-03-01T00:00:00.000Z");
/** A Friday: its ISO week starts on Monday 2026-03-16; 11.5 days of March are left. */
const NOW = new Date("2026-03-20T12:00:00.000Z");
const seeded = seededDatabase(SEEDED_AT);
const at = (iso: string) => new Date(iso);
const TABLES = [...new Set<string>([...WRITABLE_TABLES, "project_budgets", "spend_alerts"])];

let db: Database;
let visionId: string;
const projectIds: Record<string, string> = {};
let secondAdmin: string;

async function newProject(slug: string): Promise<string> {
  const [row] = await db
    .insert(projects)
    .values({ tenantId: visionId, slug, name: slug.replace(/-/g, " "), namespace: `vision-lab--${slug}`, createdAt: SEEDED_AT })
    .returning({ id: projects.id });
  projectIds[slug] = row!.id;
  return row!.id;
}

const gpu = (slug: string, hour: string, quantity: number, gpuUtilization: number | null = null): UsageSample => ({
  projectId: projectIds[slug]!,
  tenantId: visionId,
  resource: "gpu:H100",
  hour: new Date(hour),
  quantity,
  gpuUtilization,
});

const setBudget = async (who: PersonaKey, input: Record<string, unknown>, now = NOW) =>
  executeCommand(setProjectBudget, await contextOf(db, who, now), { tenant: "vision-lab", project: "alerts-budget", ...input });

/** What the alerts left for one project: alert rows, in-app notices and webhook deliveries. */
async function trail(slug: string) {
  const projectId = projectIds[slug]!;
  const link = `/tenants/vision-lab/projects/${slug}/spend`;
  const [alerts, notices, deliveries] = await Promise.all([
    db.select().from(spendAlerts).where(eq(spendAlerts.projectId, projectId)).orderBy(asc(spendAlerts.sentAt), asc(spendAlerts.kind)),
    db.select().from(notifications).where(eq(notifications.link, link)).orderBy(asc(notifications.createdAt), asc(notifications.title)),
    db.select().from(webhookDeliveries).orderBy(asc(webhookDeliveries.id)),
  ]);
  return {
    alerts: alerts.map((a) => `${a.kind}@${a.period}`),
    notices: notices.map((n) => ({ principalId: n.principalId, kind: n.kind, title: n.title, body: n.body })),
    deliveries: deliveries.filter((d) => d.payload.project === slug).map((d) => ({ event: d.event, payload: d.payload })),
  };
}

/**
 * Run the evaluation as racing replicas would (three at once; on PostgreSQL
 * they really race), then once more as the next hourly run: return what was
 * sent, which must be each alert once in all.
 */
async function evaluateRepeatedly(now: Date) {
  const racing = await Promise.all([evaluateSpendAlerts(db, now), evaluateSpendAlerts(db, now), evaluateSpendAlerts(db, now)]);
  expect(await evaluateSpendAlerts(db, now)).toEqual({ sent: [], failed: 0 });
  for (const r of racing) expect(r.failed).toBe(0);
  const slugOf = (id: string) => Object.entries(projectIds).find(([, pid]) => pid === id)?.[0];
  return racing.flatMap((r) => r.sent.map((s) => `${slugOf(s.projectId)}:${s.kind}@${s.period}`)).sort();
}

beforeAll(async () => {
  db = seeded.db;
  visionId = seeded.tenantId["vision-lab"]!;
  for (const slug of ["alerts-budget", "alerts-late", "alerts-unbudgeted", "alerts-zero", "gpu-idle", "gpu-busy", "gpu-short"]) await newProject(slug);
  secondAdmin = await newMember(db, visionId, "tenant_admin", SEEDED_AT);
  await executeCommand(createWebhook, await contextOf(db, "platform-admin", SEEDED_AT), { url: "http://127.0.0.1:9/hook", events: "budget.threshold, budget.forecast, gpu.idle" });
  // A hook for other events only: it must get none of these.
  await executeCommand(createWebhook, await contextOf(db, "platform-admin", SEEDED_AT), { url: "http://127.0.0.1:9/other", events: "request.created" });
});

describe(`project budgets (${databaseLabel()})`, () => {
  it("only platform admins and the tenant's admins set a budget; a refusal writes nothing", async () => {
    const before = await fingerprint(db, TABLES);
    const refused: [PersonaKey, string, string][] = [
      ["data-scientist", "vision-lab", "detector-training"],
      ["data-scientist", "vision-lab", "alerts-budget"],
      ["viewer", "language-models", "chat-eval"],
      ["collaborator", "language-models", "chat-eval"],
      ["language-admin", "vision-lab", "alerts-budget"],
      ["language-admin", "vision-lab", "detector-training"],
    ];
    const outcomes = [];
    for (const [who, tenant, project] of refused) {
      outcomes.push([who, project, await outcomeOf(executeCommand(setProjectBudget, await contextOf(db, who, NOW), { tenant, project, monthlyAmount: "500" }))]);
    }
    expect(outcomes).toEqual([
      ["data-scientist", "detector-training", "forbidden"],
      ["data-scientist", "alerts-budget", "not_found"], // a tenant member without a grant does not see the project
      ["viewer", "chat-eval", "forbidden"],
      ["collaborator", "chat-eval", "forbidden"],
      ["language-admin", "alerts-budget", "not_found"],
      ["language-admin", "detector-training", "not_found"],
    ]);
    expect(await outcomeOf(executeCommand(setProjectBudget, await contextOf(db, "vision-admin", NOW), { tenant: "vision-lab", project: "no-such-project", monthlyAmount: "5" }))).toBe("not_found");
    expect(await fingerprint(db, TABLES)).toEqual(before);

    const byPlatform = await setBudget("platform-admin", { monthlyAmount: "750" });
    expect(byPlatform).toMatchObject({ changed: true, budget: { monthlyAmount: "750.00", version: 1 } });
    const byTenantAdmin = await setBudget("vision-admin", { monthlyAmount: "1000.5", version: "1" });
    expect(byTenantAdmin).toMatchObject({ changed: true, budget: { monthlyAmount: "1000.50", version: 2, updatedBy: await principalIdOf(db, personaEmail("vision-admin")) } });
    expect((await projectBudget(db, projectIds["alerts-budget"]!))?.monthlyAmount).toBe("1000.50");
  });

  it("names monthlyAmount when the amount is not a budget, and writes nothing", async () => {
    const before = await fingerprint(db, TABLES);
    const cases: [unknown, RegExp][] = [
      ["-5", /Enter 0 or more/],
      ["12.345", /at most 2 decimals/],
      ["abc", /Enter an amount/],
      ["1e3", /Enter an amount/],
      ["1,000", /Enter an amount/],
      ["1000000000000.01", /^Enter an amount no larger than 1,000,000,000,000/],
      [{ amount: 5 }, /Enter an amount/],
    ];
    for (const [monthlyAmount, message] of cases) {
      const error = await appErrorOf(setBudget("vision-admin", { monthlyAmount }));
      expect(error.code, String(monthlyAmount)).toBe("validation");
      expect(Object.keys(error.fields!)).toEqual(["monthlyAmount"]);
      expect(error.fields!.monthlyAmount!.join(" ")).toMatch(message);
    }
    expect(await fingerprint(db, TABLES)).toEqual(before);
  });

  it("refuses a stale version, and audits every change with before and after", async () => {
    const before = await fingerprint(db, TABLES);
    expect((await appErrorOf(setBudget("vision-admin", { monthlyAmount: "900", version: 1 }))).code).toBe("conflict");
    expect((await appErrorOf(setBudget("vision-admin", { monthlyAmount: "900", version: 0 }))).code).toBe("conflict"); // the form showed no budget
    expect(await fingerprint(db, TABLES)).toEqual(before);

    expect(await setBudget("vision-admin", { monthlyAmount: "1000.50", version: 2 })).toMatchObject({ changed: false }); // the same amount again
    expect(await setBudget("vision-admin", { monthlyAmount: "", version: 2 })).toEqual({ changed: true, budget: null });
    expect(await projectBudget(db, projectIds["alerts-budget"]!)).toBeNull();
    expect(await setBudget("vision-admin", { monthlyAmount: "" })).toEqual({ changed: false, budget: null }); // nothing to clear
    expect((await appErrorOf(setBudget("vision-admin", { monthlyAmount: "5", version: 3 }))).code).toBe("conflict"); // cleared meanwhile
    expect(await setBudget("vision-admin", { monthlyAmount: "1000", version: 0 })).toMatchObject({ budget: { monthlyAmount: "1000.00", version: 1 } });

    const audit = await db
      .select({ action: auditEvents.action, before: auditEvents.before, after: auditEvents.after, tenantId: auditEvents.tenantId })
      .from(auditEvents)
      .where(and(eq(auditEvents.targetType, "project_budget"), eq(auditEvents.targetId, projectIds["alerts-budget"]!)))
      .orderBy(asc(auditEvents.seq));
    expect(audit).toEqual([
      { action: "project_budget.set", tenantId: visionId, before: null, after: { monthlyAmount: "750.00", version: 1 } },
      { action: "project_budget.set", tenantId: visionId, before: { monthlyAmount: "750.00", version: 1 }, after: { monthlyAmount: "1000.50", version: 2 } },
      { action: "project_budget.cleared", tenantId: visionId, before: { monthlyAmount: "1000.50", version: 2 }, after: null },
      { action: "project_budget.set", tenantId: visionId, before: null, after: { monthlyAmount: "1000.00", version: 1 } },
    ]);
  });
});

describe(`budget alerts (${databaseLabel()})`, () => {
  it("sends nothing before a threshold, with no budget, or with a zero budget", async () => {
    await ingestUsage(db, "push:test", [gpu("alerts-unbudgeted", "2026-03-02T10:00:00Z", 500), gpu("alerts-zero", "2026-03-02T10:00:00Z", 500)], NOW);
    await executeCommand(setProjectBudget, await contextOf(db, "vision-admin", NOW), { tenant: "vision-lab", project: "alerts-zero", monthlyAmount: "0" });
    await ingestUsage(db, "push:test", [gpu("alerts-budget", "2026-03-02T10:00:00Z", 100)], NOW); // 410.00 of 1,000
    expect(await evaluateRepeatedly(NOW)).toEqual([]);
    for (const slug of ["alerts-budget", "alerts-unbudgeted", "alerts-zero"]) expect(await trail(slug)).toEqual({ alerts: [], notices: [], deliveries: [] });
  });

  it("crosses 50%, then 80%, then the forecast, then 100%: each noticed and queued once", async () => {
    const admins = [await principalIdOf(db, personaEmail("vision-admin")), secondAdmin].sort();
    const noticesTo = async () => (await trail("alerts-budget")).notices.map((n) => `${n.kind}|${n.title}`);

    // 122 GPU-hours = 500.20 on the 2nd: 50%. Nothing in the last 7 days, so the forecast is the month to date.
    await ingestUsage(db, "push:test", [gpu("alerts-budget", "2026-03-02T10:00:00Z", 122)], NOW);
    // Each step is evaluated a little later the same day, so notices sort in the order they were sent.
    expect(await evaluateRepeatedly(at("2026-03-20T09:00:00Z"))).toEqual(["alerts-budget:budget_50@2026-03-01"]);
    let t = await trail("alerts-budget");
    expect(t.notices.map((n) => n.principalId).sort()).toEqual(admins);
    expect(t.notices[0]).toMatchObject({
      kind: "budget.threshold",
      title: "alerts budget reached 50% of its budget",
      body: "alerts budget (vision-lab/alerts-budget) has spent $500.20 in March 2026, 50% of its $1,000.00 budget (forecast to month end: $500.20).",
    });
    expect(t.deliveries).toEqual([
      {
        event: "budget.threshold",
        payload: {
          event: "budget.threshold",
          text: t.notices[0]!.body,
          alert: "budget_50",
          tenant: "vision-lab",
          project: "alerts-budget",
          period: "2026-03-01",
          currency: "USD",
          budget: 1000,
          monthToDate: 500.2,
          forecast: 500.2,
          link: "/tenants/vision-lab/projects/alerts-budget/spend",
        },
      },
    ]);

    // +74 GPU-hours = 303.40 on the 5th: 803.60, 80%.
    await ingestUsage(db, "push:test", [gpu("alerts-budget", "2026-03-05T10:00:00Z", 74)], NOW);
    expect(await evaluateRepeatedly(at("2026-03-20T10:00:00Z"))).toEqual(["alerts-budget:budget_80@2026-03-01"]);

    // +35 GPU-hours = 143.50 yesterday: 947.10 spent, 20.50 a day over the last 7 days, 947.10 + 20.50 × 11.5 = 1,182.85 forecast.
    await ingestUsage(db, "push:test", [gpu("alerts-budget", "2026-03-19T10:00:00Z", 35)], NOW);
    expect(await evaluateRepeatedly(NOW)).toEqual(["alerts-budget:forecast@2026-03-01"]);
    t = await trail("alerts-budget");
    expect(t.notices.at(-1)).toMatchObject({
      kind: "budget.forecast",
      body: "alerts budget (vision-lab/alerts-budget) is forecast to spend $1,182.85 in March 2026, 118% of its $1,000.00 budget ($947.10 spent so far).",
    });

    // +14 GPU-hours = 57.40 today: 1,004.50, 100%.
    await ingestUsage(db, "push:test", [gpu("alerts-budget", "2026-03-20T09:00:00Z", 14)], NOW);
    expect(await evaluateRepeatedly(at("2026-03-20T13:00:00Z"))).toEqual(["alerts-budget:budget_100@2026-03-01"]);
    // Later the same month, with more spend: nothing new.
    await ingestUsage(db, "push:test", [gpu("alerts-budget", "2026-03-21T09:00:00Z", 50)], NOW);
    expect(await evaluateRepeatedly(at("2026-03-21T18:00:00Z"))).toEqual([]);

    t = await trail("alerts-budget");
    expect(t.alerts).toEqual(["budget_50@2026-03-01", "budget_80@2026-03-01", "forecast@2026-03-01", "budget_100@2026-03-01"]);
    expect(await noticesTo()).toEqual(
      [
        "budget.threshold|alerts budget reached 50% of its budget",
        "budget.threshold|alerts budget reached 80% of its budget",
        "budget.forecast|alerts budget is forecast to exceed its budget",
        "budget.threshold|alerts budget reached 100% of its budget",
      ].flatMap((n) => [n, n]),
    );
    expect(t.deliveries.map((d) => `${d.event}:${String(d.payload.alert)}`)).toEqual([
      "budget.threshold:budget_50",
      "budget.threshold:budget_80",
      "budget.forecast:forecast",
      "budget.threshold:budget_100",
    ]);
    // Only subscribed hooks get a delivery, and members get no notice.
    const hooks = new Set((await db.select().from(webhookDeliveries)).map((d) => d.webhookId));
    expect(hooks.size).toBe(1);
    const memberNotices = await db.select().from(notifications).where(eq(notifications.principalId, await principalIdOf(db, personaEmail("data-scientist"))));
    expect(memberNotices).toEqual([]);

    // A new month starts afresh.
    await ingestUsage(db, "push:test", [gpu("alerts-budget", "2026-04-01T09:00:00Z", 130)], NOW);
    expect(await evaluateRepeatedly(new Date("2026-04-01T12:00:00Z"))).toEqual(["alerts-budget:budget_50@2026-04-01"]);
  });

  it("a budget set late sends only the highest threshold reached, and the lower ones never follow", async () => {
    await ingestUsage(db, "push:test", [gpu("alerts-late", "2026-03-03T10:00:00Z", 300)], NOW); // 1,230.00
    await executeCommand(setProjectBudget, await contextOf(db, "vision-admin", NOW), { tenant: "vision-lab", project: "alerts-late", monthlyAmount: "1200" });
    expect(await evaluateRepeatedly(NOW)).toEqual(["alerts-late:budget_100@2026-03-01"]);
    // Raised mid-month to where 1,230 is 61%: no 50% alert after the 100% one.
    const version = (await projectBudget(db, projectIds["alerts-late"]!))!.version;
    await executeCommand(setProjectBudget, await contextOf(db, "vision-admin", NOW), { tenant: "vision-lab", project: "alerts-late", monthlyAmount: "2000", version });
    expect(await evaluateRepeatedly(NOW)).toEqual([]);
    expect((await trail("alerts-late")).alerts).toEqual(["budget_100@2026-03-01"]);
    expect((await trail("alerts-late")).deliveries).toHaveLength(1);
  });
});

describe(`idle GPU flags (${databaseLabel()})`, () => {
  const week = (slug: string, utilization: number, days: string[], perDay = 6) =>
    days.flatMap((day) => Array.from({ length: perDay }, (_, h) => gpu(slug, `${day}T${String(h * 2).padStart(2, "0")}:00:00Z`, 8, utilization)));
  const DAYS = ["2026-03-14", "2026-03-15", "2026-03-16", "2026-03-17", "2026-03-18", "2026-03-19"];

  it("flags a project at 5% over enough GPU-hours, not one at 60% or one with too few hours", async () => {
    await ingestUsage(db, "push:test", [...week("gpu-idle", 0.05, DAYS), ...week("gpu-busy", 0.6, DAYS), ...week("gpu-short", 0.05, ["2026-03-19"], 2)], NOW);
    // Outside the trailing 7 days: does not count.
    await ingestUsage(db, "push:test", week("gpu-busy", 0, ["2026-03-10", "2026-03-11", "2026-03-12", "2026-03-13"]), NOW);

    const flagged = await idleGpuProjects(db, NOW, { tenantId: visionId }, { threshold: 0.2, minMeasuredHours: 24 });
    expect(flagged.map((p) => p.slug)).toEqual(["gpu-idle"]);
    // 36 × 8 = 288 GPU-hours at 4.10 = 1,180.80, of which 95% idle.
    expect(flagged[0]).toMatchObject({ tenantSlug: "vision-lab", measuredGpuHours: 288, gpuCost: 1180.8 });
    expect(flagged[0]!.gpuUtilization).toBeCloseTo(0.05, 9);
    expect(flagged[0]!.busyGpuHours).toBeCloseTo(14.4, 9);
    expect(flagged[0]!.gpuIdleCost).toBeCloseTo(1121.76, 6);
    expect(await idleGpuProjects(db, NOW, { tenantId: seeded.tenantId["language-models"]! })).toEqual([]);
    expect((await idleGpuProjects(db, NOW)).map((p) => p.slug)).toEqual(["gpu-idle"]);
    // The settings decide: a lower bar flags the short test too, a threshold of 0 flags nothing.
    expect((await idleGpuProjects(db, NOW, { platform: true }, { threshold: 0.2, minMeasuredHours: 8 })).map((p) => p.slug).sort()).toEqual(["gpu-idle", "gpu-short"]);
    expect(await idleGpuProjects(db, NOW, { platform: true }, { threshold: 0, minMeasuredHours: 0 })).toEqual([]);
  });

  it("notifies the tenant admins once per ISO week", async () => {
    expect(await evaluateRepeatedly(NOW)).toEqual(["gpu-idle:gpu_idle@2026-03-16"]);
    // Later the same week: nothing new.
    expect(await evaluateRepeatedly(new Date("2026-03-22T23:00:00Z"))).toEqual([]);
    let t = await trail("gpu-idle");
    expect(t.notices).toHaveLength(2);
    expect(t.notices[0]).toMatchObject({ kind: "gpu.idle", title: "gpu idle leaves its GPUs mostly idle" });
    expect(t.notices[0]!.body).toContain("busy 5% of the time over the last 7 days (288 GPU-hours measured, below 20%)");
    expect(t.notices[0]!.body).toContain("the idle share cost $1,121.76 of $1,180.80 in GPU spend");
    expect(t.deliveries).toHaveLength(1);
    expect(t.deliveries[0]).toMatchObject({
      event: "gpu.idle",
      payload: {
        event: "gpu.idle",
        text: t.notices[0]!.body,
        tenant: "vision-lab",
        project: "gpu-idle",
        period: "2026-03-16",
        utilization: 0.05,
        measuredHours: 288,
        gpuCost: 1180.8,
        gpuIdleCost: 1121.76,
        threshold: 0.2,
        currency: "USD",
        link: "/tenants/vision-lab/projects/gpu-idle/spend",
      },
    });
    for (const slug of ["gpu-busy", "gpu-short"]) expect(await trail(slug)).toEqual({ alerts: [], notices: [], deliveries: [] });

    // Next week, still idle over its trailing 7 days (the 17th to the 19th): flagged again, once.
    expect(await evaluateRepeatedly(new Date("2026-03-23T08:00:00Z"))).toEqual(["gpu-idle:gpu_idle@2026-03-23"]);
    t = await trail("gpu-idle");
    expect(t.alerts).toEqual(["gpu_idle@2026-03-16", "gpu_idle@2026-03-23"]);
    expect(t.deliveries).toHaveLength(2);
    // A week later without GPU use: nothing.
    expect(await evaluateRepeatedly(new Date("2026-03-30T08:00:00Z"))).toEqual([]);
  });
});
