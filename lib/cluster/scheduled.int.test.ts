import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterChanges, clusterScheduledChanges, quotaRequests } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { parseConfig, type AllotConfig } from "@/lib/config";
import { approveQuotaRequest, createQuotaRequest } from "@/lib/quota/commands/requests";
import { databaseLabel } from "@/test/database";
import { contextOf, rejectionOf } from "@/test/fixtures";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { DAY, projectIdOf, seededDatabase } from "@/test/tenancy";
import { kubeClientFromConfig, kubeConfigFor, type ClusterClient } from "./kube-client";
import { projectTarget, tenantTarget } from "./outbox";
import { startWorkerLoop } from "@/lib/jobs/worker-loop";
import { enqueueDueScheduledChanges } from "./scheduled-scan";
import { reconcileDue, type ReconcilerOptions } from "./worker";

/**
 * Expiry is never lost: a time-bound quota grant schedules, in its own
 * transaction, a change for every target it touches (the project's namespace
 * and, with Kueue on, the project's ClusterQueue, which the tenant's target renders), and the worker's recovery
 * scan enqueues them when due, from the database alone. Live mode against the
 * stand-in API server, with Kueue on.
 */
const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");

// The commands read Kueue from the process configuration (the outbox decides
// there whether the tenant's queues follow a project): switch it on for
// this file, before the seed runs, and put back what was there after.
const globalConfig = globalThis as unknown as { allotConfig?: AllotConfig };
let previousConfig: AllotConfig | undefined;
const kueueConfig = parseConfig({ ALLOT_KUEUE: "1" });
beforeAll(() => {
  previousConfig = globalConfig.allotConfig;
  globalConfig.allotConfig = kueueConfig;
});
afterAll(() => {
  globalConfig.allotConfig = previousConfig;
});

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let api: StandInApiServer;
let client: ClusterClient;
// Time only moves forward here, as it does for a real worker: a grant ended in one test stays ended in the next.
let clockAt = NOW;
const clock = () => clockAt;

beforeAll(async () => {
  db = seeded.db;
  api = await startStandInApiServer();
  client = kubeClientFromConfig(kubeConfigFor(api.url), { timeoutMs: 2000 });
});
afterAll(async () => {
  await api?.close();
});

const worker = (workerId = "scheduled-test"): ReconcilerOptions => ({ db, settings: kueueConfig.cluster, client, clock, workerId });
/** One pass as the runtime runs it: due scheduled changes into the outbox, then the outbox. */
const pass = async (o = worker()) => {
  await enqueueDueScheduledChanges(o.db, o.clock());
  return reconcileDue(o);
};

const projectGpus = (namespace: string) => Number((api.get("v1", "ResourceQuota", namespace, "project-quota") as unknown as { spec: { hard: Record<string, string> } }).spec.hard["requests.nvidia.com/gpu"] ?? 0);
type Queue = { spec: { resourceGroups: { coveredResources: string[]; flavors: { resources: { name: string; nominalQuota: string | number }[] }[] }[] } };
/** The guaranteed H100s of a project's ClusterQueue (named after its namespace). */
const queueGpus = (namespace: string) => {
  const queue = api.get("kueue.x-k8s.io/v1beta2", "ClusterQueue", undefined, namespace) as unknown as Queue | undefined;
  if (!queue) throw new Error(`no ClusterQueue for ${namespace}`);
  const group = queue.spec.resourceGroups.find((g) => g.coveredResources.includes("nvidia.com/gpu"));
  return (group?.flavors ?? []).reduce((sum, f) => sum + Number(f.resources.find((r) => r.name === "nvidia.com/gpu")?.nominalQuota ?? 0), 0);
};
const scheduledFor = (targetKeys: string[]) =>
  db
    .select()
    .from(clusterScheduledChanges)
    .where(and(inArray(clusterScheduledChanges.targetKey, targetKeys), isNull(clusterScheduledChanges.enqueuedAt)))
    .orderBy(asc(clusterScheduledChanges.dueAt), asc(clusterScheduledChanges.targetKey));

/** Ask for 4 H100s on a project until `endsAt` and have a platform admin approve it. */
async function grantFourH100(project: string, endsAt: Date) {
  const admin = await contextOf(db, "vision-admin", clockAt);
  const { request } = await executeCommand(createQuotaRequest, admin, { tenant: "vision-lab", project, gpuModel: "H100", gpuCount: "4", endsAt: endsAt.toISOString(), justification: "A two-week fine-tuning run on new data." });
  await executeCommand(approveQuotaRequest, await contextOf(db, "platform-admin", clockAt), { requestId: request.id, version: request.version });
  const [row] = await db.select().from(quotaRequests).where(eq(quotaRequests.id, request.id));
  expect(row!.status).toBe("approved");
  return row!;
}

describe(`scheduled changes: expiry with Kueue on (${databaseLabel()})`, () => {
  it("the seed's changes apply, the tenant's cohort and its projects' ClusterQueues among them; nothing waits in the outbox for a future instant", async () => {
    await pass();
    const waiting = await db.select().from(clusterChanges).where(eq(clusterChanges.status, "pending"));
    expect(waiting).toEqual([]);
    expect(api.get("kueue.x-k8s.io/v1beta2", "Cohort", undefined, "tenant-vision-lab")).toBeDefined();
    expect(api.get("kueue.x-k8s.io/v1beta2", "ClusterQueue", undefined, "vision-lab--detector-training")).toBeDefined();
  });

  it("a time-bound grant drops from the project's ResourceQuota and from its ClusterQueue at its end", async () => {
    const tenantId = seeded.tenantId["vision-lab"]!;
    const projectId = await projectIdOf(db, "vision-lab", "detector-training");
    const ns = "vision-lab--detector-training";
    const before = { project: projectGpus(ns), queue: queueGpus(ns) };
    const endsAt = new Date(clockAt.getTime() + 14 * DAY);

    await grantFourH100("detector-training", endsAt);
    // Scheduled by the approval's own transaction, before any worker ran: one row per target the grant touches.
    expect((await scheduledFor([projectTarget(projectId), tenantTarget(tenantId)])).map((s) => [s.targetKey, s.dueAt.toISOString(), s.reason])).toEqual([
      [projectTarget(projectId), endsAt.toISOString(), "quota grant ends"],
      [tenantTarget(tenantId), endsAt.toISOString(), "quota grant ends"],
    ]);

    await pass();
    expect(projectGpus(ns)).toBe(before.project + 4);
    expect(queueGpus(ns)).toBe(before.queue + 4);

    clockAt = new Date(endsAt.getTime() - 1000);
    expect(await enqueueDueScheduledChanges(db, clockAt)).toBe(0); // not due a second early
    clockAt = new Date(endsAt.getTime() + 1000);
    expect(await pass()).toBe(2);
    expect(projectGpus(ns)).toBe(before.project);
    expect(queueGpus(ns)).toBe(before.queue);
    const fired = await db.select().from(clusterScheduledChanges).where(eq(clusterScheduledChanges.dueAt, endsAt));
    expect(fired.map((f) => f.enqueuedAt)).toEqual([clockAt, clockAt]);
    const changes = await db.select().from(clusterChanges).where(inArray(clusterChanges.id, fired.map((f) => f.changeId!)));
    expect(changes.map((c) => [c.status, c.reasons])).toEqual([
      ["applied", ["quota grant ends"]],
      ["applied", ["quota grant ends"]],
    ]);
  });

  it("a crash right after the grant's commit loses nothing: a fresh worker loop, with no timer of the old process, expires it", async () => {
    const tenantId = seeded.tenantId["vision-lab"]!;
    const projectId = await projectIdOf(db, "vision-lab", "segmentation-research");
    const ns = "vision-lab--segmentation-research";
    await pass();
    const before = { project: projectGpus(ns), queue: queueGpus(ns) };
    const endsAt = new Date(clockAt.getTime() + 7 * DAY);
    await grantFourH100("segmentation-research", endsAt);
    await pass();
    expect(projectGpus(ns)).toBe(before.project + 4);
    expect(queueGpus(ns)).toBe(before.queue + 4);
    // The process that committed and applied is gone. Nothing of the expiry is in its memory or in the outbox:
    expect(await db.select().from(clusterChanges).where(eq(clusterChanges.status, "pending"))).toEqual([]);
    expect(await scheduledFor([projectTarget(projectId), tenantTarget(tenantId)])).toHaveLength(2);

    // Past the end, a new worker starts (as after a restart) and its first pass expires the grant on both targets.
    clockAt = new Date(endsAt.getTime() + 60_000);
    const loop = startWorkerLoop({ ...worker("restarted"), pollMs: 50, log: () => {} });
    try {
      const deadline = Date.now() + 20_000;
      while ((projectGpus(ns) !== before.project || queueGpus(ns) !== before.queue) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await loop.stop();
    }
    expect(projectGpus(ns)).toBe(before.project);
    expect(queueGpus(ns)).toBe(before.queue);
  });

  it("a grant whose transaction rolls back schedules nothing", async () => {
    const projectId = await projectIdOf(db, "vision-lab", "detector-training");
    const before = await db.select().from(clusterScheduledChanges);
    const admin = await contextOf(db, "vision-admin", clockAt);
    await rejectionOf(
      db.transaction(async (tx) => {
        await executeCommand(createQuotaRequest, { ...admin, db: tx }, { tenant: "vision-lab", project: "detector-training", cpuCores: "2", endsAt: new Date(clockAt.getTime() + 3 * DAY).toISOString(), justification: "Auto-approved, then rolled back." });
        throw new Error("the surrounding transaction failed");
      }),
    );
    expect(await db.select().from(clusterScheduledChanges)).toEqual(before);
    expect(await scheduledFor([projectTarget(projectId)])).toEqual([]);
  });

  it("two scans at once enqueue each due row once", async () => {
    const projectId = await projectIdOf(db, "vision-lab", "detector-training");
    const endsAt = new Date(clockAt.getTime() + 2 * DAY);
    await grantFourH100("detector-training", endsAt);
    await pass();
    const at = new Date(endsAt.getTime() + 1);
    const [a, b] = await Promise.all([enqueueDueScheduledChanges(db, at), enqueueDueScheduledChanges(db, at)]);
    expect(a + b).toBe(2);
    const pending = await db.select().from(clusterChanges).where(eq(clusterChanges.status, "pending"));
    expect(pending.map((c) => c.targetKey).sort()).toEqual([projectTarget(projectId), tenantTarget(seeded.tenantId["vision-lab"]!)].sort());
  });
});
