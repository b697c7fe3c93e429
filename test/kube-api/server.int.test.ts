import http from "node:http";
import { KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ClusterPermission } from "@/lib/cluster/permissions";
import { startStandInApiServer, type StandInApiServer } from "./server";

let server: StandInApiServer;

beforeAll(async () => {
  server = await startStandInApiServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

type Reply = { status: number; headers: Headers; json: Record<string, unknown> };

async function call(method: string, path: string, options: { body?: unknown; contentType?: string } = {}): Promise<Reply> {
  const body = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
  const res = await fetch(`${server.url}${path}`, { method, body, headers });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
}

const applyPath = (path: string, manager = "allot", force = true) => `${path}?fieldManager=${manager}${force ? "&force=true" : ""}`;
const apply = (path: string, body: unknown, manager = "allot", force = true) => call("PATCH", applyPath(path, manager, force), { body, contentType: "application/apply-patch+yaml" });

const namespace = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels } });
const quota = (ns: string, name: string, hard: Record<string, string>, labels: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ResourceQuota",
  metadata: { name, namespace: ns, labels },
  spec: { hard },
});
const meta = (reply: Reply) => reply.json.metadata as Record<string, unknown>;

function expectStatus(reply: Reply, code: number, reason: string) {
  expect(reply.status).toBe(code);
  expect(reply.json).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code, reason });
  expect(typeof reply.json.message).toBe("string");
}

describe("discovery", () => {
  it("lists the core version, the groups, and each group version's resources", async () => {
    expect((await call("GET", "/api")).json).toMatchObject({ kind: "APIVersions", versions: ["v1"] });

    const groups = (await call("GET", "/apis")).json.groups as { name: string; versions: { version: string }[]; preferredVersion: { version: string } }[];
    expect(groups.map((g) => g.name).sort()).toEqual(["kueue.x-k8s.io", "networking.k8s.io", "rbac.authorization.k8s.io", "visibility.kueue.x-k8s.io"]);
    const kueue = groups.find((g) => g.name === "kueue.x-k8s.io")!;
    expect(kueue.versions.map((v) => v.version)).toEqual(["v1beta1", "v1beta2"]);
    expect(kueue.preferredVersion.version).toBe("v1beta2");

    const core = await call("GET", "/api/v1");
    expect(core.json).toMatchObject({ kind: "APIResourceList", groupVersion: "v1" });
    const resources = core.json.resources as { name: string; singularName: string; namespaced: boolean; kind: string; verbs: string[] }[];
    expect(resources.map((r) => [r.kind, r.name, r.namespaced])).toEqual([
      ["Namespace", "namespaces", false],
      ["ResourceQuota", "resourcequotas", true],
      ["LimitRange", "limitranges", true],
      ["ServiceAccount", "serviceaccounts", true],
      ["Node", "nodes", false],
      ["ConfigMap", "configmaps", true],
    ]);
    expect(resources[0]).toMatchObject({ singularName: "namespace", verbs: expect.arrayContaining(["get", "list", "patch", "delete", "create"]) as unknown });
  });

  it.each([
    ["networking.k8s.io/v1", [["NetworkPolicy", "networkpolicies", true]]],
    [
      "rbac.authorization.k8s.io/v1",
      [
        ["RoleBinding", "rolebindings", true],
        ["Role", "roles", true],
        ["ClusterRoleBinding", "clusterrolebindings", false],
      ],
    ],
    [
      "kueue.x-k8s.io/v1beta1",
      [
        ["WorkloadPriorityClass", "workloadpriorityclasses", false],
        ["ResourceFlavor", "resourceflavors", false],
        ["Cohort", "cohorts", false],
        ["ClusterQueue", "clusterqueues", false],
        ["LocalQueue", "localqueues", true],
        ["Workload", "workloads", true],
      ],
    ],
    [
      "kueue.x-k8s.io/v1beta2",
      [
        ["WorkloadPriorityClass", "workloadpriorityclasses", false],
        ["ResourceFlavor", "resourceflavors", false],
        ["Cohort", "cohorts", false],
        ["ClusterQueue", "clusterqueues", false],
        ["LocalQueue", "localqueues", true],
        ["Workload", "workloads", true],
      ],
    ],
  ])("serves /apis/%s", async (groupVersion, expected) => {
    const reply = await call("GET", `/apis/${groupVersion}`);
    expect(reply.json).toMatchObject({ kind: "APIResourceList", groupVersion });
    expect((reply.json.resources as { kind: string; name: string; namespaced: boolean }[]).map((r) => [r.kind, r.name, r.namespaced])).toEqual(expected);
  });

  it("answers an unknown group version, or an unknown path, with a 404 Status", async () => {
    expectStatus(await call("GET", "/apis/example.com/v1"), 404, "NotFound");
    expectStatus(await call("GET", "/apis/networking.k8s.io/v2"), 404, "NotFound");
    expectStatus(await call("GET", "/api/v1/pods"), 404, "NotFound");
    expectStatus(await call("GET", "/healthz/nothing"), 404, "NotFound");
  });

  it("serves no Kueue when told there is none", async () => {
    const bare = await startStandInApiServer({ kueueVersions: [] });
    try {
      const res = await fetch(`${bare.url}/apis/kueue.x-k8s.io/v1beta2`);
      expect(res.status).toBe(404);
      const groups = ((await (await fetch(`${bare.url}/apis`)).json()) as { groups: { name: string }[] }).groups;
      expect(groups.map((g) => g.name)).not.toContain("kueue.x-k8s.io");
    } finally {
      await bare.close();
    }
  });
});

describe("server-side apply", () => {
  it("creates with the server's fields, then updates, bumping resourceVersion and generation", async () => {
    await apply("/api/v1/namespaces/team-a", namespace("team-a"));
    const created = await apply("/api/v1/namespaces/team-a/resourcequotas/compute", quota("team-a", "compute", { cpu: "4" }));
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ apiVersion: "v1", kind: "ResourceQuota", spec: { hard: { cpu: "4" } } });
    const first = meta(created);
    expect(first).toMatchObject({ name: "compute", namespace: "team-a", generation: 1 });
    expect(first.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(first.managedFields).toEqual([
      expect.objectContaining({ manager: "allot", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: expect.objectContaining({ "f:spec": { "f:hard": { "f:cpu": {} } } }) as unknown }),
    ]);

    const updated = await apply("/api/v1/namespaces/team-a/resourcequotas/compute", quota("team-a", "compute", { cpu: "8" }));
    expect(updated.status).toBe(200);
    expect(updated.json.spec).toEqual({ hard: { cpu: "8" } });
    const second = meta(updated);
    expect(second.uid).toBe(first.uid);
    expect(second.creationTimestamp).toBe(first.creationTimestamp);
    expect(Number(second.resourceVersion)).toBeGreaterThan(Number(first.resourceVersion));
    expect(second.generation).toBe(2);

    // A metadata-only change is a new resourceVersion but the same generation.
    const relabelled = meta(await apply("/api/v1/namespaces/team-a/resourcequotas/compute", quota("team-a", "compute", { cpu: "8" }, { tier: "gold" })));
    expect(Number(relabelled.resourceVersion)).toBeGreaterThan(Number(second.resourceVersion));
    expect(relabelled.generation).toBe(2);
  });

  it("leaves resourceVersion alone when the same object is applied again", async () => {
    const first = meta(await apply("/api/v1/namespaces/team-a", namespace("team-a", { a: "1" })));
    const again = await apply("/api/v1/namespaces/team-a", namespace("team-a", { a: "1" }));
    expect(again.status).toBe(200);
    expect(meta(again).resourceVersion).toBe(first.resourceVersion);
    expect(meta(again).managedFields).toEqual(first.managedFields);
  });

  it("takes YAML as well as JSON", async () => {
    const yaml = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: from-yaml\n  labels:\n    team: blue\n";
    const reply = await call("PATCH", applyPath("/api/v1/namespaces/from-yaml"), { body: yaml, contentType: "application/apply-patch+yaml" });
    expect(reply.status).toBe(201);
    expect(server.get("v1", "Namespace", undefined, "from-yaml")?.metadata.labels).toMatchObject({ team: "blue" });
  });

  it("labels and activates a namespace as the real server does", async () => {
    const ns = (await apply("/api/v1/namespaces/team-a", namespace("team-a"))).json;
    expect(ns).toMatchObject({ metadata: { labels: { "kubernetes.io/metadata.name": "team-a" } }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } });
  });

  it("removes fields the manager stopped applying, and keeps other writers' fields", async () => {
    await apply("/api/v1/namespaces/team-a", namespace("team-a"));
    await apply("/api/v1/namespaces/team-a/resourcequotas/compute", quota("team-a", "compute", { cpu: "4", memory: "8Gi" }, { keep: "1", drop: "1" }));
    // Someone else adds a label and a limit of their own.
    const drifted = server.get("v1", "ResourceQuota", "team-a", "compute")!;
    drifted.metadata.labels = { ...drifted.metadata.labels, theirs: "x" };
    (drifted.spec as { hard: Record<string, string> }).hard.pods = "10";
    server.put(drifted);

    const reply = await apply("/api/v1/namespaces/team-a/resourcequotas/compute", quota("team-a", "compute", { cpu: "4" }, { keep: "1" }));
    expect(reply.json.spec).toEqual({ hard: { cpu: "4", pods: "10" } });
    expect(meta(reply).labels).toEqual({ keep: "1", theirs: "x" });
  });

  it("reports a conflict with another manager's field unless forced, and a forced apply takes it over", async () => {
    await apply("/api/v1/namespaces/team-a", namespace("team-a"));
    await apply("/api/v1/namespaces/team-a/resourcequotas/compute", quota("team-a", "compute", { cpu: "4" }), "kubectl");
    const refused = await apply("/api/v1/namespaces/team-a/resourcequotas/compute", quota("team-a", "compute", { cpu: "8" }), "allot", false);
    expectStatus(refused, 409, "Conflict");
    expect(refused.json.message).toContain('conflict with "kubectl": .spec.hard.cpu');

    const forced = await apply("/api/v1/namespaces/team-a/resourcequotas/compute", quota("team-a", "compute", { cpu: "8" }), "allot", true);
    expect(forced.status).toBe(200);
    expect(forced.json.spec).toEqual({ hard: { cpu: "8" } });
    expect((meta(forced).managedFields as { manager: string }[]).map((m) => m.manager).sort()).toEqual(["allot", "kubectl"]);
    // The same value from both managers is shared ownership, not a conflict.
    expect((await apply("/api/v1/namespaces/team-a/resourcequotas/compute", quota("team-a", "compute", { cpu: "8" }), "kubectl", false)).status).toBe(200);
  });

  it("refuses a stale resourceVersion with 409", async () => {
    const ns = meta(await apply("/api/v1/namespaces/team-a", namespace("team-a")));
    await apply("/api/v1/namespaces/team-a", namespace("team-a", { changed: "yes" }));
    const stale = await apply("/api/v1/namespaces/team-a", { ...namespace("team-a"), metadata: { name: "team-a", resourceVersion: ns.resourceVersion } });
    expectStatus(stale, 409, "Conflict");
  });

  it("needs the namespace of a namespaced object to exist", async () => {
    const reply = await apply("/api/v1/namespaces/nowhere/resourcequotas/compute", quota("nowhere", "compute", { cpu: "1" }));
    expectStatus(reply, 404, "NotFound");
    expect(reply.json.message).toBe('namespaces "nowhere" not found');
    expect(server.get("v1", "ResourceQuota", "nowhere", "compute")).toBeUndefined();
  });

  it("rejects what the real server rejects", async () => {
    await apply("/api/v1/namespaces/team-a", namespace("team-a"));
    const path = "/api/v1/namespaces/team-a/resourcequotas/compute";
    expectStatus(await call("PATCH", path, { body: quota("team-a", "compute", {}), contentType: "application/apply-patch+yaml" }), 400, "BadRequest");
    expectStatus(await call("PATCH", path, { body: quota("team-a", "compute", {}), contentType: "application/merge-patch+json" }), 415, "UnsupportedMediaType");
    expectStatus(await apply(path, quota("team-a", "other", {})), 400, "BadRequest");
    expectStatus(await apply(path, quota("team-b", "compute", {})), 400, "BadRequest");
    expectStatus(await apply(path, { ...quota("team-a", "compute", {}), kind: "LimitRange" }), 400, "BadRequest");
    expectStatus(await apply(path, "{ not yaml: ["), 400, "BadRequest");
    expectStatus(await call("PUT", path, { body: quota("team-a", "compute", {}) }), 405, "MethodNotAllowed");
  });

  it("keeps one Kueue object across its API versions", async () => {
    const flavor = (v: string) => ({ apiVersion: `kueue.x-k8s.io/${v}`, kind: "ResourceFlavor", metadata: { name: "a100" }, spec: { nodeLabels: { gpu: "a100" } } });
    await apply("/apis/kueue.x-k8s.io/v1beta1/resourceflavors/a100", flavor("v1beta1"));
    const asV2 = await call("GET", "/apis/kueue.x-k8s.io/v1beta2/resourceflavors/a100");
    expect(asV2.json).toMatchObject({ apiVersion: "kueue.x-k8s.io/v1beta2", spec: { nodeLabels: { gpu: "a100" } } });
  });
});

describe("get, list and delete", () => {
  beforeEach(async () => {
    for (const ns of ["team-a", "team-b"]) await apply(`/api/v1/namespaces/${ns}`, namespace(ns));
    const labelled: [string, string, Record<string, string>][] = [
      ["team-a", "q1", { app: "x", tier: "gold" }],
      ["team-a", "q2", { app: "y" }],
      ["team-a", "q3", { tier: "silver" }],
      ["team-b", "q4", { app: "x", tier: "bronze" }],
    ];
    for (const [ns, name, labels] of labelled) await apply(`/api/v1/namespaces/${ns}/resourcequotas/${name}`, quota(ns, name, { cpu: "1" }, labels));
  });

  it("reads one object, or answers 404 NotFound", async () => {
    const found = await call("GET", "/api/v1/namespaces/team-a/resourcequotas/q1");
    expect(found.status).toBe(200);
    expect(found.json).toMatchObject({ apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "q1", namespace: "team-a" } });
    const missing = await call("GET", "/api/v1/namespaces/team-a/resourcequotas/nope");
    expectStatus(missing, 404, "NotFound");
    expect(missing.json.message).toBe('resourcequotas "nope" not found');
    expect(missing.json.details).toMatchObject({ name: "nope", kind: "resourcequotas" });
    // A namespaced kind has no cluster-wide object path.
    expectStatus(await call("GET", "/api/v1/resourcequotas/q1"), 404, "NotFound");
    expectStatus(await call("GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings/none"), 404, "NotFound");
  });

  const names = async (path: string) => ((await call("GET", path)).json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name);

  it("lists in one namespace, in all namespaces, and cluster-scoped kinds", async () => {
    const list = await call("GET", "/api/v1/namespaces/team-a/resourcequotas");
    expect(list.json).toMatchObject({ kind: "ResourceQuotaList", apiVersion: "v1" });
    expect(meta(list).resourceVersion).toMatch(/^\d+$/);
    const items = list.json.items as KubernetesObject[];
    expect(items.map((i) => i.metadata?.name)).toEqual(["q1", "q2", "q3"]);
    for (const item of items) expect(item).toMatchObject({ apiVersion: "v1", kind: "ResourceQuota" });

    expect(await names("/api/v1/resourcequotas")).toEqual(["q1", "q2", "q3", "q4"]);
    expect(await names("/api/v1/namespaces")).toEqual(["default", "kube-system", "team-a", "team-b"]);
    expect(await names("/api/v1/namespaces/team-c/resourcequotas")).toEqual([]);
  });

  it.each([
    ["app=x", ["q1", "q4"]],
    ["app==x", ["q1", "q4"]],
    ["app!=x", ["q2", "q3"]],
    ["tier", ["q1", "q3", "q4"]],
    ["!tier", ["q2"]],
    ["tier in (gold,bronze)", ["q1", "q4"]],
    ["tier notin (gold,bronze)", ["q2", "q3"]],
    ["app=x,tier notin (bronze)", ["q1"]],
    ["app,!tier", ["q2"]],
    ["", ["q1", "q2", "q3", "q4"]],
  ])("selects labels with %j", async (selector, expected) => {
    expect(await names(`/api/v1/resourcequotas?labelSelector=${encodeURIComponent(selector)}`)).toEqual(expected);
  });

  it("answers a malformed selector with 400", async () => {
    expectStatus(await call("GET", `/api/v1/resourcequotas?labelSelector=${encodeURIComponent("a=b=c")}`), 400, "BadRequest");
    expectStatus(await call("GET", `/api/v1/resourcequotas?labelSelector=${encodeURIComponent("app,,tier")}`), 400, "BadRequest");
  });

  it("supports metadata.name and metadata.namespace field selectors", async () => {
    expect(await names("/api/v1/resourcequotas?fieldSelector=metadata.namespace%3Dteam-b")).toEqual(["q4"]);
    expect(await names("/api/v1/resourcequotas?fieldSelector=metadata.name!%3Dq1,metadata.namespace%3Dteam-a")).toEqual(["q2", "q3"]);
    expectStatus(await call("GET", "/api/v1/resourcequotas?fieldSelector=spec.hard%3D1"), 400, "BadRequest");
  });

  it("pages with limit and continue", async () => {
    const first = await call("GET", "/api/v1/resourcequotas?limit=3");
    expect((first.json.items as KubernetesObject[]).map((i) => i.metadata?.name)).toEqual(["q1", "q2", "q3"]);
    expect(meta(first).remainingItemCount).toBe(1);
    const token = meta(first).continue as string;
    const second = await call("GET", `/api/v1/resourcequotas?limit=3&continue=${token}`);
    expect((second.json.items as KubernetesObject[]).map((i) => i.metadata?.name)).toEqual(["q4"]);
    expect(meta(second).continue).toBeUndefined();
    expectStatus(await call("GET", "/api/v1/resourcequotas?limit=3&continue=garbage"), 400, "BadRequest");
  });

  it("deletes one object with a Success Status, then answers 404", async () => {
    const reply = await call("DELETE", "/api/v1/namespaces/team-a/resourcequotas/q1");
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ kind: "Status", status: "Success", details: { name: "q1", kind: "resourcequotas" } });
    expectStatus(await call("GET", "/api/v1/namespaces/team-a/resourcequotas/q1"), 404, "NotFound");
    expectStatus(await call("DELETE", "/api/v1/namespaces/team-a/resourcequotas/q1"), 404, "NotFound");
  });

  it("deletes everything in a namespace with it", async () => {
    await apply("/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings/view", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "view", namespace: "team-a" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      subjects: [{ kind: "User", name: "bob" }],
    });
    expect((await call("DELETE", "/api/v1/namespaces/team-a")).status).toBe(200);
    expect(server.objects().filter((o) => o.metadata.namespace === "team-a")).toEqual([]);
    expect(await names("/api/v1/resourcequotas")).toEqual(["q4"]);
    expect(server.get("v1", "Namespace", undefined, "team-b")).toBeDefined();
  });

  it("creates with POST, and answers 409 AlreadyExists the second time", async () => {
    const body = quota("team-b", "posted", { pods: "5" });
    const created = await call("POST", "/api/v1/namespaces/team-b/resourcequotas", { body });
    expect(created.status).toBe(201);
    expect(meta(created)).toMatchObject({ name: "posted", namespace: "team-b", generation: 1 });
    const again = await call("POST", "/api/v1/namespaces/team-b/resourcequotas", { body });
    expectStatus(again, 409, "AlreadyExists");
    expectStatus(await call("POST", "/api/v1/namespaces/nowhere/resourcequotas", { body: quota("nowhere", "x", {}) }), 404, "NotFound");
  });
});

describe("direct access for tests", () => {
  it("put seeds and drifts objects, keeping uid and bumping resourceVersion only on change; remove deletes", () => {
    const ns = server.put(namespace("seeded", { a: "1" }));
    expect(ns.metadata).toMatchObject({ name: "seeded", generation: 1, labels: { a: "1", "kubernetes.io/metadata.name": "seeded" } });
    const same = server.put(server.get("v1", "Namespace", undefined, "seeded")!);
    expect(same.metadata.resourceVersion).toBe(ns.metadata.resourceVersion);
    const changed = server.put({ ...namespace("seeded", { a: "2" }) });
    expect(changed.metadata.uid).toBe(ns.metadata.uid);
    expect(Number(changed.metadata.resourceVersion)).toBeGreaterThan(Number(ns.metadata.resourceVersion));
    expect(server.remove("v1", "Namespace", undefined, "seeded")).toBe(true);
    expect(server.remove("v1", "Namespace", undefined, "seeded")).toBe(false);
    expect(() => server.put({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" } })).toThrow(/does not serve/);
    expect(() => server.put({ apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "q" } })).toThrow(/namespaced/);
  });

  it("get returns a copy: changing it changes nothing stored", () => {
    const ns = server.get("v1", "Namespace", undefined, "default")!;
    ns.metadata.labels = { changed: "yes" };
    expect(server.get("v1", "Namespace", undefined, "default")!.metadata.labels).not.toHaveProperty("changed");
  });

  it("records each request's method, path, query and content type, and reset clears them", async () => {
    await apply("/api/v1/namespaces/team-a", namespace("team-a"));
    await call("GET", "/api/v1/namespaces?labelSelector=a%3Db");
    expect(server.requests).toEqual([
      expect.objectContaining({ method: "PATCH", path: "/api/v1/namespaces/team-a", query: { fieldManager: "allot", force: "true" }, contentType: "application/apply-patch+yaml" }),
      expect.objectContaining({ method: "GET", path: "/api/v1/namespaces", query: { labelSelector: "a=b" }, contentType: undefined, abandoned: false }),
    ]);
    server.faults.push({ status: 500 });
    server.reset();
    expect(server.requests).toEqual([]);
    expect(server.faults.pending).toBe(0);
    expect(server.objects().map((o) => o.metadata.name)).toEqual(["default", "kube-system"]);
  });
});

describe("faults", () => {
  const getDefault = () => call("GET", "/api/v1/namespaces/default");

  it("answers the next request with an injected status, then recovers", async () => {
    server.faults.push({ status: 500 });
    expectStatus(await getDefault(), 500, "InternalError");
    expect((await getDefault()).status).toBe(200);
    server.faults.push({ status: 503, message: "etcd is down" });
    const reply = await getDefault();
    expectStatus(reply, 503, "ServiceUnavailable");
    expect(reply.json.message).toBe("etcd is down");
  });

  it("sends Retry-After with a 429", async () => {
    server.faults.push({ status: 429, retryAfterSeconds: 1 });
    const reply = await getDefault();
    expectStatus(reply, 429, "TooManyRequests");
    expect(reply.headers.get("retry-after")).toBe("1");
    expect(reply.json.details).toEqual({ retryAfterSeconds: 1 });
  });

  it("answers 409 Conflict, with a reason that can be chosen", async () => {
    server.faults.push({ status: 409 }, { status: 409, reason: "AlreadyExists" });
    expectStatus(await getDefault(), 409, "Conflict");
    expectStatus(await getDefault(), 409, "AlreadyExists");
  });

  it("delays a request, which is then handled normally", async () => {
    server.faults.push({ delayMs: 300 });
    const started = Date.now();
    const reply = await apply("/api/v1/namespaces/slow", namespace("slow"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(reply.status).toBe(201);
  });

  it("notes a request the client gave up on", async () => {
    server.faults.push({ delayMs: 2_000 });
    const error = await fetch(`${server.url}/api/v1/namespaces/default`, { signal: AbortSignal.timeout(100) }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.name).toBe("TimeoutError");
    await new Promise((r) => setTimeout(r, 50));
    expect(server.requests.at(-1)).toMatchObject({ path: "/api/v1/namespaces/default", abandoned: true });
    expect((await getDefault()).status).toBe(200);
    expect(server.requests.at(-1)?.abandoned).toBe(false);
  });

  it("resets the connection without a response", async () => {
    server.faults.push({ refuse: true });
    const error = await fetch(`${server.url}/api/v1/namespaces/default`).then(
      () => null,
      (e: unknown) => e as Error & { cause?: { code?: string } },
    );
    expect(error?.message).toBe("fetch failed");
    expect(["ECONNRESET", "UND_ERR_SOCKET"]).toContain(error?.cause?.code);
    expect((await getDefault()).status).toBe(200);
  });

  it("matches faults on method and kind, as many times as asked", async () => {
    await apply("/api/v1/namespaces/team-a", namespace("team-a"));
    server.faults.push({ match: { method: "PATCH", kind: "RoleBinding" }, status: 500, times: 3 });
    const path = "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings/view";
    const binding = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "view", namespace: "team-a" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      subjects: [],
    };
    expect((await call("GET", path)).status).toBe(404);
    expect((await apply("/api/v1/namespaces/team-a/resourcequotas/q", quota("team-a", "q", {}))).status).toBe(201);
    for (let i = 0; i < 3; i++) expectStatus(await apply(path, binding), 500, "InternalError");
    expect((await apply(path, binding)).status).toBe(201);
    expect(server.faults.pending).toBe(0);
  });

  it("leaves discovery alone unless asked", async () => {
    server.faults.push({ status: 500 });
    expect((await call("GET", "/api/v1")).status).toBe(200);
    expect(server.faults.pending).toBe(1);
    server.faults.clear();
    server.faults.push({ match: { discovery: true, path: "/apis/kueue.x-k8s.io/v1beta2" }, status: 500 });
    expect((await call("GET", "/apis/kueue.x-k8s.io/v1beta1")).status).toBe(200);
    expect((await call("GET", "/apis/kueue.x-k8s.io/v1beta2")).status).toBe(500);
  });

  it("refuses connections while stopped, and keeps its objects over a restart on the same port", async () => {
    await apply("/api/v1/namespaces/team-a", namespace("team-a"));
    await server.stop();
    // node:http without an agent: a new connection, where fetch might try a pooled one first.
    const code = await new Promise<string | undefined>((resolve) => {
      http
        .get(`${server.url}/api/v1/namespaces/team-a`, { agent: false }, (res) => {
          res.resume();
          resolve(`answered ${res.statusCode}`);
        })
        .on("error", (e: NodeJS.ErrnoException) => resolve(e.code));
    });
    expect(code).toBe("ECONNREFUSED");
    await server.restart();
    expect((await call("GET", "/api/v1/namespaces/team-a")).status).toBe(200);
  });

  it("drops a delayed request when the server stops", async () => {
    server.faults.push({ delayMs: 5_000 });
    const pending = fetch(`${server.url}/api/v1/namespaces/default`).then(
      () => "answered",
      () => "dropped",
    );
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await server.stop();
    expect(await pending).toBe("dropped");
    expect(Date.now() - started).toBeLessThan(2_000);
    await server.restart();
  });
});

describe("Kueue status and the visibility API", () => {
  const V = "kueue.x-k8s.io/v1beta2";
  const workload = (ns: string, name: string, queueName: string, priority: number, reserved: boolean) => ({
    apiVersion: V,
    kind: "Workload",
    metadata: { name, namespace: ns },
    spec: { queueName, priority },
    status: { conditions: [{ type: "QuotaReserved", status: reserved ? "True" : "False", reason: reserved ? "QuotaReserved" : "Pending" }] },
  });

  it("keeps a status set as Kueue would, and serves pending workloads in order with their positions in the LocalQueue and the ClusterQueue", async () => {
    for (const ns of ["a", "b"]) {
      server.put(namespace(ns));
      server.put({ apiVersion: V, kind: "LocalQueue", metadata: { name: "default", namespace: ns }, spec: { clusterQueue: "shared" } });
    }
    server.put({ apiVersion: V, kind: "ClusterQueue", metadata: { name: "shared" }, spec: {} });
    expect(server.setStatus(V, "ClusterQueue", undefined, "shared", { pendingWorkloads: 3 })).toMatchObject({ status: { pendingWorkloads: 3 } });
    expect((await call("GET", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/shared")).json).toMatchObject({ status: { pendingWorkloads: 3 } });
    server.put(workload("a", "low", "default", 100, false));
    server.put(workload("b", "high", "default", 500, false));
    server.put(workload("a", "running", "default", 1000, true));
    server.put(workload("a", "mid", "default", 500, false));

    const groups = (await call("GET", "/apis")).json.groups as { name: string; preferredVersion: { version: string } }[];
    expect(groups.find((g) => g.name === "visibility.kueue.x-k8s.io")?.preferredVersion.version).toBe("v1beta2");
    const reply = await call("GET", "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/a/localqueues/default/pendingworkloads");
    expect(reply.status).toBe(200);
    // "high" (namespace b) is first in the ClusterQueue; a's own queue holds mid then low; the admitted one is not pending.
    expect((reply.json.items as { metadata: { name: string }; positionInClusterQueue: number; positionInLocalQueue: number }[]).map((i) => [i.metadata.name, i.positionInClusterQueue, i.positionInLocalQueue])).toEqual([
      ["mid", 1, 0],
      ["low", 2, 1],
    ]);
    expectStatus(await call("GET", "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/a/localqueues/nope/pendingworkloads"), 404, "NotFound");
  });

  it("takes a status applied to the status subresource, as Kueue's controllers write it, and keeps it through the portal's applies", async () => {
    const cq = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/shared";
    expect((await apply(cq, { apiVersion: V, kind: "ClusterQueue", metadata: { name: "shared" }, spec: { namespaceSelector: {} } })).status).toBe(201);
    const reserved = { flavorsReservation: [{ name: "h100", resources: [{ name: "nvidia.com/gpu", total: "12", borrowed: "4" }] }], pendingWorkloads: 2 };
    const written = await apply(`${cq}/status`, { apiVersion: V, kind: "ClusterQueue", metadata: { name: "shared" }, spec: { ignored: true }, status: reserved }, "kueue");
    expect(written.status).toBe(200);
    // Only the status changed: the spec in the body is ignored, as on a real /status.
    expect(written.json).toMatchObject({ spec: { namespaceSelector: {} }, status: reserved });
    expect(written.json.spec).not.toHaveProperty("ignored");
    expect((await call("GET", `${cq}/status`)).json).toMatchObject({ status: reserved });
    // The portal applying its spec again leaves Kueue's status alone.
    await apply(cq, { apiVersion: V, kind: "ClusterQueue", metadata: { name: "shared" }, spec: { namespaceSelector: {}, queueingStrategy: "BestEffortFIFO" } });
    expect((await call("GET", cq)).json).toMatchObject({ spec: { queueingStrategy: "BestEffortFIFO" }, status: reserved });

    // A namespaced object's status, and what is refused.
    server.put(namespace("a"));
    server.put({ apiVersion: V, kind: "Workload", metadata: { name: "w", namespace: "a" }, spec: { queueName: "default" } });
    const conditions = [{ type: "QuotaReserved", status: "False", reason: "Pending", message: "insufficient unused quota" }];
    expect((await apply("/apis/kueue.x-k8s.io/v1beta2/namespaces/a/workloads/w/status", { status: { conditions } }, "kueue")).json).toMatchObject({ spec: { queueName: "default" }, status: { conditions } });
    expectStatus(await apply("/apis/kueue.x-k8s.io/v1beta2/namespaces/a/workloads/absent/status", { status: {} }, "kueue"), 404, "NotFound");
    expectStatus(await apply("/apis/kueue.x-k8s.io/v1beta2/namespaces/a/workloads/w/status", { spec: {} }, "kueue"), 422, "Invalid");
    expectStatus(await call("PATCH", "/apis/kueue.x-k8s.io/v1beta2/namespaces/a/workloads/w/status", { body: { status: {} } }), 415, "UnsupportedMediaType");
    expectStatus(await call("GET", "/apis/kueue.x-k8s.io/v1beta2/namespaces/a/workloads/w/scale"), 404, "NotFound");
  });
});

describe("through @kubernetes/client-node", () => {
  function objectApi(): KubernetesObjectApi {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      // client-node refuses plain http unless skipTLSVerify is set.
      clusters: [{ name: "stand-in", server: server.url, skipTLSVerify: true }],
      users: [{ name: "anonymous" }],
      contexts: [{ name: "stand-in", cluster: "stand-in", user: "anonymous" }],
      currentContext: "stand-in",
    });
    return KubernetesObjectApi.makeApiClient(kc);
  }
  const ssa = (api: KubernetesObjectApi, o: KubernetesObject) => api.patch(o, undefined, undefined, "allot", true, PatchStrategy.ServerSideApply);

  it("applies, reads, lists and deletes, discovering each apiVersion once", async () => {
    const api = objectApi();
    await ssa(api, namespace("team-a", { "allot.dev/tenant": "acme" }));
    await ssa(api, quota("team-a", "compute", { cpu: "2" }, { "allot.dev/tenant": "acme" }));
    const queue = { apiVersion: "kueue.x-k8s.io/v1beta2", kind: "LocalQueue", metadata: { name: "default", namespace: "team-a", labels: { "allot.dev/tenant": "acme" } }, spec: { clusterQueue: "tenant-acme" } };
    const applied = await ssa(api, queue);
    expect(applied).toMatchObject({ kind: "LocalQueue", spec: { clusterQueue: "tenant-acme" } });
    await ssa(api, { ...queue, metadata: { ...queue.metadata, name: "second" } });

    const read = await api.read({ apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "compute", namespace: "team-a" } });
    expect(read).toMatchObject({ kind: "ResourceQuota", spec: { hard: { cpu: "2" } } });
    const listed = await api.list("kueue.x-k8s.io/v1beta2", "LocalQueue", "team-a", undefined, undefined, undefined, undefined, "allot.dev/tenant=acme");
    expect(listed.items.map((i) => i.metadata?.name)).toEqual(["default", "second"]);
    await api.delete({ apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "compute", namespace: "team-a" } });
    expect(server.get("v1", "ResourceQuota", "team-a", "compute")).toBeUndefined();

    const discovery = server.requests.filter((r) => r.method === "GET" && /^\/apis?\/[^/]+(\/v[^/]+)?$/.test(r.path));
    expect(discovery.map((r) => r.path)).toEqual(["/api/v1", "/apis/kueue.x-k8s.io/v1beta2"]);
    const patches = server.requests.filter((r) => r.method === "PATCH");
    expect(patches).toHaveLength(4);
    for (const p of patches) expect(p).toMatchObject({ contentType: "application/apply-patch+yaml", query: { fieldManager: "allot", force: "true" } });
  });

  it("surfaces a missing object as an ApiException with the Status body", async () => {
    const error = await objectApi()
      .read({ apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "nope", namespace: "default" } })
      .then(
        () => null,
        (e: unknown) => e as { code: number; body: string },
      );
    expect(error?.code).toBe(404);
    expect(JSON.parse(error!.body)).toMatchObject({ kind: "Status", reason: "NotFound" });
  });
});

describe("RBAC enforcement (permissions)", () => {
  const rules: ClusterPermission[] = [
    { apiGroup: "", resource: "namespaces", kind: "Namespace", verbs: ["get", "patch"], why: "" },
    { apiGroup: "", resource: "resourcequotas", kind: "ResourceQuota", verbs: ["get", "create", "patch", "list"], why: "" },
    { apiGroup: "rbac.authorization.k8s.io", resource: "rolebindings", kind: "RoleBinding", verbs: ["create", "patch"], why: "" },
    { apiGroup: "rbac.authorization.k8s.io", resource: "clusterroles", kind: "ClusterRole", verbs: ["bind"], resourceNames: ["edit"], why: "" },
  ];
  let guarded: StandInApiServer;
  beforeAll(async () => {
    guarded = await startStandInApiServer({ permissions: rules });
  });
  afterAll(() => guarded.close());
  beforeEach(() => guarded.reset());

  const send = async (method: string, path: string, body?: unknown): Promise<Reply> => {
    const res = await fetch(`${guarded.url}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: body === undefined ? {} : { "content-type": "application/apply-patch+yaml" } });
    return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
  };
  const binding = (role: string) => ({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: `to-${role}`, namespace: "default" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "ada@example.com" }],
  });

  it("answers a verb the rules lack with 403 Forbidden in the API server's words, and records it", async () => {
    expect((await send("GET", "/api/v1/namespaces/default/resourcequotas")).status).toBe(200);
    const denied = await send("DELETE", "/api/v1/namespaces/default/resourcequotas/compute");
    expectStatus(denied, 403, "Forbidden");
    expect(denied.json.message).toBe('resourcequotas "compute" is forbidden: User "system:serviceaccount:allot:allot" cannot delete resource "resourcequotas" in API group "" in the namespace "default"');
    expectStatus(await send("GET", "/api/v1/namespaces"), 403, "Forbidden");
    expect(guarded.forbidden).toHaveLength(2);
    expect(guarded.forbidden[1]).toContain('cannot list resource "namespaces" in API group "" at the cluster scope');
    // Discovery needs no rule.
    expect((await send("GET", "/apis/rbac.authorization.k8s.io/v1")).status).toBe(200);
  });

  it("checks a server-side apply that creates as create too", async () => {
    expect((await send("PATCH", applyPath("/api/v1/namespaces/default"), namespace("default", { a: "b" }))).status).toBe(200);
    const creating = await send("PATCH", applyPath("/api/v1/namespaces/team-b"), namespace("team-b"));
    expectStatus(creating, 403, "Forbidden");
    expect(creating.json.message).toContain('cannot create resource "namespaces"');
    expect(guarded.get("v1", "Namespace", undefined, "team-b")).toBeUndefined();
  });

  it("lets a RoleBinding reference only a ClusterRole the rules may bind", async () => {
    expect((await send("PATCH", applyPath("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/to-edit"), binding("edit"))).status).toBe(201);
    const escalation = await send("PATCH", applyPath("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/to-cluster-admin"), binding("cluster-admin"));
    expectStatus(escalation, 403, "Forbidden");
    expect(escalation.json.message).toContain('may not bind ClusterRole "cluster-admin"');
    expect(guarded.get("rbac.authorization.k8s.io/v1", "RoleBinding", "default", "to-cluster-admin")).toBeUndefined();
  });

  it("guards the status subresource as its own resource: patching the object does not allow patching its status", async () => {
    guarded.put(quota("default", "compute", { cpu: "2" }));
    const denied = await send("PATCH", applyPath("/api/v1/namespaces/default/resourcequotas/compute/status"), { status: { used: { cpu: "1" } } });
    expectStatus(denied, 403, "Forbidden");
    expect(denied.json.message).toBe('resourcequotas "compute" is forbidden: User "system:serviceaccount:allot:allot" cannot patch resource "resourcequotas/status" in API group "" in the namespace "default"');
    expect(guarded.get("v1", "ResourceQuota", "default", "compute")).not.toHaveProperty("status.used");
  });
});
