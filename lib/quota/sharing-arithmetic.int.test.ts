import fc from "fast-check";
import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { instanceSettings, quotaGrants, quotaRequests } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf } from "@/test/fixtures";
import { seededDatabase } from "@/test/tenancy";
import { seedDemoUsage } from "@/lib/demo/usage";
import { moveQuota, setTenantEnvelope } from "./commands/envelopes";
import { approveQuotaRequest, createQuotaRequest } from "./commands/requests";
import { guaranteedAcrossTenants, tenantLineHoldings } from "./envelope-store";
import { DEFAULT_QUOTA_POLICY, type QuotaPolicy } from "./policy";
import { sharingArithmetic } from "./sharing-arithmetic";
import { loadPools, loadQuotaPolicy, QUOTA_POLICY_KEY } from "./store";

/**
 * The arithmetic of GPU sharing on the demo data, and the invariant the
 * commands keep: guarantees across all tenants never exceed what the pools
 * hold at their autoscaler minimum, whatever envelopes are set, moves made
 * and requests approved. The demo's H100 pool holds 32 at its minimum (4
 * nodes), 32 now and 48 at its maximum; 24 are guaranteed.
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
let db: Database;
const H100 = { flavor: "H100", resource: "nvidia.com/gpu" };

async function setPolicy(p: QuotaPolicy) {
  await db.insert(instanceSettings).values({ key: QUOTA_POLICY_KEY, value: p, updatedAt: NOW }).onConflictDoUpdate({ target: instanceSettings.key, set: { value: p } });
}
const as = (key: Parameters<typeof contextOf>[1]): Promise<CommandContext> => contextOf(db, key, NOW);

async function arithmetic() {
  const [pools, policy, holdings] = await Promise.all([loadPools(db), loadQuotaPolicy(db), tenantLineHoldings(db, NOW)]);
  return sharingArithmetic(pools, policy.overcommit, holdings);
}
const h100Line = async () => (await arithmetic()).find((l) => l.key === "gpu:H100")!;

async function ask(tenant: string, project: string, gpuCount: number) {
  // Asked by the tenant's admin: the platform admin who decides may not be the one who asked.
  return executeCommand(createQuotaRequest, await as(tenant === "vision-lab" ? "vision-admin" : "language-admin"), { tenant, project, gpuModel: "H100", gpuCount: String(gpuCount), justification: "Training runs for the next milestone." });
}

beforeAll(async () => {
  db = seeded.db;
  expect(await seedDemoUsage(db, NOW)).toBe(true);
  // One approval is enough, and no rule approves GPUs, unless a test says so.
  await setPolicy({ ...DEFAULT_QUOTA_POLICY, secondApprovalAboveMonthlyCost: null });
});

describe(`sharing arithmetic and the capacity invariant (${databaseLabel()})`, () => {
  it("adds up the demo: per GPU line capacity at minimum / now / maximum, guarantees, headroom, bursts and what each tenant lends", async () => {
    const lines = await arithmetic();
    expect(lines.map((l) => l.key)).toEqual(["gpu:A100 1g.10gb", "gpu:H100", "gpu:L4"]);
    const h100 = lines[1]!;
    expect(h100).toMatchObject({ capacity: { atMin: 32, now: 32, atMax: 48 }, guaranteed: 24, headroomAtMin: 8, burst: 8, peak: 32, growthFromBorrowing: 0, burstWithinMaximum: true, peakFit: { kind: "fits" } });
    expect(h100.tenants.map((t) => [t.slug, t.guarantee, t.burst, t.lendable, t.fromEnvelope])).toEqual([
      ["language-models", 16, 0, 8, true],
      ["vision-lab", 8, 8, 8, true],
    ]);
    // The envelope check counts the same figure (one rule): setting vision-lab's envelope to what it is changes nothing.
    expect(await guaranteedAcrossTenants(db, H100, NOW, { tenantId: seeded.tenantId["vision-lab"]!, guarantee: 8 })).toBe(24);
    for (const l of lines) expect(l.guaranteed, l.key).toBeLessThanOrEqual(l.capacity.atMin);
  });

  it("an automatic rule approves GPUs only while guarantees fit the pools at their minimum; beyond it a person decides", async () => {
    await setPolicy({ ...DEFAULT_QUOTA_POLICY, secondApprovalAboveMonthlyCost: null, autoApprove: { ...DEFAULT_QUOTA_POLICY.autoApprove, underMonthlyCost: 1_000_000, cumulativeFactor: null } });
    try {
      const first = await ask("vision-lab", "segmentation-research", 2);
      expect(first.autoApproved).toBe(true);
      expect((await h100Line()).guaranteed).toBe(26);
      const beyond = await ask("vision-lab", "segmentation-research", 7);
      expect(beyond.autoApproved).toBe(false);
      expect(beyond.request.status).toBe("pending");
      expect(beyond.assessment.sharing.map((s) => [s.before.guaranteed, s.after.guaranteed, s.breaksMinimum])).toEqual([[26, 33, true]]);
    } finally {
      await setPolicy({ ...DEFAULT_QUOTA_POLICY, secondApprovalAboveMonthlyCost: null });
    }
  });

  it("refuses an approval that would guarantee more than the pools hold at their minimum, naming the line, and writes nothing; less goes through", async () => {
    const { request } = await ask("vision-lab", "detector-training", 10);
    const grantsBefore = (await db.select({ n: count() }).from(quotaGrants))[0]!.n;
    const refused = await appErrorOf(executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: request.id, version: request.version }));
    expect(refused.code).toBe("validation");
    expect(refused.fields?.gpuCount).toEqual([
      "This would guarantee 36 H100 GPUs across all tenants, more than the pools hold at their autoscaler minimum (32); at most 6 more can be guaranteed: grant less (or burst instead), or raise the pools' minimum first.",
    ]);
    expect((await db.select({ n: count() }).from(quotaGrants))[0]!.n).toBe(grantsBefore);
    expect((await db.select().from(quotaRequests).where(eq(quotaRequests.id, request.id)))[0]!.status).toBe("pending");

    const { complete } = await executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: request.id, version: request.version, gpuCount: "6" });
    expect(complete).toBe(true);
    expect(await h100Line()).toMatchObject({ guaranteed: 32, headroomAtMin: 0 });
  });

  it("property: whatever envelopes are set, quota moved and requests approved through the commands, no GPU line's guarantees exceed the pools at their minimum", async () => {
    const projects = [
      ["vision-lab", "detector-training"],
      ["vision-lab", "segmentation-research"],
      ["language-models", "pretraining"],
      ["language-models", "chat-eval"],
    ] as const;
    const step = fc.oneof(
      fc.record({ kind: fc.constant("envelope" as const), tenant: fc.constantFrom("vision-lab", "language-models"), guarantee: fc.integer({ min: 0, max: 48 }) }),
      fc.record({ kind: fc.constant("move" as const), project: fc.nat(3), to: fc.option(fc.nat(3), { nil: null }), amount: fc.integer({ min: 1, max: 8 }) }),
      fc.record({ kind: fc.constant("approve" as const), project: fc.nat(3), gpus: fc.integer({ min: 1, max: 12 }) }),
    );
    const outcomes = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), async (steps) => {
        for (const s of steps) {
          let attempt: Promise<unknown>;
          if (s.kind === "envelope") {
            attempt = executeCommand(setTenantEnvelope, await as("platform-admin"), { tenant: s.tenant, quota: "gpu:H100", guarantee: String(s.guarantee) });
          } else if (s.kind === "move") {
            const [tenant, from] = projects[s.project]!;
            const to = s.to === null ? undefined : projects.find(([t], i) => t === tenant && i === s.to)?.[1];
            attempt = executeCommand(moveQuota, await as("platform-admin"), { tenant, quota: "gpu:H100", from, to, amount: String(s.amount) });
          } else {
            const [tenant, project] = projects[s.project]!;
            const { request } = await ask(tenant, project, s.gpus);
            attempt = executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: request.id, version: request.version });
          }
          const outcome = await attempt.then(
            () => "done",
            (e: unknown) => (e instanceof Error && "code" in e ? String((e as { code: string }).code) : "crash"),
          );
          expect(outcome).not.toBe("crash");
          outcomes.add(`${s.kind}:${outcome}`);
          for (const l of await arithmetic()) expect(l.guaranteed, `${l.key} after ${JSON.stringify(s)}`).toBeLessThanOrEqual(l.capacity.atMin);
        }
      }),
      { numRuns: 8, seed: 14 },
    );
    // The sequences tried both sides of the checks.
    expect([...outcomes].some((o) => o.endsWith(":done"))).toBe(true);
    expect([...outcomes].some((o) => o.endsWith(":validation"))).toBe(true);
  }, 120_000);
});
