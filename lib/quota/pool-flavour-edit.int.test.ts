import { asc, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterChanges, nodePools } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import type { ClusterClient } from "@/lib/cluster/kube-client";
import { enqueuePlatformFlavorsChange } from "@/lib/cluster/outbox";
import { PLATFORM_FLAVORS_TARGET } from "@/lib/cluster/target-keys";
import { reconcileDue } from "@/lib/cluster/worker";
import { databaseLabel } from "@/test/database";
import { contextOf, rejectionOf } from "@/test/fixtures";
import { KUEUE_CONFIG, withLiveKueueStandIn } from "@/test/kube-api/live-kueue";
import type { StandInApiServer } from "@/test/kube-api/server";
import { seededDatabase } from "@/test/tenancy";
import { updateNodePool } from "./commands/capacity";
import { formatNodeLabels, formatNodeTaints } from "./pool-hardware";

/**
 * A node pool's hardware facts reach the platform's Kueue ResourceFlavors:
 * an edit of a pool's node labels through updateNodePool queues the platform
 * change in the edit's own transaction (rolled back with it), and the worker
 * applies the pool's flavour with the new labels. Against the stand-in API
 * server with the portal's RBAC enforced, Kueue on.
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const KUEUE = "kueue.x-k8s.io/v1beta2";
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
let db: Database;
let api: StandInApiServer;
let client: ClusterClient;

withLiveKueueStandIn((standIn) => ({ api, client } = standIn));
beforeAll(() => {
  db = seeded.db;
});

const reconcile = async () => {
  for (let i = 0; i < 4; i++) await reconcileDue({ db, settings: KUEUE_CONFIG.cluster, client, clock: () => NOW, workerId: "pool-edit-test", baseBackoffMs: 0, maxBackoffMs: 0 });
};
const h100Pool = async () => (await db.select().from(nodePools).where(eq(nodePools.name, "h100-pool")))[0]!;
const flavorLabels = () => (api.get(KUEUE, "ResourceFlavor", undefined, "h100") as unknown as { spec: { nodeLabels?: Record<string, string> } } | undefined)?.spec.nodeLabels;
const pendingChanges = () => db.select({ targetKey: clusterChanges.targetKey, reasons: clusterChanges.reasons }).from(clusterChanges).where(eq(clusterChanges.status, "pending")).orderBy(asc(clusterChanges.id));

/** The edit form as it comes filled in for a stored pool, with other node labels. */
function editForm(pool: typeof nodePools.$inferSelect, nodeLabels: Record<string, string>) {
  const whole = (n: number | null) => (n === null ? "" : String(n));
  return {
    id: pool.id,
    version: String(pool.version),
    name: pool.name,
    gpuModel: pool.gpuModel ?? "",
    gpuResource: pool.gpuResource ?? "",
    gpusPerNode: whole(pool.gpusPerNode),
    nodeCount: whole(pool.nodeCount),
    minNodes: whole(pool.minNodes),
    maxNodes: whole(pool.maxNodes),
    cpuPerNode: String(pool.cpuPerNode),
    memoryPerNode: String(Number(pool.memoryBytesPerNode) / 2 ** 30),
    dedicatedTenant: "",
    nodeLabels: formatNodeLabels(nodeLabels),
    nodeTaints: formatNodeTaints(pool.nodeTaints),
    gpuSharing: pool.gpuSharing,
    gpuSlices: String(pool.gpuSlices),
    tiers: pool.tiers?.join(", ") ?? "",
  };
}

describe(`a pool's label edit reaches its ResourceFlavor (${databaseLabel()})`, () => {
  it("queues the platform's flavour change in the edit's transaction, and the applied ResourceFlavor carries the new node labels", async () => {
    await enqueuePlatformFlavorsChange(db, { reason: "kueue on", at: NOW }, { always: true });
    await reconcile();
    const pool = await h100Pool();
    expect(flavorLabels()).toEqual(pool.nodeLabels);
    expect(await pendingChanges()).toEqual([]);
    const admin = await contextOf(db, "platform-admin", NOW);
    // The pool moved to a new node group: another node pool label, and the machine type besides.
    const moved = { ...pool.nodeLabels, "cloud.google.com/gke-nodepool": "h100-pool-v2", "node.kubernetes.io/instance-type": "a3-highgpu-8g" };

    // The edit's last write (its audit event) fails: the flavour change queued before it is rolled back with the edit.
    await db.execute(sql`create function refuse_audit() returns trigger language plpgsql as $$ begin raise exception 'audit write refused'; end $$`);
    await db.execute(sql`create trigger refuse_audit before insert on audit_events for each row execute function refuse_audit()`);
    try {
      // The query error, with the database's message as its cause.
      expect(await rejectionOf(executeCommand(updateNodePool, admin, editForm(pool, moved)))).toMatchObject({ cause: { message: "audit write refused" } });
    } finally {
      await db.execute(sql`drop trigger refuse_audit on audit_events`);
      await db.execute(sql`drop function refuse_audit()`);
    }
    expect((await h100Pool()).nodeLabels).toEqual(pool.nodeLabels);
    expect(await pendingChanges()).toEqual([]);

    const updated = await executeCommand(updateNodePool, admin, editForm(pool, moved));
    expect(updated.nodeLabels).toEqual(moved);
    // Only the platform's flavours follow a label edit: the flavour's name and tiers are unchanged, so no tenant's queues are queued.
    expect(await pendingChanges()).toEqual([{ targetKey: PLATFORM_FLAVORS_TARGET, reasons: ["node pool h100-pool changed"] }]);

    await reconcile();
    expect(flavorLabels()).toEqual(moved);
    const [applied] = await db.select({ status: clusterChanges.status }).from(clusterChanges).where(eq(clusterChanges.targetKey, PLATFORM_FLAVORS_TARGET)).orderBy(asc(clusterChanges.id)).limit(1).offset(1);
    expect(applied?.status).toBe("applied");
  });
});
