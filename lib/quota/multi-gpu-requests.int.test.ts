import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, quotaGrants, quotaRequestRevisions, quotaRequests } from "@/db/schema";
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
import { editQuotaRequest } from "./commands/request-edits";
import { approveQuotaRequest, createQuotaRequest } from "./commands/requests";
import { linesOfGrants, linesOfRequests } from "./grant-store";
import { requestDetail } from "./queries";

/**
 * One request for two GPU models (2 H100 with 2 more to borrow for training,
 * 4 L4 for serving), end to end: asked through the command as the request
 * form posts it (flat "gpus.N.*" fields), its lines and legacy columns, a
 * model named twice refused under its row, edited into a revision whose diff
 * names each model, approved with changes that lower one model, and the
 * grant's lines, the project's ClusterQueue and its ResourceQuota carrying
 * both models.
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

const PROJECT = "segmentation-research";
const JUSTIFICATION = "Training the segmenter on H100s, serving it on L4s.";
/** The fields as the request form posts them: FormData has no lists. */
const TWO_MODELS = { "gpus.0.model": "H100", "gpus.0.count": "2", "gpus.0.burst": "2", "gpus.1.model": "L4", "gpus.1.count": "4", "gpus.1.burst": "", cpuCores: "16", memory: "64" };

/** Every GPU flavour of the project's ClusterQueues (guarantee and burst queues alike), and its ResourceQuota's hard cap. */
async function rendered() {
  const loaded = (await loadDesiredTenant(seeded.db, seeded.tenantId["vision-lab"]!, KUEUE.cluster, NOW))!;
  const tenantObjects = await renderTarget(targetOf(loaded, null)!, KUEUE.cluster.render);
  const projectId = await projectIdOf(seeded.db, "vision-lab", PROJECT);
  const projectObjects = await renderTarget(targetOf(loaded, projectId)!, KUEUE.cluster.render);
  const queues = tenantObjects.filter((o) => o.kind === "ClusterQueue" && (o.metadata.name ?? "").startsWith(`vision-lab--${PROJECT}`)) as ClusterQueue[];
  const gpuQuota = new Map<string, { nominal: number; borrowing: number }>();
  for (const q of queues)
    for (const g of q.spec.resourceGroups)
      for (const f of g.flavors)
        for (const r of f.resources) {
          if (r.name !== "nvidia.com/gpu") continue;
          const seen = gpuQuota.get(f.name) ?? { nominal: 0, borrowing: 0 };
          gpuQuota.set(f.name, { nominal: Math.max(seen.nominal, (parseQuantity(r.nominalQuota) ?? 0)), borrowing: Math.max(seen.borrowing, (parseQuantity(r.borrowingLimit ?? "0") ?? 0)) });
        }
  const hard = (projectObjects.find((o) => o.kind === "ResourceQuota" && o.metadata?.name === PROJECT_QUOTA_NAME) as { spec: { hard: Record<string, string> } } | undefined)?.spec.hard ?? {};
  return { gpuQuota, hardGpus: parseQuantity(hard["requests.nvidia.com/gpu"] ?? "0") ?? 0 };
}

describe(`a quota request for several GPU models (${databaseLabel()})`, () => {
  it("refuses a model named twice and a row without a model, each under its row", async () => {
    const admin = await contextOf(seeded.db, "vision-admin", NOW);
    const twice = await appErrorOf(executeCommand(createQuotaRequest, admin, { tenant: "vision-lab", project: PROJECT, justification: JUSTIFICATION, ...TWO_MODELS, "gpus.1.model": "H100" }));
    expect(twice.fields).toEqual({ "gpus.1.model": ["GPU model 2: H100 is already asked for as GPU model 1; change the amounts there, or choose another model."] });
    const unnamed = await appErrorOf(executeCommand(createQuotaRequest, admin, { tenant: "vision-lab", project: PROJECT, justification: JUSTIFICATION, ...TWO_MODELS, "gpus.1.model": "" }));
    expect(unnamed.fields).toEqual({ "gpus.1.model": ["GPU model 2: choose a model for the GPUs."] });
    const unknown = await appErrorOf(executeCommand(createQuotaRequest, admin, { tenant: "vision-lab", project: PROJECT, justification: JUSTIFICATION, ...TWO_MODELS, "gpus.1.model": "B200" }));
    expect(unknown.fields).toEqual({ "gpus.1.model": ["Choose a GPU model a node pool offers."] });
  });

  it("asks for H100 ×2 with burst 2 and L4 ×4, edits it into a revision, is approved with fewer H100, and both models reach the cluster", async () => {
    const before = await rendered();
    const admin = await contextOf(seeded.db, "vision-admin", NOW);
    const { request, assessment } = await executeCommand(createQuotaRequest, admin, { tenant: "vision-lab", project: PROJECT, justification: JUSTIFICATION, ...TWO_MODELS });
    expect(request.status).toBe("pending");
    // The lines are the truth; the row's single GPU columns keep the largest guarantee for the previous release.
    expect(request).toMatchObject({ gpuModel: "L4", gpuCount: 4 });
    expect(((await linesOfRequests(seeded.db, [request.id])).get(request.id) ?? []).filter((l) => l.flavor !== "default")).toEqual([
      { flavor: "H100", resource: "nvidia.com/gpu", guarantee: 2, burst: 2, lendLimit: null },
      { flavor: "L4", resource: "nvidia.com/gpu", guarantee: 4, burst: 0, lendLimit: null },
    ]);
    // Each model priced at its own rate; the capacity of each model judged apart.
    expect(assessment.estimate.lines.map((l) => [l.resource, l.quantity])).toEqual([
      ["gpu:H100", 2],
      ["gpu:L4", 4],
      ["cpu", 16],
      ["memory", 64],
    ]);
    expect(assessment.capacity.map((l) => l.resource)).toEqual(expect.arrayContaining(["gpu:H100", "gpu:L4"]));
    expect(assessment.sharing.map((s) => s.after.key)).toEqual(expect.arrayContaining(["gpu:H100", "gpu:L4"]));
    const [created] = await seeded.db.select().from(auditEvents).where(eq(auditEvents.targetId, request.id));
    expect(created!.after).toMatchObject({ gpus: [{ model: "H100", count: 2, burst: 2 }, { model: "L4", count: 4, burst: 0 }] });

    // The requester raises the L4s: a new revision, the old one kept with both models' lines, the diff naming the model.
    const edited = await executeCommand(editQuotaRequest, admin, { requestId: request.id, version: request.version, justification: JUSTIFICATION, ...TWO_MODELS, "gpus.1.count": "6" });
    expect(edited.changes.filter((c) => c.field !== "estimate")).toEqual([{ field: "gpus.L4.count", label: "L4 GPUs", before: "4", after: "6" }]);
    expect(edited.request).toMatchObject({ revision: 2, gpuModel: "L4", gpuCount: 6 });
    const [kept] = await seeded.db.select().from(quotaRequestRevisions).where(eq(quotaRequestRevisions.requestId, request.id));
    expect(kept!.lines.filter((l) => l.flavor !== "default")).toEqual([
      { flavor: "H100", resource: "nvidia.com/gpu", guarantee: 2, burst: 2 },
      { flavor: "L4", resource: "nvidia.com/gpu", guarantee: 4, burst: 0 },
    ]);
    const platform = await contextOf(seeded.db, "platform-admin", NOW);
    const detail = (await requestDetail(platform, request.id))!;
    expect(detail.conversation.revisions.map((r) => r.amounts.gpus)).toEqual([
      [{ model: "H100", count: 2, burst: 2 }, { model: "L4", count: 4, burst: 0 }],
      [{ model: "H100", count: 2, burst: 2 }, { model: "L4", count: 6, burst: 0 }],
    ]);

    // Approving with changes: the one-model shorthand cannot say which model; more than asked of a model is refused under its row.
    const version = edited.request.version;
    const shorthand = await appErrorOf(executeCommand(approveQuotaRequest, platform, { requestId: request.id, version, gpuCount: "1" }));
    expect(shorthand.fields).toEqual({ gpuCount: ["This request asks for 2 GPU models: give gpus, each model with its count and burst."] });
    const tooMany = await appErrorOf(executeCommand(approveQuotaRequest, platform, { requestId: request.id, version, "gpus.0.model": "H100", "gpus.0.count": "3", "gpus.1.model": "L4", "gpus.1.count": "6" }));
    expect(tooMany.fields).toEqual({ "gpus.0.count": ["Enter at most what was asked for."] });
    // As the approval form posts it: each model's row, H100 lowered to 1 (its burst kept), L4 as asked.
    const approved = await executeCommand(approveQuotaRequest, platform, { requestId: request.id, version, "gpus.0.model": "H100", "gpus.0.count": "1", "gpus.0.burst": "2", "gpus.1.model": "L4", "gpus.1.count": "6" });
    expect(approved.request.granted).toMatchObject({ gpus: [{ model: "H100", count: 1, burst: 2 }, { model: "L4", count: 6, burst: 0 }], gpuCount: 6 });
    const [grant] = await seeded.db.select().from(quotaGrants).where(eq(quotaGrants.requestId, request.id));
    expect(grant).toMatchObject({ gpuModel: "L4", gpuCount: 6 });
    expect((await linesOfGrants(seeded.db, [grant!.id])).get(grant!.id)!.filter((l) => l.flavor !== "default").map((l) => [l.flavor, l.guarantee, l.burst])).toEqual([
      ["H100", 1, 2],
      ["L4", 6, 0],
    ]);
    const row = (await seeded.db.select().from(quotaRequests).where(eq(quotaRequests.id, request.id)))[0]!;
    expect(row.status).toBe("approved");

    // The cluster: a flavour per model in the project's ClusterQueue, and the ResourceQuota's cap holding both (guarantee plus burst).
    const after = await rendered();
    const grown = [...after.gpuQuota].map(([flavor, q]) => [flavor, q.nominal - (before.gpuQuota.get(flavor)?.nominal ?? 0), q.borrowing - (before.gpuQuota.get(flavor)?.borrowing ?? 0)]).filter(([, n, b]) => n !== 0 || b !== 0);
    expect(grown.map(([, n, b]) => [n, b]).sort()).toEqual([
      [1, 2],
      [6, 0],
    ]);
    expect(after.hardGpus - before.hardGpus).toBe(1 + 2 + 6);
  });
});
