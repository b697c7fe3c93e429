import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { kubeClientFromConfig, kubeConfigFor, type ClusterClient } from "@/lib/cluster/kube-client";
import { enqueueClusterChange } from "@/lib/cluster/outbox";
import { CLUSTER_PERMISSIONS } from "@/lib/cluster/permissions";
import type { ClusterRuntime } from "@/lib/cluster/runtime";
import { reconcileDue } from "@/lib/cluster/worker";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { KUEUE_CONFIG, withLiveKueueStandIn } from "@/test/kube-api/live-kueue";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { moveQuota, setTenantEnvelope } from "./commands/envelopes";
import { approveQuotaRequest, createQuotaRequest } from "./commands/requests";
import { projectShareNow } from "./share-now";

/**
 * Seeing one's share, against the stand-in API server with the portal's RBAC
 * enforced: a tenant admin's move reaches both projects' ClusterQueues and
 * ResourceQuotas through the worker; then, with Kueue's status set on the
 * queues and workloads as Kueue would, a data scientist sees what the
 * project holds, borrows and lends now, and its pending workload with why it
 * waits and its place in the queue.
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const KUEUE = "kueue.x-k8s.io/v1beta2";
const DETECTOR = "vision-lab--detector-training";
const SEGMENTATION = "vision-lab--segmentation-research";
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
const kueueConfig = KUEUE_CONFIG;
let db: Database;
let api: StandInApiServer;
let client: ClusterClient;
let live: ClusterRuntime;

withLiveKueueStandIn((standIn) => ({ api, live, client } = standIn));
beforeAll(() => {
  db = seeded.db;
});
beforeEach(() => {
  api.forbidden.length = 0;
});
afterEach(() => {
  expect(api.forbidden, "calls outside the portal's ClusterRole").toEqual([]);
});

const as = (key: Parameters<typeof contextOf>[1]): Promise<CommandContext> => contextOf(db, key, NOW);
const reconcile = async () => {
  for (let i = 0; i < 6; i++) await reconcileDue({ db, settings: kueueConfig.cluster, client, clock: () => NOW, workerId: "share-test", baseBackoffMs: 0, maxBackoffMs: 0 });
};
type Queue = { spec: { resourceGroups: { flavors: { name: string; resources: { name: string; nominalQuota: string }[] }[] }[] } };
const nominalH100 = (queue: string) =>
  (api.get(KUEUE, "ClusterQueue", undefined, queue) as unknown as Queue | undefined)?.spec.resourceGroups.flatMap((g) => g.flavors).find((f) => f.name === "h100")?.resources[0]?.nominalQuota;
const hardGpus = (namespace: string) => (api.get("v1", "ResourceQuota", namespace, "project-quota") as unknown as { spec: { hard: Record<string, string> } }).spec.hard["requests.nvidia.com/gpu"];

const workload = (name: string, queueName: string, tier: string, conditions: object[]) => ({
  apiVersion: KUEUE,
  kind: "Workload",
  metadata: { name, namespace: DETECTOR },
  spec: { queueName, priorityClassName: `vision-lab-${tier}`, priority: { serving: 1000, training: 500, preemptible: 100 }[tier] },
  status: { conditions },
});
const gpuUse = (total: string, borrowed: string) => [{ name: "h100", resources: [{ name: "nvidia.com/gpu", total, borrowed }] }];

describe(`seeing one's share, live against the stand-in (${databaseLabel()})`, () => {
  it("a tenant admin moves quota between two projects and both ClusterQueues and ResourceQuotas carry the new guarantees", async () => {
    // The test seed holds no GPUs: the two projects get H100s by approved requests (detector-training with burst).
    for (const [project, gpuCount, gpuBurst] of [
      ["detector-training", "8", "4"],
      ["segmentation-research", "2", ""],
    ] as const) {
      const { request } = await executeCommand(createQuotaRequest, await as("vision-admin"), { tenant: "vision-lab", project, gpuModel: "H100", gpuCount, gpuBurst, justification: "GPUs to share." });
      await executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: request.id, version: request.version });
    }
    const tenantId = seeded.tenantId["vision-lab"]!;
    for (const slug of ["detector-training", "segmentation-research"]) await enqueueClusterChange(db, { tenantId, projectId: await projectIdOf(db, "vision-lab", slug), reason: "kueue on", at: NOW });
    await enqueueClusterChange(db, { tenantId, reason: "kueue on", at: NOW });
    await reconcile();
    expect([nominalH100(DETECTOR), hardGpus(DETECTOR), nominalH100(SEGMENTATION), hardGpus(SEGMENTATION)]).toEqual(["8", "12", "2", "2"]);

    await executeCommand(setTenantEnvelope, await as("platform-admin"), { tenant: "vision-lab", quota: "gpu:H100", guarantee: "10", burst: "8" });
    await executeCommand(moveQuota, await as("vision-admin"), { tenant: "vision-lab", quota: "gpu:H100", from: "detector-training", to: "segmentation-research", amount: "2" });
    await reconcile();
    // The guarantees moved; the hard cap is guarantee + burst, so it moves by the same two.
    expect([nominalH100(DETECTOR), hardGpus(DETECTOR), nominalH100(SEGMENTATION), hardGpus(SEGMENTATION)]).toEqual(["6", "10", "4", "4"]);
  });

  it("a data scientist sees in use, borrowed and lent per flavour, and a pending workload with why it waits and its position", async () => {
    const guarantee = Number(nominalH100(DETECTOR));
    // Kueue's view: the guarantee is fully in use, two more GPUs borrowed by the burst queue; segmentation-research borrows nothing.
    api.setStatus(KUEUE, "ClusterQueue", undefined, DETECTOR, { flavorsReservation: gpuUse(String(guarantee), "0"), pendingWorkloads: 1, admittedWorkloads: 1 });
    api.setStatus(KUEUE, "ClusterQueue", undefined, `${DETECTOR}.burst`, { flavorsReservation: gpuUse("2", "2"), pendingWorkloads: 1, admittedWorkloads: 1 });
    api.setStatus(KUEUE, "ClusterQueue", undefined, SEGMENTATION, { flavorsReservation: gpuUse("1", "0"), pendingWorkloads: 0, admittedWorkloads: 1 });
    const waiting = "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor h100, 4 more needed";
    api.put(workload("sweep-a", "preemptible", "preemptible", [{ type: "QuotaReserved", status: "True", reason: "QuotaReserved" }, { type: "Admitted", status: "True", reason: "Admitted" }]));
    api.put(workload("sweep-b", "preemptible", "preemptible", [{ type: "QuotaReserved", status: "False", reason: "Pending", message: waiting }]));
    api.put(workload("sweep-c", "preemptible", "preemptible", [{ type: "QuotaReserved", status: "False", reason: "Pending", message: waiting }]));
    api.put(workload("train-main", "default", "training", [{ type: "QuotaReserved", status: "True" }, { type: "Admitted", status: "True" }]));

    const share = await projectShareNow(await as("data-scientist"), "vision-lab", "detector-training", live);
    if (share.mode !== "live") throw new Error(`expected live, got ${share.mode}: ${"message" in share ? share.message : ""}`);
    expect(share.lines.find((l) => l.flavor === "H100")).toMatchObject({ guaranteed: guarantee, inUse: guarantee + 2, borrowed: 2, lent: 0 });
    // Kueue's message, and the same in plain words naming the flavour as the project's quota does (H100, not the ResourceFlavor h100).
    const explanation = { known: true, sentence: expect.stringMatching(/^It waits for 4 more GPUs of H100 to come free:/) as unknown as string };
    expect(share.pending).toEqual([
      { name: "sweep-b", tier: "preemptible", queue: "preemptible", reason: waiting, explanation, positionInQueue: 1, positionInClusterQueue: 1, evicted: false },
      { name: "sweep-c", tier: "preemptible", queue: "preemptible", reason: waiting, explanation, positionInQueue: 2, positionInClusterQueue: 2, evicted: false },
    ]);
    expect(share.positionsNote).toBeNull();

    // Segmentation-research's idle guarantee is what detector-training borrows: it is shown as lent (an estimate).
    const lender = await projectShareNow(await as("vision-admin"), "vision-lab", "segmentation-research", live);
    if (lender.mode !== "live") throw new Error(lender.mode);
    expect(lender.lines.find((l) => l.flavor === "H100")).toMatchObject({ inUse: 1, borrowed: 0, lent: 2 });
    expect(lender.pending).toEqual([]);
  });

  it("only those who may view the project's quota see it; record-only shows the plan and says so", async () => {
    await expect(projectShareNow(await as("language-admin"), "vision-lab", "detector-training", live)).rejects.toMatchObject({ code: "not_found" });
    const plan = await projectShareNow(await as("data-scientist"), "vision-lab", "detector-training", { mode: "record-only", server: null, client: null });
    expect(plan.mode).toBe("record-only");
    expect(plan.lines.find((l) => l.flavor === "H100")).toMatchObject({ inUse: 0, borrowed: 0, lent: 0 });
    expect(plan.lines.find((l) => l.flavor === "H100")!.guaranteed).toBeGreaterThan(0);
  });

  it("a cluster that refuses, does not serve Kueue or cannot be reached gives a reason to show, never an exception", async () => {
    const refusing = await startStandInApiServer({ permissions: CLUSTER_PERMISSIONS.filter((p) => p.resource !== "workloads") });
    const noKueue = await startStandInApiServer({ kueueVersions: [] });
    try {
      const ctx = await as("data-scientist");
      const at = (url: string): ClusterRuntime => ({ mode: "live", server: url, client: kubeClientFromConfig(kubeConfigFor(url), { timeoutMs: 500 }) });
      const forbidden = await projectShareNow(ctx, "vision-lab", "detector-training", at(refusing.url));
      expect(forbidden).toMatchObject({ mode: "unavailable", problem: "forbidden" });
      expect(forbidden.mode === "unavailable" && forbidden.message).toMatch(/may not read Kueue Workloads.*clusterrole/);
      expect(await projectShareNow(ctx, "vision-lab", "detector-training", at(noKueue.url))).toMatchObject({ mode: "unavailable", problem: "not-served" });
      await noKueue.stop();
      expect(await projectShareNow(ctx, "vision-lab", "detector-training", at(noKueue.url))).toMatchObject({ mode: "unavailable", problem: "unreachable" });
    } finally {
      await refusing.close();
      await noKueue.close();
    }
  });

  it("without the visibility API, workloads still show why they wait, and the page is told why positions are missing", async () => {
    const withoutVisibility = CLUSTER_PERMISSIONS.filter((p) => p.resource !== "localqueues/pendingworkloads");
    const limited = await startStandInApiServer({ permissions: withoutVisibility });
    try {
      for (const o of api.objects().filter((x) => x.kind === "Namespace" || x.kind === "LocalQueue" || x.kind === "Workload" || x.kind === "ClusterQueue")) limited.put(o);
      const runtime: ClusterRuntime = { mode: "live", server: limited.url, client: kubeClientFromConfig(kubeConfigFor(limited.url), { timeoutMs: 500 }) };
      const share = await projectShareNow(await as("data-scientist"), "vision-lab", "detector-training", runtime);
      if (share.mode !== "live") throw new Error(share.mode);
      expect(share.pending.map((p) => [p.name, p.positionInQueue, p.reason !== null])).toEqual([
        ["sweep-b", null, true],
        ["sweep-c", null, true],
      ]);
      expect(share.positionsNote).toMatch(/not available.*may not read Kueue's visibility API/);
    } finally {
      await limited.close();
    }
  });
});
