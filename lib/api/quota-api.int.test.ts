import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installDatabase, type Database } from "@/db/client";
import { memberships, nodePools, quotaGrants, quotaRequestEvents, quotaRequests } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import { executeCommand } from "@/lib/auth/command";
import { config, parseConfig, type AllotConfig } from "@/lib/config";
import { GiB } from "@/lib/quota/amounts";
import { insertGrant } from "@/lib/quota/grant-store";
import { revokeToken, setServiceAccountDisabled } from "@/lib/tenancy/commands/service-accounts";
import { createServiceAccountAsOperator, mintTokenAsOperator } from "@/lib/tenancy/operator";
import { BAD_TOKEN_KINDS, badTokenPool, callApi, keyPaths, operatorAccount, resolveRoute, responses, routeModule, type ApiResponse } from "@/test/api";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { addGrant, DAY, fingerprint, HOUR, projectIdOf, racingBehindLock, tenantIdsBySlug, unique } from "@/test/tenancy";
import * as capacityRoutes from "./routes/capacity";
import * as quotaRoutes from "./routes/quota";

/**
 * The capacity, rate card and quota request endpoints in-process, through the
 * handlers of app/api/v1/** on this file's database: the authorization matrix
 * of every new route against every kind of caller, each endpoint's happy
 * path, validation naming fields, 404 for what is out of reach, and two
 * platform admins approving the same request at once.
 */

const SEEDED_AT = new Date(Date.now() - HOUR);
const DT = "/api/v1/tenants/vision-lab/projects/detector-training";
const SEG = "/api/v1/tenants/vision-lab/projects/segmentation-research";
/** Tables an endpoint here may write; a refusal must leave all of them as they were. */
const QUOTA_TABLES = ["node_pools", "rates", "instance_settings", "quota_requests", "quota_grants", "quota_request_events", "quota_request_revisions", "quota_request_comments", "audit_events", "cluster_changes", "notifications", "webhook_deliveries"] as const;

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;

const PERSONAS = ["platform", "tenantAdmin", "member", "viewer", "tenantViewer", "collaborator", "noRole", "otherProject", "foreign", "expiredCollaborator"] as const;
type Persona = (typeof PERSONAS)[number];
/** Who can see detector-training's quota (project.quota.view). */
const SEES_PROJECT = new Set<Persona>(["platform", "tenantAdmin", "member", "viewer", "tenantViewer", "collaborator"]);
/** Who can ask for quota on it (project.quota.request). */
const REQUESTS = new Set<Persona>(["platform", "tenantAdmin", "member", "collaborator"]);
const token = {} as Record<Persona | "platform2", string>;

const badTokens = badTokenPool();
const badToken = badTokens.take;
const account = (tenant: string | null, name: string, projectRoles: { project: string; role: "member" | "viewer" }[] = []) => operatorAccount(db, SEEDED_AT, tenant, name, projectRoles);

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  installDatabase(handle);
  await seedDemoData(db, SEEDED_AT);
  const tenantId = await tenantIdsBySlug(db);
  const detector = await projectIdOf(db, "vision-lab", "detector-training");

  token.platform = (await account(null, "quota-platform-bot")).token;
  token.platform2 = (await account(null, "quota-platform-bot-2")).token;
  const admin = await account("vision-lab", "quota-admin-bot");
  await db.insert(memberships).values({ tenantId: tenantId["vision-lab"]!, principalId: admin.principalId, role: "tenant_admin", createdAt: SEEDED_AT });
  token.tenantAdmin = admin.token;
  token.member = (await account("vision-lab", "quota-member-bot", [{ project: "detector-training", role: "member" }])).token;
  token.viewer = (await account("vision-lab", "quota-viewer-bot", [{ project: "detector-training", role: "viewer" }])).token;
  const tenantViewer = await account("vision-lab", "quota-tenant-viewer-bot");
  await db.insert(memberships).values({ tenantId: tenantId["vision-lab"]!, principalId: tenantViewer.principalId, role: "viewer", createdAt: SEEDED_AT });
  token.tenantViewer = tenantViewer.token;
  token.noRole = (await account("vision-lab", "quota-no-role-bot")).token;
  token.otherProject = (await account("vision-lab", "quota-segmentation-bot", [{ project: "segmentation-research", role: "member" }])).token;
  token.foreign = (await account("language-models", "quota-foreign-bot", [{ project: "chat-eval", role: "member" }])).token;
  // Collaborators: accounts of another tenant holding a grant on detector-training, one in force and one expired.
  const collaborator = await account("robotics", "quota-collab-bot");
  await addGrant(db, { projectId: detector, principalId: collaborator.principalId, role: "member", expiresAt: new Date(Date.now() + 30 * DAY), grantedBy: null, createdAt: SEEDED_AT });
  token.collaborator = collaborator.token;
  const expired = await account("robotics", "quota-expired-collab-bot");
  await addGrant(db, { projectId: detector, principalId: expired.principalId, role: "member", expiresAt: new Date(Date.now() - 60_000), grantedBy: null, createdAt: SEEDED_AT });
  token.expiredCollaborator = expired.token;

  // Enough unusable tokens of each kind for one use per route.
  const alex = await contextOf(db, "vision-admin", new Date());
  for (const name of ["quota-revoked-bot", "quota-expired-bot", "quota-disabled-bot"]) {
    await createServiceAccountAsOperator(db, { tenant: "vision-lab", name, description: "", projectRoles: [{ project: "detector-training", role: "member" }] }, SEEDED_AT);
  }
  for (let i = 0; i < 20; i++) {
    const revoked = await mintTokenAsOperator(db, "vision-lab", "quota-revoked-bot", null, SEEDED_AT);
    await executeCommand(revokeToken, alex, { tenant: "vision-lab", serviceAccount: "quota-revoked-bot", prefix: revoked.prefix });
    badTokens.revoked.push(revoked.token);
    badTokens.expired.push((await mintTokenAsOperator(db, "vision-lab", "quota-expired-bot", new Date(Date.now() - 60_000), new Date(Date.now() - DAY))).token);
    badTokens.disabled.push((await mintTokenAsOperator(db, "vision-lab", "quota-disabled-bot", null, SEEDED_AT)).token);
  }
  await executeCommand(setServiceAccountDisabled, alex, { tenant: "vision-lab", serviceAccount: "quota-disabled-bot", disabled: true });
});
afterAll(async () => {
  (globalThis as { allotDb?: unknown }).allotDb = undefined;
  await handle?.close();
});

const get = (path: string, tokenValue: string | null) => callApi("GET", path, { token: tokenValue });
const post = (path: string, tokenValue: string | null, body?: unknown) => callApi("POST", path, { token: tokenValue, body });
const jsonOf = <T = Record<string, unknown>>(response: ApiResponse) => response.json as T;

function expectStatus(response: ApiResponse, status: number) {
  expect(response.status, `${response.method} ${response.path}: ${response.text}`).toBe(status);
}

function expectError(response: ApiResponse, status: number, code: string) {
  expectStatus(response, status);
  const body = jsonOf<{ error: { code: string; message: string; fields?: Record<string, string[]> } }>(response);
  expect(body.error).toMatchObject({ code, message: expect.any(String) as unknown });
  expect(Object.keys(body.error).filter((k) => !["code", "message", "fields"].includes(k))).toEqual([]);
  return body.error;
}

type RequestOut = { id: string; status: string; version: number; amounts: Record<string, unknown>; tenantSlug: string; projectSlug: string };

const GPU_REQUEST = { gpuModel: "H100", gpuCount: 1, cpuCores: "4", memory: "16Gi", justification: "Training the next detector on the new camera data." };

/** A pending request on detector-training, asked by the member account. */
async function pendingRequest(body: Record<string, unknown> = GPU_REQUEST, tokenValue = token.member, path = DT): Promise<RequestOut> {
  const response = await post(`${path}/quota-requests`, tokenValue, body);
  expectStatus(response, 201);
  const request = jsonOf<{ request: RequestOut }>(response).request;
  expect(request.status).toBe("pending");
  return request;
}

let poolCounter = 0;
async function freshPool(): Promise<string> {
  const name = unique("matrix-pool");
  await db.insert(nodePools).values({ name, nodeCount: 2, cpuPerNode: 16, memoryBytesPerNode: 64 * GiB, createdAt: SEEDED_AT });
  return name;
}
/** A future instant no other rate of this file uses. */
const freshRateInstant = () => new Date(Date.UTC(2031, 0, 1) + ++poolCounter * HOUR).toISOString();

async function requestRow(id: string) {
  const [row] = await db.select().from(quotaRequests).where(eq(quotaRequests.id, id));
  return row!;
}

// ---------------------------------------------------------------- the authorization matrix

type Row = {
  route: string;
  /** Expected status per persona. */
  expected: (p: Persona) => number;
  /** Make what the call acts on (fresh for every call, so rows do not depend on each other). */
  setup?: () => Promise<string>;
  call: (tokenValue: string | null, target: string) => Promise<ApiResponse>;
  /** Extra checks of a successful call. */
  check?: (response: ApiResponse, p: Persona, target: string) => Promise<void> | void;
};

const viewOr404 = (ok: number) => (p: Persona) => (SEES_PROJECT.has(p) ? ok : 404);
const platformOnly = (ok: number) => (p: Persona) => (p === "platform" ? ok : 403);
const decisionExpectation = (p: Persona) => (p === "platform" ? 200 : SEES_PROJECT.has(p) ? 403 : 404);

let sharedRequest: RequestOut;

const ROWS: Row[] = [
  { route: "GET /api/v1/node-pools", expected: () => 200, call: (t) => get("/api/v1/node-pools", t) },
  {
    route: "POST /api/v1/node-pools",
    expected: platformOnly(201),
    setup: () => Promise.resolve(unique("api-pool")),
    call: (t, name) => post("/api/v1/node-pools", t, { name, nodeCount: 1, cpuPerNode: 8, memoryPerNode: 32 }),
  },
  {
    route: "PATCH /api/v1/node-pools/{pool}",
    expected: platformOnly(200),
    setup: freshPool,
    call: (t, name) => callApi("PATCH", `/api/v1/node-pools/${name}`, { token: t, body: { nodeCount: 3, version: 1 } }),
    check: (r) => expect(r.json).toMatchObject({ nodeCount: 3, version: 2 }),
  },
  {
    route: "DELETE /api/v1/node-pools/{pool}",
    expected: platformOnly(200),
    setup: freshPool,
    call: (t, name) => callApi("DELETE", `/api/v1/node-pools/${name}`, { token: t }),
    check: async (_r, _p, name) => expect(await db.select().from(nodePools).where(eq(nodePools.name, name))).toEqual([]),
  },
  { route: "GET /api/v1/rates", expected: () => 200, call: (t) => get("/api/v1/rates", t) },
  {
    route: "POST /api/v1/rates",
    expected: platformOnly(201),
    setup: () => Promise.resolve(freshRateInstant()),
    call: (t, effectiveFrom) => post("/api/v1/rates", t, { resource: "storage", unitPrice: "0.09", effectiveFrom }),
  },
  {
    route: "POST /api/v1/tenants/{tenant}/projects/{project}/quota-requests",
    expected: (p) => (REQUESTS.has(p) ? 201 : SEES_PROJECT.has(p) ? 403 : 404),
    call: (t) => post(`${DT}/quota-requests`, t, GPU_REQUEST),
    check: (r) => expect(jsonOf<{ request: RequestOut }>(r).request).toMatchObject({ status: "pending", tenantSlug: "vision-lab", projectSlug: "detector-training" }),
  },
  {
    route: "GET /api/v1/tenants/{tenant}/projects/{project}/quota-requests",
    expected: viewOr404(200),
    call: (t) => get(`${DT}/quota-requests`, t),
    check: (r) => expect(jsonOf<{ requests: RequestOut[] }>(r).requests.map((x) => x.id)).toContain(sharedRequest.id),
  },
  {
    route: "GET /api/v1/quota-requests",
    expected: () => 200,
    call: (t) => get("/api/v1/quota-requests?status=pending", t),
    check: (r, p) => {
      const ids = jsonOf<{ requests: RequestOut[] }>(r).requests.map((x) => x.id);
      if (SEES_PROJECT.has(p)) expect(ids).toContain(sharedRequest.id);
      else expect(ids).not.toContain(sharedRequest.id);
    },
  },
  {
    route: "GET /api/v1/quota-requests/{id}",
    expected: viewOr404(200),
    call: (t) => get(`/api/v1/quota-requests/${sharedRequest.id}`, t),
    check: (r) => expect(r.json).toMatchObject({ id: sharedRequest.id, status: "pending" }),
  },
  {
    route: "POST /api/v1/quota-requests/{id}/approve",
    expected: decisionExpectation,
    setup: async () => (await pendingRequest()).id,
    call: (t, id) => post(`/api/v1/quota-requests/${id}/approve`, t, { version: 1 }),
    check: (r) => expect(r.json).toMatchObject({ status: "approved", version: 2 }),
  },
  {
    route: "POST /api/v1/quota-requests/{id}/reject",
    expected: decisionExpectation,
    setup: async () => (await pendingRequest()).id,
    call: (t, id) => post(`/api/v1/quota-requests/${id}/reject`, t, { version: 1, reason: "The H100 pool is reserved this month." }),
    check: (r) => expect(r.json).toMatchObject({ status: "rejected", decisionNote: "The H100 pool is reserved this month." }),
  },
  {
    route: "POST /api/v1/quota-requests/{id}/cancel",
    // Only the one who asked (the member account) may cancel; others who see it are refused.
    expected: (p) => (p === "member" ? 200 : SEES_PROJECT.has(p) ? 403 : 404),
    setup: async () => (await pendingRequest()).id,
    call: (t, id) => post(`/api/v1/quota-requests/${id}/cancel`, t),
    check: (r) => expect(r.json).toMatchObject({ status: "cancelled" }),
  },
  {
    route: "PATCH /api/v1/quota-requests/{id}",
    // Only the one who asked (the member account) edits; others who see it are refused.
    expected: (p) => (p === "member" ? 200 : SEES_PROJECT.has(p) ? 403 : 404),
    setup: async () => (await pendingRequest()).id,
    call: (t, id) => callApi("PATCH", `/api/v1/quota-requests/${id}`, { token: t, body: { ...GPU_REQUEST, justification: "Edited: the same GPUs for a shorter evaluation.", version: 1 } }),
    check: (r) => expect(r.json).toMatchObject({ status: "pending", revision: 2, version: 2 }),
  },
  {
    route: "POST /api/v1/quota-requests/{id}/comments",
    // The requester, the tenant's admins and platform admins take part; other readers of the project are refused.
    expected: (p) => (p === "member" || p === "tenantAdmin" || p === "platform" ? 201 : SEES_PROJECT.has(p) ? 403 : 404),
    setup: async () => (await pendingRequest()).id,
    call: (t, id) => post(`/api/v1/quota-requests/${id}/comments`, t, { body: "When do you need them by?" }),
    check: (r) => expect(jsonOf<{ comments: { body: string }[] }>(r).comments.map((c) => c.body)).toEqual(["When do you need them by?"]),
  },
  {
    route: "GET /api/v1/quota-requests/{id}/comments",
    expected: (p) => (p === "member" || p === "tenantAdmin" || p === "platform" ? 200 : 404),
    call: (t) => get(`/api/v1/quota-requests/${sharedRequest.id}/comments`, t),
    check: (r) => expect(r.json).toEqual({ comments: [] }),
  },
  {
    route: "POST /api/v1/tenants/{tenant}/projects/{project}/quota-grants/{grant}/extension",
    // Who may ask for quota may ask to keep a grant longer; viewers are refused, others learn nothing.
    expected: (p) => (REQUESTS.has(p) ? 201 : SEES_PROJECT.has(p) ? 403 : 404),
    setup: () => timeBoundGrantOnDetector(),
    call: (t, grant) => post(`${DT}/quota-grants/${grant}/extension`, t, { endsAt: new Date(Date.now() + 40 * DAY).toISOString().slice(0, 10), justification: "The training run needs four more weeks." }),
    check: (r, _p, grant) => expect(r.json).toMatchObject({ status: "pending", extension: { grantId: grant } }),
  },
  {
    route: "GET /api/v1/tenants/{tenant}/projects/{project}/quota",
    expected: viewOr404(200),
    call: (t) => get(`${DT}/quota`, t),
    check: (r) => expect(r.json).toMatchObject({ tenantSlug: "vision-lab", projectSlug: "detector-training" }),
  },
];

/** A small time-bound grant on detector-training, ending in five days: one per extension asked. */
async function timeBoundGrantOnDetector(): Promise<string> {
  const detector = await projectIdOf(db, "vision-lab", "detector-training");
  return db.transaction((tx) =>
    insertGrant(tx, {
      projectId: detector,
      lines: [{ flavor: "default", resource: "cpu", guarantee: 1, burst: 0, lendLimit: null }],
      startsAt: SEEDED_AT,
      endsAt: new Date(Date.now() + 5 * DAY),
      source: "demo",
      createdAt: SEEDED_AT,
    }),
  );
}

describe(`authorization matrix of the capacity and quota routes (${databaseLabel()})`, () => {
  beforeAll(async () => {
    sharedRequest = await pendingRequest();
  });

  it("covers every route of the capacity and quota modules", () => {
    const routes = [capacityRoutes, quotaRoutes]
      .flatMap((m) => Object.values(m) as { spec?: { method: string; path: string } }[])
      .filter((r) => r.spec)
      .map((r) => `${r.spec!.method} ${r.spec!.path}`);
    expect(ROWS.map((r) => r.route).sort()).toEqual(routes.sort());
  });

  const cases = ROWS.flatMap((row) => PERSONAS.map((persona) => [row.route, persona, row.expected(persona), row] as const));
  it.each(cases)("%s as %s answers %i", async (_route, persona, status, row) => {
    const target = row.setup ? await row.setup() : "";
    const before = await fingerprint(db, QUOTA_TABLES);
    const response = await row.call(token[persona], target);
    if (status >= 400) {
      expectError(response, status, status === 403 ? "forbidden" : "not_found");
      expect(await fingerprint(db, QUOTA_TABLES), "a refusal writes nothing").toEqual(before);
    } else {
      expectStatus(response, status);
      await row.check?.(response, persona, target);
    }
  });

  const unauthenticated = ROWS.flatMap((row) => BAD_TOKEN_KINDS.map((kind) => [row.route, kind, row] as const));
  it.each(unauthenticated)("%s with a %s token answers 401 and writes nothing", async (_route, kind, row) => {
    const target = row.setup ? await row.setup() : "";
    const before = await fingerprint(db, QUOTA_TABLES);
    const response = await row.call(badToken(kind), target);
    expectError(response, 401, "unauthenticated");
    expect(await fingerprint(db, QUOTA_TABLES)).toEqual(before);
  });

  it("serves every new route through its own route file", async () => {
    for (const route of [capacityRoutes, quotaRoutes].flatMap((m) => Object.values(m) as { spec?: { method: string; path: string }; handle?: unknown }[])) {
      if (!route.spec) continue;
      const exported = (await routeModule(resolveRoute(route.spec.path.replace(/\{(\w+)\}/g, "x")).file))[route.spec.method];
      expect(exported, `${route.spec.method} ${route.spec.path}`).toBe(route.handle);
    }
  });
});

// ---------------------------------------------------------------- node pools and rates

type PoolOut = { name: string; version: number; dedicated: boolean; dedicatedTenant: string | null; memoryBytesPerNode: number; cpuPerNode: number; nodeCount: number; totals: { gpus: number } };

describe(`node pools (${databaseLabel()})`, () => {
  it("lists the pools with their totals and the cluster's capacity against allocation", async () => {
    const response = await get("/api/v1/node-pools", token.member);
    expectStatus(response, 200);
    const { pools, capacity } = jsonOf<{ pools: PoolOut[]; capacity: { key: string; capacity: number; allocated: number }[] }>(response);
    expect(pools.map((p) => p.name)).toEqual(expect.arrayContaining(["a100-mig", "cpu-general", "h100-pool", "l4-inference"]));
    expect(pools.find((p) => p.name === "h100-pool")).toMatchObject({ gpuModel: "H100", gpuResource: "nvidia.com/gpu", nodeCount: 4, maxNodes: 6, capacityNodes: 4, totals: { gpus: 32 }, atMax: { nodes: 6, totals: { gpus: 48 } }, dedicated: false, dedicatedTenant: null });
    expect(capacity.find((c) => c.key === "gpu:H100")).toMatchObject({ capacity: 32, capacityAtMax: 48 });
    expect(capacity.find((c) => c.key === "cpu")!.allocated).toBeGreaterThan(0);
  });

  it("creates a pool dedicated to a tenant, named only to those who can see that tenant", async () => {
    const name = unique("robotics-l40s");
    const created = await post("/api/v1/node-pools", token.platform, {
      name,
      gpuModel: "L40S",
      gpuResource: "nvidia.com/gpu",
      gpusPerNode: "4",
      nodeCount: 2,
      cpuPerNode: "63500m",
      memoryPerNode: "512Gi",
      dedicatedTenant: "robotics",
    });
    expectStatus(created, 201);
    expect(created.json).toMatchObject({ name, gpusPerNode: 4, cpuPerNode: 63.5, memoryBytesPerNode: 512 * GiB, dedicated: true, dedicatedTenant: "robotics", version: 1, totals: { gpus: 8 } });
    const seen = (t: string) => get("/api/v1/node-pools", t).then((r) => jsonOf<{ pools: PoolOut[] }>(r).pools.find((p) => p.name === name));
    expect(await seen(token.platform)).toMatchObject({ dedicated: true, dedicatedTenant: "robotics" });
    expect(await seen(token.member)).toMatchObject({ dedicated: true, dedicatedTenant: null });
  });

  it("answers invalid pools with 400 naming each field, and a taken name with 409", async () => {
    const before = await fingerprint(db, QUOTA_TABLES);
    const invalid = expectError(await post("/api/v1/node-pools", token.platform, { name: "-bad-", nodeCount: -1, cpuPerNode: "lots", memoryPerNode: "-5" }), 400, "validation");
    expect(Object.keys(invalid.fields!).sort()).toEqual(["cpuPerNode", "memoryPerNode", "name", "nodeCount"]);
    const pairing = expectError(await post("/api/v1/node-pools", token.platform, { name: unique("p"), gpuModel: "H200", nodeCount: 1, cpuPerNode: 8, memoryPerNode: 8 }), 400, "validation");
    expect(Object.keys(pairing.fields!)).toEqual(["gpuResource"]);
    const taken = expectError(await post("/api/v1/node-pools", token.platform, { name: "cpu-general", nodeCount: 1, cpuPerNode: 8, memoryPerNode: 8 }), 409, "conflict");
    expect(taken.fields).toEqual({ name: ["Choose another name: another pool has this one."] });
    expect(await fingerprint(db, QUOTA_TABLES)).toEqual(before);
  });

  it("changes only the facts sent, quoting the version; a stale version is 409, none is 400", async () => {
    const name = unique("patch-pool");
    await db.insert(nodePools).values({ name, gpuModel: "A100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 3, cpuPerNode: 7.91, memoryBytesPerNode: 1.5 * GiB + 4096, createdAt: SEEDED_AT });
    const patched = await callApi("PATCH", `/api/v1/node-pools/${name}`, { token: token.platform, body: { maxNodes: 5, version: 1 } });
    expectStatus(patched, 200);
    expect(patched.json).toMatchObject({ name, gpuModel: "A100", gpusPerNode: 8, nodeCount: 3, maxNodes: 5, cpuPerNode: 7.91, memoryBytesPerNode: 1.5 * GiB + 4096, version: 2, capacityNodes: 3, atMax: { nodes: 5, totals: { gpus: 40 } } });
    expectError(await callApi("PATCH", `/api/v1/node-pools/${name}`, { token: token.platform, body: { nodeCount: 4, version: 1 } }), 409, "conflict");
    expect(expectError(await callApi("PATCH", `/api/v1/node-pools/${name}`, { token: token.platform, body: { nodeCount: 4 } }), 400, "validation").fields).toHaveProperty("version");
    expect(expectError(await callApi("PATCH", `/api/v1/node-pools/${name}`, { token: token.platform, body: { nodeCount: 9, version: 2 } }), 400, "validation").fields).toEqual({
      nodeCount: ["Enter at most the maximum nodes (5)."],
    });
    expectError(await callApi("PATCH", "/api/v1/node-pools/no-such-pool", { token: token.platform, body: { nodeCount: 4, version: 1 } }), 404, "not_found");
  });

  it("takes a pool's hardware facts as JSON, shows them, and changes them by PATCH; bad ones are 400 naming the field", async () => {
    const name = unique("l4-shared");
    const taints = [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" }];
    const body = {
      name,
      gpuModel: unique("L4 shared x4"),
      gpuResource: "nvidia.com/gpu",
      gpusPerNode: 2,
      nodeCount: 3,
      cpuPerNode: 16,
      memoryPerNode: 64,
      gpuSharing: "time_sliced",
      gpuSlices: 4,
      nodeLabels: { "cloud.google.com/gke-nodepool": name, "nvidia.com/gpu.product": "NVIDIA-L4-SHARED" },
      nodeTaints: taints,
      tiers: ["serving"],
    };
    const created = await post("/api/v1/node-pools", token.platform, body);
    expectStatus(created, 201);
    expect(created.json).toMatchObject({
      gpusPerNode: 2,
      gpuSharing: "time_sliced",
      gpuSlices: 4,
      schedulableGpusPerNode: 8,
      physicalGpusPerNode: 2,
      nodeLabels: body.nodeLabels,
      nodeTaints: taints,
      tiers: ["serving"],
      totals: { gpus: 24, physicalGpus: 6 },
    });
    const listed = jsonOf<{ pools: PoolOut[] }>(await get("/api/v1/node-pools", token.member)).pools.find((p) => p.name === name);
    expect(listed).toMatchObject({ gpuSharing: "time_sliced", gpuSlices: 4, nodeTaints: taints, tiers: ["serving"] });

    // Stopping time-slicing without naming slices goes back to 1; null clears the tiers (every tier).
    const patched = await callApi("PATCH", `/api/v1/node-pools/${name}`, { token: token.platform, body: { gpuSharing: "exclusive", tiers: null, nodeTaints: [], version: 1 } });
    expectStatus(patched, 200);
    expect(patched.json).toMatchObject({ gpuSharing: "exclusive", gpuSlices: 1, tiers: null, nodeTaints: [], schedulableGpusPerNode: 2, nodeLabels: body.nodeLabels, version: 2 });

    const before = await fingerprint(db, QUOTA_TABLES);
    const bad = expectError(
      await post("/api/v1/node-pools", token.platform, { ...body, name: unique("bad"), nodeLabels: { "bad key": "x" }, nodeTaints: [{ key: "a", effect: "Never" }], tiers: ["batch"], gpuSlices: 65 }),
      400,
      "validation",
    );
    expect(Object.keys(bad.fields!).sort()).toEqual(["gpuSlices", "nodeLabels", "nodeTaints", "tiers"]);
    expect(await fingerprint(db, QUOTA_TABLES)).toEqual(before);
  });

  it("makes a mixed MIG pool's further profiles requestable (POST, PATCH keeps or clears them), refusing in sentences on gpuProfiles what is not one", async () => {
    const name = unique("a100-mixed");
    const first = unique("A100 1g.10gb");
    const second = unique("A100 3g.40gb");
    const body = { name, gpuModel: first, gpuResource: "nvidia.com/mig-1g.10gb", gpusPerNode: 28, nodeCount: 2, cpuPerNode: 96, memoryPerNode: 1152, gpuProfiles: [{ model: second, resource: "nvidia.com/mig-3g.40gb", perNode: 2 }] };
    const created = await post("/api/v1/node-pools", token.platform, body);
    expectStatus(created, 201);
    expect(created.json).toMatchObject({ gpuSharing: "mig", gpuProfiles: body.gpuProfiles, totals: { gpus: 56, profiles: [{ model: second, gpus: 4 }] } });
    const listed = jsonOf<{ pools: PoolOut[]; capacity: { key: string; physical: number }[] }>(await get("/api/v1/node-pools", token.platform));
    expect(listed.pools.find((p) => p.name === name)).toMatchObject({ gpuProfiles: body.gpuProfiles });
    expect(listed.capacity.find((c) => c.key === `gpu:${second}`)).toMatchObject({ physical: 4 });

    // A patch that leaves them out keeps them; one that names them replaces them; null clears them.
    const kept = await callApi("PATCH", `/api/v1/node-pools/${name}`, { token: token.platform, body: { nodeCount: 3, version: 1 } });
    expectStatus(kept, 200);
    expect(kept.json).toMatchObject({ gpuProfiles: body.gpuProfiles, version: 2 });
    const cleared = await callApi("PATCH", `/api/v1/node-pools/${name}`, { token: token.platform, body: { gpuProfiles: null, version: 2 } });
    expect(cleared.json).toMatchObject({ gpuProfiles: [], version: 3 });

    const before = await fingerprint(db, QUOTA_TABLES);
    const refused = async (over: Record<string, unknown>) => expectError(await post("/api/v1/node-pools", token.platform, { ...body, name: unique("bad"), ...over }), 400, "validation").fields!;
    expect(await refused({ gpuProfiles: [{ model: second, resource: "nvidia.com/gpu", perNode: 2 }] })).toEqual({ "gpuProfiles.0.resource": ["Enter a MIG resource such as nvidia.com/mig-3g.40gb."] });
    expect(await refused({ gpuProfiles: [{ model: first, resource: "nvidia.com/mig-3g.40gb", perNode: 2 }] })).toEqual({ gpuProfiles: [`Give the profile nvidia.com/mig-3g.40gb a model name of its own: ${first} is the pool's GPU model.`] });
    expect(await refused({ gpuModel: unique("H100"), gpuResource: "nvidia.com/gpu", gpuProfiles: body.gpuProfiles })).toEqual({
      gpuProfiles: ["Leave further profiles empty unless the GPUs are MIG-partitioned (sharing mig): whole and time-sliced GPUs offer one resource."],
    });
    expect(await refused({ gpuProfiles: "A100 = nvidia.com/mig-3g.40gb x lots" })).toEqual({ gpuProfiles: ["Give the profile A100 a whole number from 1 to 1024 of instances per node."] });
    // Another pool serving the second model as another resource.
    expect(await refused({ gpuModel: unique("A100 b"), gpuProfiles: [{ model: first, resource: "nvidia.com/mig-2g.20gb", perNode: 3 }] })).toEqual({
      gpuProfiles: [`Give ${first} the resource nvidia.com/mig-1g.10gb: pool ${name} already serves ${first} as nvidia.com/mig-1g.10gb (use another model name for a different resource).`],
    });
    expect(await fingerprint(db, QUOTA_TABLES)).toEqual(before);
  });

  it("deletes a pool, at the version given; an unknown pool is 404", async () => {
    const name = await freshPool();
    expect(expectError(await callApi("DELETE", `/api/v1/node-pools/${name}?version=7`, { token: token.platform }), 409, "conflict").message).toMatch(/changed/);
    expect(expectError(await callApi("DELETE", `/api/v1/node-pools/${name}?version=x`, { token: token.platform }), 400, "validation").fields).toHaveProperty("version");
    expectStatus(await callApi("DELETE", `/api/v1/node-pools/${name}?version=1`, { token: token.platform }), 200);
    expectError(await callApi("DELETE", `/api/v1/node-pools/${name}`, { token: token.platform }), 404, "not_found");
  });
});

type RateLine = { resource: string; unit: string; current: { unitPrice: string } | null; next: { unitPrice: string; effectiveFrom: string } | null; missing: boolean };
type RateHistory = { resource: string; unitPrice: string; state: string; unit: string };

describe(`rates (${databaseLabel()})`, () => {
  it("gives the rate card in the currency with units, the price in force and the history", async () => {
    const response = await get("/api/v1/rates", token.foreign);
    expectStatus(response, 200);
    const body = jsonOf<{ currency: string; rateCard: RateLine[]; history: RateHistory[] }>(response);
    expect(body.currency).toBe(config().currency);
    expect(body.rateCard.find((l) => l.resource === "gpu:H100")).toMatchObject({ unit: "GPU-hour", current: { unitPrice: "4.100000" }, missing: false });
    expect(body.rateCard.find((l) => l.resource === "memory")).toMatchObject({ unit: "GiB-hour", current: { unitPrice: "0.004000" } });
    expect(body.history.filter((h) => h.resource === "gpu:H100").map((h) => [h.unitPrice, h.state, h.unit])).toEqual([
      ["4.100000", "current", "GPU-hour"],
      ["4.600000", "past", "GPU-hour"],
    ]);
  });

  it("adds a price from a later instant (201, scheduled) and shows it as the next one", async () => {
    const effectiveFrom = new Date(Date.now() + 30 * DAY).toISOString();
    const response = await post("/api/v1/rates", token.platform, { resource: "gpu:L4", unitPrice: 0.85, effectiveFrom });
    expectStatus(response, 201);
    expect(response.json).toMatchObject({ resource: "gpu:L4", unitPrice: "0.850000", effectiveFrom, state: "scheduled", unit: "GPU-hour", currency: config().currency });
    const card = jsonOf<{ rateCard: RateLine[] }>(await get("/api/v1/rates", token.member)).rateCard;
    expect(card.find((l) => l.resource === "gpu:L4")).toMatchObject({ current: { unitPrice: "0.800000" }, next: { unitPrice: "0.850000", effectiveFrom } });
  });

  it("answers invalid prices with 400 naming each field, and a second price at the same instant too", async () => {
    const invalid = expectError(await post("/api/v1/rates", token.platform, { resource: "Gold bars!", unitPrice: "-1", effectiveFrom: "someday" }), 400, "validation");
    expect(Object.keys(invalid.fields!).sort()).toEqual(["effectiveFrom", "resource", "unitPrice"]);
    const effectiveFrom = freshRateInstant();
    expectStatus(await post("/api/v1/rates", token.platform, { resource: "cpu", unitPrice: "0.04", effectiveFrom }), 201);
    expect(expectError(await post("/api/v1/rates", token.platform, { resource: "cpu", unitPrice: "0.05", effectiveFrom }), 400, "validation").fields).toHaveProperty("effectiveFrom");
  });
});

// ---------------------------------------------------------------- quota requests

type Detail = RequestOut & {
  monthlyCost: number;
  currency: string;
  endsAt: string | null;
  granted: Record<string, unknown> | null;
  timeline: { kind: string; actor: string; detail: Record<string, unknown> | null }[];
  canCancel: boolean;
  canDecide: boolean;
  decision: { conflict: string | null; estimate: { monthly: number }; capacity: { resource: string; before: number; after: number }[]; diff: string; quotaAfter: { gpus: Record<string, number> } } | null;
};

describe(`asking for quota (${databaseLabel()})`, () => {
  it("creates a request from Kubernetes notation and numbers: 201 with the request, the estimate and why it waits", async () => {
    const endsAt = new Date(Date.now() + 14 * DAY).toISOString();
    const response = await post(`${DT}/quota-requests`, token.member, {
      tenant: "language-models",
      project: "chat-eval",
      gpuModel: "H100",
      gpuCount: "2",
      cpuCores: "8000m",
      memory: "64Gi",
      storage: 100,
      endsAt,
      justification: "Fine-tuning the detector on two weeks of new footage.",
    });
    expectStatus(response, 201);
    const body = jsonOf<{ request: Detail; autoApproved: boolean; autoApproval: { rule: string | null; reason: string | null }; estimate: { monthly: number; currency: string; lines: { resource: string; monthly: number }[]; unpriced: string[] } }>(response);
    expect(body.autoApproved).toBe(false);
    expect(body.autoApproval).toEqual({ rule: null, reason: expect.any(String) as unknown });
    expect(body.request).toMatchObject({
      tenantSlug: "vision-lab",
      projectSlug: "detector-training",
      status: "pending",
      version: 1,
      endsAt,
      // The one-model fields are the shorthand for a list of one; the answer carries the list (and the single fields derived from it).
      amounts: { gpus: [{ model: "H100", count: 2, burst: 0 }], gpuModel: "H100", gpuCount: 2, cpuCores: 8, memoryBytes: 64 * GiB, storageBytes: 100 * GiB },
      currency: config().currency,
      canCancel: true,
      canDecide: false,
      decision: null,
    });
    expect(body.request.timeline.map((e) => e.kind)).toEqual(["created"]);
    expect(body.estimate.currency).toBe(config().currency);
    expect(body.estimate.unpriced).toEqual([]);
    expect(body.estimate.lines.map((l) => l.resource)).toEqual(["gpu:H100", "cpu", "memory", "storage"]);
    // 2 × 4.10 + 8 × 0.031 + 64 × 0.004 per hour for 730 hours, and 100 GiB × 0.08 a month.
    expect(body.estimate.monthly).toBeCloseTo(2 * 4.1 * 730 + 8 * 0.031 * 730 + 64 * 0.004 * 730 + 100 * 0.08, 2);
    expect(body.request.monthlyCost).toBeCloseTo(body.estimate.monthly, 2);
  });

  it("takes CPU and memory burst beside GPU burst where Kueue runs, shows them back, and grants less when the approver says so; without Kueue they are 400 naming each field", async () => {
    const globalConfig = globalThis as unknown as { allotConfig?: AllotConfig };
    const previous = globalConfig.allotConfig;
    const body = { gpuModel: "L4", gpuBurst: 2, cpuBurst: "16", memoryBurst: "128Gi", justification: "Preemptible augmentation sweeps on idle L4s." };
    try {
      globalConfig.allotConfig = parseConfig({ ALLOT_KUEUE: "0" });
      const refused = await post(`${SEG}/quota-requests`, token.platform, body);
      expectError(refused, 400, "validation");
      expect(Object.keys(jsonOf<{ error: { fields: Record<string, string[]> } }>(refused).error.fields).sort()).toEqual(["cpuBurst", "gpuBurst", "memoryBurst"]);

      globalConfig.allotConfig = parseConfig({ ALLOT_KUEUE: "1" });
      const created = await post(`${SEG}/quota-requests`, token.tenantAdmin, body);
      expectStatus(created, 201);
      const request = jsonOf<{ request: Detail; autoApproval: { reason: string | null }; estimate: { monthly: number } }>(created);
      expect(request.request.amounts).toEqual({ gpus: [{ model: "L4", count: 0, burst: 2 }], gpuModel: "L4", gpuCount: 0, gpuBurst: 2, cpuCores: 0, cpuBurst: 16, memoryBytes: 0, memoryBurstBytes: 128 * GiB, storageBytes: 0 });
      expect(request.autoApproval.reason).toBe("it asks for burst GPUs, CPU and memory, which a platform admin decides");
      expect(request.estimate.monthly).toBe(0);

      const approved = await post(`/api/v1/quota-requests/${request.request.id}/approve`, token.platform, { version: request.request.version, cpuBurst: 8 });
      expectStatus(approved, 200);
      const detail = jsonOf<Detail & { granted: Record<string, unknown> | null }>(await get(`/api/v1/quota-requests/${request.request.id}`, token.platform));
      expect(detail.granted).toMatchObject({ gpus: [{ model: "L4", count: 0, burst: 2 }], cpuBurst: 8, memoryBurstBytes: 128 * GiB });
    } finally {
      globalConfig.allotConfig = previous;
    }
  });

  it("asks for two GPU models as a list, edits one by PATCH, and is approved with fewer of the other: each model's line throughout", async () => {
    const globalConfig = globalThis as unknown as { allotConfig?: AllotConfig };
    const previous = globalConfig.allotConfig;
    globalConfig.allotConfig = parseConfig({ ALLOT_KUEUE: "1" });
    try {
      const body = { gpus: [{ model: "L4", count: 4 }, { model: "H100", count: "2", burst: 2 }], justification: "Training on H100s, serving on L4s." };
      const created = await post(`${SEG}/quota-requests`, token.tenantAdmin, body);
      expectStatus(created, 201);
      const request = jsonOf<{ request: Detail; estimate: { lines: { resource: string; quantity: number }[] } }>(created);
      expect(request.request.amounts).toMatchObject({
        gpus: [
          { model: "H100", count: 2, burst: 2 },
          { model: "L4", count: 4, burst: 0 },
        ],
        // Several models: no single one to name; the GPUs of all of them together.
        gpuModel: null,
        gpuCount: 6,
        gpuBurst: 2,
      });
      expect(request.estimate.lines.map((l) => [l.resource, l.quantity])).toEqual([
        ["gpu:H100", 2],
        ["gpu:L4", 4],
      ]);

      const edited = await callApi("PATCH", `/api/v1/quota-requests/${request.request.id}`, { token: token.tenantAdmin, body: { ...body, version: request.request.version, gpus: [{ model: "H100", count: 2, burst: 2 }, { model: "L4", count: 5 }] } });
      expectStatus(edited, 200);
      const revised = jsonOf<Detail & { revisions: { changes: { field: string }[] }[] }>(edited);
      expect(revised.revisions.at(-1)!.changes.map((c) => c.field).filter((f) => f !== "estimate")).toEqual(["gpus.L4.count"]);

      const both = expectError(await post(`/api/v1/quota-requests/${request.request.id}/approve`, token.platform, { version: revised.version, gpuCount: 1, gpus: [{ model: "H100", count: 1 }] }), 400, "validation");
      expect(Object.keys(both.fields!)).toEqual(["gpuCount"]);
      const approved = await post(`/api/v1/quota-requests/${request.request.id}/approve`, token.platform, { version: revised.version, gpus: [{ model: "H100", count: 1 }] });
      expectStatus(approved, 200);
      const detail = jsonOf<Detail & { granted: Record<string, unknown> | null }>(approved);
      // A model left out of the list grants what was asked of it.
      expect(detail.granted).toMatchObject({ gpus: [{ model: "H100", count: 1, burst: 2 }, { model: "L4", count: 5, burst: 0 }] });
      const quota = jsonOf<{ grants: { requestId: string; amounts: { gpus: { model: string; count: number; burst: number }[] } }[] }>(await get(`${SEG}/quota`, token.tenantAdmin));
      expect(quota.grants.find((g) => g.requestId === request.request.id)!.amounts.gpus).toEqual([
        { model: "H100", count: 1, burst: 2 },
        { model: "L4", count: 5, burst: 0 },
      ]);
    } finally {
      globalConfig.allotConfig = previous;
    }
  });

  it("approves a small request at once by rule and shows it in the effective quota", async () => {
    const before = jsonOf<{ effective: { cpuCores: number; memoryBytes: number } }>(await get(`${SEG}/quota`, token.tenantAdmin)).effective;
    const response = await post(`${SEG}/quota-requests`, token.tenantAdmin, { cpuCores: "500m", memory: "4Gi", justification: "A notebook for the segmentation baseline." });
    expectStatus(response, 201);
    const body = jsonOf<{ request: Detail; autoApproved: boolean; autoApproval: { rule: string | null } }>(response);
    expect(body.autoApproved).toBe(true);
    expect(body.autoApproval.rule).toMatch(/no GPUs/);
    expect(body.request).toMatchObject({ status: "auto_approved", version: 2, canCancel: false });
    expect(body.request.timeline.map((e) => [e.kind, e.actor])).toEqual([
      ["created", "quota-admin-bot"],
      ["auto_approved", "system:auto-approval"],
    ]);
    const quota = jsonOf<{ effective: { cpuCores: number; memoryBytes: number }; grants: { requestId: string; inForce: boolean; amounts: { cpuCores: number } }[] }>(await get(`${SEG}/quota`, token.otherProject));
    expect(quota.effective.cpuCores).toBeCloseTo(before.cpuCores + 0.5, 6);
    expect(quota.effective.memoryBytes).toBe(before.memoryBytes + 4 * GiB);
    expect(quota.grants.find((g) => g.requestId === body.request.id)).toMatchObject({ inForce: true, amounts: { cpuCores: 0.5 } });
  });

  it.each([
    ["a negative GPU count", { gpuCount: -1, gpuModel: "H100" }, ["gpuCount"]],
    ["a fractional GPU count", { gpuCount: 1.5, gpuModel: "H100" }, ["gpuCount"]],
    ["memory in an unknown unit", { memory: "64GB" }, ["memory"]],
    ["CPU that is not a quantity", { cpuCores: "lots" }, ["cpuCores"]],
    ["absurd storage", { storage: "1e30" }, ["storage"]],
    ["a non-finite value", { cpuCores: "Infinity" }, ["cpuCores"]],
    ["several bad fields at once", { gpuCount: "x", memory: "-4Gi", storage: "1Ei" }, ["gpuCount", "memory", "storage"]],
    ["GPUs without a model", { gpuCount: 2 }, ["gpuModel"]],
    ["a GPU model no pool offers", { gpuModel: "TPUv9", gpuCount: 1 }, ["gpuModel"]],
    ["the GPU list and the one-model shorthand at once", { gpus: [{ model: "H100", count: 1 }], gpuCount: 1 }, ["gpuCount"]],
    ["a GPU model twice in the list", { gpus: [{ model: "H100", count: 1 }, { model: "H100", count: 2 }] }, ["gpus.1.model"]],
    ["a row of the list with GPUs and no model", { gpus: [{ model: "L4", count: 1 }, { count: 2 }] }, ["gpus.1.model"]],
    ["a bad count in the list", { gpus: [{ model: "H100", count: -1 }] }, ["gpus.0.count"]],
    ["a model of the list no pool offers", { gpus: [{ model: "H100", count: 1 }, { model: "TPUv9", count: 1 }] }, ["gpus.1.model"]],
    // Nothing asked for is a problem of the request as a whole, not of its first field.
    ["nothing at all", {}, ["_form"]],
    ["an end in the past", { cpuCores: 1, endsAt: "2020-01-01" }, ["endsAt"]],
    ["an end that is not a date", { cpuCores: 1, endsAt: "soon" }, ["endsAt"]],
    ["no justification", { cpuCores: 1, justification: undefined }, ["justification"]],
    ["a short justification", { cpuCores: 1, justification: "gpus" }, ["justification"]],
  ] as const)("answers %s with 400 naming the field and writes nothing", async (_label, fields, named) => {
    const before = await fingerprint(db, QUOTA_TABLES);
    const body = { justification: "A sentence long enough to pass.", ...fields };
    const error = expectError(await post(`${DT}/quota-requests`, token.member, body), 400, "validation");
    expect(Object.keys(error.fields!).sort()).toEqual([...named].sort());
    expect(await fingerprint(db, QUOTA_TABLES)).toEqual(before);
  });

  it("answers a body that is not JSON with 400, and an unknown tenant or project with 404", async () => {
    expectError(await callApi("POST", `${DT}/quota-requests`, { token: token.member, rawBody: "{gpus" }), 400, "validation");
    expectError(await post("/api/v1/tenants/no-such-tenant/projects/detector-training/quota-requests", token.platform, GPU_REQUEST), 404, "not_found");
    expectError(await post("/api/v1/tenants/vision-lab/projects/no-such-project/quota-requests", token.platform, GPU_REQUEST), 404, "not_found");
    expectError(await get("/api/v1/tenants/vision-lab/projects/no-such-project/quota", token.platform), 404, "not_found");
    expectError(await get("/api/v1/tenants/vision-lab/projects/no-such-project/quota-requests", token.platform), 404, "not_found");
  });
});

describe(`reading requests (${databaseLabel()})`, () => {
  it("lists the caller's visible requests, filtered by status; a status that does not exist is 400", async () => {
    const mine = await pendingRequest();
    const foreignRequest = await pendingRequest(GPU_REQUEST, token.foreign, "/api/v1/tenants/language-models/projects/chat-eval");
    const all = jsonOf<{ requests: RequestOut[] }>(await get("/api/v1/quota-requests?status=pending", token.platform)).requests;
    expect(all.map((r) => r.id)).toEqual(expect.arrayContaining([mine.id, foreignRequest.id]));
    expect(all.every((r) => r.status === "pending")).toBe(true);
    const member = jsonOf<{ requests: RequestOut[] }>(await get("/api/v1/quota-requests", token.member)).requests;
    expect(member.map((r) => r.id)).toContain(mine.id);
    expect(member.map((r) => r.id)).not.toContain(foreignRequest.id);
    expect(member.every((r) => r.tenantSlug === "vision-lab" && r.projectSlug === "detector-training")).toBe(true);
    const approved = jsonOf<{ requests: RequestOut[] }>(await get(`${DT}/quota-requests?status=approved`, token.member)).requests;
    expect(approved.every((r) => r.status === "approved")).toBe(true);
    expect(expectError(await get("/api/v1/quota-requests?status=maybe", token.member), 400, "validation").fields).toHaveProperty("status");
  });

  it("pages GET /quota-requests by ?after and ?limit: every request once, next absent on the last page; a bad cursor or limit is a 400 naming it", async () => {
    await pendingRequest();
    await pendingRequest({ ...GPU_REQUEST, gpuCount: 2 });
    type Page = { requests: RequestOut[]; next?: string };
    const all = jsonOf<Page>(await get("/api/v1/quota-requests?status=pending", token.platform));
    expect(all.requests.length).toBeGreaterThanOrEqual(3);
    expect(all).not.toHaveProperty("next");
    const seen: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 100; i++) {
      const page = jsonOf<Page>(await get(`/api/v1/quota-requests?status=pending&limit=2${after ? `&after=${after}` : ""}`, token.platform));
      seen.push(...page.requests.map((r) => r.id));
      if (!page.next) break;
      expect(page.requests).toHaveLength(2);
      after = page.next;
    }
    expect(seen).toEqual(all.requests.map((r) => r.id));
    for (const [query, field] of [
      ["after=nonsense", "after"],
      ["after=1796637600123456_not-a-uuid", "after"],
      ["limit=0", "limit"],
      ["limit=1001", "limit"],
      ["limit=2x", "limit"],
    ] as const) {
      expect(expectError(await get(`/api/v1/quota-requests?${query}`, token.platform), 400, "validation").fields, query).toHaveProperty(field);
    }
  });

  it("gives platform admins the full picture of a pending request, and others the request and its timeline", async () => {
    const request = await pendingRequest({ ...GPU_REQUEST, gpuCount: 3 });
    const admin = jsonOf<Detail>(await get(`/api/v1/quota-requests/${request.id}`, token.platform));
    expect(admin).toMatchObject({ canDecide: true, canCancel: false });
    expect(admin.decision).toMatchObject({ conflict: null });
    expect(admin.decision!.estimate.monthly).toBeGreaterThan(0);
    const gpuLine = admin.decision!.capacity.find((l) => l.resource === "gpu:H100")!;
    expect(gpuLine.after - gpuLine.before).toBe(3);
    expect(admin.decision!.diff).toContain("ResourceQuota");
    expect(Object.values(admin.decision!.quotaAfter.gpus).length).toBeGreaterThan(0);
    const member = jsonOf<Detail>(await get(`/api/v1/quota-requests/${request.id}`, token.member));
    expect(member).toMatchObject({ canDecide: false, canCancel: true, decision: null });
  });

  it("keeps a cluster error in the timeline for platform admins only", async () => {
    const request = await pendingRequest();
    await db.insert(quotaRequestEvents).values({ requestId: request.id, at: new Date(), actorLabel: "system:reconcile", kind: "apply_failed", detail: { error: "admission webhook denied: internal detail" } });
    const admin = jsonOf<Detail>(await get(`/api/v1/quota-requests/${request.id}`, token.platform));
    expect(admin.timeline.at(-1)).toMatchObject({ kind: "apply_failed", detail: { error: "admission webhook denied: internal detail" } });
    const member = await get(`/api/v1/quota-requests/${request.id}`, token.member);
    expect(jsonOf<Detail>(member).timeline.at(-1)).toMatchObject({ kind: "apply_failed", detail: {} });
    expect(member.text).not.toContain("internal detail");
  });

  it.each([
    ["a malformed id", "not-a-request"],
    ["an unknown id", "5b0f4c1e-8d1a-4a55-9b57-3c8f7e0d2a61"],
  ])("answers %s with 404 on every request route", async (_label, id) => {
    expectError(await get(`/api/v1/quota-requests/${id}`, token.platform), 404, "not_found");
    expectError(await post(`/api/v1/quota-requests/${id}/approve`, token.platform, { version: 1 }), 404, "not_found");
    expectError(await post(`/api/v1/quota-requests/${id}/reject`, token.platform, { version: 1, reason: "Not this one." }), 404, "not_found");
    expectError(await post(`/api/v1/quota-requests/${id}/cancel`, token.member), 404, "not_found");
  });
});

describe(`deciding (${databaseLabel()})`, () => {
  it("approves with changes: fewer GPUs for a shorter time, which the project's quota then shows", async () => {
    const asked = await pendingRequest({ ...GPU_REQUEST, gpuCount: 4, endsAt: new Date(Date.now() + 14 * DAY).toISOString() }, token.tenantAdmin, SEG);
    const held = jsonOf<{ gpusByModel: Record<string, number>; effective: { gpus: Record<string, number> } }>(await get(`${SEG}/quota`, token.tenantAdmin));
    const before = held.gpusByModel.H100 ?? 0;
    // The resource counts every model served as nvidia.com/gpu (the demo's L4s too).
    const beforeResource = held.effective.gpus["nvidia.com/gpu"] ?? 0;
    const endsAt = new Date(Date.now() + 7 * DAY).toISOString();
    const response = await post(`/api/v1/quota-requests/${asked.id}/approve`, token.platform, { version: asked.version, gpuCount: 2, endsAt, note: "Two for now; ask again after the first run." });
    expectStatus(response, 200);
    const body = jsonOf<Detail>(response);
    expect(body).toMatchObject({ status: "approved", version: 2, decisionNote: "Two for now; ask again after the first run.", granted: { gpuCount: 2, cpuCores: 4, memoryBytes: 16 * GiB, storageBytes: 0, endsAt }, decision: null });
    expect(body.timeline.map((e) => e.kind)).toEqual(["created", "approved_with_changes"]);
    const quota = jsonOf<{ gpusByModel: Record<string, number>; effective: { gpus: Record<string, number> }; grants: { requestId: string; endsAt: string; amounts: { gpuCount: number } }[] }>(await get(`${SEG}/quota`, token.tenantAdmin));
    expect(quota.gpusByModel.H100).toBe(before + 2);
    expect(quota.effective.gpus["nvidia.com/gpu"]).toBe(beforeResource + 2);
    expect(quota.grants.find((g) => g.requestId === asked.id)).toMatchObject({ endsAt, amounts: { gpuCount: 2 } });
  });

  it("refuses changed amounts above what was asked, a missing version and a stale one", async () => {
    const asked = await pendingRequest();
    const before = await fingerprint(db, QUOTA_TABLES);
    const more = expectError(await post(`/api/v1/quota-requests/${asked.id}/approve`, token.platform, { version: 1, gpuCount: 3, memory: "1Ti" }), 400, "validation");
    expect(Object.keys(more.fields!).sort()).toEqual(["gpuCount", "memory"]);
    expect(expectError(await post(`/api/v1/quota-requests/${asked.id}/approve`, token.platform, { cpuCores: "-1" }), 400, "validation").fields).toHaveProperty("cpuCores");
    expect(expectError(await post(`/api/v1/quota-requests/${asked.id}/approve`, token.platform, {}), 400, "validation").fields).toHaveProperty("version");
    expect(expectError(await post(`/api/v1/quota-requests/${asked.id}/approve`, token.platform, { version: 2 }), 409, "conflict").message).toMatch(/changed since/);
    expect(await fingerprint(db, QUOTA_TABLES)).toEqual(before);
  });

  it("rejects with a reason the requester sees; the reason is required and a second decision is 409", async () => {
    const asked = await pendingRequest();
    expect(expectError(await post(`/api/v1/quota-requests/${asked.id}/reject`, token.platform, { version: 1 }), 400, "validation").fields).toHaveProperty("reason");
    expectStatus(await post(`/api/v1/quota-requests/${asked.id}/reject`, token.platform, { version: 1, reason: "No H100s until the pool grows." }), 200);
    const seen = jsonOf<Detail>(await get(`/api/v1/quota-requests/${asked.id}`, token.member));
    expect(seen).toMatchObject({ status: "rejected", decisionNote: "No H100s until the pool grows.", canCancel: false });
    expect(seen.timeline.at(-1)).toMatchObject({ kind: "rejected", detail: { reason: "No H100s until the pool grows." } });
    expect(expectError(await post(`/api/v1/quota-requests/${asked.id}/approve`, token.platform2, { version: 2 }), 409, "conflict").message).toMatch(/already decided/);
    expect(expectError(await post(`/api/v1/quota-requests/${asked.id}/cancel`, token.member), 409, "conflict").message).toMatch(/already decided/);
  });

  it("lets the requester cancel while pending; afterwards nobody can decide it", async () => {
    const asked = await pendingRequest();
    const cancelled = await post(`/api/v1/quota-requests/${asked.id}/cancel`, token.member);
    expectStatus(cancelled, 200);
    expect(cancelled.json).toMatchObject({ status: "cancelled", canCancel: false });
    expectError(await post(`/api/v1/quota-requests/${asked.id}/cancel`, token.member), 409, "conflict");
    expectError(await post(`/api/v1/quota-requests/${asked.id}/approve`, token.platform, { version: 2 }), 409, "conflict");
  });

  it("does not let a platform admin decide a request it made itself", async () => {
    const own = await pendingRequest(GPU_REQUEST, token.platform);
    const detail = jsonOf<Detail>(await get(`/api/v1/quota-requests/${own.id}`, token.platform));
    expect(detail.decision!.conflict).toMatch(/You made this request/);
    expect(expectError(await post(`/api/v1/quota-requests/${own.id}/approve`, token.platform, { version: 1 }), 403, "forbidden").message).toMatch(/You made this request/);
    expectStatus(await post(`/api/v1/quota-requests/${own.id}/approve`, token.platform2, { version: 1 }), 200);
  });

  it("answers two platform admins approving the same request at once with one 200 and one 409", async () => {
    const asked = await pendingRequest();
    const approve = (t: string) => post(`/api/v1/quota-requests/${asked.id}/approve`, t, { version: asked.version });
    const results = await racingBehindLock(db, handle.kind, sql`select id from quota_requests where id = ${asked.id} for update`, 2, () =>
      Promise.all([approve(token.platform), approve(token.platform2)]),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const loser = results.find((r) => r.status === 409)!;
    expect(expectError(loser, 409, "conflict").message).toMatch(/already decided/);
    expect((await requestRow(asked.id)).status).toBe("approved");
    expect(await db.select().from(quotaGrants).where(eq(quotaGrants.requestId, asked.id))).toHaveLength(1);
  });
});

describe(`no response leaks internals (${databaseLabel()})`, () => {
  it("shows no internal ids, hashes or settings in any response of this file", () => {
    expect(responses.length).toBeGreaterThan(200);
    const internal = /(^|\.)(tenantId|projectId|dedicatedTenantId|firstApprovedBy|decidedBy|clusterChangeId|actorPrincipalId|createdBy|hash|tokenHash|policy|expiryWarnedAt|gpuResourceOf)$/;
    for (const response of responses) {
      expect(keyPaths(response.json).filter((k) => internal.test(k)), `${response.method} ${response.path}`).toEqual([]);
      if (response.status >= 500) throw new Error(`${response.method} ${response.path} answered ${response.status}: ${response.text}`);
    }
  });
});

describe("extending a time-bound grant", () => {
  let grantId: string;
  beforeAll(async () => {
    grantId = await timeBoundGrantOnDetector();
  });
  const path = () => `${DT}/quota-grants/${grantId}/extension`;
  const body = () => ({ endsAt: new Date(Date.now() + 40 * DAY).toISOString().slice(0, 10), justification: "The training run needs four more weeks." });

  it("refuses a viewer (403), another tenant and an expired collaborator (404), a revoked token (401), writing nothing", async () => {
    const before = await fingerprint(db, QUOTA_TABLES);
    expectError(await post(path(), token.viewer, body()), 403, "forbidden");
    expectError(await post(path(), token.foreign, body()), 404, "not_found");
    expectError(await post(`/api/v1/tenants/language-models/projects/chat-eval/quota-grants/${grantId}/extension`, token.foreign, body()), 404, "not_found");
    expectError(await post(path(), token.expiredCollaborator, body()), 404, "not_found");
    expectError(await post(path(), badToken("revoked"), body()), 401, "unauthenticated");
    expectError(await post(`${DT}/quota-grants/not-an-id/extension`, token.member, body()), 404, "not_found");
    expect(await fingerprint(db, QUOTA_TABLES), "a refusal writes nothing").toEqual(before);
  });

  it("names a bad end, then creates a pending extension that a platform admin approves, moving the grant's end", async () => {
    const tooEarly = expectError(await post(path(), token.member, { ...body(), endsAt: new Date(Date.now() + 2 * DAY).toISOString().slice(0, 10) }), 400, "validation");
    expect(Object.keys(tooEarly.fields ?? {})).toEqual(["endsAt"]);
    const created = await post(path(), token.member, body());
    expectStatus(created, 201);
    const request = jsonOf<RequestOut & { extension: { grantId: string; from: string } }>(created);
    expect(request.extension.grantId).toBe(grantId);
    const detail = jsonOf<{ decision: { extension: { addedCost: number } } }>(await get(`/api/v1/quota-requests/${request.id}`, token.platform));
    expect(detail.decision.extension.addedCost).toBeGreaterThan(0);
    expectStatus(await post(`/api/v1/quota-requests/${request.id}/approve`, token.platform, { version: request.version }), 200);
    const [g] = await db.select().from(quotaGrants).where(eq(quotaGrants.id, grantId));
    expect(g!.endsAt!.toISOString().slice(0, 10)).toBe(body().endsAt);
  });
});
