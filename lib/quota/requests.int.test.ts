import { and, asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { auditEvents, clusterChanges, instanceSettings, nodePools, notifications, platformAdmins, quotaGrants, quotaRequestEvents, quotaRequests, rates } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { kubeClientFromConfig, kubeConfigFor } from "@/lib/cluster/kube-client";
import { projectTarget } from "@/lib/cluster/outbox";
import { enqueueDueScheduledChanges } from "@/lib/cluster/scheduled-scan";
import { reconcileDue } from "@/lib/cluster/worker";
import { parseConfig } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf, countOf, personaEmail, principalIdOf } from "@/test/fixtures";
import { CLUSTER_PERMISSIONS } from "@/lib/cluster/permissions";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { actorOfPrincipal, DAY, seededDatabase, userWithEmail } from "@/test/tenancy";
import { approveQuotaRequest, cancelQuotaRequest, createQuotaRequest, rejectQuotaRequest } from "./commands/requests";
import { fitNote } from "./capacity";
import { CHANGE_SETTLED_HOOKS } from "@/lib/jobs/worker-loop";
import { sweepQuotaTimeouts } from "./expiry";
import { approvalQueue } from "./queries";
import { DEFAULT_QUOTA_POLICY, type QuotaPolicy } from "./policy";
import { QUOTA_POLICY_KEY } from "./store";

/**
 * Quota requests end to end on a real database: asking, automatic approval,
 * deciding (with changes, separation of duties, a second approver, two admins
 * at once), cancelling, and the grant reaching the cluster and leaving it at
 * its end, through the worker against the stand-in API server.
 */
const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const GiB = 2 ** 30;

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let api: StandInApiServer;
let secondAdmin: string;

async function setPolicy(p: QuotaPolicy) {
  await db.insert(instanceSettings).values({ key: QUOTA_POLICY_KEY, value: p, updatedAt: NOW }).onConflictDoUpdate({ target: instanceSettings.key, set: { value: p } });
}

beforeAll(async () => {
  db = seeded.db;
  api = await startStandInApiServer({ permissions: CLUSTER_PERMISSIONS });
  // Known capacity and prices, whatever the demo seed holds.
  await db.delete(nodePools).where(sql`true`);
  await db.delete(rates).where(sql`true`);
  await db.insert(nodePools).values([
    // 2 nodes present (16 GPUs); the autoscaler may add a third (24).
    { name: "h100", gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 2, minNodes: 1, maxNodes: 3, cpuPerNode: 200, memoryBytesPerNode: 2000 * GiB },
    { name: "cpu", nodeCount: 10, cpuPerNode: 64, memoryBytesPerNode: 256 * GiB },
  ]);
  await db.insert(rates).values([
    { resource: "gpu:H100", unitPrice: "4.000000", effectiveFrom: new Date("2026-01-01T00:00:00Z") },
    { resource: "cpu", unitPrice: "0.030000", effectiveFrom: new Date("2026-01-01T00:00:00Z") },
    { resource: "memory", unitPrice: "0.004000", effectiveFrom: new Date("2026-01-01T00:00:00Z") },
  ]);
  await setPolicy(DEFAULT_QUOTA_POLICY);
  secondAdmin = await userWithEmail(db, "second-admin@example.com", NOW);
  await db.insert(platformAdmins).values({ principalId: secondAdmin, source: "cli" });
});
afterAll(async () => {
  await api?.close();
});

const as = (key: Parameters<typeof contextOf>[1], now = NOW): Promise<CommandContext> => contextOf(db, key, now);
const asSecondAdmin = async (now = NOW): Promise<CommandContext> => ({ actor: await actorOfPrincipal(db, secondAdmin), db, now });
const fourH100 = { tenant: "vision-lab", project: "detector-training", gpuModel: "H100", gpuCount: "4", endsAt: new Date(NOW.getTime() + 14 * DAY).toISOString(), justification: "Fine-tuning the detector on the new camera data." };
const requestRow = async (id: string) => (await db.select().from(quotaRequests).where(eq(quotaRequests.id, id)))[0]!;
const eventsOf = async (id: string) => (await db.select().from(quotaRequestEvents).where(eq(quotaRequestEvents.requestId, id)).orderBy(asc(quotaRequestEvents.id))).map((e) => [e.kind, e.actorLabel]);

describe(`quota requests (${databaseLabel()})`, () => {
  it("a data scientist asks for 4 H100s for 14 days: pending, with the estimate, audited", async () => {
    const dana = await as("data-scientist");
    const { request, autoApproved, assessment } = await executeCommand(createQuotaRequest, dana, fourH100);
    expect(autoApproved).toBe(false);
    expect(request).toMatchObject({ status: "pending", gpuModel: "H100", gpuCount: 4, requestedBy: dana.actor.principalId, monthlyCost: (4 * 4 * 730).toFixed(2) });
    expect(assessment.capacity).toEqual([{ resource: "gpu:H100", label: "H100 GPUs", capacity: 16, capacityAtMax: 24, before: 0, after: 4, exceeds: false, fit: { kind: "fits" } }]);
    expect(assessment.after.quota.gpus).toEqual({ "nvidia.com/gpu": 4 });
    expect(await eventsOf(request.id)).toEqual([["created", personaEmail("data-scientist")]]);
    const [audit] = await db.select().from(auditEvents).where(eq(auditEvents.targetId, request.id));
    expect(audit).toMatchObject({ action: "quota_request.created" });
  });

  it("checks requests against the nodes present: the queue says when one fits only if the autoscaler grows the pool, and when not even its maximum holds it", async () => {
    const dana = await as("data-scientist");
    const admin = await as("platform-admin");
    const ask = (gpuCount: string) => executeCommand(createQuotaRequest, dana, { ...fourH100, gpuCount });
    const grows = await ask("20");
    const beyond = await ask("30");
    const queue = (await approvalQueue(admin))!;
    const lineOf = (id: string) => queue.find((e) => e.id === id)!.assessment.capacity.find((l) => l.resource === "gpu:H100")!;
    // Pending requests are not allocation: each is judged against the grants in force alone.
    expect(lineOf(grows.request.id)).toMatchObject({ capacity: 16, capacityAtMax: 24, after: 20, exceeds: true, fit: { kind: "grows", pools: [{ pool: "h100", nodes: 2, to: 3, max: 3 }] } });
    expect(fitNote(lineOf(grows.request.id))).toBe("fits when the pool h100 grows to 3 nodes (max 3)");
    expect(lineOf(beyond.request.id)).toMatchObject({ after: 30, exceeds: true, fit: { kind: "does_not_fit", autoscales: true } });
    expect(fitNote(lineOf(beyond.request.id))).toBe("does not fit: even at their autoscaler maximum the pools hold 24 H100 GPUs");
    for (const r of [grows, beyond]) await executeCommand(cancelQuotaRequest, dana, { requestId: r.request.id });
  });

  it("refuses viewers, other tenants' projects and bad amounts, writing nothing", async () => {
    const before = await countOf(db, "quota_requests");
    expect((await appErrorOf(executeCommand(createQuotaRequest, await as("viewer"), { ...fourH100, tenant: "language-models", project: "chat-eval" }))).code).toBe("forbidden");
    expect((await appErrorOf(executeCommand(createQuotaRequest, await as("language-admin"), fourH100))).code).toBe("not_found");
    const bad = await appErrorOf(executeCommand(createQuotaRequest, await as("data-scientist"), { ...fourH100, gpuCount: "-2", memory: "lots", justification: "x" }));
    expect(bad.fields).toEqual({
      gpuCount: ["Enter a whole number from 0 to 4096."],
      memory: ["Enter a number of GiB such as 64, or a quantity such as 64Gi."],
      justification: ["Say in a sentence what the resources are for, at least 10 characters."],
    });
    expect((await appErrorOf(executeCommand(createQuotaRequest, await as("data-scientist"), { ...fourH100, gpuModel: "B200" }))).fields).toEqual({ gpuModel: ["Choose a GPU model a node pool offers."] });
    expect(await countOf(db, "quota_requests")).toBe(before);
  });

  it("approves a small CPU request by rule, writes the grant and enqueues the cluster change with it", async () => {
    const dana = await as("data-scientist");
    const { request, autoApproved } = await executeCommand(createQuotaRequest, dana, { tenant: "vision-lab", project: "detector-training", cpuCores: "4", memory: "16Gi", justification: "More data loader workers for training." });
    expect(autoApproved).toBe(true);
    expect(request.status).toBe("auto_approved");
    expect(request.decisionNote).toMatch(/^Approved automatically: no GPUs and at most 8 cores/);
    const [grant] = await db.select().from(quotaGrants).where(eq(quotaGrants.requestId, request.id));
    expect(grant).toMatchObject({ cpuCores: 4, memoryBytes: 16 * GiB, gpuCount: 0, endsAt: null });
    const [change] = await db.select().from(clusterChanges).where(eq(clusterChanges.id, request.clusterChangeId!));
    expect(change).toMatchObject({ status: "pending", targetKey: projectTarget(request.projectId) });
    expect(await eventsOf(request.id)).toEqual([
      ["created", personaEmail("data-scientist")],
      ["auto_approved", "system:auto-approval"],
    ]);
    const [audit] = await db.select().from(auditEvents).where(and(eq(auditEvents.targetId, request.id), eq(auditEvents.action, "quota_request.auto_approved")));
    expect(audit).toMatchObject({ actorLabel: "system:auto-approval", actorPrincipalId: null });
  });

  it("nobody decides their own request or one for a tenant they administer", async () => {
    const priya = await as("platform-admin");
    const { request } = await executeCommand(createQuotaRequest, priya, { ...fourH100, gpuCount: "1" });
    const own = await appErrorOf(executeCommand(approveQuotaRequest, priya, { requestId: request.id, version: request.version }));
    expect(own).toMatchObject({ code: "forbidden", message: "You made this request; another platform admin must decide it." });
    const alex = await as("vision-admin");
    expect((await appErrorOf(executeCommand(approveQuotaRequest, alex, { requestId: request.id, version: request.version }))).code).toBe("forbidden");
    await executeCommand(rejectQuotaRequest, await asSecondAdmin(), { requestId: request.id, version: request.version, reason: "Use the shared pool for this." });
  });

  it("approve with changes: 2 GPUs instead of 4; the requester and tenant admins are told", async () => {
    const [pending] = await db.select().from(quotaRequests).where(and(eq(quotaRequests.status, "pending"), eq(quotaRequests.gpuCount, 4)));
    const tooMuch = await appErrorOf(executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: pending!.id, version: pending!.version, gpuCount: "6" }));
    expect(tooMuch.fields).toEqual({ gpuCount: ["Enter at most what was asked for."] });
    const { request, complete } = await executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: pending!.id, version: pending!.version, gpuCount: "2", note: "Two for now; ask again with results." });
    expect(complete).toBe(true);
    expect(request).toMatchObject({ status: "approved", granted: { gpuCount: 2, cpuCores: 0 }, decisionNote: "Two for now; ask again with results." });
    const [grant] = await db.select().from(quotaGrants).where(eq(quotaGrants.requestId, pending!.id));
    expect(grant).toMatchObject({ gpuCount: 2, gpuResource: "nvidia.com/gpu", endsAt: pending!.endsAt });
    const told = await db.select().from(notifications).where(eq(notifications.link, `/tenants/vision-lab/projects/detector-training/quota/requests/${pending!.id}`));
    expect(told.map((n) => n.principalId).sort()).toEqual([await principalIdOf(db, personaEmail("data-scientist")), await principalIdOf(db, personaEmail("vision-admin"))].sort());
    expect(told[0]!.title).toMatch(/approved with changes \(2 × H100\)/);
  });

  it("two admins deciding at once: one decision, the other is told it was already decided", async () => {
    const { request } = await executeCommand(createQuotaRequest, await as("data-scientist"), { ...fourH100, gpuCount: "1" });
    const results = await Promise.allSettled([
      executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: request.id, version: request.version }),
      executeCommand(rejectQuotaRequest, await asSecondAdmin(), { requestId: request.id, version: request.version, reason: "Not this quarter." }),
    ]);
    const ok = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.reason).toBeInstanceOf(AppError);
    expect((refused[0]!.reason as AppError).code).toBe("conflict");
    expect((refused[0]!.reason as AppError).message).toMatch(/already decided|changed since you opened it/);
    expect(["approved", "rejected"]).toContain((await requestRow(request.id)).status);
    expect(await db.select().from(quotaGrants).where(eq(quotaGrants.requestId, request.id))).toHaveLength((await requestRow(request.id)).status === "approved" ? 1 : 0);
  });

  it("above the cost limit a second, different admin must approve too", async () => {
    await setPolicy({ ...DEFAULT_QUOTA_POLICY, secondApprovalAboveMonthlyCost: 5000 });
    try {
      const { request } = await executeCommand(createQuotaRequest, await as("data-scientist"), fourH100);
      const first = await executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: request.id, version: request.version, gpuCount: "3" });
      expect(first.complete).toBe(false);
      expect(first.request).toMatchObject({ status: "pending", firstApprovedBy: (await as("platform-admin")).actor.principalId });
      expect(await db.select().from(quotaGrants).where(eq(quotaGrants.requestId, request.id))).toHaveLength(0);
      const again = await appErrorOf(executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: request.id, version: first.request.version }));
      expect(again).toMatchObject({ code: "forbidden", message: "You gave the first approval; a second, different platform admin must approve too." });
      const second = await executeCommand(approveQuotaRequest, await asSecondAdmin(), { requestId: request.id, version: first.request.version });
      // The second admin confirms what the first granted (3 of 4) unless they change it.
      expect(second).toMatchObject({ complete: true, request: { status: "approved", granted: { gpuCount: 3 } } });
      expect((await db.select().from(quotaGrants).where(eq(quotaGrants.requestId, request.id)))[0]).toMatchObject({ gpuCount: 3 });
      expect((await eventsOf(request.id)).map(([k]) => k)).toEqual(["created", "first_approval", "approved_with_changes"]);
    } finally {
      await setPolicy(DEFAULT_QUOTA_POLICY);
    }
  });

  it("only the requester cancels, and only while pending", async () => {
    const { request } = await executeCommand(createQuotaRequest, await as("data-scientist"), { ...fourH100, gpuCount: "1" });
    expect((await appErrorOf(executeCommand(cancelQuotaRequest, await as("vision-admin"), { requestId: request.id }))).message).toBe("Only the person who asked can cancel a request.");
    expect(await executeCommand(cancelQuotaRequest, await as("data-scientist"), { requestId: request.id })).toMatchObject({ status: "cancelled" });
    expect((await appErrorOf(executeCommand(cancelQuotaRequest, await as("data-scientist"), { requestId: request.id }))).code).toBe("conflict");
    expect((await appErrorOf(executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: request.id, version: request.version + 1 }))).message).toMatch(/already decided \(cancelled\)/);
  });

  it("an approval reaches the cluster (request applied), and the quota drops when the grant ends", async () => {
    const client = kubeClientFromConfig(kubeConfigFor(api.url));
    const settings = parseConfig({}).cluster;
    let clock = NOW;
    // A pass as the runtime runs it: scheduled changes that are due (a grant's end) join the outbox, then the outbox.
    const worker = async () => {
      await enqueueDueScheduledChanges(db, clock);
      return reconcileDue({ db, settings, client, clock: () => clock, workerId: "quota-test", afterSettled: CHANGE_SETTLED_HOOKS });
    };
    const ns = "vision-lab--detector-training";
    await worker();
    const hard = () => (api.get("v1", "ResourceQuota", ns, "project-quota") as unknown as { spec: { hard: Record<string, string> } }).spec.hard;
    // Starting quota 4 cores + 4 auto-approved; 2 H100 granted (time-bound) + 1 approved in the race when it won.
    expect(hard()["requests.cpu"]).toBe("8");
    const gpusGranted = Number(hard()["requests.nvidia.com/gpu"]);
    expect(gpusGranted).toBeGreaterThanOrEqual(2 + 4);
    const applied = await db.select().from(quotaRequests).where(eq(quotaRequests.status, "applied"));
    expect(applied.length).toBeGreaterThanOrEqual(3);
    expect((await eventsOf(applied[0]!.id)).at(-1)).toEqual(["applied", "system:reconcile"]);

    // 14 days on, the time-bound grants have ended: the sweep expires their requests and the scheduled change lowers the quota.
    clock = new Date(NOW.getTime() + 15 * DAY);
    // The sweep reads only grants that ended since its previous run: a window after their end finds none of them.
    expect((await sweepQuotaTimeouts(db, clock, { endedSince: new Date(clock.getTime() - DAY / 2) })).expiredGrants).toBe(0);
    const swept = await sweepQuotaTimeouts(db, clock, { endedSince: NOW });
    expect(swept.expiredGrants).toBeGreaterThanOrEqual(2);
    // A first sweep (no previous run) reads every ended grant still held, and finds nothing left.
    expect((await sweepQuotaTimeouts(db, clock)).expiredGrants).toBe(0);
    await worker();
    expect(hard()["requests.nvidia.com/gpu"]).toBe("0");
    expect(hard()["requests.cpu"]).toBe("8"); // the permanent CPU grant stays
  });
  describe("the cumulative cap of automatic approval", () => {
    const capped = (maxCpuCores: number, cumulativeFactor: number | null): QuotaPolicy => ({
      ...DEFAULT_QUOTA_POLICY,
      autoApprove: { ...DEFAULT_QUOTA_POLICY.autoApprove, maxCpuCores, maxMemoryGiB: 16, maxStorageGiB: 100, cumulativeFactor },
    });
    const chatEval = { tenant: "language-models", project: "chat-eval", justification: "More evaluation workers for the nightly run." };

    it("approves by rule while the project's automatic grants in force stay within N× the limits, then sends requests to a person; audited with the figures", async () => {
      await setPolicy(capped(4, 2));
      try {
        const admin = await as("language-admin");
        const first = await executeCommand(createQuotaRequest, admin, { ...chatEval, cpuCores: "3", memory: "8" });
        const rule = "no GPUs and at most 4 cores, 16 GiB memory and 100 GiB storage; automatically approved grants in force, this one included: 3 of 8 cores, 8 of 32 GiB memory, 0 of 200 GiB storage (2× the limits)";
        expect(first).toMatchObject({ autoApproved: true, request: { status: "auto_approved", decisionNote: `Approved automatically: ${rule}.` } });
        const [audit] = await db.select().from(auditEvents).where(and(eq(auditEvents.targetId, first.request.id), eq(auditEvents.action, "quota_request.auto_approved")));
        expect(audit).toMatchObject({ actorLabel: "system:auto-approval", after: { rule } });
        const [event] = await db.select().from(quotaRequestEvents).where(and(eq(quotaRequestEvents.requestId, first.request.id), eq(quotaRequestEvents.kind, "auto_approved")));
        expect(event!.detail).toEqual({ rule });

        expect((await executeCommand(createQuotaRequest, admin, { ...chatEval, cpuCores: "3", memory: "8" })).autoApproved).toBe(true);
        const third = await executeCommand(createQuotaRequest, admin, { ...chatEval, cpuCores: "3", memory: "8" });
        expect(third.autoApproved).toBe(false);
        expect(third.request.status).toBe("pending");
        expect(third.assessment.autoApproved).toMatchObject({ grants: 2, cpuCores: 6, memoryBytes: 16 * GiB });
        expect(third.assessment.auto).toEqual({
          auto: false,
          reason:
            "the project's 2 automatically approved grants in force and this request would hold 9 cores, 24 GiB memory and 0 GiB storage, more than 2× the automatic limits (8 cores, 32 GiB memory, 200 GiB storage)",
        });

        // What a person approved does not count against the rules' cap: 6 automatic + 1 fits 8 with the 3 approved by hand beside it.
        await executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: third.request.id, version: third.request.version });
        expect((await executeCommand(createQuotaRequest, admin, { ...chatEval, cpuCores: "1" })).autoApproved).toBe(true);
        expect((await executeCommand(createQuotaRequest, admin, { ...chatEval, cpuCores: "1.5" })).autoApproved).toBe(false);

        // Judged alone again when the cap is off.
        await setPolicy(capped(4, null));
        expect((await executeCommand(createQuotaRequest, admin, { ...chatEval, cpuCores: "4" })).autoApproved).toBe(true);
      } finally {
        await setPolicy(DEFAULT_QUOTA_POLICY);
      }
    });

    it("two small requests at once cannot both slip under the cap: they are judged one after the other", async () => {
      await setPolicy(capped(4, 1));
      try {
        const admin = await as("language-admin");
        const ask = { tenant: "language-models", project: "pretraining", cpuCores: "3", justification: "Data preparation workers beside the training job." };
        const results = await Promise.all([executeCommand(createQuotaRequest, admin, ask), executeCommand(createQuotaRequest, admin, ask)]);
        expect(results.map((r) => r.request.status).sort()).toEqual(["auto_approved", "pending"]);
      } finally {
        await setPolicy(DEFAULT_QUOTA_POLICY);
      }
    });
  });
});
