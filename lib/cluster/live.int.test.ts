import { and, asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterChangeAttempts, clusterChanges, clusterObjects, projectGrants } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { parseConfig } from "@/lib/config";
import { createProject } from "@/lib/tenancy/commands/create-project";
import { revokeProjectGrant } from "@/lib/tenancy/commands/project-access";
import { databaseLabel } from "@/test/database";
import { contextOf, personaEmail, principalIdOf } from "@/test/fixtures";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { retryClusterChange } from "./commands";
import { checkDrift } from "./drift-check";
import { kubeClientFromConfig, kubeConfigFor, type ClusterClient } from "./kube-client";
import { enqueueClusterChange, enqueuePlatformFlavorsChange, projectTarget, tenantTarget } from "./outbox";
import { PLATFORM_FLAVORS_TARGET } from "./target-keys";
import { CLUSTER_PERMISSIONS } from "./permissions";
import { reconcileDue, type ReconcilerOptions } from "./worker";

/**
 * The worker in live mode against the stand-in Kubernetes API server, over
 * HTTP through @kubernetes/client-node: objects land with the right content,
 * faults are retried or fail the change with the API's message, revoked
 * access is deleted, and drift is found. The stand-in enforces the portal's
 * RBAC (lib/cluster/permissions.ts, the list deploy/'s ClusterRole is made
 * from): every call the worker and the drift check make must be in it.
 */
const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const settings = { ...parseConfig({}).cluster, maxAttempts: 3 };
const kueueSettings = (() => {
  const c = parseConfig({ ALLOT_KUEUE: "1" }).cluster;
  return { ...c, maxAttempts: 3 };
})();

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let api: StandInApiServer;
let client: ClusterClient;
let clockAt = NOW;
const clock = () => clockAt;

beforeAll(async () => {
  db = seeded.db;
  api = await startStandInApiServer({ permissions: CLUSTER_PERMISSIONS });
  client = kubeClientFromConfig(kubeConfigFor(api.url), { timeoutMs: 500 });
});
afterAll(async () => {
  await api?.close();
});
beforeEach(() => {
  clockAt = NOW;
});
afterEach(() => {
  expect(api.forbidden, "calls outside the portal's ClusterRole").toEqual([]);
});

const worker = (extra: Partial<ReconcilerOptions> = {}): ReconcilerOptions => ({
  db,
  settings,
  client,
  clock,
  workerId: "live-test",
  baseBackoffMs: 1000,
  random: () => 0.5,
  ...extra,
});

/** Run the worker until nothing is due, moving the clock past each backoff. */
async function drain(o: ReconcilerOptions = worker()): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await reconcileDue(o);
    const [next] = await db
      .select({ at: clusterChanges.nextAttemptAt })
      .from(clusterChanges)
      .where(eq(clusterChanges.status, "pending"))
      .orderBy(asc(clusterChanges.nextAttemptAt))
      .limit(1);
    // Only retries within the next hour count; grant expiries scheduled weeks ahead stay pending.
    if (!next || next.at.getTime() > clockAt.getTime() + 3_600_000) return;
    clockAt = new Date(Math.max(clockAt.getTime(), next.at.getTime()) + 1);
  }
  throw new Error("the queue did not drain");
}

const lastChange = async (targetKey: string) =>
  (await db.select().from(clusterChanges).where(eq(clusterChanges.targetKey, targetKey)).orderBy(asc(clusterChanges.id))).at(-1)!;

const namesOf = (kind: string, namespace: string) =>
  api
    .objects()
    .filter((o) => o.kind === kind && o.metadata.namespace === namespace)
    .map((o) => o.metadata.name)
    .sort();

describe(`worker, live against the stand-in API server (${databaseLabel()})`, () => {
  it("applies the seeded desired state: every project's objects, with the right content", async () => {
    await drain();
    const ns = "vision-lab--detector-training";
    const namespace = api.get("v1", "Namespace", undefined, ns);
    expect(namespace?.metadata.labels).toMatchObject({
      "app.kubernetes.io/managed-by": "allot",
      "allot.dev/tenant": "vision-lab",
      "allot.dev/project": "detector-training",
      "pod-security.kubernetes.io/enforce": "restricted",
    });
    const quota = api.get("v1", "ResourceQuota", ns, "project-quota") as unknown as { spec: { hard: Record<string, string> } };
    expect(quota.spec.hard).toMatchObject({ "requests.cpu": "4", "requests.memory": "16Gi" });
    expect(namesOf("NetworkPolicy", ns).length).toBeGreaterThanOrEqual(3);
    expect(namesOf("RoleBinding", ns)).toHaveLength(2);
    // Server-side apply, one field manager.
    const applies = api.requests.filter((r) => r.method === "PATCH");
    expect(applies.length).toBeGreaterThan(0);
    expect(applies.every((r) => r.contentType === "application/apply-patch+yaml" && r.query.fieldManager === "allot" && r.query.force === "true")).toBe(true);
    // Namespace first: nothing namespaced is applied before its namespace exists.
    const firstPatch = applies.find((r) => r.path.includes(ns));
    expect(firstPatch?.path).toBe(`/api/v1/namespaces/${ns}`);

    const objects = await db.select().from(clusterObjects).where(eq(clusterObjects.namespace, ns));
    expect(objects.every((o) => o.status === "applied" && o.appliedAt !== null)).toBe(true);
    const changes = await db.select().from(clusterChanges).where(eq(clusterChanges.status, "applied"));
    expect(changes.length).toBe(4);
  });

  it("applying the same state again changes nothing on the cluster", async () => {
    const before = api.objects().map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`);
    const projectId = await projectIdOf(db, "vision-lab", "detector-training");
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId, reason: "again", at: NOW });
    await drain();
    expect(api.objects().map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`)).toEqual(before);
    expect((await lastChange(projectTarget(projectId))).status).toBe("applied");
  });

  it("a new project appears on the cluster with its namespace, quota, limits and network fence", async () => {
    const admin = await contextOf(db, "vision-admin", NOW);
    await executeCommand(createProject, admin, { tenant: "vision-lab", name: "Tracking", slug: "tracking", description: "" });
    await drain();
    const ns = "vision-lab--tracking";
    expect(api.get("v1", "Namespace", undefined, ns)).toBeDefined();
    expect(namesOf("ResourceQuota", ns)).toEqual(["project-quota"]);
    expect(namesOf("LimitRange", ns)).toEqual(["container-defaults"]);
    expect(namesOf("NetworkPolicy", ns)).toContain("default-deny");
    expect(namesOf("RoleBinding", ns)).toHaveLength(1); // the tenant admin
  });

  it("a revoked grant's RoleBinding is deleted from the cluster", async () => {
    const ns = "vision-lab--detector-training";
    const projectId = await projectIdOf(db, "vision-lab", "detector-training");
    const scientist = await principalIdOf(db, personaEmail("data-scientist"));
    const [grant] = await db.select().from(projectGrants).where(and(eq(projectGrants.projectId, projectId), eq(projectGrants.principalId, scientist)));
    const editBinding = namesOf("RoleBinding", ns).find((n) => n.startsWith("edit-user-"));
    expect(editBinding).toBeDefined();

    await executeCommand(revokeProjectGrant, await contextOf(db, "vision-admin", NOW), { tenant: "vision-lab", project: "detector-training", grantId: grant!.id });
    await drain();

    expect(namesOf("RoleBinding", ns)).not.toContain(editBinding);
    expect(namesOf("RoleBinding", ns)).toHaveLength(1);
    expect((await lastChange(projectTarget(projectId))).deletions).toEqual([expect.objectContaining({ kind: "RoleBinding", name: editBinding })]);
    expect(api.requests.some((r) => r.method === "DELETE" && r.path.endsWith(`/rolebindings/${editBinding}`))).toBe(true);
  });

  it.each([
    ["a 500", { status: 500 }],
    ["a 429 with Retry-After", { status: 429, retryAfterSeconds: 2 }],
    ["a refused connection", { refuse: true }],
    ["a response slower than the timeout", { delayMs: 1500 }],
  ])("retries after %s, with backoff, to success", async (_label, fault) => {
    const projectId = await projectIdOf(db, "vision-lab", "tracking");
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId, reason: "fault", at: NOW });
    api.faults.push({ ...fault, match: { method: "PATCH" } });
    await reconcileDue(worker());
    const retrying = await lastChange(projectTarget(projectId));
    expect(retrying).toMatchObject({ status: "pending", attempts: 1 });
    expect(retrying.lastError).toBeTruthy();
    // The reason is kept beside the message, for the pages' "what to do".
    expect(retrying.lastErrorReason).toMatch(/^(InternalError|http_500|TooManyRequests|http_429|ConnectionRefused|ConnectionReset|Timeout)$/);
    const delay = retrying.nextAttemptAt.getTime() - NOW.getTime();
    expect(delay).toBeGreaterThanOrEqual("retryAfterSeconds" in fault ? 2000 : 750);

    await drain();
    const done = await lastChange(projectTarget(projectId));
    expect(done).toMatchObject({ status: "applied", attempts: 2, lastError: null, lastErrorReason: null });
    const attempts = await db.select().from(clusterChangeAttempts).where(eq(clusterChangeAttempts.changeId, done.id)).orderBy(asc(clusterChangeAttempts.id));
    expect(attempts.map((a) => a.outcome)).toEqual(["retry", "applied"]);
  });

  it("a 409 conflict is settled by applying again, within the same attempt", async () => {
    const projectId = await projectIdOf(db, "vision-lab", "tracking");
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId, reason: "conflict", at: NOW });
    api.faults.push({ status: 409, match: { method: "PATCH", kind: "ResourceQuota" } });
    await reconcileDue(worker());
    expect(await lastChange(projectTarget(projectId))).toMatchObject({ status: "applied", attempts: 1 });
  });

  it("gives up after the configured attempts, shows the API's message, and an admin retry succeeds", async () => {
    const projectId = await projectIdOf(db, "vision-lab", "tracking");
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId, reason: "outage", at: NOW });
    api.faults.push({ status: 503, message: "etcdserver: leader changed", match: { method: "PATCH" }, times: 10 });
    await drain();
    const failed = await lastChange(projectTarget(projectId));
    expect(failed.status).toBe("failed");
    expect(failed.attempts).toBe(3);
    expect(failed.lastError).toMatch(/etcdserver: leader changed/);
    expect(failed.lastError).toMatch(/gave up after 3 attempts/);
    expect(failed.lastErrorReason).toMatch(/^(ServiceUnavailable|http_503)$/);
    expect((await db.select().from(clusterObjects).where(eq(clusterObjects.lastChangeId, failed.id))).every((o) => o.status === "failed")).toBe(true);
    api.faults.clear();

    // Only a platform admin may retry; the retry gets a fresh budget and succeeds.
    await expect(executeCommand(retryClusterChange, await contextOf(db, "vision-admin", clockAt), { changeId: failed.id })).rejects.toMatchObject({ code: "forbidden" });
    expect(await executeCommand(retryClusterChange, await contextOf(db, "platform-admin", clockAt), { changeId: failed.id })).toEqual({ retried: true, supersededBy: null });
    await drain();
    expect(await lastChange(projectTarget(projectId))).toMatchObject({ id: failed.id, status: "applied", attempts: 1, lastError: null });
    const attempts = await db.select().from(clusterChangeAttempts).where(eq(clusterChangeAttempts.changeId, failed.id)).orderBy(asc(clusterChangeAttempts.id));
    expect(attempts.map((a) => a.outcome)).toEqual(["retry", "retry", "failed", "applied"]);
  });

  it("a refusal that retrying cannot fix (403) fails at once", async () => {
    const projectId = await projectIdOf(db, "vision-lab", "tracking");
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId, reason: "forbidden", at: NOW });
    api.faults.push({ status: 403, message: 'rolebindings.rbac.authorization.k8s.io is forbidden: User "allot" cannot patch', match: { method: "PATCH", kind: "RoleBinding" } });
    await reconcileDue(worker());
    const failed = await lastChange(projectTarget(projectId));
    expect(failed).toMatchObject({ status: "failed", attempts: 1 });
    expect(failed.lastError).toMatch(/^RoleBinding vision-lab--tracking\/.+: .*forbidden/);
    expect(failed.lastErrorReason).toMatch(/^(Forbidden|http_403)$/);
  });

  it("finds drifted and missing objects, and a reconcile puts them back", async () => {
    const tracking = await projectIdOf(db, "vision-lab", "tracking");
    const failedBefore = await lastChange(projectTarget(tracking));
    expect(failedBefore.status).toBe("failed"); // the 403 above
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId: tracking, reason: "heal", at: NOW });
    await drain();
    // The success settles the older failure: it is no longer offered for retry.
    expect((await db.select().from(clusterChanges).where(eq(clusterChanges.id, failedBefore.id)))[0]!.status).toBe("superseded");
    const ns = "vision-lab--detector-training";
    const quota = api.get("v1", "ResourceQuota", ns, "project-quota")!;
    api.put({ ...quota, spec: { hard: { ...(quota as unknown as { spec: { hard: Record<string, string> } }).spec.hard, "requests.cpu": "64" } } });
    api.remove("v1", "LimitRange", ns, "container-defaults");

    const report = await checkDrift({ db, client, clock });
    expect(report).toMatchObject({ drifted: 1, missing: 1 });
    const drifted = await db.select().from(clusterObjects).where(eq(clusterObjects.status, "drifted"));
    expect(drifted.map((o) => [o.kind, o.drift])).toEqual(
      expect.arrayContaining([
        ["ResourceQuota", [{ path: ".spec.hard.requests.cpu", desired: "4", live: "64" }]],
        ["LimitRange", "missing"],
      ]),
    );

    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId: await projectIdOf(db, "vision-lab", "detector-training"), reason: "reconcile now", at: NOW });
    await drain();
    expect(await checkDrift({ db, client, clock })).toMatchObject({ drifted: 0, missing: 0 });
    expect((api.get("v1", "ResourceQuota", ns, "project-quota") as unknown as { spec: { hard: Record<string, string> } }).spec.hard["requests.cpu"]).toBe("4");
    expect(api.get("v1", "LimitRange", ns, "container-defaults")).toBeDefined();
  });

  it("with Kueue on, applies the tenant's cohort, tiers and its projects' queues, the platform's flavours they name, and a LocalQueue per project", async () => {
    const o = worker({ settings: kueueSettings });
    // A flavour an earlier release named per tenant: the tenant's change deletes it once its queues name the platform's.
    await client.apply({ apiVersion: "kueue.x-k8s.io/v1beta2", kind: "ResourceFlavor", metadata: { name: "vision-lab-default", labels: { "app.kubernetes.io/managed-by": "allot", "allot.dev/tenant": "vision-lab" } }, spec: {} } as never);
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, reason: "kueue on", at: NOW });
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId: await projectIdOf(db, "vision-lab", "tracking"), reason: "kueue on", at: NOW });
    await drain(o);
    expect(api.get("kueue.x-k8s.io/v1beta2", "Cohort", undefined, "tenant-vision-lab")).toMatchObject({ spec: { parentName: "allot" } });
    expect(api.get("kueue.x-k8s.io/v1beta2", "WorkloadPriorityClass", undefined, "vision-lab-preemptible")).toMatchObject({ value: 100 });
    // The queue names the platform's flavour, which the tenant's change queued and waited for (no queue ever names a missing flavour).
    expect(api.get("kueue.x-k8s.io/v1beta2", "ResourceFlavor", undefined, "default")).toMatchObject({ metadata: { labels: { "allot.dev/scope": "platform" } } });
    expect(api.get("kueue.x-k8s.io/v1beta2", "ResourceFlavor", undefined, "vision-lab-default")).toBeUndefined();
    expect((await lastChange(PLATFORM_FLAVORS_TARGET)).status).toBe("applied");
    expect(api.get("kueue.x-k8s.io/v1beta2", "ClusterQueue", undefined, "vision-lab--tracking")).toMatchObject({
      spec: { cohortName: "tenant-vision-lab", namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "vision-lab--tracking" } }, resourceGroups: [{ flavors: [{ name: "default" }] }] },
    });

    // A flavour no pool offers any more is pruned by the platform's change, but not while a queue names it.
    await client.apply({ apiVersion: "kueue.x-k8s.io/v1beta2", kind: "ResourceFlavor", metadata: { name: "gone-pool", labels: { "app.kubernetes.io/managed-by": "allot", "allot.dev/scope": "platform" } }, spec: {} } as never);
    await client.apply({
      apiVersion: "kueue.x-k8s.io/v1beta2",
      kind: "ClusterQueue",
      metadata: { name: "someone-elses" },
      spec: { namespaceSelector: {}, resourceGroups: [{ coveredResources: ["cpu"], flavors: [{ name: "gone-pool", resources: [{ name: "cpu", nominalQuota: "1" }] }] }] },
    } as never);
    await enqueuePlatformFlavorsChange(db, { reason: "pool deleted", at: NOW }, { always: true });
    for (let i = 0; i < 3 && !(await lastChange(PLATFORM_FLAVORS_TARGET)).lastError; i++) await reconcileDue({ ...o, clock: () => new Date(clock().getTime() + 60_000) });
    const held = await lastChange(PLATFORM_FLAVORS_TARGET);
    expect(held.status).toBe("pending");
    expect(held.lastError).toContain("gone-pool (named by ClusterQueue someone-elses)");
    expect(held.lastErrorReason).toBe("FlavorInUse");
    expect(api.get("kueue.x-k8s.io/v1beta2", "ResourceFlavor", undefined, "gone-pool")).toBeDefined();
    await client.remove({ apiVersion: "kueue.x-k8s.io/v1beta2", kind: "ClusterQueue", name: "someone-elses" });
    await drain(o);
    expect(api.get("kueue.x-k8s.io/v1beta2", "ResourceFlavor", undefined, "gone-pool")).toBeUndefined();
    expect(api.get("kueue.x-k8s.io/v1beta2", "ResourceFlavor", undefined, "default")).toBeDefined();
    expect(api.get("kueue.x-k8s.io/v1beta2", "LocalQueue", "vision-lab--tracking", "default")).toMatchObject({ spec: { clusterQueue: "vision-lab--tracking" } });
    expect((await lastChange(tenantTarget(seeded.tenantId["vision-lab"]!))).status).toBe("applied");

    // Kueue off again: the tenant's queue objects are pruned by their labels.
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, reason: "kueue off", at: NOW });
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId: await projectIdOf(db, "vision-lab", "tracking"), reason: "kueue off", at: NOW });
    await drain();
    await enqueuePlatformFlavorsChange(db, { reason: "kueue off", at: NOW }, { always: true });
    await drain();
    for (const [kind, name] of [["ClusterQueue", "vision-lab--tracking"], ["Cohort", "tenant-vision-lab"], ["ResourceFlavor", "default"], ["WorkloadPriorityClass", "vision-lab-preemptible"]] as const)
      expect(api.get("kueue.x-k8s.io/v1beta2", kind, undefined, name), `${kind} ${name}`).toBeUndefined();
    expect(api.get("kueue.x-k8s.io/v1beta2", "LocalQueue", "vision-lab--tracking", "default")).toBeUndefined();
  });
  it("renders the Kueue version the cluster serves: v1beta1 on a server without v1beta2, whatever the setting says", async () => {
    const old = await startStandInApiServer({ permissions: CLUSTER_PERMISSIONS, kueueVersions: ["v1beta1"] });
    try {
      const oldClient = kubeClientFromConfig(kubeConfigFor(old.url), { timeoutMs: 500 });
      const set = { ...parseConfig({ ALLOT_KUEUE: "1", ALLOT_KUEUE_API_VERSION: "v1beta2" }).cluster, maxAttempts: 3 };
      expect(set.render.kueue.apiVersion).toBe("v1beta2");
      const tenantId = seeded.tenantId["vision-lab"]!;
      await enqueueClusterChange(db, { tenantId, reason: "kueue on an older Kueue", at: NOW });
      await enqueueClusterChange(db, { tenantId, projectId: await projectIdOf(db, "vision-lab", "tracking"), reason: "kueue on an older Kueue", at: NOW });
      await drain(worker({ settings: set, client: oldClient }));
      expect((await lastChange(tenantTarget(tenantId))).status).toBe("applied");
      expect(old.get("kueue.x-k8s.io/v1beta1", "Cohort", undefined, "tenant-vision-lab")).toMatchObject({ spec: { parentName: "allot" } });
      expect(old.get("kueue.x-k8s.io/v1beta1", "ClusterQueue", undefined, "vision-lab--tracking")).toMatchObject({ spec: { cohort: "tenant-vision-lab" } });
      expect(old.objects().filter((o) => o.apiVersion === "kueue.x-k8s.io/v1beta2")).toEqual([]);
      expect(old.forbidden, "calls outside the portal's ClusterRole").toEqual([]);
    } finally {
      await old.close();
      // The main stand-in's objects are as the Kueue-off state left them; put the tenant back there.
      await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, reason: "kueue off", at: NOW });
      await drain();
    }
  });
});
