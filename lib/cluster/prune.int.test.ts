import { asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterChanges } from "@/db/schema";
import { parseConfig } from "@/lib/config";
import { databaseLabel } from "@/test/database";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { kubeClientFromConfig, kubeConfigFor, type ClusterClient } from "./kube-client";
import { enqueueClusterChange } from "./outbox";
import { CLUSTER_PERMISSIONS } from "./permissions";
import { reconcileDue, type ReconcilerOptions } from "./worker";

/**
 * Pruning from one listing per batch (OwnedListing): a batch of changes lists
 * each owned kind once, cluster-wide by the portal's owner label, and each
 * target deletes only what carries its own labels in its own namespace and
 * was written by the portal's field manager. Against the stand-in API server
 * with the portal's RBAC enforced.
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

const worker = (): ReconcilerOptions => ({ db, settings, client, clock: () => NOW, workerId: "prune-test", batchSize: 20, concurrency: 4 });

async function drain(): Promise<void> {
  for (let i = 0; i < 5; i++) await reconcileDue(worker());
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

function namesOfDeleted(requests: { method: string; path: string }[]): string[] {
  return requests.filter((r) => r.method === "DELETE").map((r) => r.path.replace(/^.*\/namespaces\/([^/]+)\/rolebindings\/([^/]+)$/, "$1/$2"));
}
