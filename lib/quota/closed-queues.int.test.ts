import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { loadDesiredTenant } from "@/lib/cluster/desired-from-db";
import { enqueueTenantChange } from "@/lib/cluster/outbox";
import type { ClusterRuntime } from "@/lib/cluster/runtime";
import { renderTarget, targetOf } from "@/lib/cluster/targets";
import { reconcileDue } from "@/lib/cluster/worker";
import { archiveProject } from "@/lib/tenancy/commands/projects";
import { setTenantStatus } from "@/lib/tenancy/commands/set-tenant-status";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { KUEUE_CONFIG, withLiveKueueStandIn } from "@/test/kube-api/live-kueue";
import type { StandInApiServer } from "@/test/kube-api/server";
import { seededDatabase } from "@/test/tenancy";
import { approveQuotaRequest, createQuotaRequest } from "./commands/requests";
import { platformShareNow, tenantShareNow } from "./share-now";

/**
 * An archived project, and every project of a disabled tenant, keeps its
 * namespace (with a quota of 0) but loses its Kueue queues: the desired state
 * has no ClusterQueue or LocalQueue for it, the worker deletes them from the
 * cluster, and the cohort views (the tenant's and the platform's) leave it
 * out, as the cluster does.
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const KUEUE = "kueue.x-k8s.io/v1beta2";
const SEGMENTATION = "vision-lab--segmentation-research";
const PRETRAINING = "language-models--pretraining";
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
const kueueConfig = KUEUE_CONFIG;
let db: Database;
let api: StandInApiServer;
let live: ClusterRuntime;

withLiveKueueStandIn((standIn) => ({ api, live } = standIn));
beforeAll(() => {
  db = seeded.db;
});

const as = (key: Parameters<typeof contextOf>[1]): Promise<CommandContext> => contextOf(db, key, NOW);
const reconcile = async () => {
  for (let i = 0; i < 8; i++) await reconcileDue({ db, settings: kueueConfig.cluster, client: live.client, clock: () => NOW, workerId: "closed-queues", baseBackoffMs: 0, maxBackoffMs: 0 });
};
const namesOf = (kind: string, namespace?: string) =>
  api
    .objects()
    .filter((o) => o.apiVersion === KUEUE && o.kind === kind && o.metadata.namespace === namespace)
    .map((o) => o.metadata.name)
    .sort();
const queuesOf = () => namesOf("ClusterQueue");
const localQueuesIn = (namespace: string) => namesOf("LocalQueue", namespace);
const desiredQueues = async (tenant: string) => {
  const loaded = (await loadDesiredTenant(db, seeded.tenantId[tenant]!, kueueConfig.cluster, NOW))!;
  return (await renderTarget(targetOf(loaded, null)!, kueueConfig.cluster.render)).filter((o) => o.kind === "ClusterQueue").map((o) => o.metadata.name);
};

describe(`closed projects have no Kueue queues (${databaseLabel()})`, () => {
  it("archiving a project removes its ClusterQueue and LocalQueue from the desired state and the cluster, and from the cohort views", async () => {
    const { request } = await executeCommand(createQuotaRequest, await as("vision-admin"), { tenant: "vision-lab", project: "segmentation-research", gpuModel: "H100", gpuCount: "2", justification: "GPUs to share." });
    await executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: request.id, version: request.version });
    for (const tenant of ["vision-lab", "language-models"]) await enqueueTenantChange(db, { tenantId: seeded.tenantId[tenant]!, reason: "kueue on", at: NOW });
    await reconcile();
    expect(queuesOf()).toContain(SEGMENTATION);
    expect(localQueuesIn(SEGMENTATION)).toContain("default");
    const before = await tenantShareNow(await as("vision-admin"), "vision-lab", live);
    expect(before.share.projects.map((p) => p.slug)).toContain("segmentation-research");

    await executeCommand(archiveProject, await as("vision-admin"), { tenant: "vision-lab", project: "segmentation-research" });
    expect(await desiredQueues("vision-lab")).not.toContain(SEGMENTATION);
    await reconcile();
    expect(queuesOf()).not.toContain(SEGMENTATION);
    expect(localQueuesIn(SEGMENTATION)).toEqual([]);
    // The namespace stays, its quota at 0.
    expect(api.get("v1", "ResourceQuota", SEGMENTATION, "project-quota")).toMatchObject({ spec: { hard: { "requests.cpu": "0", "requests.nvidia.com/gpu": "0" } } });

    const after = await tenantShareNow(await as("vision-admin"), "vision-lab", live);
    expect(after.share.projects.map((p) => p.slug)).toEqual(["detector-training"]);
    const platform = await platformShareNow(await as("platform-admin"), live);
    expect(platform.cohorts.find((c) => c.tenantSlug === "vision-lab")!.projects.map((p) => p.slug)).toEqual(["detector-training"]);
  });

  it("disabling a tenant removes every one of its projects' queues, and the platform's cohort view shows none of them", async () => {
    expect(queuesOf()).toContain(PRETRAINING);
    await executeCommand(setTenantStatus, await as("platform-admin"), { tenant: "language-models", status: "disabled" });
    expect(await desiredQueues("language-models")).toEqual([]);
    await reconcile();
    expect(queuesOf().filter((q) => q.startsWith("language-models--"))).toEqual([]);
    const platform = await platformShareNow(await as("platform-admin"), live);
    expect(platform.cohorts.find((c) => c.tenantSlug === "language-models")?.projects ?? []).toEqual([]);
  });
});
