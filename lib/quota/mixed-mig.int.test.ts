import { and, eq, isNull } from "drizzle-orm";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterChanges, clusterObjects, nodePools, projects, tenants } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { kubeClientFromConfig, kubeConfigFor, type ClusterClient } from "@/lib/cluster/kube-client";
import { enqueueTenantChange } from "@/lib/cluster/outbox";
import { CLUSTER_PERMISSIONS } from "@/lib/cluster/permissions";
import { renderAllToFiles } from "@/lib/cluster/render-all";
import { reconcileDue } from "@/lib/cluster/worker";
import { parseConfig } from "@/lib/config";
import { archiveProject } from "@/lib/tenancy/commands/projects";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { migMixedLabels, node } from "@/test/kube-api/nodes";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { seededDatabase } from "@/test/tenancy";
import { nodePoolImportProposal } from "./capacity-queries";
import { importNodePools } from "./commands/capacity";

/**
 * A MIG mixed-strategy pool offers several profiles on one node. Quota is
 * requested in one of them; the others must still be capped in every
 * namespace (hard 0), or pods that bypass Kueue could take them uncapped.
 * The import records every profile, queues every namespace (archived ones
 * too) and `render --out`, record-only and live all render the same cap.
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
const hardOf = (manifest: unknown) => (manifest as { spec: { hard: Record<string, string> } }).spec.hard;
const run = async (c: ClusterClient | null) => {
  for (let i = 0; i < 3; i++) await reconcileDue({ db, settings, client: c, clock: () => NOW, workerId: "mixed-mig", baseBackoffMs: 0, maxBackoffMs: 0 });
};

describe(`a MIG mixed-strategy pool (${databaseLabel()})`, () => {
  it("records every profile its nodes offer, requestable in one, and caps the others at 0 in every namespace: render, record-only and live alike", async () => {
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

    // An archived project must stay capped too: archive one before the import.
    const [archived] = await db.select().from(projects).where(isNull(projects.archivedAt)).limit(1);
    const owner = await contextOf(db, "platform-admin", NOW);
    await executeCommand(archiveProject, owner, { tenant: (await tenantSlugOf(archived!.tenantId))!, project: archived!.slug });
    await run(null);

    await executeCommand(importNodePools, admin, { pools: JSON.stringify([item.pool]) });
    const [stored] = await db.select().from(nodePools).where(eq(nodePools.name, "a100-mig"));
    expect(stored!.offeredGpuResources.map((o) => o.resource)).toEqual(MIXED);

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
});

async function tenantSlugOf(tenantId: string): Promise<string | undefined> {
  return (await db.select({ slug: tenants.slug }).from(tenants).where(eq(tenants.id, tenantId)))[0]?.slug;
}
