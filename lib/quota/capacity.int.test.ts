import { and, asc, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { auditEvents, instanceSettings, nodePools, nodePoolSizes } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { kubeClientFromConfig, kubeConfigFor, type ClusterClient } from "@/lib/cluster/kube-client";
import { parseConfig } from "@/lib/config";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf, type PersonaKey } from "@/test/fixtures";
import { CLUSTER_PERMISSIONS } from "@/lib/cluster/permissions";
import { migMixedLabels, node as standInNode, timeSlicedLabels } from "@/test/kube-api/nodes";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { fingerprint, outcomeOf, seededDatabase } from "@/test/tenancy";
import { capacityOverview, nodePoolImportProposal } from "./capacity-queries";
import { setTenantEnvelope } from "./commands/envelopes";
import { addRate, createNodePool, deleteNodePool, importNodePools, setQuotaPolicy, updateNodePool } from "./commands/capacity";
import { ratesInForce } from "./cost";
import { DEFAULT_CUMULATIVE_FACTOR, DEFAULT_QUOTA_POLICY } from "./policy";
import { formatNodeLabels, formatNodeTaints } from "./pool-hardware";
import { loadQuotaPolicy, loadRates, QUOTA_POLICY_KEY } from "./store";

/**
 * Capacity and prices on a real database: node pools (create, edit with
 * optimistic locking, delete, import from the cluster's nodes through the
 * stand-in API server), the rate card with its history, and the approval
 * rules. Each refusal names the field and writes nothing; only platform
 * admins may change any of it.
 */
const SEEDED_AT = new Date("2026-03-01T08:00:00.000Z");
const NOW = new Date("2026-03-02T12:00:00.000Z");
const GiB = 2 ** 30;
const settings = parseConfig({}).cluster;
/** Every table these commands may write. */
const TABLES = ["node_pools", "node_pool_sizes", "rates", "instance_settings", "audit_events"];

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let admin: CommandContext;

beforeAll(async () => {
  db = seeded.db;
  admin = await contextOf(db, "platform-admin", NOW);
});

const poolByName = async (name: string) => (await db.select().from(nodePools).where(eq(nodePools.name, name)))[0];
const lastAudit = async () => (await db.select().from(auditEvents).orderBy(asc(auditEvents.seq))).at(-1)!;

/** A refusal with these field errors, and not a row changed anywhere. */
async function expectRefused(run: () => Promise<unknown>, code: string, fields: string[]) {
  const before = await fingerprint(db, TABLES);
  const error = await appErrorOf(run());
  expect({ code: error.code, fields: Object.keys(error.fields ?? {}).sort() }).toEqual({ code, fields: [...fields].sort() });
  for (const messages of Object.values(error.fields ?? {})) for (const m of messages) expect(m).toMatch(/\S/);
  expect(await fingerprint(db, TABLES)).toEqual(before);
  return error;
}

const b200 = {
  name: "b200-pool",
  gpuModel: "B200",
  gpuResource: "nvidia.com/gpu",
  gpusPerNode: "8",
  nodeCount: "2",
  minNodes: "",
  maxNodes: "",
  cpuPerNode: "224",
  memoryPerNode: "2000",
  dedicatedTenant: "",
};

describe(`capacity and prices (${databaseLabel()})`, () => {
  describe("the seeded picture", () => {
    it("shows four pools, capacity per resource against the starting quota of every project, tenant shares and the rate card", async () => {
      const data = (await capacityOverview(admin, settings))!;
      expect(data.pools.map((p) => [p.name, p.gpuModel, p.capacityNodes, p.totals.gpus])).toEqual([
        ["a100-mig", "A100 1g.10gb", 2, 112],
        ["cpu-general", null, 20, 0],
        ["h100-pool", "H100", 4, 32],
        ["l4-inference", "L4", 6, 24],
      ]);
      // The size history, newest first: the H100 pool's growth from 3 to 4 nodes (lib/demo/pools.ts), then every pool since the demo's usage window began.
      expect(data.sizeHistory.filter((s) => s.poolName === "h100-pool").map((s) => [s.nodeCount, s.validTo === null])).toEqual([
        [4, true],
        [3, false],
      ]);
      expect(data.sizeHistory).toHaveLength(5);
      const byKey = Object.fromEntries(data.resources.map((r) => [r.key, r]));
      expect(Object.keys(byKey)).toEqual(["cpu", "memory", "gpu:A100 1g.10gb", "gpu:H100", "gpu:L4"]);
      // The nodes present: 4 × 208 + 2 × 96 + 20 × 64 + 6 × 48 cores (the H100 pool may grow to 6 nodes: 3,008); four projects at the starting 4 cores each.
      expect(byKey.cpu).toMatchObject({ capacity: 2592, capacityAtMax: 3008, physical: 2592, overcommit: 1, allocated: 16, over: false });
      expect(byKey.cpu!.utilisation).toBeCloseTo(16 / 2592);
      expect(byKey.memory).toMatchObject({ capacity: (4 * 1843 + 2 * 1152 + 20 * 256 + 6 * 192) * GiB, allocated: 4 * 16 * GiB });
      expect(byKey["gpu:H100"]).toMatchObject({ capacity: 32, capacityAtMax: 48, allocated: 0, utilisation: 0 });
      const h100Pool = data.pools.find((p) => p.name === "h100-pool")!;
      expect(h100Pool).toMatchObject({ nodeCount: 4, minNodes: 4, maxNodes: 6, capacityNodes: 4, totals: { gpus: 32 }, atMax: { nodes: 6, totals: { gpus: 48 } } });
      expect(data.tenantShares.map((t) => [t.slug, t.resources.cpu!.allocated])).toEqual([
        ["language-models", 8],
        ["vision-lab", 8],
      ]);
      const h100 = data.rateCard.find((l) => l.resource === "gpu:H100")!;
      expect(h100).toMatchObject({ label: "H100 GPU", unit: "GPU-hour", missing: false, next: null });
      expect(h100.current).toMatchObject({ unitPrice: "4.100000", effectiveFrom: new Date("2026-01-01T00:00:00.000Z") });
      expect(data.rateCard.map((l) => l.resource)).toEqual(["gpu:A100 1g.10gb", "gpu:H100", "gpu:L4", "cpu", "memory", "storage", "inference"]);
      expect(data.rateHistory.map((r) => [r.resource, r.state]).at(-1)).toEqual(["gpu:H100", "past"]);
      expect(data.policy).toEqual(DEFAULT_QUOTA_POLICY);
    });

    it("lets any signed-in person read capacity and prices, but only platform admins see each tenant's share", async () => {
      const data = (await capacityOverview(await contextOf(db, "data-scientist", NOW), settings))!;
      expect(data.pools).toHaveLength(4);
      expect(data.rateCard.length).toBeGreaterThan(0);
      expect(data.tenantShares).toEqual([]);
    });
  });

  describe("node pools", () => {
    it("creates a pool, audited", async () => {
      const pool = await executeCommand(createNodePool, admin, { ...b200, dedicatedTenant: "language-models", memoryPerNode: "1.5Ti", cpuPerNode: "223500m" });
      expect(pool).toMatchObject({ name: "b200-pool", gpuModel: "B200", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 2, minNodes: null, maxNodes: null, cpuPerNode: 223.5, memoryBytesPerNode: 1.5 * 1024 * GiB, version: 1 });
      expect(pool.dedicatedTenantId).toBe(seeded.tenantId["language-models"]);
      const event = await lastAudit();
      expect(event).toMatchObject({ action: "node_pool.created", targetType: "node_pool", targetId: pool.id, tenantId: seeded.tenantId["language-models"], actorPrincipalId: admin.actor.principalId });
      expect(event.after).toMatchObject({ name: "b200-pool", memoryBytesPerNode: 1.5 * 1024 * GiB });
    });

    it("creates a CPU pool without GPUs; the GPU fields may be left empty", async () => {
      const pool = await executeCommand(createNodePool, admin, { name: "cpu-highmem", gpuModel: "", gpuResource: "", gpusPerNode: "", nodeCount: "0", minNodes: "0", maxNodes: "10", cpuPerNode: "32", memoryPerNode: "512" });
      expect(pool).toMatchObject({ gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 0, minNodes: 0, maxNodes: 10, memoryBytesPerNode: 512 * GiB });
    });

    it.each([
      ["no name", { name: "" }, ["name"]],
      ["a name that is not a label value", { name: "gpu pool!" }, ["name"]],
      ["a GPU model without a resource", { name: "x1", gpuResource: "" }, ["gpuResource"]],
      ["a GPU resource without a model", { name: "x2", gpuModel: "" }, ["gpuModel"]],
      ["GPUs per node without a model", { name: "x3", gpuModel: "", gpuResource: "" }, ["gpuModel"]],
      ["a resource that is not an extended resource name", { name: "x4", gpuResource: "gpu" }, ["gpuResource"]],
      ["a resource in the kubernetes.io domain", { name: "x5", gpuResource: "kubernetes.io/gpu" }, ["gpuResource"]],
      ["a GPU pool with 0 GPUs per node", { name: "x6", gpusPerNode: "0" }, ["gpusPerNode"]],
      ["negative GPUs per node", { name: "x7", gpusPerNode: "-1" }, ["gpusPerNode"]],
      ["no node count", { name: "x8", nodeCount: "" }, ["nodeCount"]],
      ["a fractional node count", { name: "x9", nodeCount: "2.5" }, ["nodeCount"]],
      ["an absurd node count", { name: "x10", nodeCount: "1e9" }, ["nodeCount"]],
      ["a maximum below the minimum", { name: "x11", minNodes: "5", maxNodes: "3", nodeCount: "4" }, ["maxNodes"]],
      ["more nodes than the maximum", { name: "x12", nodeCount: "10", maxNodes: "6" }, ["nodeCount"]],
      ["CPU that is not a number", { name: "x13", cpuPerNode: "lots" }, ["cpuPerNode"]],
      ["no CPU", { name: "x14", cpuPerNode: "0" }, ["cpuPerNode"]],
      ["negative memory", { name: "x15", memoryPerNode: "-5" }, ["memoryPerNode"]],
      ["no memory", { name: "x16", memoryPerNode: "" }, ["memoryPerNode"]],
      ["several problems at once", { name: "", nodeCount: "", cpuPerNode: "x" }, ["name", "nodeCount", "cpuPerNode"]],
    ])("refuses %s, naming the field", async (_, change, fields) => {
      await expectRefused(() => executeCommand(createNodePool, admin, { ...b200, ...change }), "validation", fields);
    });

    it("refuses a tenant that does not exist, a second resource for a GPU model, and a name in use", async () => {
      await expectRefused(() => executeCommand(createNodePool, admin, { ...b200, name: "y1", dedicatedTenant: "no-such-team" }), "validation", ["dedicatedTenant"]);
      const clash = await expectRefused(() => executeCommand(createNodePool, admin, { ...b200, name: "y2", gpuModel: "H100", gpuResource: "nvidia.com/mig-1g.10gb" }), "validation", ["gpuResource"]);
      expect(clash.fields!.gpuResource![0]).toMatch(/h100-pool already serves H100 as nvidia.com\/gpu/);
      const taken = await expectRefused(() => executeCommand(createNodePool, admin, { ...b200, name: "h100-pool", gpuModel: "H100" }), "conflict", ["name"]);
      expect(taken.fields!.name).toEqual(["Choose another name: another pool has this one."]);
    });

    it("refuses an edit that leaves fewer GPUs at the autoscaler minimum than all tenants are guaranteed, naming the field, and lets one through that keeps them", async () => {
      // A pool of its own (the seeded ones are checked by later tests at their version), and an envelope guaranteeing 24 of the 32 its 4-node minimum holds.
      const created = await executeCommand(createNodePool, admin, { ...b200, name: "g300-pool", gpuModel: "G300", nodeCount: "4", minNodes: "4", maxNodes: "6", nodeLabels: "pool=g300", tiers: "training" });
      await executeCommand(setTenantEnvelope, admin, { tenant: "vision-lab", quota: "gpu:G300", guarantee: "24", burst: "" });
      const pool = (await poolByName(created.name))!;
      const line = (await capacityOverview(admin, settings))!.sharing.find((l) => l.key === "gpu:G300")!;
      expect([line.guaranteed, line.capacity.atMin, pool.minNodes]).toEqual([24, 32, 4]);
      const edit = (change: Record<string, string>) => ({
        id: pool.id,
        version: String(pool.version),
        name: pool.name,
        gpuModel: pool.gpuModel!,
        gpuResource: pool.gpuResource!,
        gpusPerNode: String(pool.gpusPerNode),
        nodeCount: String(pool.nodeCount),
        minNodes: String(pool.minNodes),
        maxNodes: String(pool.maxNodes),
        cpuPerNode: String(pool.cpuPerNode),
        memoryPerNode: `${Number(pool.memoryBytesPerNode) / GiB}`,
        dedicatedTenant: "",
        nodeLabels: formatNodeLabels(pool.nodeLabels),
        nodeTaints: formatNodeTaints(pool.nodeTaints),
        tiers: (pool.tiers ?? []).join(", "),
        ...change,
      });
      const refused = await expectRefused(() => executeCommand(updateNodePool, admin, edit({ minNodes: "2" })), "validation", ["minNodes"]);
      expect(refused.fields!.minNodes).toEqual(["This would leave the pools holding 16 G300 GPUs at their autoscaler minimum, fewer than the 24 guaranteed across all tenants (8 short; guaranteed to Vision Lab 24): keep the minimum higher, or lower the guarantees first."]);
      await expectRefused(() => executeCommand(updateNodePool, admin, edit({ gpusPerNode: "4" })), "validation", ["gpusPerNode"]);
      // Three nodes hold exactly the 24 guaranteed.
      const kept = await executeCommand(updateNodePool, admin, edit({ minNodes: "3" }));
      expect(kept).toMatchObject({ minNodes: 3, version: pool.version + 1, tiers: pool.tiers, nodeLabels: pool.nodeLabels });
      // Deleting the pool the guarantees stand on is refused, naming it and who holds them; once the envelope is lowered it goes.
      const deleting = await expectRefused(() => executeCommand(deleteNodePool, admin, { id: kept.id, version: String(kept.version) }), "conflict", []);
      expect(deleting.message).toBe(
        "Node pool g300-pool cannot be deleted: deleting it would leave the pools holding 0 G300 GPUs at their autoscaler minimum, fewer than the 24 guaranteed across all tenants (24 short; guaranteed to Vision Lab 24): lower those guarantees (envelopes and grants) first, or give another pool the capacity.",
      );
      await executeCommand(setTenantEnvelope, admin, { tenant: "vision-lab", quota: "gpu:G300", guarantee: "0", burst: "0" });
      await executeCommand(deleteNodePool, admin, { id: kept.id, version: String(kept.version) });
    });

    it("updates a pool at the version that was read, audited with before and after", async () => {
      const pool = (await poolByName("l4-inference"))!;
      const updated = await executeCommand(updateNodePool, admin, {
        id: pool.id,
        version: String(pool.version),
        name: "l4-inference",
        gpuModel: "L4",
        gpuResource: "nvidia.com/gpu",
        gpusPerNode: "4",
        nodeCount: "8",
        minNodes: "4",
        maxNodes: "12",
        cpuPerNode: "48",
        memoryPerNode: "192",
        dedicatedTenant: "",
      });
      expect(updated).toMatchObject({ nodeCount: 8, minNodes: 4, maxNodes: 12, version: pool.version + 1 });
      const event = await lastAudit();
      expect(event).toMatchObject({ action: "node_pool.updated", targetId: pool.id, before: { nodeCount: 6, maxNodes: null }, after: { nodeCount: 8, maxNodes: 12 } });
    });

    it("refuses an edit made on a stale version (someone saved meanwhile), writing nothing", async () => {
      const pool = (await poolByName("l4-inference"))!;
      const stale = { id: pool.id, version: String(pool.version - 1), name: "l4-inference", gpuModel: "L4", gpuResource: "nvidia.com/gpu", gpusPerNode: "4", nodeCount: "1", cpuPerNode: "48", memoryPerNode: "192" };
      const error = await expectRefused(() => executeCommand(updateNodePool, admin, stale), "conflict", []);
      expect(error.message).toMatch(/changed this node pool meanwhile/);
    });

    it("lets one of two admins saving the same version at once win; the other is told to reload", async () => {
      const pool = (await poolByName("a100-mig"))!;
      const edit = (nodes: string) => ({
        id: pool.id,
        version: String(pool.version),
        name: "a100-mig",
        gpuModel: "A100 1g.10gb",
        gpuResource: "nvidia.com/mig-1g.10gb",
        gpusPerNode: "56",
        nodeCount: nodes,
        cpuPerNode: "96",
        memoryPerNode: "1152",
      });
      const other = await contextOf(db, "platform-admin", NOW);
      const outcomes = await Promise.all([outcomeOf(executeCommand(updateNodePool, admin, edit("3"))), outcomeOf(executeCommand(updateNodePool, other, edit("4")))]);
      expect(outcomes.sort()).toEqual(["conflict", "ok"]);
      expect((await poolByName("a100-mig"))!.version).toBe(pool.version + 1);
    });

    it("refuses renaming onto another pool's name, and an unknown pool", async () => {
      const pool = (await poolByName("cpu-highmem"))!;
      const edit = { id: pool.id, version: String(pool.version), name: "cpu-general", nodeCount: "0", cpuPerNode: "32", memoryPerNode: "512" };
      await expectRefused(() => executeCommand(updateNodePool, admin, edit), "conflict", ["name"]);
      await expectRefused(() => executeCommand(updateNodePool, admin, { ...edit, id: "00000000-0000-4000-8000-000000000000" }), "not_found", []);
      await expectRefused(() => executeCommand(updateNodePool, admin, { ...edit, version: "" }), "validation", ["version"]);
    });

    it("deletes a pool, audited; a stale version or an unknown pool is refused", async () => {
      const pool = (await poolByName("cpu-highmem"))!;
      await expectRefused(() => executeCommand(deleteNodePool, admin, { id: pool.id, version: String(pool.version + 1) }), "conflict", []);
      expect(await executeCommand(deleteNodePool, admin, { id: pool.id, version: String(pool.version) })).toEqual({ id: pool.id, name: "cpu-highmem" });
      expect(await poolByName("cpu-highmem")).toBeUndefined();
      expect(await lastAudit()).toMatchObject({ action: "node_pool.deleted", targetId: pool.id, before: { name: "cpu-highmem" }, after: null });
      await expectRefused(() => executeCommand(deleteNodePool, admin, { id: pool.id }), "not_found", []);
    });
  });

  describe("hardware facts of a pool", () => {
    const l4Shared = {
      ...b200,
      name: "l4-shared",
      gpuModel: "L4 shared x4",
      gpuResource: "nvidia.com/gpu",
      gpusPerNode: "2",
      nodeCount: "3",
      gpuSharing: "time_sliced",
      gpuSlices: "4",
      nodeLabels: "cloud.google.com/gke-nodepool=l4-shared\nnvidia.com/gpu.product=NVIDIA-L4-SHARED\n",
      nodeTaints: "nvidia.com/gpu=present:NoSchedule\nspot:PreferNoSchedule",
      tiers: "serving, preemptible",
    };

    it("creates a time-sliced pool with labels, taints and tiers from the form's text, audited; capacity and the size history count its slices", async () => {
      const pool = await executeCommand(createNodePool, admin, l4Shared);
      expect(pool).toMatchObject({
        gpusPerNode: 2,
        gpuSharing: "time_sliced",
        gpuSlices: 4,
        nodeLabels: { "cloud.google.com/gke-nodepool": "l4-shared", "nvidia.com/gpu.product": "NVIDIA-L4-SHARED" },
        nodeTaints: [
          { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" },
          { key: "spot", effect: "PreferNoSchedule" },
        ],
        tiers: ["serving", "preemptible"],
      });
      expect((await lastAudit()).after).toMatchObject({ gpuSharing: "time_sliced", gpuSlices: 4, tiers: ["serving", "preemptible"], nodeTaints: pool.nodeTaints, nodeLabels: pool.nodeLabels });
      const [span] = await db.select().from(nodePoolSizes).where(and(eq(nodePoolSizes.poolId, pool.id), isNull(nodePoolSizes.validTo)));
      // What a node offers of "L4 shared x4", the unit its rate prices: 2 GPUs × 4 slices.
      expect(span).toMatchObject({ gpuModel: "L4 shared x4", gpusPerNode: 8, nodeCount: 3 });
      const overview = (await capacityOverview(admin, settings))!;
      expect(overview.resources.find((r) => r.key === "gpu:L4 shared x4")).toMatchObject({ physical: 24, capacity: 24 });
      expect(overview.pools.find((p) => p.name === "l4-shared")).toMatchObject({ totals: { gpus: 24, physicalGpus: 6 } });
    });

    it("refuses bad labels, taints, sharing, slices and tiers, each on its field, writing nothing", async () => {
      const cases: [Record<string, string>, string[]][] = [
        [{ nodeLabels: "no equals sign" }, ["nodeLabels"]],
        [{ nodeLabels: "Bad_Prefix.com/x=1" }, ["nodeLabels"]],
        [{ nodeLabels: `k=${"v".repeat(64)}` }, ["nodeLabels"]],
        [{ nodeTaints: "gpu=yes:Sometimes" }, ["nodeTaints"]],
        [{ nodeTaints: "gpu=yes" }, ["nodeTaints"]],
        [{ gpuSharing: "shared" }, ["gpuSharing"]],
        [{ gpuSlices: "65" }, ["gpuSlices"]],
        [{ gpuSlices: "0" }, ["gpuSlices"]],
        [{ gpuSlices: "2.5" }, ["gpuSlices"]],
        [{ gpuSharing: "exclusive", gpuSlices: "4" }, ["gpuSlices"]],
        [{ gpuSharing: "exclusive", gpuResource: "nvidia.com/mig-1g.10gb", gpuSlices: "" }, ["gpuSharing"]],
        [{ gpuModel: "", gpuResource: "", gpusPerNode: "", gpuSlices: "" }, ["gpuSharing"]],
        [{ tiers: "serving, batch" }, ["tiers"]],
      ];
      for (const [change, fields] of cases) {
        const error = await expectRefused(() => executeCommand(createNodePool, admin, { ...l4Shared, name: "refused", ...change }), "validation", fields);
        expect(error.fields![fields[0]!]!.join(" ")).toMatch(/\S/);
      }
      // A second pool may not serve the same model with other slices: one rate card unit per model.
      const unlike = await expectRefused(() => executeCommand(createNodePool, admin, { ...l4Shared, name: "l4-shared-8", gpuSlices: "8" }), "validation", ["gpuSlices"]);
      expect(unlike.fields!.gpuSlices![0]).toMatch(/Enter 4: pool l4-shared already serves L4 shared x4 so/);
    });

    it("updates the facts, audited with before and after; a MIG resource makes the pool MIG when no sharing is sent", async () => {
      const pool = (await poolByName("l4-shared"))!;
      const updated = await executeCommand(updateNodePool, admin, { ...l4Shared, id: pool.id, version: String(pool.version), nodeTaints: "", tiers: "", nodeLabels: "pool=l4" });
      expect(updated).toMatchObject({ nodeTaints: [], tiers: null, nodeLabels: { pool: "l4" }, version: pool.version + 1 });
      expect(await lastAudit()).toMatchObject({
        action: "node_pool.updated",
        before: { nodeTaints: pool.nodeTaints, tiers: ["serving", "preemptible"], nodeLabels: pool.nodeLabels, gpuSlices: 4 },
        after: { nodeTaints: [], tiers: null, nodeLabels: { pool: "l4" }, gpuSlices: 4 },
      });
      const mig = await executeCommand(createNodePool, admin, { ...b200, name: "h200-mig", gpuModel: "H200 1g.18gb", gpuResource: "nvidia.com/mig-1g.18gb", gpusPerNode: "56" });
      expect(mig).toMatchObject({ gpuSharing: "mig", gpuSlices: 1, nodeLabels: {}, nodeTaints: [], tiers: null });
    });
  });

  describe("rate card", () => {
    it("adds a price from now by default, stored exactly, audited", async () => {
      const row = await executeCommand(addRate, admin, { resource: "gpu:B200", unitPrice: "6.5", effectiveFrom: "" });
      expect(row).toMatchObject({ resource: "gpu:B200", unitPrice: "6.500000", effectiveFrom: NOW, createdBy: admin.actor.principalId });
      expect(await lastAudit()).toMatchObject({ action: "rate.added", targetType: "rate", targetId: row.id, after: { resource: "gpu:B200", unitPrice: "6.500000" } });
    });

    it("keeps the history: the price in force at a time between two rows is the earlier one", async () => {
      await executeCommand(addRate, admin, { resource: "gpu:H100", unitPrice: "3.900001", effectiveFrom: "2026-04-01" });
      const rows = (await loadRates(db)).filter((r) => r.resource === "gpu:H100");
      expect(rows.map((r) => [r.unitPrice, r.effectiveFrom.toISOString()])).toEqual([
        [4.6, "2025-06-01T00:00:00.000Z"],
        [4.1, "2026-01-01T00:00:00.000Z"],
        [3.900001, "2026-04-01T00:00:00.000Z"],
      ]);
      const at = (iso: string) => ratesInForce(rows, new Date(iso)).get("gpu:H100");
      expect(at("2025-05-31T23:59:59Z")).toBeUndefined();
      expect(at("2025-12-31T23:00:00Z")).toBe(4.6);
      expect(at("2026-03-15T00:00:00Z")).toBe(4.1);
      expect(at("2026-04-01T00:00:00Z")).toBe(3.900001);

      const card = (await capacityOverview(admin, settings))!;
      const h100 = card.rateCard.find((l) => l.resource === "gpu:H100")!;
      expect([h100.current?.unitPrice, h100.next?.unitPrice]).toEqual(["4.100000", "3.900001"]);
      const history = card.rateHistory.filter((r) => r.resource === "gpu:H100");
      expect(history.map((r) => [r.unitPrice, r.state])).toEqual([
        ["3.900001", "scheduled"],
        ["4.100000", "current"],
        ["4.600000", "past"],
      ]);
      expect(card.rateHistory.map((r) => r.effectiveFrom.getTime())).toEqual([...card.rateHistory.map((r) => r.effectiveFrom.getTime())].sort((a, b) => b - a));
    });

    it("refuses a second price for the same resource and instant, on the effective-from field", async () => {
      const error = await expectRefused(() => executeCommand(addRate, admin, { resource: "gpu:H100", unitPrice: "1", effectiveFrom: "2026-01-01T00:00:00Z" }), "validation", ["effectiveFrom"]);
      expect(error.fields!.effectiveFrom![0]).toMatch(/^Choose another instant: gpu:H100 already has a price from /);
    });

    it.each([
      ["a negative price", { unitPrice: "-1" }, "unitPrice", /Enter 0 or more/],
      ["more than 6 decimals", { unitPrice: "0.0000001" }, "unitPrice", /at most 6 decimals/],
      ["a price that is not a number", { unitPrice: "four" }, "unitPrice", /Enter a price/],
      ["no price", { unitPrice: "" }, "unitPrice", /Fill in this field/],
      ["an absurd price", { unitPrice: "1234567890123" }, "unitPrice", /larger than any price/],
      ["a key the usage push API would refuse too", { resource: "Disk!", unit: "disk" }, "resource", /Enter cpu, memory.*custom meter key/],
      ["a custom meter without its unit", { resource: "disk" }, "unit", /Enter the unit of a custom meter/],
      ["a unit on a resource whose unit is fixed", { unit: "cores" }, "unit", /Leave the unit out: cpu has a fixed unit/],
      ["a GPU key without a model", { resource: "gpu:" }, "resource", /gpu:<model>/],
      ["a date that is not one", { effectiveFrom: "next tuesday" }, "effectiveFrom", /Enter a date/],
    ])("refuses %s, naming the field", async (_, change, field, message) => {
      const error = await expectRefused(() => executeCommand(addRate, admin, { resource: "cpu", unitPrice: "0.03", effectiveFrom: "2026-05-01", ...change }), "validation", [field]);
      expect(error.fields![field]![0]).toMatch(message);
    });

    it("takes numbers and dates from the API as well as form text", async () => {
      const row = await executeCommand(addRate, admin, { resource: "inference", unitPrice: 0.025, effectiveFrom: new Date("2026-06-01T00:00:00Z") });
      expect(row).toMatchObject({ unitPrice: "0.025000", effectiveFrom: new Date("2026-06-01T00:00:00Z") });
    });
  });

  describe("approval rules", () => {
    const form = {
      overcommitCpu: "1.5",
      overcommitMemory: "1",
      overcommitGpu: "1",
      autoApproveEnabled: "on",
      autoApproveMaxCpuCores: "16",
      autoApproveMaxMemoryGiB: "64",
      autoApproveMaxStorageGiB: "500",
      autoApproveUnderMonthlyCost: "250",
      secondApprovalAboveMonthlyCost: "",
      expiryWarningHours: "48",
    };

    it("saves the policy and reads it back; empty limits mean the rule is off; audited with what it replaced", async () => {
      const saved = await executeCommand(setQuotaPolicy, admin, form);
      const expected = {
        overcommit: { cpu: 1.5, memory: 1, gpu: 1 },
        // The form does not send the cumulative factor (yet): the stored one, here the default, is kept.
        autoApprove: { enabled: true, maxCpuCores: 16, maxMemoryGiB: 64, maxStorageGiB: 500, underMonthlyCost: 250, cumulativeFactor: DEFAULT_CUMULATIVE_FACTOR },
        secondApprovalAboveMonthlyCost: null,
        expiryWarningHours: 48,
      };
      expect(saved).toEqual(expected);
      expect(await loadQuotaPolicy(db)).toEqual(expected);
      expect(await lastAudit()).toMatchObject({ action: "quota_policy.changed", before: DEFAULT_QUOTA_POLICY, after: expected });

      const again = await executeCommand(setQuotaPolicy, admin, { ...form, autoApproveEnabled: "off", autoApproveUnderMonthlyCost: "", secondApprovalAboveMonthlyCost: "5000" });
      expect(again).toMatchObject({ autoApprove: { enabled: false, underMonthlyCost: null }, secondApprovalAboveMonthlyCost: 5000 });
      expect(await loadQuotaPolicy(db)).toEqual(again);
      expect(await lastAudit()).toMatchObject({ before: expected, after: again });
    });

    it("sets the cumulative cap of automatic approval; empty turns it off; a form without the field keeps it", async () => {
      const set = await executeCommand(setQuotaPolicy, admin, { ...form, autoApproveCumulativeFactor: "5" });
      expect(set.autoApprove.cumulativeFactor).toBe(5);
      expect((await loadQuotaPolicy(db)).autoApprove.cumulativeFactor).toBe(5);
      expect(await lastAudit()).toMatchObject({ action: "quota_policy.changed", after: { autoApprove: { cumulativeFactor: 5 } } });
      const kept = await executeCommand(setQuotaPolicy, admin, { ...form, expiryWarningHours: "24" });
      expect(kept).toMatchObject({ expiryWarningHours: 24, autoApprove: { cumulativeFactor: 5 } });
      const off = await executeCommand(setQuotaPolicy, admin, { ...form, autoApproveCumulativeFactor: "" });
      expect(off.autoApprove.cumulativeFactor).toBeNull();
      expect((await loadQuotaPolicy(db)).autoApprove.cumulativeFactor).toBeNull();
      // JSON numbers as well as form text.
      expect((await executeCommand(setQuotaPolicy, admin, { ...form, autoApproveCumulativeFactor: 2.5 })).autoApprove.cumulativeFactor).toBe(2.5);
      await executeCommand(setQuotaPolicy, admin, { ...form, autoApproveCumulativeFactor: String(DEFAULT_CUMULATIVE_FACTOR) });
    });

    it("reads a policy stored before the cumulative cap existed with the default cap, keeping the rest", async () => {
      const { autoApprove, ...rest } = DEFAULT_QUOTA_POLICY;
      const { cumulativeFactor: _dropped, ...olderRules } = autoApprove;
      const older = { ...rest, autoApprove: { ...olderRules, maxCpuCores: 12 } };
      const [row] = await db.select().from(instanceSettings).where(eq(instanceSettings.key, QUOTA_POLICY_KEY));
      await db.update(instanceSettings).set({ value: older }).where(eq(instanceSettings.key, QUOTA_POLICY_KEY));
      try {
        expect(await loadQuotaPolicy(db)).toEqual({ ...DEFAULT_QUOTA_POLICY, autoApprove: { ...DEFAULT_QUOTA_POLICY.autoApprove, maxCpuCores: 12, cumulativeFactor: DEFAULT_CUMULATIVE_FACTOR } });
      } finally {
        await db.update(instanceSettings).set({ value: row!.value }).where(eq(instanceSettings.key, QUOTA_POLICY_KEY));
      }
    });

    it("applies the overcommit ratio to capacity", async () => {
      const cpu = (await capacityOverview(admin, settings))!.resources.find((r) => r.key === "cpu")!;
      expect(cpu).toMatchObject({ overcommit: 1.5, capacity: cpu.physical * 1.5 });
    });

    it.each([
      ["an overcommit below 0.1", { overcommitCpu: "0" }, "overcommitCpu"],
      ["an overcommit that is not a number", { overcommitGpu: "double" }, "overcommitGpu"],
      ["an overcommit above 20", { overcommitMemory: "21" }, "overcommitMemory"],
      ["negative cores", { autoApproveMaxCpuCores: "-1" }, "autoApproveMaxCpuCores"],
      ["no memory limit", { autoApproveMaxMemoryGiB: "" }, "autoApproveMaxMemoryGiB"],
      ["a cost limit that is not a number", { autoApproveUnderMonthlyCost: "cheap" }, "autoApproveUnderMonthlyCost"],
      ["a negative second-approval threshold", { secondApprovalAboveMonthlyCost: "-10" }, "secondApprovalAboveMonthlyCost"],
      ["fractional warning hours", { expiryWarningHours: "1.5" }, "expiryWarningHours"],
      ["more than 30 days of warning", { expiryWarningHours: "721" }, "expiryWarningHours"],
      ["a cumulative factor below 1", { autoApproveCumulativeFactor: "0.5" }, "autoApproveCumulativeFactor"],
      ["a cumulative factor that is not a number", { autoApproveCumulativeFactor: "lots" }, "autoApproveCumulativeFactor"],
      ["a cumulative factor above 100", { autoApproveCumulativeFactor: "101" }, "autoApproveCumulativeFactor"],
    ])("refuses %s, naming the field", async (_, change, field) => {
      await expectRefused(() => executeCommand(setQuotaPolicy, admin, { ...form, ...change }), "validation", [field]);
    });
  });

  describe("only platform admins", () => {
    const someone: PersonaKey[] = ["vision-admin", "language-admin", "data-scientist", "viewer", "collaborator"];
    const attempts = async (): Promise<[string, () => Promise<unknown>, CommandContext][]> => {
      const pool = (await poolByName("h100-pool"))!;
      return Promise.all(
        someone.flatMap((key) =>
          [
            ["createNodePool", (ctx: CommandContext) => executeCommand(createNodePool, ctx, { ...b200, name: "z-pool" })],
            ["updateNodePool", (ctx: CommandContext) => executeCommand(updateNodePool, ctx, { ...b200, name: "h100-pool", gpuModel: "H100", id: pool.id, version: String(pool.version) })],
            ["deleteNodePool", (ctx: CommandContext) => executeCommand(deleteNodePool, ctx, { id: pool.id })],
            ["addRate", (ctx: CommandContext) => executeCommand(addRate, ctx, { resource: "cpu", unitPrice: "0.01" })],
            ["setQuotaPolicy", (ctx: CommandContext) => executeCommand(setQuotaPolicy, ctx, { ...DEFAULT_FORM })],
            ["importNodePools", (ctx: CommandContext) => executeCommand(importNodePools, ctx, { pools: JSON.stringify([{ name: "z", gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 1, cpuPerNode: 1, memoryBytesPerNode: GiB, version: null }]) })],
          ].map(async ([name, run]) => {
            const ctx = await contextOf(db, key, NOW);
            return [`${key} ${name as string}`, () => (run as (c: CommandContext) => Promise<unknown>)(ctx), ctx] as [string, () => Promise<unknown>, CommandContext];
          }),
        ),
      );
    };

    it("refuses every command to everyone else, writing nothing", async () => {
      const before = await fingerprint(db, TABLES);
      const outcomes: Record<string, string> = {};
      for (const [label, run] of await attempts()) outcomes[label] = await outcomeOf(run());
      expect(Object.values(outcomes).every((o) => o === "forbidden")).toBe(true);
      expect(Object.keys(outcomes)).toHaveLength(someone.length * 6);
      expect(await fingerprint(db, TABLES)).toEqual(before);
    });
  });
});

const DEFAULT_FORM = {
  overcommitCpu: "1",
  overcommitMemory: "1",
  overcommitGpu: "1",
  autoApproveEnabled: "on",
  autoApproveMaxCpuCores: "8",
  autoApproveMaxMemoryGiB: "32",
  autoApproveMaxStorageGiB: "200",
  autoApproveUnderMonthlyCost: "",
  secondApprovalAboveMonthlyCost: "",
  expiryWarningHours: "72",
};

describe(`importing node pools from the cluster (${databaseLabel()})`, () => {
  let api: StandInApiServer;
  let client: ClusterClient;

  beforeAll(async () => {
    api = await startStandInApiServer({ kueueVersions: [], permissions: CLUSTER_PERMISSIONS });
    client = kubeClientFromConfig(kubeConfigFor(api.url), { timeoutMs: 2000 });
  });
  afterAll(async () => {
    await api?.close();
  });

  const putNode = (name: string, labels: Record<string, string>, allocatable: Record<string, string>) =>
    api.put({ apiVersion: "v1", kind: "Node", metadata: { name, labels }, status: { allocatable, capacity: allocatable } });
  const h100Labels = { "cloud.google.com/gke-nodepool": "h100-pool", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "node.kubernetes.io/instance-type": "a3-highgpu-8g" };
  const h100Alloc = { cpu: "208", memory: "1843Gi", "nvidia.com/gpu": "8", pods: "110" };

  it("proposes pools from the nodes, compared with the stored ones, and imports them on confirmation", async () => {
    for (let i = 0; i < 5; i++) putNode(`gke-h100-${i}`, h100Labels, h100Alloc);
    putNode("gke-t4-0", { "cloud.google.com/gke-nodepool": "t4-pool", "nvidia.com/gpu.product": "Tesla-T4" }, { cpu: "15890m", memory: "57Gi", "nvidia.com/gpu": "1" });
    putNode("gke-t4-1", { "cloud.google.com/gke-nodepool": "t4-pool", "nvidia.com/gpu.product": "Tesla-T4" }, { cpu: "15890m", memory: "57Gi", "nvidia.com/gpu": "1" });
    putNode("gke-cp", { "node-role.kubernetes.io/control-plane": "" }, { cpu: "4", memory: "16Gi" });

    const proposal = (await nodePoolImportProposal(admin, client))!;
    expect(proposal.nodesRead).toBe(8);
    expect(proposal.skipped).toEqual([{ name: "gke-cp", reason: "control-plane node" }]);
    expect(proposal.items.map((i) => [i.pool.name, i.status, i.problem])).toEqual([
      ["h100-pool", "changed", null],
      ["t4-pool", "new", null],
    ]);
    const h100 = proposal.items[0]!;
    // The admin's model name and autoscaling bounds stay; the cluster says 5 nodes now.
    expect(h100.pool).toMatchObject({ gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 5, minNodes: 4, maxNodes: 6, version: 1 });
    // These nodes also carry an instance type label, and not the seeded pool's GPU taint.
    expect(h100.changes).toEqual([
      { field: "nodeCount", from: 4, to: 5 },
      {
        field: "nodeLabels",
        from: "cloud.google.com/gke-nodepool=h100-pool, nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3",
        to: "cloud.google.com/gke-nodepool=h100-pool, node.kubernetes.io/instance-type=a3-highgpu-8g, nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3",
      },
      { field: "nodeTaints", from: "nvidia.com/gpu=present:NoSchedule", to: "none" },
    ]);
    expect(proposal.items[1]!.pool).toMatchObject({ gpuModel: "Tesla T4", gpusPerNode: 1, nodeCount: 2, cpuPerNode: 15.89, memoryBytesPerNode: 57 * GiB, version: null });
    expect(proposal.notOnCluster).toEqual(["a100-mig", "b200-pool", "cpu-general", "h200-mig", "l4-inference", "l4-shared"]);

    const payload = JSON.stringify(proposal.items.map((i) => i.pool));
    const result = await executeCommand(importNodePools, admin, { pools: payload });
    expect(result).toEqual({ created: ["t4-pool"], updated: ["h100-pool"] });
    expect(await poolByName("h100-pool")).toMatchObject({ nodeCount: 5, gpuModel: "H100", version: 2 });
    expect(await poolByName("t4-pool")).toMatchObject({ gpuModel: "Tesla T4", gpuResource: "nvidia.com/gpu", nodeCount: 2, cpuPerNode: 15.89, version: 1 });
    const events = await db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "node_pool.imported")))
      .orderBy(asc(auditEvents.seq));
    expect(events.map((e) => [(e.after as { name: string }).name, (e.before as { nodeCount?: number } | null)?.nodeCount ?? null])).toEqual([
      ["h100-pool", 4],
      ["t4-pool", null],
    ]);

    // Confirming the same proposal again: the pools moved on since, so nothing is overwritten.
    const stale = await expectImportRefused(payload, "conflict");
    expect(stale.message).toMatch(/h100-pool was changed since the proposal/);
    // Looking again shows everything in step.
    const after = (await nodePoolImportProposal(admin, client))!;
    expect(after.items.map((i) => i.status)).toEqual(["unchanged", "unchanged"]);
  });

  it("imports a time-sliced, tainted pool and a MIG pool with their hardware facts, and keeps the admin's tiers", async () => {
    const gpuTaint = { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" as const };
    for (const name of ["gke-l4s-0", "gke-l4s-1"]) {
      api.put(
        standInNode({
          name,
          labels: { "cloud.google.com/gke-nodepool": "l4-ts", ...timeSlicedLabels("NVIDIA-L4", 2, 4) },
          taints: [gpuTaint, { key: "node.kubernetes.io/not-ready", effect: "NoExecute" }],
          allocatable: { cpu: "15", memory: "56Gi", "nvidia.com/gpu": "8" },
        }),
      );
    }
    api.put(
      standInNode({
        name: "gke-a100m-0",
        labels: { "cloud.google.com/gke-nodepool": "a100-mixed", ...migMixedLabels("NVIDIA-A100-SXM4-40GB", 8, "all-1g.5gb") },
        taints: [gpuTaint],
        allocatable: { cpu: "90", memory: "1000Gi", "nvidia.com/mig-1g.5gb": "56" },
      }),
    );
    const proposal = (await nodePoolImportProposal(admin, client))!;
    const l4 = proposal.items.find((i) => i.pool.name === "l4-ts")!;
    expect(l4.problem).toBeNull();
    expect(l4.pool).toMatchObject({
      gpuModel: "L4 shared x4",
      gpusPerNode: 2,
      gpuSharing: "time_sliced",
      gpuSlices: 4,
      nodeTaints: [gpuTaint],
      nodeLabels: { "cloud.google.com/gke-nodepool": "l4-ts", "nvidia.com/gpu.count": "2", "nvidia.com/gpu.replicas": "4", "nvidia.com/gpu.sharing-strategy": "time-slicing" },
    });
    const a100 = proposal.items.find((i) => i.pool.name === "a100-mixed")!;
    expect(a100.pool).toMatchObject({ gpuModel: "A100 SXM4 40GB 1g.5gb", gpuResource: "nvidia.com/mig-1g.5gb", gpusPerNode: 56, gpuSharing: "mig", gpuSlices: 1 });
    expect(a100.pool.nodeLabels).toMatchObject({ "nvidia.com/mig.strategy": "mixed", "nvidia.com/mig.config": "all-1g.5gb" });

    await executeCommand(importNodePools, admin, { pools: JSON.stringify([l4.pool, a100.pool]) });
    const stored = (await poolByName("l4-ts"))!;
    expect(stored).toMatchObject({ gpuSharing: "time_sliced", gpuSlices: 4, gpusPerNode: 2, nodeTaints: [gpuTaint], tiers: null });
    expect(await lastAudit()).toMatchObject({ action: "node_pool.imported", after: { name: "a100-mixed", gpuSharing: "mig", nodeTaints: [gpuTaint] } });

    // The admin narrows the tiers; importing again keeps them and changes nothing else.
    await db.update(nodePools).set({ tiers: ["serving"] }).where(eq(nodePools.id, stored.id));
    const again = (await nodePoolImportProposal(admin, client))!.items.find((i) => i.pool.name === "l4-ts")!;
    expect(again).toMatchObject({ status: "unchanged", pool: { tiers: ["serving"] } });
  });

  it("takes a pool's minimum and maximum from the Cluster Autoscaler's status where one node group is that pool, and says what it found", async () => {
    const none = (await nodePoolImportProposal(admin, client))!;
    expect(none.autoscaler).toMatch(/No Cluster Autoscaler status on the cluster/);
    const group = (pool: string, min: number, max: number) => `  - name: ${pool}\n    health:\n      status: Healthy\n      cloudProviderTarget: 5\n      minSize: ${min}\n      maxSize: ${max}\n`;
    const status = [
      "time: 2026-12-02 11:59:00 +0000 UTC",
      "autoscalerStatus: Running",
      "nodeGroups:",
      group("https://www.googleapis.com/compute/v1/projects/ml/zones/us-central1-a/instanceGroups/gke-ml-h100-pool-1a2b3c4d-grp", 2, 12),
    ].join("\n");
    api.put({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cluster-autoscaler-status", namespace: "kube-system" }, data: { status } });
    try {
      const proposal = (await nodePoolImportProposal(admin, client))!;
      expect(proposal.autoscaler).toMatch(/manages 1 node group; its minimum and maximum size are used for h100-pool\./);
      // The admin set other bounds; the autoscaler says 2..12 and is what scales the pool.
      const stored = (await poolByName("h100-pool"))!;
      expect([stored.minNodes, stored.maxNodes]).not.toEqual([2, 12]);
      const h100 = proposal.items.find((i) => i.pool.name === "h100-pool")!;
      expect(h100.pool).toMatchObject({ nodeCount: 5, minNodes: 2, maxNodes: 12 });
      expect(h100.changes).toEqual(expect.arrayContaining([{ field: "minNodes", from: stored.minNodes, to: 2 }, { field: "maxNodes", from: stored.maxNodes, to: 12 }]));
      // A pool no node group names keeps what was stored.
      expect(proposal.items.find((i) => i.pool.name === "t4-pool")!.changes.map((c) => c.field)).not.toContain("minNodes");
      expect(api.forbidden, "calls outside the portal's ClusterRole").toEqual([]);
    } finally {
      api.remove("v1", "ConfigMap", "kube-system", "cluster-autoscaler-status");
    }
  });

  async function expectImportRefused(pools: unknown, code: string) {
    const before = await fingerprint(db, TABLES);
    const error = await appErrorOf(executeCommand(importNodePools, admin, { pools }));
    expect(error.code).toBe(code);
    expect(await fingerprint(db, TABLES)).toEqual(before);
    return error;
  }

  it("refuses an empty or malformed proposal, a pool named twice, and a model served as two resources", async () => {
    const pool = { name: "new-pool", gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 1, minNodes: null, maxNodes: null, cpuPerNode: 4, memoryBytesPerNode: 16 * GiB, version: null };
    expect((await expectImportRefused("[]", "validation")).fields).toEqual({ pools: ["Choose at least one pool to import."] });
    expect((await expectImportRefused("not json", "validation")).fields).toEqual({ pools: ["Enter a list of pools."] });
    expect(Object.keys((await expectImportRefused(JSON.stringify([{ ...pool, cpuPerNode: -1 }]), "validation")).fields!)).toEqual(["pools.0.cpuPerNode"]);
    expect(Object.keys((await expectImportRefused(JSON.stringify([{ ...pool, gpuModel: "X" }]), "validation")).fields!)).toEqual(["pools.0.gpuResource"]);
    expect((await expectImportRefused(JSON.stringify([pool, pool]), "validation")).fields).toEqual({ pools: ["Name new-pool once only."] });
    const mig = { ...pool, gpuModel: "H100", gpuResource: "nvidia.com/mig-1g.10gb", gpusPerNode: 7 };
    expect(Object.keys((await expectImportRefused(JSON.stringify([mig]), "validation")).fields!)).toEqual(["pools.0.gpuResource"]);
    // Slices only when time-sliced, labels in Kubernetes syntax, and one model shared one way.
    expect(Object.keys((await expectImportRefused(JSON.stringify([{ ...pool, gpuSlices: 3 }]), "validation")).fields!)).toEqual(["pools.0.gpuSlices"]);
    expect(Object.keys((await expectImportRefused(JSON.stringify([{ ...pool, nodeLabels: { "no good": "x" } }]), "validation")).fields!)).toEqual(["pools.0.nodeLabels"]);
    const sliced = { ...pool, name: "ts-a", gpuModel: "T4 shared", gpuResource: "nvidia.com/gpu", gpusPerNode: 1, gpuSharing: "time_sliced", gpuSlices: 4 };
    const unlike = await expectImportRefused(JSON.stringify([sliced, { ...sliced, name: "ts-b", gpuSlices: 2 }]), "validation");
    expect(unlike.fields).toEqual({ "pools.0.gpuSlices": ["Share the GPUs the same way in every pool of T4 shared: ts-b shares its GPUs time_sliced ×2, ts-a time_sliced ×4."] });
  });

  it("proposes nothing to someone who may not manage capacity", async () => {
    expect(await nodePoolImportProposal(await contextOf(db, "vision-admin", NOW), client)).toBeNull();
  });

  it("fails with the API server's message when the nodes cannot be listed (no permission)", async () => {
    api.faults.push({ match: { method: "GET", kind: "Node" }, status: 403, message: 'nodes is forbidden: User "system:serviceaccount:allot:allot" cannot list resource "nodes"' });
    await expect(nodePoolImportProposal(admin, client)).rejects.toThrow(/cannot list resource "nodes"/);
    api.faults.clear();
  });
});
