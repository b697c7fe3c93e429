import { asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterChanges } from "@/db/schema";
import { parseConfig } from "@/lib/config";
import { databaseLabel } from "@/test/database";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { KUEUE_CONFIG } from "@/test/kube-api/live-kueue";
import { kubeClientFromConfig, kubeConfigFor, type ClusterClient } from "./kube-client";
import { enqueueClusterChange, enqueuePlatformFlavorsChange } from "./outbox";
import { CLUSTER_PERMISSIONS } from "./permissions";
import { reconcileDue, type ReconcilerOptions } from "./worker";

/**
 * Pruning from one listing per batch (OwnedListing): a batch of changes lists
 * each owned kind once, cluster-wide by the portal's owner label, and each
 * target deletes only what carries its own labels in its own namespace and
 * was written by the portal's field manager; the platform's Kueue
 * ResourceFlavors share the listing with the tenants' prunes. Against the
 * stand-in API server with the portal's RBAC enforced.
 */
const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const settings = { ...parseConfig({}).cluster, maxAttempts: 3 };
const { managedBy, labelPrefix } = settings.render;
const DT = "vision-lab--detector-training";
const SEG = "vision-lab--segmentation-research";
/** The kinds a project target owns (targets.ts ownedScope). */
const PROJECT_KINDS = 6;

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let api: StandInApiServer;
let client: ClusterClient;

beforeAll(async () => {
  db = seeded.db;
  api = await startStandInApiServer({ permissions: CLUSTER_PERMISSIONS });
  client = kubeClientFromConfig(kubeConfigFor(api.url), { timeoutMs: 2000 });
});
afterAll(async () => {
  await api?.close();
});
afterEach(() => {
  expect(api.forbidden, "calls outside the portal's ClusterRole").toEqual([]);
});

const worker = (o: Partial<ReconcilerOptions> = {}): ReconcilerOptions => ({ db, settings, client, clock: () => NOW, workerId: "prune-test", batchSize: 20, concurrency: 4, ...o });
const KUEUE = "kueue.x-k8s.io/v1beta2";
const kueueWorker = (o: Partial<ReconcilerOptions> = {}) => worker({ settings: { ...KUEUE_CONFIG.cluster, maxAttempts: 3 }, baseBackoffMs: 0, maxBackoffMs: 0, ...o });

async function drain(o: Partial<ReconcilerOptions> = {}): Promise<void> {
  for (let i = 0; i < 5; i++) await reconcileDue(worker(o));
  const pending = await db.select({ id: clusterChanges.id }).from(clusterChanges).where(eq(clusterChanges.status, "applying")).orderBy(asc(clusterChanges.id));
  expect(pending).toEqual([]);
}

async function enqueueProjects(...slugs: string[]) {
  for (const slug of slugs) {
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId: await projectIdOf(db, "vision-lab", slug), reason: "prune test", at: NOW });
  }
}

/** A RoleBinding with a project's owner labels, applied by `manager`. */
async function strayBinding(manager: string, namespace: string, project: string, name: string) {
  const writer = manager === "allot" ? client : kubeClientFromConfig(kubeConfigFor(api.url), { fieldManager: manager });
  await writer.apply({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name, namespace, labels: { "app.kubernetes.io/managed-by": managedBy, [`${labelPrefix}/tenant`]: "vision-lab", [`${labelPrefix}/project`]: project } },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
    subjects: [{ kind: "User", name: `${name}@example.com`, apiGroup: "rbac.authorization.k8s.io" }],
  } as never);
}

const bindingExists = (namespace: string, name: string) => api.get("rbac.authorization.k8s.io/v1", "RoleBinding", namespace, name) !== undefined;

describe(`pruning from one listing per batch (${databaseLabel()})`, () => {
  it("removes an object dropped from the desired state, never another target's or another field manager's, with one LIST per kind", async () => {
    await drain();
    // Dropped from the desired state: written by the portal with detector-training's labels, desired by no render.
    await strayBinding("allot", DT, "detector-training", "dropped-binding");
    // Another target's: segmentation-research's labels, in detector-training's namespace.
    await strayBinding("allot", DT, "segmentation-research", "other-target-binding");
    // Another field manager's: our labels copied by someone applying with kubectl.
    await strayBinding("kubectl", DT, "detector-training", "kubectl-binding");
    const kept = api.objects().filter((o) => o.metadata.namespace === SEG).map((o) => `${o.kind}/${o.metadata.name}`);

    const from = api.requests.length;
    await enqueueProjects("detector-training", "segmentation-research");
    await drain();
    const requests = api.requests.slice(from);

    expect(bindingExists(DT, "dropped-binding")).toBe(false);
    expect(bindingExists(DT, "other-target-binding")).toBe(true);
    expect(bindingExists(DT, "kubectl-binding")).toBe(true);
    expect(api.objects().filter((o) => o.metadata.namespace === SEG).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(kept);
    expect(namesOfDeleted(requests)).toEqual([`${DT}/dropped-binding`]);
    // Two targets, one batch: one LIST per kind between them, cluster-wide by the owner label (was one per kind and target).
    const lists = requests.filter((r) => r.method === "GET" && r.query.labelSelector !== undefined);
    expect(lists.length).toBeLessThanOrEqual(PROJECT_KINDS);
    expect(lists.every((r) => r.query.labelSelector === `app.kubernetes.io/managed-by=${managedBy}` && !r.path.includes("/namespaces/"))).toBe(true);
  });

  it("lists a target afresh when it comes twice in one batch, so its second change prunes what its first applied", async () => {
    await strayBinding("allot", DT, "detector-training", "second-dropped");
    await enqueueProjects("detector-training");
    await drain();
    expect(bindingExists(DT, "second-dropped")).toBe(false);
  });
});

describe(`the platform's flavours in the batch's listing (${databaseLabel()})`, () => {
  const flavor = (name: string) => api.get(KUEUE, "ResourceFlavor", undefined, name);
  const tenantFlavor = (name: string) =>
    client.apply({ apiVersion: KUEUE, kind: "ResourceFlavor", metadata: { name, labels: { "app.kubernetes.io/managed-by": managedBy, [`${labelPrefix}/tenant`]: "vision-lab" } }, spec: {} } as never);

  it("are pruned and kept from the same LIST as the tenants' flavours; one that moves from a tenant to the platform in the batch is not pruned from the older listing", async () => {
    const visionLab = seeded.tenantId["vision-lab"]!;
    const languageModels = seeded.tenantId["language-models"]!;
    await enqueuePlatformFlavorsChange(db, { reason: "kueue on", at: NOW }, { always: true });
    for (const tenantId of [visionLab, languageModels]) await enqueueClusterChange(db, { tenantId, reason: "kueue on", at: NOW });
    await drain(kueueWorker());
    expect(flavor("h100")).toMatchObject({ metadata: { labels: { [`${labelPrefix}/scope`]: "platform" } } });

    // As an earlier release left them: vision-lab's own flavour, and h100 labelled as vision-lab's (an object the platform target now writes).
    await tenantFlavor("vision-lab-default");
    await tenantFlavor("h100");
    // And the platform's default flavour, which vision-lab's queues name, gone: the platform's change puts it back, and vision-lab's sees that without a LIST of its own.
    await client.remove({ apiVersion: KUEUE, kind: "ResourceFlavor", name: "default" });
    // One batch, one at a time: language-models' change takes the listing (h100 still vision-lab's in it), the platform's takes h100 over, then vision-lab's prunes.
    await enqueueClusterChange(db, { tenantId: languageModels, reason: "prune test", at: NOW });
    await enqueuePlatformFlavorsChange(db, { reason: "prune test", at: NOW }, { always: true });
    await enqueueClusterChange(db, { tenantId: visionLab, reason: "prune test", at: NOW });
    const from = api.requests.length;
    await reconcileDue(kueueWorker({ concurrency: 1 }));
    const requests = api.requests.slice(from);

    expect(flavor("vision-lab-default")).toBeUndefined();
    expect(flavor("default")).toBeDefined();
    expect(flavor("h100")).toMatchObject({ metadata: { labels: { [`${labelPrefix}/scope`]: "platform" } } });
    expect(flavor("h100")?.metadata.labels?.[`${labelPrefix}/tenant`]).toBeUndefined();
    expect(requests.filter((r) => r.method === "DELETE").map((r) => r.path.split("/").at(-1))).toEqual(["vision-lab-default"]);
    // Three targets' flavours, one LIST of ResourceFlavors between them.
    expect(requests.filter((r) => r.method === "GET" && r.path.endsWith("/resourceflavors")).map((r) => r.query.labelSelector)).toEqual([`app.kubernetes.io/managed-by=${managedBy}`]);
    // All three applied in this batch: vision-lab's did not wait for the default flavour the platform's change had just applied.
    const changes = await db.select({ status: clusterChanges.status }).from(clusterChanges).orderBy(asc(clusterChanges.id));
    expect(changes.slice(-3).map((c) => c.status)).toEqual(["applied", "applied", "applied"]);
  });
});

function namesOfDeleted(requests: { method: string; path: string }[]): string[] {
  return requests.filter((r) => r.method === "DELETE").map((r) => r.path.replace(/^.*\/namespaces\/([^/]+)\/rolebindings\/([^/]+)$/, "$1/$2"));
}
