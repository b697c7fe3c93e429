import { and, eq, isNull } from "drizzle-orm";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Database } from "@/db/client";
import { clusterChanges, clusterObjects, nodePools, projects, tenants } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { kubeClientFromConfig, kubeConfigFor, type ClusterClient } from "@/lib/cluster/kube-client";
import type { ClusterQueue, ResourceFlavor } from "@/lib/cluster/kueue";
import { enqueuePlatformFlavorsChange, enqueueTenantChange } from "@/lib/cluster/outbox";
import { CLUSTER_PERMISSIONS } from "@/lib/cluster/permissions";
import { renderAllToFiles } from "@/lib/cluster/render-all";
import { reconcileDue } from "@/lib/cluster/worker";
import { parseConfig, type AllotConfig } from "@/lib/config";
import { archiveProject } from "@/lib/tenancy/commands/projects";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { KUEUE_CONFIG } from "@/test/kube-api/live-kueue";
import { migMixedLabels, node } from "@/test/kube-api/nodes";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { seededDatabase } from "@/test/tenancy";
import { nodePoolImportProposal } from "./capacity-queries";
import { assessRequest } from "./assess";
import { importNodePools } from "./commands/capacity";
import { approveQuotaRequest, createQuotaRequest, requestableGpuModels } from "./commands/requests";

/**
 * A MIG mixed-strategy pool offers several profiles on one node. Each profile
 * every node offers is proposed as requestable, a model of its own; the rest
 * must still be capped in every namespace (hard 0), or pods that bypass Kueue
 * could take them uncapped. The import records every profile, queues every
 * namespace (archived ones too) and `render --out`, record-only and live all
 * render the same cap; a grant of the second profile reaches the
 * ResourceQuota and, with Kueue on, the ClusterQueue, in all three alike.
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const settings = parseConfig({}).cluster;
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
let db: Database;
let api: StandInApiServer;
let client: ClusterClient;

beforeAll(async () => {
  db = seeded.db;
  api = await startStandInApiServer({ kueueVersions: [], permissions: CLUSTER_PERMISSIONS });
  client = kubeClientFromConfig(kubeConfigFor(api.url), { timeoutMs: 2000 });
});
afterAll(async () => {
  await api?.close();
});

const MIXED = ["nvidia.com/mig-1g.10gb", "nvidia.com/mig-3g.40gb", "nvidia.com/mig-7g.80gb"];
/** The second profile as import names it from the nodes' product. */
const SECOND = "A100 SXM4 80GB 3g.40gb";
const NAMESPACE = "vision-lab--detector-training";
const hardOf = (manifest: unknown) => (manifest as { spec: { hard: Record<string, string> } }).spec.hard;
const run = async (c: ClusterClient | null) => {
  for (let i = 0; i < 3; i++) await reconcileDue({ db, settings, client: c, clock: () => NOW, workerId: "mixed-mig", baseBackoffMs: 0, maxBackoffMs: 0 });
};

describe(`a MIG mixed-strategy pool (${databaseLabel()})`, () => {
  it("records every profile its nodes offer, makes those on every node requestable, and caps the others at 0 in every namespace: render, record-only and live alike", async () => {
    // The seeded a100-mig pool's nodes, re-partitioned: 1g.10gb slices, two 3g.40gb and (on one node) one 7g.80gb.
    const labels = { "cloud.google.com/gke-nodepool": "a100-mig", ...migMixedLabels("NVIDIA-A100-SXM4-80GB", 8, "custom-mixed") };
    api.put(node({ name: "a100-0", labels, allocatable: { cpu: "96", memory: "1152Gi", "nvidia.com/mig-1g.10gb": "28", "nvidia.com/mig-3g.40gb": "2", "nvidia.com/mig-7g.80gb": "1" } }));
    api.put(node({ name: "a100-1", labels, allocatable: { cpu: "96", memory: "1152Gi", "nvidia.com/mig-1g.10gb": "28", "nvidia.com/mig-3g.40gb": "2" } }));

    const admin = await contextOf(db, "platform-admin", NOW);
    const item = (await nodePoolImportProposal(admin, client))!.items.find((i) => i.pool.name === "a100-mig")!;
    expect(item.problem).toBeNull();
    expect(item.pool).toMatchObject({ gpuModel: "A100 1g.10gb", gpuResource: "nvidia.com/mig-1g.10gb", gpusPerNode: 28, gpuSharing: "mig" });
    expect(item.pool.offeredGpuResources).toEqual([
      { resource: "nvidia.com/mig-1g.10gb", perNode: 28 },
      { resource: "nvidia.com/mig-3g.40gb", perNode: 2 },
      { resource: "nvidia.com/mig-7g.80gb", perNode: 1 },
    ]);
    expect(item.changes.map((c) => c.field)).toContain("offeredGpuResources");
    // 3g.40gb is on both nodes: requestable, a model of its own; 7g.80gb is on one node only: capped.
    expect(item.pool.gpuProfiles).toEqual([{ model: SECOND, resource: "nvidia.com/mig-3g.40gb", perNode: 2 }]);
    expect(item.changes.map((c) => c.field)).toContain("gpuProfiles");

    // An archived project must stay capped too: archive one before the import.
    const [archived] = await db.select().from(projects).where(and(isNull(projects.archivedAt), eq(projects.slug, "segmentation-research")));
    const owner = await contextOf(db, "platform-admin", NOW);
    await executeCommand(archiveProject, owner, { tenant: (await tenantSlugOf(archived!.tenantId))!, project: archived!.slug });
    await run(null);

    await executeCommand(importNodePools, admin, { pools: JSON.stringify([item.pool]) });
    const [stored] = await db.select().from(nodePools).where(eq(nodePools.name, "a100-mig"));
    expect(stored!.offeredGpuResources.map((o) => o.resource)).toEqual(MIXED);
    expect(stored!.gpuProfiles).toEqual([{ model: SECOND, resource: "nvidia.com/mig-3g.40gb", perNode: 2 }]);
    expect((await requestableGpuModels(db)).filter((m) => m.mig).map((m) => [m.model, m.resource])).toEqual([
      ["A100 1g.10gb", "nvidia.com/mig-1g.10gb"],
      [SECOND, "nvidia.com/mig-3g.40gb"],
    ]);

    // Every project, archived ones too, waits for its namespace to follow.
    const all = await db.select().from(projects);
    const pending = await db.select({ projectId: clusterChanges.projectId }).from(clusterChanges).where(eq(clusterChanges.status, "pending"));
    expect(new Set(pending.map((p) => p.projectId).filter(Boolean))).toEqual(new Set(all.map((p) => p.id)));

    // render --out: validated objects, every namespace naming every profile, at 0 where not held.
    const { files } = await renderAllToFiles(db, settings, NOW);
    for (const p of all) {
      const hard = hardOf(parse(files.get(`20-${p.namespace}/resourcequota-project-quota.yaml`)!));
      for (const r of MIXED.slice(1)) expect(hard[`requests.${r}`], `${p.namespace} ${r}`).toBe("0");
      expect(hard).toHaveProperty("requests.nvidia.com/mig-1g.10gb");
    }
    expect(hardOf(parse(files.get(`20-${archived!.namespace}/resourcequota-project-quota.yaml`)!))["requests.nvidia.com/mig-1g.10gb"]).toBe("0");

    // Record-only: the recorded plan says the same.
    await run(null);
    const rendered = new Map(all.map((p) => [p.namespace, hardOf(parse(files.get(`20-${p.namespace}/resourcequota-project-quota.yaml`)!))]));
    const recorded = await db
      .select({ namespace: clusterObjects.namespace, manifest: clusterObjects.manifest })
      .from(clusterObjects)
      .where(and(eq(clusterObjects.kind, "ResourceQuota"), eq(clusterObjects.name, "project-quota")));
    expect(recorded).toHaveLength(all.length);
    for (const r of recorded) expect(hardOf(r.manifest)).toEqual(rendered.get(r.namespace));

    // Live: the API server holds the same cap.
    for (const t of new Set(all.map((p) => p.tenantId))) await enqueueTenantChange(db, { tenantId: t, reason: "apply live", at: NOW }, { includeArchived: true });
    await run(client);
    for (const p of all) expect(hardOf(api.get("v1", "ResourceQuota", p.namespace, "project-quota"))).toEqual(rendered.get(p.namespace));
  });

  it("approves a request for the second profile: its ResourceQuota and, with Kueue on, its ClusterQueue and flavour carry it, in render --out, record-only and live alike", async () => {
    const { request } = await executeCommand(createQuotaRequest, await contextOf(db, "vision-admin", NOW), {
      tenant: "vision-lab",
      project: "detector-training",
      gpuModel: SECOND,
      gpuCount: "2",
      justification: "Serving on the larger MIG slices.",
    });
    // The estimate names the profile's own price line and the capacity line of its own flavour.
    const assessment = await assessRequest(db, settings, request.projectId, { gpus: [{ model: SECOND, count: 2, burst: 0 }], cpuCores: 0, memoryBytes: 0, storageBytes: 0 }, NOW);
    expect(assessment.gpuResources).toEqual({ [SECOND]: "nvidia.com/mig-3g.40gb" });
    expect(assessment.capacity.find((l) => l.resource === `gpu:${SECOND}`)).toMatchObject({ capacity: 4, after: 2, exceeds: false });
    await executeCommand(approveQuotaRequest, await contextOf(db, "platform-admin", NOW), { requestId: request.id, version: request.version });

    // render --out, Kueue off and on: the namespace's cap holds the 2; Kueue's queue covers the resource with the profile's flavour.
    const hardIn = (files: Map<string, string>) => hardOf(parse(files.get(`20-${NAMESPACE}/resourcequota-project-quota.yaml`)!));
    expect(hardIn((await renderAllToFiles(db, settings, NOW)).files)).toMatchObject({ "requests.nvidia.com/mig-3g.40gb": "2", "requests.nvidia.com/mig-7g.80gb": "0" });
    const { files } = await renderAllToFiles(db, KUEUE_CONFIG.cluster, NOW);
    const hard = hardIn(files);
    expect(hard).toMatchObject({ "requests.nvidia.com/mig-3g.40gb": "2", "requests.nvidia.com/mig-7g.80gb": "0" });
    const fileOf = (suffix: string) => [...files].find(([name]) => name.endsWith(suffix))?.[1];
    const queue = parse(fileOf(`/clusterqueue-${NAMESPACE}.yaml`)!) as ClusterQueue;
    const group = queue.spec.resourceGroups.find((g) => g.coveredResources.includes("nvidia.com/mig-3g.40gb"))!;
    expect(group).toEqual({ coveredResources: ["nvidia.com/mig-3g.40gb"], flavors: [{ name: "a100-sxm4-80gb-3g-40gb", resources: [{ name: "nvidia.com/mig-3g.40gb", nominalQuota: "2", borrowingLimit: "0" }] }] });
    const covered = queue.spec.resourceGroups.flatMap((g) => g.coveredResources);
    expect(new Set(covered).size).toBe(covered.length);
    const flavour = parse(fileOf("/resourceflavor-a100-sxm4-80gb-3g-40gb.yaml")!) as ResourceFlavor;
    expect(flavour.spec.nodeLabels).toMatchObject({ "cloud.google.com/gke-nodepool": "a100-mig", "nvidia.com/mig.config": "custom-mixed" });

    // Record-only, Kueue on (in the process's configuration too, which decides what a change covers): the recorded plan says the same.
    const globalConfig = globalThis as unknown as { allotConfig?: AllotConfig };
    const previousConfig = globalConfig.allotConfig;
    globalConfig.allotConfig = KUEUE_CONFIG;
    onTestFinished(() => {
      globalConfig.allotConfig = previousConfig;
    });
    const runKueue = async (c: ClusterClient | null) => {
      for (let i = 0; i < 4; i++) await reconcileDue({ db, settings: KUEUE_CONFIG.cluster, client: c, clock: () => NOW, workerId: "mixed-mig-kueue", baseBackoffMs: 0, maxBackoffMs: 0 });
    };
    for (const t of await db.select({ id: tenants.id }).from(tenants)) await enqueueTenantChange(db, { tenantId: t.id, reason: "kueue on", at: NOW }, { includeArchived: true });
    await enqueuePlatformFlavorsChange(db, { reason: "kueue on", at: NOW });
    await runKueue(null);
    const recorded = async (kind: string, name: string) =>
      (await db.select({ manifest: clusterObjects.manifest }).from(clusterObjects).where(and(eq(clusterObjects.kind, kind), eq(clusterObjects.name, name))))[0]?.manifest;
    expect(hardOf(await recordedIn(NAMESPACE))).toEqual(hard);
    expect(((await recorded("ClusterQueue", NAMESPACE)) as unknown as ClusterQueue).spec.resourceGroups).toEqual(queue.spec.resourceGroups);
    expect(await recorded("ResourceFlavor", "a100-sxm4-80gb-3g-40gb")).toBeDefined();

    // Live, on a stand-in serving Kueue: the API server holds the same objects.
    const kueueApi = await startStandInApiServer({ permissions: CLUSTER_PERMISSIONS });
    try {
      const kueueClient = kubeClientFromConfig(kubeConfigFor(kueueApi.url), { timeoutMs: 2000 });
      for (const t of await db.select({ id: tenants.id }).from(tenants)) await enqueueTenantChange(db, { tenantId: t.id, reason: "apply live", at: NOW }, { includeArchived: true });
      await enqueuePlatformFlavorsChange(db, { reason: "apply live", at: NOW });
      await runKueue(kueueClient);
      expect(hardOf(kueueApi.get("v1", "ResourceQuota", NAMESPACE, "project-quota"))).toEqual(hard);
      expect((kueueApi.get("kueue.x-k8s.io/v1beta2", "ClusterQueue", undefined, NAMESPACE) as unknown as ClusterQueue).spec.resourceGroups).toEqual(queue.spec.resourceGroups);
      expect(kueueApi.get("kueue.x-k8s.io/v1beta2", "ResourceFlavor", undefined, "a100-sxm4-80gb-3g-40gb")).toMatchObject({ spec: { nodeLabels: flavour.spec.nodeLabels } });
    } finally {
      await kueueApi.close();
    }
  });
});

async function recordedIn(namespace: string): Promise<unknown> {
  return (await db.select({ manifest: clusterObjects.manifest }).from(clusterObjects).where(and(eq(clusterObjects.kind, "ResourceQuota"), eq(clusterObjects.namespace, namespace), eq(clusterObjects.name, "project-quota"))))[0]?.manifest;
}

async function tenantSlugOf(tenantId: string): Promise<string | undefined> {
  return (await db.select({ slug: tenants.slug }).from(tenants).where(eq(tenants.id, tenantId)))[0]?.slug;
}
