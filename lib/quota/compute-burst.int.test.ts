import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quotaGrants } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { loadDesiredTenant } from "@/lib/cluster/desired-from-db";
import type { ClusterQueue } from "@/lib/cluster/kueue";
import { parseQuantity } from "@/lib/cluster/quantity";
import { PROJECT_QUOTA_NAME } from "@/lib/cluster/render-quota";
import { renderTarget, targetOf } from "@/lib/cluster/targets";
import { parseConfig, type AllotConfig } from "@/lib/config";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf } from "@/test/fixtures";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { GiB } from "./amounts";
import { editQuotaRequest } from "./commands/request-edits";
import { approveQuotaRequest, createQuotaRequest } from "./commands/requests";
import { linesOfGrants, linesOfRequests } from "./grant-store";
import { requestDetail } from "./queries";

/**
 * A request asks for CPU and memory burst beside GPU burst, and the burst
 * reaches the cluster: the request's lines, what the approver sees (the
 * project's quota after, the cohort, the sharing arithmetic at the pools'
 * minimum, now and maximum, an estimate that prices no burst), the grant an
 * approval with changes writes, and the project's burst ClusterQueue, whose
 * borrowingLimit for cpu and memory was 0 before: without it Kueue admits no
 * pod on borrowed GPUs, since every pod asks for CPU and memory too.
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
const globalConfig = globalThis as unknown as { allotConfig?: AllotConfig };
const KUEUE = parseConfig({ ALLOT_KUEUE: "1" });
let previous: AllotConfig | undefined;
beforeAll(() => {
  previous = globalConfig.allotConfig;
  globalConfig.allotConfig = KUEUE;
});
afterAll(() => {
  globalConfig.allotConfig = previous;
});

const SEGMENTATION = "vision-lab--segmentation-research";
const ask = async (fields: Record<string, string>) =>
  executeCommand(createQuotaRequest, await contextOf(seeded.db, "vision-admin", NOW), {
    tenant: "vision-lab",
    project: "segmentation-research",
    justification: "Preemptible augmentation sweeps on idle L4s.",
    ...fields,
  });

/** The project's rendered objects: its burst ClusterQueue and its ResourceQuota's hard cap. */
async function rendered() {
  const loaded = (await loadDesiredTenant(seeded.db, seeded.tenantId["vision-lab"]!, KUEUE.cluster, NOW))!;
  const tenantObjects = await renderTarget(targetOf(loaded, null)!, KUEUE.cluster.render);
  const projectId = await projectIdOf(seeded.db, "vision-lab", "segmentation-research");
  const projectObjects = await renderTarget(targetOf(loaded, projectId)!, KUEUE.cluster.render);
  const burstQueue = tenantObjects.find((o) => o.kind === "ClusterQueue" && o.metadata.name === `${SEGMENTATION}.burst`) as ClusterQueue | undefined;
  const limitOf = (resource: string) => {
    for (const g of burstQueue?.spec.resourceGroups ?? []) for (const f of g.flavors) for (const r of f.resources) if (r.name === resource) return parseQuantity(r.borrowingLimit ?? "0");
    return undefined;
  };
  const hard = (projectObjects.find((o) => o.kind === "ResourceQuota" && o.metadata?.name === PROJECT_QUOTA_NAME) as { spec: { hard: Record<string, string> } } | undefined)?.spec.hard ?? {};
  return { burstQueue, limitOf, hard: (key: string) => parseQuantity(hard[key] ?? "0") };
}

describe(`CPU and memory burst from a request to the cluster (${databaseLabel()})`, () => {
  it("refuses CPU and memory burst without Kueue, naming each field", async () => {
    globalConfig.allotConfig = parseConfig({ ALLOT_KUEUE: "0" });
    try {
      const error = await appErrorOf(ask({ cpuBurst: "16", memoryBurst: "64" }));
      expect(error.code).toBe("validation");
      expect(Object.keys(error.fields ?? {}).sort()).toEqual(["cpuBurst", "memoryBurst"]);
      expect(error.fields!.cpuBurst![0]).toMatch(/Kueue.*leave it empty and ask for guaranteed CPU cores instead/);
    } finally {
      globalConfig.allotConfig = KUEUE;
    }
  });

  it("keeps the burst in the request's lines, shows the approver its arithmetic, grants what the approver changed, and renders it as borrowingLimit", async () => {
    const before = await rendered();
    expect(before.burstQueue).toBeUndefined();

    const { request, autoApproved, assessment } = await ask({ gpuModel: "L4", gpuBurst: "2", cpuCores: "4", cpuBurst: "32", memoryBurst: "256Gi" });
    expect(autoApproved).toBe(false);
    expect(assessment.auto).toMatchObject({ auto: false, reason: "it asks for burst GPUs, CPU and memory, which a platform admin decides" });
    // Only the 4 guaranteed cores are priced: burst is reserved for nobody and paid for as it runs.
    expect(assessment.estimate.lines.map((l) => l.resource)).toEqual(["cpu"]);
    expect((await linesOfRequests(seeded.db, [request.id])).get(request.id)).toEqual([
      { flavor: "default", resource: "cpu", guarantee: 4, burst: 32, lendLimit: null },
      { flavor: "default", resource: "memory", guarantee: 0, burst: 256 * GiB, lendLimit: null },
      { flavor: "L4", resource: "nvidia.com/gpu", guarantee: 0, burst: 2, lendLimit: null },
    ]);

    const admin = await contextOf(seeded.db, "platform-admin", NOW);
    const detail = (await requestDetail(admin, request.id))!;
    expect(detail.request.amounts).toEqual({ gpus: [{ model: "L4", count: 0, burst: 2 }], cpuCores: 4, cpuBurst: 32, memoryBytes: 0, memoryBurstBytes: 256 * GiB, storageBytes: 0 });
    const picture = detail.picture!.assessment;
    expect(picture.after.quota.burst!.cpuCores).toBe((picture.current.quota.burst?.cpuCores ?? 0) + 32);
    expect(picture.after.quota.burst!.memoryBytes).toBe((picture.current.quota.burst?.memoryBytes ?? 0) + 256 * GiB);
    const cohortCpu = picture.cohort.find((c) => c.line.resource === "cpu")!;
    expect(cohortCpu.after.burst - cohortCpu.before.burst).toBe(32);
    expect(cohortCpu.after.members.find((m) => m.slug === "segmentation-research")).toMatchObject({ burst: 32 });
    const sharing = new Map(picture.sharing.map((s) => [s.after.key, s]));
    expect([...sharing.keys()]).toEqual(["cpu", "memory", "gpu:L4"]);
    const cpu = sharing.get("cpu")!;
    expect(cpu.after.burst - cpu.before.burst).toBe(32);
    expect(cpu.after.capacity.atMax).toBeGreaterThanOrEqual(cpu.after.capacity.now);
    expect(cpu.breaksMinimum).toBe(false);
    expect(sharing.get("memory")!.after.burst - sharing.get("memory")!.before.burst).toBe(256 * GiB);

    // Approve with changes: no more than asked, and less CPU burst.
    const tooMuch = await appErrorOf(executeCommand(approveQuotaRequest, admin, { requestId: request.id, version: request.version, cpuBurst: "64" }));
    expect(tooMuch.fields).toEqual({ cpuBurst: ["Enter at most what was asked for."] });
    const approved = await executeCommand(approveQuotaRequest, admin, { requestId: request.id, version: request.version, cpuBurst: "16" });
    expect(approved.request.granted).toMatchObject({ cpuBurst: 16, memoryBurstBytes: 256 * GiB, gpus: [{ model: "L4", count: 0, burst: 2 }] });
    const [grant] = await seeded.db.select({ id: quotaGrants.id }).from(quotaGrants).where(eq(quotaGrants.requestId, request.id));
    expect((await linesOfGrants(seeded.db, [grant!.id])).get(grant!.id)!.filter((l) => l.flavor === "default").map((l) => [l.resource, l.guarantee, l.burst])).toEqual([
      ["cpu", 4, 16],
      ["memory", 0, 256 * GiB],
    ]);

    const after = await rendered();
    expect(after.burstQueue).toBeDefined();
    expect(after.limitOf("cpu")).toBe(16);
    expect(after.limitOf("memory")).toBe(256 * GiB);
    expect(after.limitOf("nvidia.com/gpu")).toBe(2);
    // The namespace's hard cap is guarantee plus burst, for pods that bypass Kueue.
    expect(after.hard("requests.cpu")).toBe(before.hard("requests.cpu")! + 4 + 16);
    expect(after.hard("requests.memory")).toBe(before.hard("requests.memory")! + 256 * GiB);
  });

  it("an edit of the burst is a change the approver sees, field by field", async () => {
    const { request } = await ask({ cpuBurst: "8" });
    const edited = await executeCommand(editQuotaRequest, await contextOf(seeded.db, "vision-admin", NOW), {
      requestId: request.id,
      version: request.version,
      cpuBurst: "8",
      memoryBurst: "32",
      justification: "Preemptible augmentation sweeps on idle L4s.",
    });
    expect(edited.changes.filter((c) => c.field !== "estimate")).toEqual([{ field: "memoryBurst", label: "Burst memory", before: "none", after: "32 GiB" }]);
    expect((await linesOfRequests(seeded.db, [request.id])).get(request.id)).toEqual([
      { flavor: "default", resource: "cpu", guarantee: 0, burst: 8, lendLimit: null },
      { flavor: "default", resource: "memory", guarantee: 0, burst: 32 * GiB, lendLimit: null },
    ]);
  });
});
