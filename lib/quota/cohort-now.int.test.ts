import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { installDatabase, type Database } from "@/db/client";
import { memberships } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { kubeClientFromConfig, kubeConfigFor, type ClusterClient } from "@/lib/cluster/kube-client";
import { enqueueClusterChange } from "@/lib/cluster/outbox";
import { CLUSTER_PERMISSIONS } from "@/lib/cluster/permissions";
import type { ClusterRuntime } from "@/lib/cluster/runtime";
import { reconcileDue } from "@/lib/cluster/worker";
import { callApi, operatorAccount } from "@/test/api";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { KUEUE_CONFIG, withLiveKueueStandIn } from "@/test/kube-api/live-kueue";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { setTenantEnvelope } from "./commands/envelopes";
import { approveQuotaRequest, createQuotaRequest } from "./commands/requests";
import { platformShareNow, projectShareNow, tenantShareNow, type CohortShare } from "./share-now";

/**
 * A tenant's cohort now (its page) and every tenant's (the platform's),
 * against the stand-in API server with the portal's RBAC enforced: the
 * ClusterQueues the worker applied carry the status Kueue would set, and
 * each figure must be what that status says, each tenant total the sum of
 * its projects, and each project's row what its own page shows.
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const KUEUE = "kueue.x-k8s.io/v1beta2";
const DETECTOR = "vision-lab--detector-training";
const SEGMENTATION = "vision-lab--segmentation-research";
const PRETRAINING = "language-models--pretraining";
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
const kueueConfig = KUEUE_CONFIG;
let db: Database;
let api: StandInApiServer;
let client: ClusterClient;
let live: ClusterRuntime;
const recordOnly: ClusterRuntime = { mode: "record-only", server: null, client: null };

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
const LANGUAGE_DEFAULT = "language-models-dedicated-default";
type Queue = { spec: { resourceGroups: { flavors: { name: string }[] }[] } };
const flavorsNamedBy = (queue: string) => (api.get(KUEUE, "ClusterQueue", undefined, queue) as unknown as Queue).spec.resourceGroups.flatMap((g) => g.flavors.map((f) => f.name));
const gpu = (total: string, borrowed: string) => ({ name: "h100", resources: [{ name: "nvidia.com/gpu", total, borrowed }] });
const cpu = (flavor: string, total: string, borrowed: string) => ({ name: flavor, resources: [{ name: "cpu", total, borrowed }] });
const h100 = (lines: { flavor: string }[]) => lines.find((l) => l.flavor === "H100");
const gpuLine = (share: CohortShare, project: string) => h100(share.projects.find((p) => p.slug === project)!.lines);

describe(`a tenant's cohort and every cohort now, live against the stand-in (${databaseLabel()})`, () => {
  it("the worker renders the tenants' queues and cohorts; Kueue's status is set on them", async () => {
    for (const [project, gpuCount, gpuBurst] of [
      ["detector-training", "6", "4"],
      ["segmentation-research", "4", ""],
    ] as const) {
      const { request } = await executeCommand(createQuotaRequest, await as("vision-admin"), { tenant: "vision-lab", project, gpuModel: "H100", gpuCount, gpuBurst, justification: "GPUs to share." });
      await executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: request.id, version: request.version });
    }
    await executeCommand(setTenantEnvelope, await as("platform-admin"), { tenant: "vision-lab", quota: "gpu:H100", guarantee: "12", burst: "4" });
    for (const [tenant, project] of [
      ["vision-lab", "detector-training"],
      ["vision-lab", "segmentation-research"],
      ["language-models", "pretraining"],
      ["language-models", "chat-eval"],
    ] as const) {
      const tenantId = seeded.tenantId[tenant]!;
      await enqueueClusterChange(db, { tenantId, projectId: await projectIdOf(db, tenant, project), reason: "kueue on", at: NOW });
      await enqueueClusterChange(db, { tenantId, reason: "kueue on", at: NOW });
    }
    for (let i = 0; i < 8; i++) await reconcileDue({ db, settings: kueueConfig.cluster, client, clock: () => NOW, workerId: "cohort-test", baseBackoffMs: 0, maxBackoffMs: 0 });
    for (const name of [DETECTOR, `${DETECTOR}.burst`, SEGMENTATION, PRETRAINING]) expect(api.get(KUEUE, "ClusterQueue", undefined, name), name).toBeDefined();
    expect(api.get(KUEUE, "Cohort", undefined, "tenant-vision-lab")).toBeDefined();

    // Kueue's view: detector-training uses its 6 and borrows 3 more through its burst queue; segmentation-research uses 1 of its 4.
    api.setStatus(KUEUE, "ClusterQueue", undefined, DETECTOR, { flavorsReservation: [gpu("6", "0"), cpu("default", "12", "0")], admittedWorkloads: 2 });
    api.setStatus(KUEUE, "ClusterQueue", undefined, `${DETECTOR}.burst`, { flavorsReservation: [gpu("3", "3")], admittedWorkloads: 1 });
    api.setStatus(KUEUE, "ClusterQueue", undefined, SEGMENTATION, { flavorsReservation: [gpu("1", "0"), cpu("default", "2500m", "0")], admittedWorkloads: 1 });
    // language-models is a dedicated tenant: its queues name its own pool's flavours, not the platform's shared "default".
    expect(flavorsNamedBy(PRETRAINING)).toContain(LANGUAGE_DEFAULT);
    api.setStatus(KUEUE, "ClusterQueue", undefined, PRETRAINING, { flavorsReservation: [cpu(LANGUAGE_DEFAULT, "3", "0")], admittedWorkloads: 1 });
    api.setStatus(KUEUE, "Cohort", undefined, "tenant-vision-lab", { fairSharing: { weightedShare: 250 } });
  });

  it("a tenant admin sees each project's use, borrowing and lending, the cohort's sums, from one read of the tenant's queues", async () => {
    const before = api.requests.length;
    const now = await tenantShareNow(await as("vision-admin"), "vision-lab", live);
    if (now.mode !== "live") throw new Error(`expected live, got ${now.mode}: ${"message" in now ? now.message : ""}`);
    const reads = api.requests.slice(before).filter((r) => r.method === "GET" && /\/(clusterqueues|cohorts|workloads)\b/.test(r.path));
    expect(reads.map((r) => r.path.split("/").at(-1))).toEqual(expect.arrayContaining(["clusterqueues", "cohorts"]));
    expect(reads).toHaveLength(2);

    const share = now.share;
    expect(gpuLine(share, "detector-training")).toMatchObject({ guaranteed: 6, burst: 4, inUse: 9, borrowed: 3, lent: 0 });
    // segmentation-research's idle 3 is what detector-training borrows: counted as lent (an estimate).
    expect(gpuLine(share, "segmentation-research")).toMatchObject({ guaranteed: 4, burst: 0, inUse: 1, borrowed: 0, lent: 3 });
    expect(h100(share.totals)).toEqual({ flavor: "H100", resource: "nvidia.com/gpu", guaranteed: 10, burst: 4, lendable: 10, inUse: 10, borrowed: 3, lent: 3 });
    const cpuTotal = share.totals.find((l) => l.resource === "cpu")!;
    expect(cpuTotal.inUse).toBe(14.5);
    expect(share.cohort).toEqual({ name: "tenant-vision-lab", weightedShare: 250 });
    expect(share.totals.some((l) => l.resource === "storage")).toBe(false);

    // Every total is the sum of its projects; every project's row is what its own page shows.
    for (const t of share.totals) {
      const rows = share.projects.flatMap((p) => p.lines.filter((l) => l.flavor === t.flavor && l.resource === t.resource));
      for (const field of ["guaranteed", "burst", "inUse", "borrowed", "lent"] as const) expect(t[field], `${t.flavor}/${t.resource} ${field}`).toBeCloseTo(rows.reduce((s, l) => s + l[field], 0), 6);
    }
    for (const p of share.projects) {
      const own = await projectShareNow(await as("vision-admin"), "vision-lab", p.slug, live);
      if (own.mode !== "live") throw new Error(own.mode);
      expect(p.lines).toEqual(own.lines.filter((l) => l.resource !== "storage"));
    }
  });

  it("a platform admin sees every tenant's cohort from one read of all queues, equal to each tenant's own view", async () => {
    const before = api.requests.length;
    const now = await platformShareNow(await as("platform-admin"), live);
    if (now.mode !== "live") throw new Error(now.mode);
    expect(api.requests.slice(before).filter((r) => r.method === "GET" && /\/(clusterqueues|cohorts)$/.test(r.path))).toHaveLength(2);
    expect(now.cohorts.map((c) => c.tenantSlug)).toEqual(["language-models", "vision-lab"]);

    const vision = now.cohorts.find((c) => c.tenantSlug === "vision-lab")!;
    const tenantView = await tenantShareNow(await as("vision-admin"), "vision-lab", live);
    expect({ projects: vision.projects, totals: vision.totals, cohort: vision.cohort }).toEqual({ projects: tenantView.share.projects, totals: tenantView.share.totals, cohort: tenantView.share.cohort });
    expect(vision.envelope).toEqual([{ flavor: "H100", resource: "nvidia.com/gpu", guarantee: 12, burst: 4 }]);

    // Another tenant's queues are not counted in vision-lab's sums, and its own use is there.
    const language = now.cohorts.find((c) => c.tenantSlug === "language-models")!;
    expect(language.totals.find((l) => l.resource === "cpu")).toMatchObject({ inUse: 3, borrowed: 0 });
    expect(language.cohort).toMatchObject({ name: "tenant-language-models", weightedShare: null });
  });

  it("a tenant admin sees their tenant only, another tenant's admin gets nothing, the platform view is the platform's", async () => {
    await expect(tenantShareNow(await as("language-admin"), "vision-lab", live)).rejects.toMatchObject({ code: "not_found" });
    await expect(tenantShareNow(await as("collaborator"), "vision-lab", live)).rejects.toMatchObject({ code: "not_found" });
    await expect(platformShareNow(await as("vision-admin"), live)).rejects.toMatchObject({ code: "forbidden" });
    expect((await tenantShareNow(await as("language-admin"), "language-models", live)).mode).toBe("live");
  });

  it("record-only shows the plan only and says so", async () => {
    const plan = await tenantShareNow(await as("vision-admin"), "vision-lab", recordOnly);
    expect(plan.mode).toBe("record-only");
    expect(h100(plan.share.totals)).toEqual({ flavor: "H100", resource: "nvidia.com/gpu", guaranteed: 10, burst: 4, lendable: 10, inUse: 0, borrowed: 0, lent: 0 });
    expect(plan.share.cohort).toBeNull();
    const platform = await platformShareNow(await as("platform-admin"), recordOnly);
    expect(platform.mode).toBe("record-only");
    expect(platform.cohorts.flatMap((c) => c.totals).every((l) => l.inUse === 0 && l.borrowed === 0 && l.lent === 0)).toBe(true);
  });

  it("a cluster that cannot be read gives the reason and the plan, never an exception", async () => {
    const refusing = await startStandInApiServer({ permissions: CLUSTER_PERMISSIONS.filter((p) => p.resource !== "clusterqueues") });
    try {
      const runtime: ClusterRuntime = { mode: "live", server: refusing.url, client: kubeClientFromConfig(kubeConfigFor(refusing.url), { timeoutMs: 500 }) };
      const now = await platformShareNow(await as("platform-admin"), runtime);
      expect(now).toMatchObject({ mode: "unavailable", problem: "forbidden" });
      expect(now.cohorts.length).toBeGreaterThan(0);
    } finally {
      await refusing.close();
    }
  });
});

describe(`the share over REST, live and record-only (${databaseLabel()})`, () => {
  const runtimeHolder = globalThis as unknown as { allotClusterRuntime?: ClusterRuntime };
  let previousRuntime: ClusterRuntime | undefined;
  const token = {} as Record<"platform" | "visionAdmin" | "languageAdmin", string>;
  beforeAll(async () => {
    installDatabase(seeded.handle);
    previousRuntime = runtimeHolder.allotClusterRuntime;
    runtimeHolder.allotClusterRuntime = live;
    const at = new Date(Date.now() - 60_000);
    token.platform = (await operatorAccount(db, at, null, "share-platform-bot")).token;
    for (const [key, tenant] of [
      ["visionAdmin", "vision-lab"],
      ["languageAdmin", "language-models"],
    ] as const) {
      const bot = await operatorAccount(db, at, tenant, `share-${tenant}-admin-bot`);
      await db.insert(memberships).values({ tenantId: seeded.tenantId[tenant]!, principalId: bot.principalId, role: "tenant_admin", createdAt: at });
      token[key] = bot.token;
    }
  });
  afterAll(() => {
    runtimeHolder.allotClusterRuntime = previousRuntime;
  });
  type Line = { quota: string; guaranteed: number; inUse: number | null; borrowed: number | null; lent: number | null };
  type TenantShareBody = { mode: string; readAt: string | null; envelope: { quota: string; guarantee: number; allocated: number }[]; projects: { project: string; lines: Line[] }[]; totals: (Line & { lendable: number })[]; cohort: unknown };

  it("a project's share and a tenant's envelope with its cohort now carry the stand-in's figures", async () => {
    const project = await callApi("GET", "/api/v1/tenants/vision-lab/projects/detector-training/quota-share", { token: token.visionAdmin });
    expect(project.status).toBe(200);
    const p = project.json as { mode: string; lines: Line[]; pending: unknown[] };
    expect(p.mode).toBe("live");
    expect(p.lines.find((l) => l.quota === "gpu:H100")).toMatchObject({ guaranteed: 6, inUse: 9, borrowed: 3, lent: 0 });
    expect(p.lines.find((l) => l.quota === "storage")).toMatchObject({ inUse: null, borrowed: null, lent: null });

    const tenant = await callApi("GET", "/api/v1/tenants/vision-lab/quota-share", { token: token.visionAdmin });
    expect(tenant.status).toBe(200);
    const t = tenant.json as TenantShareBody;
    expect(t.mode).toBe("live");
    expect(t.envelope).toEqual([{ quota: "gpu:H100", guarantee: 12, burst: 4, allocated: 10, unallocated: 2 }]);
    expect(t.totals.find((l) => l.quota === "gpu:H100")).toMatchObject({ guaranteed: 10, lendable: 10, inUse: 10, borrowed: 3, lent: 3 });
    expect(t.cohort).toEqual({ name: "tenant-vision-lab", weightedShare: 250 });
    for (const total of t.totals) {
      const rows = t.projects.flatMap((x) => x.lines.filter((l) => l.quota === total.quota));
      expect(total.inUse).toBeCloseTo(rows.reduce((s, l) => s + (l.inUse ?? 0), 0), 6);
      expect(total.borrowed).toBeCloseTo(rows.reduce((s, l) => s + (l.borrowed ?? 0), 0), 6);
    }
    const platform = await callApi("GET", "/api/v1/tenants/vision-lab/quota-share", { token: token.platform });
    expect((platform.json as TenantShareBody).totals).toEqual(t.totals);
  });

  it("another tenant's admin gets a 404 for both, and nothing of their figures", async () => {
    for (const path of ["/api/v1/tenants/vision-lab/quota-share", "/api/v1/tenants/vision-lab/projects/detector-training/quota-share"]) {
      const r = await callApi("GET", path, { token: token.languageAdmin });
      expect(r.status, path).toBe(404);
      expect(r.text).not.toMatch(/detector|inUse/);
    }
    expect((await callApi("GET", "/api/v1/tenants/vision-lab/quota-share", { token: null })).status).toBe(401);
  });

  it("record-only answers with the plan and null live figures", async () => {
    runtimeHolder.allotClusterRuntime = recordOnly;
    try {
      const t = (await callApi("GET", "/api/v1/tenants/vision-lab/quota-share", { token: token.visionAdmin })).json as TenantShareBody;
      expect(t).toMatchObject({ mode: "record-only", readAt: null, cohort: null });
      expect(t.totals.find((l) => l.quota === "gpu:H100")).toMatchObject({ guaranteed: 10, inUse: null, borrowed: null, lent: null });
    } finally {
      runtimeHolder.allotClusterRuntime = live;
    }
  });
});
