import type { KubernetesObject } from "@kubernetes/client-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import type { RenderConfig } from "./desired-state";
import { dedicatedTenant, fullConfig, migProject, noGpuProject, sharedTenant } from "./fixtures";
import { ClusterApiError, kubeClientFromConfig, kubeConfigFor, UNKNOWN_KIND, type ClusterClient, type ClusterClientOptions, type KubeObject, type ObjectRef } from "./kube-client";
import { renderPlatformFlavors } from "./render-platform";
import { renderTenant, type ClusterObject } from "./render-project";

let server: StandInApiServer;
let client: ClusterClient;

const clientFor = (options: ClusterClientOptions = {}) => kubeClientFromConfig(kubeConfigFor(server.url), { timeoutMs: 3_000, ...options });

beforeAll(async () => {
  server = await startStandInApiServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  client = clientFor();
});

const v1beta1Config: RenderConfig = { ...fullConfig, kueue: { ...fullConfig.kueue, apiVersion: "v1beta1" } };
const everything = (config: RenderConfig) => [...renderPlatformFlavors([dedicatedTenant], config), ...renderTenant(sharedTenant, [noGpuProject], config), ...renderTenant(dedicatedTenant, [migProject], config)];
const refOf = (o: ClusterObject): ObjectRef => ({ apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata?.namespace, name: o.metadata!.name! });
/** The rendered object as JSON: what must arrive on the cluster, field for field. */
const asJson = (o: ClusterObject) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>;

async function applyAll(objects: ClusterObject[]): Promise<KubeObject[]> {
  const results: KubeObject[] = [];
  for (const o of objects) results.push(await client.apply(o as KubernetesObject));
  return results;
}

async function failure(promise: Promise<unknown>): Promise<ClusterApiError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(ClusterApiError);
  return outcome.error as ClusterApiError;
}

describe.each([
  ["Kueue v1beta2", fullConfig],
  ["Kueue v1beta1", v1beta1Config],
])("every kind the portal renders (%s)", (_, config) => {
  const objects = everything(config);

  it("covers every kind", () => {
    expect(new Set(objects.map((o) => o.kind))).toEqual(
      new Set(["WorkloadPriorityClass", "ResourceFlavor", "Cohort", "ClusterQueue", "Namespace", "ResourceQuota", "LimitRange", "NetworkPolicy", "ServiceAccount", "RoleBinding", "LocalQueue"]),
    );
  });

  it("applies each object so the cluster holds exactly what was rendered", async () => {
    const results = await applyAll(objects);
    for (const [i, o] of objects.entries()) {
      const stored = server.get(o.apiVersion, o.kind, o.metadata?.namespace, o.metadata!.name!);
      expect(stored, `${o.kind} ${o.metadata?.name}`).toMatchObject(asJson(o));
      expect(results[i]).toMatchObject({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata?.name, resourceVersion: stored!.metadata.resourceVersion } });
    }
    const patches = server.requests.filter((r) => r.method === "PATCH");
    expect(patches).toHaveLength(objects.length);
    for (const p of patches) expect(p).toMatchObject({ contentType: "application/apply-patch+yaml", query: { fieldManager: "allot", force: "true" } });
  });

  it("changes nothing when applied twice", async () => {
    await applyAll(objects);
    const before = server.objects().map((o) => [o.kind, o.metadata.name, o.metadata.resourceVersion]);
    await applyAll(objects);
    expect(server.objects().map((o) => [o.kind, o.metadata.name, o.metadata.resourceVersion])).toEqual(before);
  });

  it("reads each object back as JSON equal to what was rendered, and null for one that is absent", async () => {
    await applyAll(objects);
    for (const o of objects) {
      const read = await client.read(refOf(o));
      expect(read, `${o.kind} ${o.metadata?.name}`).toMatchObject(asJson(o));
      expect(typeof read?.metadata.creationTimestamp).toBe("string");
    }
    for (const o of objects) expect(await client.read({ ...refOf(o), name: "absent" })).toBeNull();
  });

  it("lists each kind by label, in a namespace and cluster-wide, with apiVersion and kind on every item", async () => {
    await applyAll(objects);
    const kinds = new Map(objects.map((o) => [o.kind, o.apiVersion]));
    for (const [kind, apiVersion] of kinds) {
      for (const tenant of ["acme", "vision"]) {
        const expected = objects.filter((o) => o.kind === kind && o.metadata?.labels?.["allot.dev/tenant"] === tenant).map((o) => o.metadata!.name!);
        const items = await client.list(apiVersion, kind, { labelSelector: `app.kubernetes.io/managed-by=allot,allot.dev/tenant=${tenant}` });
        expect(items.map((i) => i.metadata?.name).sort(), `${kind} of ${tenant}`).toEqual(expected.sort());
        for (const item of items) expect(item).toMatchObject({ apiVersion, kind });
      }
    }
    const inEtl = await client.list("networking.k8s.io/v1", "NetworkPolicy", { namespace: "acme--etl", labelSelector: "allot.dev/project=etl" });
    expect(inEtl.map((i) => i.metadata?.name).sort()).toEqual(objects.filter((o) => o.kind === "NetworkPolicy" && o.metadata?.namespace === "acme--etl").map((o) => o.metadata!.name!).sort());
    expect(await client.list("v1", "ResourceQuota", { namespace: "acme--etl", labelSelector: "allot.dev/tenant=vision" })).toEqual([]);
  });

  it("removes each object, then finds it absent", async () => {
    await applyAll(objects);
    for (const o of [...objects].reverse()) {
      expect(await client.remove(refOf(o)), `${o.kind} ${o.metadata?.name}`).toBe("deleted");
      expect(await client.remove(refOf(o))).toBe("absent");
      expect(await client.read(refOf(o))).toBeNull();
    }
    expect(server.objects().map((o) => o.metadata.name)).toEqual(["default", "kube-system"]);
  });
});

describe("apply", () => {
  const objects = everything(fullConfig);
  const quota = objects.find((o) => o.kind === "ResourceQuota" && o.metadata?.namespace === "acme--etl")!;

  const namespaceOf = objects.find((o) => o.kind === "Namespace" && o.metadata?.name === "acme--etl")!;

  it("does not change the object it is given", async () => {
    await client.apply(namespaceOf as KubernetesObject);
    const copy = structuredClone(quota);
    await client.apply(quota as KubernetesObject);
    expect(quota).toEqual(copy);
  });

  it("sends and returns fields client-node's typed models rename (LimitRange default is _default there)", async () => {
    const limits = objects.find((o) => o.kind === "LimitRange" && o.metadata?.namespace === "acme--etl")!;
    await client.apply(namespaceOf as KubernetesObject);
    const applied = await client.apply(limits as KubernetesObject);
    const sent = JSON.parse(server.requests.filter((r) => r.method === "PATCH").at(-1)!.body) as unknown;
    expect(sent).toEqual(asJson(limits));
    expect(applied.spec).toEqual(asJson(limits).spec);
    expect(JSON.stringify(applied)).not.toContain("_default");
    expect(applied.spec).toMatchObject({ limits: [{ default: { cpu: "1", memory: "1Gi" } }] });
  });

  it("puts drifted fields back and keeps fields other writers added", async () => {
    await applyAll(objects);
    const drifted = server.get("v1", "ResourceQuota", "acme--etl", quota.metadata!.name!)!;
    const hard = (drifted.spec as { hard: Record<string, string> }).hard;
    hard["requests.cpu"] = "999";
    drifted.metadata.labels = { ...drifted.metadata.labels, "someone.else/label": "kept" };
    server.put(drifted);

    await client.apply(quota as KubernetesObject);
    const restored = server.get("v1", "ResourceQuota", "acme--etl", quota.metadata!.name!)!;
    expect(restored.spec).toEqual(asJson(quota).spec);
    expect(restored.metadata.labels).toMatchObject({ ...quota.metadata!.labels, "someone.else/label": "kept" });
  });

  it("uses the configured field manager", async () => {
    await clientFor({ fieldManager: "allot-test" }).apply(objects[0] as KubernetesObject);
    expect(server.requests.find((r) => r.method === "PATCH")?.query.fieldManager).toBe("allot-test");
    expect(server.objects().find((o) => o.kind === objects[0]!.kind)?.metadata.managedFields?.map((m) => m.manager)).toEqual(["allot-test"]);
  });

  it("fails, not retryably, on a namespaced object whose namespace does not exist", async () => {
    const e = await failure(client.apply(quota as KubernetesObject));
    expect(e).toMatchObject({ status: 404, reason: "NotFound", retryable: false, conflict: false, message: 'namespaces "acme--etl" not found' });
  });
});

describe("list", () => {
  it("follows continue tokens, custom resources included", async () => {
    await applyAll(everything(fullConfig));
    const paged = clientFor({ pageSize: 2 });
    const flavors = await paged.list("kueue.x-k8s.io/v1beta2", "ResourceFlavor", { labelSelector: "app.kubernetes.io/managed-by=allot" });
    // The platform's flavours (the configured GPU model and "default"), then the dedicated tenant's pool's own: none per shared tenant.
    expect(flavors.map((f) => f.metadata?.name)).toEqual(["a100-80gb", "default", "vision-a100-a100-80gb", "vision-a100-default"]);
    const policies = await paged.list("networking.k8s.io/v1", "NetworkPolicy", { namespace: "vision--training", labelSelector: "" });
    expect(policies).toHaveLength(6);
    const pages = server.requests.filter((r) => r.method === "GET" && r.path.endsWith("/resourceflavors"));
    expect(pages.map((r) => [r.query.limit, r.query.continue !== undefined])).toEqual([
      ["2", false],
      ["2", true],
    ]);
  });
});

describe("a cluster without Kueue", () => {
  it("reports Kueue kinds as not served (404, UnknownKind), not as absent objects", async () => {
    const bare = await startStandInApiServer({ kueueVersions: [] });
    try {
      const c = kubeClientFromConfig(kubeConfigFor(bare.url));
      const queue = everything(fullConfig).find((o) => o.kind === "ClusterQueue")!;
      const applied = await failure(c.apply(queue as KubernetesObject));
      expect(applied).toMatchObject({ status: 404, reason: UNKNOWN_KIND, retryable: false });
      expect(applied.message).toContain("kueue.x-k8s.io/v1beta2");
      expect(await failure(c.read(refOf(queue)))).toMatchObject({ status: 404, reason: UNKNOWN_KIND });
      expect(await failure(c.remove(refOf(queue)))).toMatchObject({ status: 404, reason: UNKNOWN_KIND });
      expect(await failure(c.list("kueue.x-k8s.io/v1beta2", "ClusterQueue", { labelSelector: "" }))).toMatchObject({ status: 404, reason: UNKNOWN_KIND });
      // A kind unknown inside a served group version.
      expect(await failure(c.read({ apiVersion: "v1", kind: "Pod", namespace: "default", name: "x" }))).toMatchObject({ status: 404, reason: UNKNOWN_KIND, retryable: false });
    } finally {
      await bare.close();
    }
  });
});

describe("error classification", () => {
  const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } };
  const readDefault = () => client.read({ apiVersion: "v1", kind: "Namespace", name: "default" });

  beforeEach(async () => {
    // Discovery of v1 is cached from here on, so each fault meets the request under test.
    expect(await readDefault()).not.toBeNull();
  });

  it("500: retryable, with the API's message", async () => {
    server.faults.push({ status: 500, message: "etcdserver: request timed out" });
    const e = await failure(client.apply(namespace));
    expect(e).toMatchObject({ status: 500, reason: "InternalError", retryable: true, conflict: false, message: "etcdserver: request timed out" });
    expect(e.retryAfterMs).toBeUndefined();
  });

  it("503 with Retry-After: retryable, and says when", async () => {
    server.faults.push({ status: 503, retryAfterSeconds: 5 });
    expect(await failure(readDefault())).toMatchObject({ status: 503, retryable: true, retryAfterMs: 5_000 });
  });

  it("429: retryable, honouring Retry-After", async () => {
    server.faults.push({ status: 429, retryAfterSeconds: 2 });
    expect(await failure(client.list("v1", "Namespace", { labelSelector: "" }))).toMatchObject({ status: 429, reason: "TooManyRequests", retryable: true, retryAfterMs: 2_000 });
  });

  it("409: a conflict, and retryable", async () => {
    server.faults.push({ status: 409, message: "the object has been modified" });
    expect(await failure(client.apply(namespace))).toMatchObject({ status: 409, reason: "Conflict", conflict: true, retryable: true, message: "the object has been modified" });
  });

  it("a real stale-resourceVersion conflict is classified the same way", async () => {
    const first = await client.apply(namespace);
    await client.apply({ ...namespace, metadata: { name: "team-a", labels: { changed: "yes" } } });
    const stale = await failure(client.apply({ ...namespace, metadata: { name: "team-a", resourceVersion: first.metadata.resourceVersion } }));
    expect(stale).toMatchObject({ status: 409, reason: "Conflict", conflict: true, retryable: true });
    expect(stale.message).toContain("the object has been modified");
  });

  it.each([
    [422, "Invalid"],
    [403, "Forbidden"],
    [400, "BadRequest"],
  ])("%i: not retryable", async (status, reason) => {
    server.faults.push({ status, message: `refused with ${status}` });
    expect(await failure(client.apply(namespace))).toMatchObject({ status, reason, retryable: false, conflict: false, message: `refused with ${status}` });
  });

  it("404 on read and remove is an answer, not an error; faults on them are still errors", async () => {
    expect(await client.read({ apiVersion: "v1", kind: "ResourceQuota", namespace: "default", name: "nope" })).toBeNull();
    expect(await client.remove({ apiVersion: "v1", kind: "ResourceQuota", namespace: "default", name: "nope" })).toBe("absent");
    server.faults.push({ status: 500 });
    expect(await failure(client.remove({ apiVersion: "v1", kind: "ResourceQuota", namespace: "default", name: "nope" }))).toMatchObject({ status: 500, retryable: true });
  });

  it("a server slower than the timeout: a retryable timeout, on time", async () => {
    const quick = clientFor({ timeoutMs: 200 });
    expect(await quick.read({ apiVersion: "v1", kind: "Namespace", name: "default" })).not.toBeNull();
    server.faults.push({ delayMs: 2_000 });
    const started = Date.now();
    const e = await failure(quick.apply(namespace));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(e).toMatchObject({ reason: "Timeout", retryable: true, conflict: false, status: undefined });
    expect(e.message).toBe(`timed out after 200 ms waiting for ${server.url}`);
    // The call's connection is closed, not left to the slow server.
    await new Promise((r) => setTimeout(r, 100));
    expect(server.requests.at(-1)).toMatchObject({ method: "PATCH", abandoned: true });
  });

  it("the default timeout reads as seconds", async () => {
    server.faults.push({ delayMs: 1_500 });
    const e = await failure(clientFor({ timeoutMs: 1_000 }).read({ apiVersion: "v1", kind: "Namespace", name: "default" }));
    expect(e.message).toBe(`timed out after 1 s waiting for ${server.url}`);
  });

  it("a stopped server: connection refused, retryable, for cached and uncached discovery alike", async () => {
    await server.stop();
    // The keep-alive agent drops its idle connections once it sees them closed; a request racing that close gets a reset (also retryable).
    await new Promise((resolve) => setTimeout(resolve, 50));
    try {
      const e = await failure(readDefault());
      expect(e).toMatchObject({ reason: "ConnectionRefused", retryable: true, status: undefined });
      expect(e.message).toMatch(new RegExp(`^connection refused to ${server.url}/api/v1/namespaces/default$`));
      const fresh = await failure(clientFor().list("networking.k8s.io/v1", "NetworkPolicy", { labelSelector: "" }));
      expect(fresh).toMatchObject({ reason: "ConnectionRefused", retryable: true });
      expect(fresh.message).toContain(`connection refused to ${server.url}/apis/networking.k8s.io/v1`);
    } finally {
      await server.restart();
    }
    expect(await readDefault()).not.toBeNull();
  });

  it("a reset connection: retryable", async () => {
    server.faults.push({ refuse: true });
    const e = await failure(client.apply(namespace));
    expect(e).toMatchObject({ reason: "ConnectionReset", retryable: true, status: undefined });
    expect(e.message).toContain(server.url);
  });

  it("a failed discovery: classified by its status, and says it was discovery", async () => {
    server.faults.push({ match: { discovery: true }, status: 500, message: "discovery is down" });
    const e = await failure(clientFor().apply(namespace));
    expect(e).toMatchObject({ status: 500, retryable: true, message: "discovery is down (discovering v1/Namespace)" });
  });
});
