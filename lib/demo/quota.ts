import { eq, inArray } from "drizzle-orm";
import type { Database } from "@/db/client";
import { nodePools, principals, projectQuotaSettings, projects, quotaRequestEvents, quotaRequests, tenantQuotaEnvelopes, tenants, users } from "@/db/schema";
import { enqueueProjectChange } from "@/lib/cluster/outbox";
import { burstFields, GiB, gpuAmountsOf, type QuotaAmounts } from "@/lib/quota/amounts";
import type { DemoProjectRef, DemoProjectSlug } from "./usage";
import { insertGrant, insertRequestLines } from "@/lib/quota/grant-store";
import { columnGpuOfLines, linesOfAmounts } from "@/lib/quota/lines";
import { monthlyCost, ratesInForce } from "@/lib/quota/cost";
import { loadRates } from "@/lib/quota/store";
import { gpuResourcesByModel } from "@/lib/quota/pool-profiles";

/**
 * The quota the demo usage runs under. Without it the demo told two stories
 * at once: "Detector training: GPUs none, CPU 4" beside 1,510 H100 GPU-hours.
 * Each demo project holds one permanent grant, from an approved request, that
 * covers the peak of what lib/demo/usage.ts generates for it (CPU and memory
 * counted as max(requested, used), as the usage is), so every hour of demo
 * usage fits within the project's effective quota even without the
 * platform's starting quota. The grants start where the usage window starts.
 *
 * The peaks, from the generators:
 * - pretraining: 16 H100; CPU 192 requested, used up to 1.08 × 192 = 207.4;
 *   memory 1,536 GiB requested, used up to 1,612.8; storage grows to 42,000 GiB;
 * - detector-training: 8 H100; CPU 8 + 10 × 8 = 88; memory 32 + 80 × 8 = 672 GiB; storage 6,500 GiB;
 * - segmentation-research: 4 L4; CPU 16; memory 64 GiB; storage 1,800 GiB;
 * - chat-eval: 14 MIG slices; CPU used up to 6 + 26 × 1.15 = 35.9; memory used up to 126 GiB; storage 900 GiB.
 *
 * The guarantees fit the pools as they stand (nodes present, not the
 * autoscaler's maximum): 24 of 32 H100, 4 of 24 L4, 14 of 112 MIG slices.
 * lib/demo/story.int.test.ts checks all of this against the seeded rows.
 *
 * Detector training's preemptible sweeps (lib/demo/workloads.ts) borrow CPU
 * and memory beside their H100s: a pod asks for all three, and Kueue admits
 * it on borrowed quota only where every resource it asks for may borrow, so a
 * GPU burst without a CPU and memory burst would admit nothing.
 * lib/demo/workloads.int.test.ts checks the story's workloads against the
 * ClusterQueues the demo renders.
 */
export interface DemoGrantSpec {
  slug: DemoProjectSlug;
  /** A persona email (db/seed.ts): who asked. */
  requestedBy: string;
  gpuModel: string;
  gpuCount: number;
  /** GPUs it may borrow beyond the guarantee for preemptible work (with Kueue); none when left out. */
  gpuBurst?: number;
  /** CPU cores and memory its preemptible work may borrow beside the GPUs; none when left out. */
  cpuBurst?: number;
  memoryBurstGiB?: number;
  cpuCores: number;
  memoryGiB: number;
  storageGiB: number;
  justification: string;
}

/** Marks the demo requests wherever a request is shown (queue, request page, quota page). */
export const DEMO_REQUEST_PREFIX = "Demo data: ";
const DECIDED_BY = "priya@platform.allot.demo";
const DAY_MS = 86_400_000;

export const DEMO_GRANTS: readonly DemoGrantSpec[] = [
  {
    slug: "pretraining",
    requestedBy: "bo@language.allot.demo",
    gpuModel: "H100",
    gpuCount: 16,
    cpuCores: 208,
    memoryGiB: 1664,
    storageGiB: 42_000,
    justification: "two H100 nodes for the long pretraining runs, with their checkpoints.",
  },
  {
    slug: "detector-training",
    requestedBy: "dana@vision.allot.demo",
    gpuModel: "H100",
    gpuCount: 8,
    // Hyper-parameter sweeps borrow the pretraining GPUs that pretraining lends, and are reclaimed first.
    gpuBurst: 8,
    // Two sweeps of 4 H100, 16 cores and 128 GiB each.
    cpuBurst: 32,
    memoryBurstGiB: 256,
    cpuCores: 88,
    memoryGiB: 672,
    storageGiB: 6_500,
    justification: "one H100 node for weekday detector training runs and the camera datasets, and up to 8 more H100 (with 32 cores and 256 GiB) borrowed for preemptible sweeps.",
  },
  {
    slug: "segmentation-research",
    requestedBy: "alex@vision.allot.demo",
    gpuModel: "L4",
    gpuCount: 4,
    cpuCores: 16,
    memoryGiB: 64,
    storageGiB: 1_800,
    justification: "four L4 GPUs for exploratory segmentation work.",
  },
  {
    slug: "chat-eval",
    requestedBy: "bo@language.allot.demo",
    gpuModel: "A100 1g.10gb",
    gpuCount: 14,
    cpuCores: 36,
    memoryGiB: 128,
    storageGiB: 900,
    justification: "MIG slices to serve the evaluation harness in working hours.",
  },
];

/**
 * The tenants' envelopes: exactly what their projects hold, so the demo's
 * GPU guarantees (24 H100) fit what the H100 pool holds at its autoscaler
 * minimum (4 nodes, 32 H100) with 8 to spare for the pending request, and
 * burst for Vision Lab's preemptible sweeps.
 */
export const DEMO_ENVELOPES: readonly { tenant: string; gpuModel: string; guarantee: number; burst: number }[] = [
  { tenant: "vision-lab", gpuModel: "H100", guarantee: 8, burst: 8 },
  { tenant: "vision-lab", gpuModel: "L4", guarantee: 4, burst: 0 },
  { tenant: "language-models", gpuModel: "H100", guarantee: 16, burst: 0 },
  { tenant: "language-models", gpuModel: "A100 1g.10gb", guarantee: 14, burst: 0 },
];

/** How the demo projects share: pretraining keeps 8 of its 16 H100 for restarts (lends the rest) and weighs twice in its cohort. */
export const DEMO_SHARING: readonly { slug: DemoProjectSlug; fairShareWeight: number; lend?: { gpuModel: string; limit: number } }[] = [{ slug: "pretraining", fairShareWeight: 2, lend: { gpuModel: "H100", limit: 8 } }];

/**
 * Write the demo requests (approved: in record-only mode nothing is marked
 * applied) and their grants, from `startsAt` on, in the caller's transaction,
 * and queue each project's cluster change so its ResourceQuota follows.
 */
export async function seedDemoQuota(tx: Database, refs: readonly DemoProjectRef[], startsAt: Date, now: Date): Promise<number> {
  const emails = [...new Set([DECIDED_BY, ...DEMO_GRANTS.map((g) => g.requestedBy)])];
  const people = await tx.select({ id: principals.id, email: users.email }).from(users).innerJoin(principals, eq(principals.id, users.principalId)).where(inArray(users.email, emails));
  const principalOf = (email: string) => people.find((p) => p.email === email)?.id ?? null;
  // Each requestable profile's resource, a mixed MIG pool's further profiles too.
  const resourceOf = gpuResourcesByModel(await tx.select({ gpuModel: nodePools.gpuModel, gpuResource: nodePools.gpuResource, gpusPerNode: nodePools.gpusPerNode, gpuProfiles: nodePools.gpuProfiles }).from(nodePools));
  const decidedBy = principalOf(DECIDED_BY);
  // Asked and approved the day before the usage starts, so the history reads in order.
  const askedAt = new Date(startsAt.getTime() - DAY_MS);
  const decidedAt = new Date(startsAt.getTime() - DAY_MS / 2);
  // Each request carries the estimate a real one would have had when asked (the rate card then), not a zero.
  const pricesWhenAsked = ratesInForce(await loadRates(tx), askedAt);
  let written = 0;
  for (const spec of DEMO_GRANTS) {
    const ref = refs.find((r) => r.slug === spec.slug);
    const gpuResource = resourceOf.get(spec.gpuModel);
    if (!ref || !gpuResource) continue;
    const amounts: QuotaAmounts = {
      gpus: gpuAmountsOf([{ model: spec.gpuModel, count: spec.gpuCount, burst: spec.gpuBurst ?? 0 }]),
      cpuCores: spec.cpuCores,
      memoryBytes: spec.memoryGiB * GiB,
      storageBytes: spec.storageGiB * GiB,
      ...burstFields({ cpuBurst: spec.cpuBurst, memoryBurstBytes: (spec.memoryBurstGiB ?? 0) * GiB }),
    };
    const lines = linesOfAmounts(amounts, { [spec.gpuModel]: gpuResource });
    const requester = principalOf(spec.requestedBy);
    const [request] = await tx
      .insert(quotaRequests)
      .values({
        tenantId: ref.tenantId,
        projectId: ref.projectId,
        requestedBy: requester,
        // The one model the previous release reads (columnGpuOfLines); the lines hold them all.
        gpuModel: columnGpuOfLines(lines).gpuModel,
        gpuCount: columnGpuOfLines(lines).gpuCount,
        cpuCores: amounts.cpuCores,
        memoryBytes: amounts.memoryBytes,
        storageBytes: amounts.storageBytes,
        endsAt: null,
        monthlyCost: monthlyCost(amounts, pricesWhenAsked).monthly.toFixed(2),
        justification: `${DEMO_REQUEST_PREFIX}${spec.justification}`,
        status: "approved",
        decidedBy,
        decidedAt,
        decisionNote: "Demo data, seeded with the demo usage.",
        createdAt: askedAt,
      })
      .returning({ id: quotaRequests.id });
    await tx.insert(quotaRequestEvents).values([
      { requestId: request!.id, at: askedAt, actorPrincipalId: requester, actorLabel: spec.requestedBy, kind: "created" },
      { requestId: request!.id, at: decidedAt, actorPrincipalId: decidedBy, actorLabel: DECIDED_BY, kind: "approved", detail: { note: "Demo data, seeded with the demo usage." } },
    ]);
    await insertRequestLines(tx, request!.id, lines);
    await insertGrant(tx, { projectId: ref.projectId, requestId: request!.id, lines, startsAt, endsAt: null, source: "demo", createdAt: now });
    await enqueueProjectChange(tx, { tenantId: ref.tenantId, projectId: ref.projectId, reason: "demo quota seeded", at: now });
    written += 1;
  }
  const tenantIds = new Map((await tx.select({ id: tenants.id, slug: tenants.slug }).from(tenants)).map((t) => [t.slug, t.id]));
  for (const e of DEMO_ENVELOPES) {
    const tenantId = tenantIds.get(e.tenant);
    const resource = resourceOf.get(e.gpuModel);
    if (!tenantId || !resource) continue;
    await tx.insert(tenantQuotaEnvelopes).values({ tenantId, flavor: e.gpuModel, resource, guarantee: String(e.guarantee), burst: String(e.burst), updatedBy: decidedBy, updatedAt: decidedAt });
  }
  for (const s of DEMO_SHARING) {
    const ref = refs.find((r) => r.slug === s.slug);
    if (!ref) continue;
    await tx.update(projects).set({ fairShareWeight: String(s.fairShareWeight) }).where(eq(projects.id, ref.projectId));
    const resource = s.lend && resourceOf.get(s.lend.gpuModel);
    if (s.lend && resource) await tx.insert(projectQuotaSettings).values({ projectId: ref.projectId, flavor: s.lend.gpuModel, resource, lendLimit: String(s.lend.limit), updatedBy: decidedBy, updatedAt: decidedAt });
  }
  return written;
}

