import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { loadDesiredTenant } from "@/lib/cluster/desired-from-db";
import type { ClusterQueue } from "@/lib/cluster/kueue";
import { parseQuantity } from "@/lib/cluster/quantity";
import { burstQueueName, guaranteedQueueName, resourceFlavorName } from "@/lib/cluster/render-tenant";
import { renderTarget, targetOf } from "@/lib/cluster/targets";
import { parseConfig } from "@/lib/config";
import { databaseLabel } from "@/test/database";
import { seededDatabase } from "@/test/tenancy";
import { seedDemoQuota } from "./quota";
import { demoProjects, demoUsageWindow } from "./usage";
import { DEMO_WORKLOAD_PROJECT, DEMO_WORKLOADS, type DemoWorkload } from "./workloads";

/**
 * What the demo story says Kueue admits must be admissible by a real Kueue:
 * every workload the story admits, with the others admitted in the same
 * ClusterQueue, fits nominal + borrowing limit for every resource it asks for
 * (a resource the queue has no quota for, or may not borrow, admits nothing);
 * the one the story leaves waiting at the burst limit does not fit.
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const kueue = parseConfig({ ALLOT_KUEUE: "1" }).cluster;
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
let db: Database;

beforeAll(async () => {
  db = seeded.db;
  // The demo's quota, without its 90 days of usage (lib/demo/story.int.test.ts covers those).
  await db.transaction(async (tx) => seedDemoQuota(tx, await demoProjects(tx), demoUsageWindow(NOW).from, NOW));
});

type Quota = { nominal: number; borrowing: number };
const GPU = "nvidia.com/gpu";

/** Nominal and borrowing limit per "flavour/resource" of a rendered ClusterQueue. */
function quotaOf(queue: ClusterQueue): Map<string, Quota> {
  const out = new Map<string, Quota>();
  for (const group of queue.spec.resourceGroups)
    for (const flavor of group.flavors)
      for (const r of flavor.resources)
        out.set(`${flavor.name}/${r.name}`, { nominal: parseQuantity(String(r.nominalQuota))!, borrowing: r.borrowingLimit === undefined ? Infinity : parseQuantity(String(r.borrowingLimit))! });
  return out;
}

describe(`the demo's Kueue workloads (${databaseLabel()})`, () => {
  it("every workload the story admits fits its ClusterQueue's nominal quota plus borrowing limit, for every resource it asks for; the one left waiting does not", async () => {
    const tenantId = seeded.tenantId[DEMO_WORKLOAD_PROJECT.tenant]!;
    const loaded = (await loadDesiredTenant(db, tenantId, kueue, NOW))!;
    const project = loaded.projects.find((p) => p.slug === DEMO_WORKLOAD_PROJECT.project)!;
    const objects = await renderTarget(targetOf(loaded, null)!, kueue.render);
    const queueOf = (name: string) => objects.find((o): o is ClusterQueue => o.kind === "ClusterQueue" && o.metadata.name === name);
    const queues = { default: queueOf(guaranteedQueueName(project))!, preemptible: queueOf(burstQueueName(project)) };
    expect(queues.preemptible, "the project has a burst ClusterQueue").toBeDefined();

    const gpuFlavor = resourceFlavorName(loaded.tenant, DEMO_WORKLOAD_PROJECT.gpuModel);
    const computeFlavor = resourceFlavorName(loaded.tenant, "default");
    const asks = (w: DemoWorkload): [string, number][] => [
      [`${gpuFlavor}/${GPU}`, w.gpus],
      [`${computeFlavor}/cpu`, parseQuantity(w.cpu)!],
      [`${computeFlavor}/memory`, parseQuantity(w.memory)!],
    ];
    const overflow = (queue: ClusterQueue, workloads: readonly DemoWorkload[]): string[] => {
      const quota = quotaOf(queue);
      const used = new Map<string, number>();
      for (const w of workloads) for (const [key, n] of asks(w)) used.set(key, (used.get(key) ?? 0) + n);
      return [...used].flatMap(([key, n]) => {
        const q = quota.get(key);
        if (!q) return [`${queue.metadata.name} has no quota for ${key}`];
        return n > q.nominal + q.borrowing ? [`${queue.metadata.name} ${key}: ${n} > ${q.nominal} nominal + ${q.borrowing} borrowing`] : [];
      });
    };

    for (const name of ["default", "preemptible"] as const) {
      const admitted = DEMO_WORKLOADS.filter((w) => w.queueName === name && w.ends === "admitted");
      expect(admitted.length, name).toBeGreaterThan(0);
      expect(overflow(queues[name]!, admitted), name).toEqual([]);
      // The one left waiting at the burst limit would not fit beside them.
      for (const w of DEMO_WORKLOADS.filter((x) => x.queueName === name && x.ends === "waits_at_burst_limit")) expect(overflow(queues[name]!, [...admitted, w]), w.name).not.toEqual([]);
    }
    // The preemptible queue holds nothing of its own: every sweep runs on borrowed quota.
    expect([...quotaOf(queues.preemptible!).values()].every((q) => q.nominal === 0)).toBe(true);
  });
});
