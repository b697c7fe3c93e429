import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { projects } from "@/db/schema";
import { eq } from "drizzle-orm";
import type { CommandContext } from "@/lib/auth/context";
import { kubeClientFromConfig, kubeConfigFor } from "@/lib/cluster/kube-client";
import { CLUSTER_PERMISSIONS } from "@/lib/cluster/permissions";
import type { ClusterRuntime } from "@/lib/cluster/runtime";
import { reconcileDue } from "@/lib/cluster/worker";
import { parseConfig } from "@/lib/config";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { seededDatabase } from "@/test/tenancy";
import { projectQuotaUseNow } from "./quota-use-now";

/**
 * The project home's hard cap: the ResourceQuota's status from the stand-in
 * API server in live mode (used against hard, as the quota controller
 * reports it), the rendered plan without a cluster, and why there is no use
 * when the cluster cannot be read.
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const NAMESPACE = "vision-lab--detector-training";
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
const settings = parseConfig({}).cluster;
let db: Database;
let api: StandInApiServer;
let live: ClusterRuntime;
const recordOnly: ClusterRuntime = { mode: "record-only", server: null, client: null };
let project: { id: string; tenantId: string; namespace: string };

beforeAll(async () => {
  db = seeded.db;
  api = await startStandInApiServer({ permissions: CLUSTER_PERMISSIONS });
  const client = kubeClientFromConfig(kubeConfigFor(api.url), { timeoutMs: 1000 });
  live = { mode: "live", server: api.url, client };
  for (let i = 0; i < 6; i++) await reconcileDue({ db, settings, client, clock: () => NOW, workerId: "quota-use-test", baseBackoffMs: 0, maxBackoffMs: 0 });
  const [row] = await db.select({ id: projects.id, tenantId: projects.tenantId, namespace: projects.namespace }).from(projects).where(eq(projects.namespace, NAMESPACE));
  project = row!;
});
afterAll(async () => {
  await api?.close();
});

const as = (key: Parameters<typeof contextOf>[1]): Promise<CommandContext> => contextOf(db, key, NOW);
const byResource = (lines: { resource: string; hard: number; used: number | null }[]) => Object.fromEntries(lines.map((l) => [l.resource, [l.used, l.hard]]));

describe(`a project's quota use now (${databaseLabel()})`, () => {
  it("reads used against hard from the ResourceQuota's status in live mode", async () => {
    api.setStatus("v1", "ResourceQuota", NAMESPACE, "project-quota", { hard: { "requests.cpu": "8", "requests.memory": "32Gi" }, used: { "requests.cpu": "1500m", "requests.memory": "4Gi" } });
    const now = await projectQuotaUseNow(await as("data-scientist"), project, live);
    expect(now?.mode).toBe("live");
    expect(byResource(now!.lines)).toEqual({ "requests.cpu": [1.5, 8], "requests.memory": [4 * 2 ** 30, 32 * 2 ** 30] });
    expect(api.forbidden, "calls outside the portal's ClusterRole").toEqual([]);
  });

  it("shows the rendered plan, with no use, when no cluster is connected", async () => {
    const now = await projectQuotaUseNow(await as("data-scientist"), project, recordOnly);
    expect(now?.mode).toBe("record-only");
    expect(now!.lines.map((l) => l.resource)).toEqual(expect.arrayContaining(["requests.cpu", "requests.memory", "requests.storage", "persistentvolumeclaims"]));
    expect(now!.lines.every((l) => l.used === null)).toBe(true);
    expect(now!.lines.find((l) => l.resource === "requests.cpu")!.hard).toBeGreaterThan(0);
  });

  it("says why when the cluster cannot be read, and keeps the plan", async () => {
    const down = await startStandInApiServer({ permissions: CLUSTER_PERMISSIONS });
    const url = down.url;
    await down.close();
    const gone: ClusterRuntime = { mode: "live", server: url, client: kubeClientFromConfig(kubeConfigFor(url), { timeoutMs: 500 }) };
    const now = await projectQuotaUseNow(await as("data-scientist"), project, gone);
    expect(now?.mode).toBe("unavailable");
    expect(now?.mode === "unavailable" && now.message).toMatch(/\S/);
    expect(now!.lines.length).toBeGreaterThan(0);
  });

  it("gives nothing to someone who may not see the project's quota", async () => {
    expect(await projectQuotaUseNow(await as("language-admin"), project, live)).toBeNull();
  });
});
