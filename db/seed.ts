import { eq, sql } from "drizzle-orm";
import { recordAudit } from "@/lib/audit/record";
import { DEMO_PERSONAS, type DemoPersona } from "@/lib/demo/personas";
import { seedDemoPoolHistory } from "@/lib/demo/pools";
import { namespaceFor } from "@/lib/tenancy/slugs";
import type { Database } from "./client";
import { instanceSettings, memberships, nodePools, platformAdmins, principals, projectGrants, projects, rates, tenants, users } from "./schema";
import { enqueuePlatformFlavorsChange, enqueueTenantChange } from "@/lib/cluster/outbox";

const SEEDED_KEY = "demo_seeded_at";
const SEED_LOCK_KEY = 7_418_003;
const DAY = 86_400_000;

/**
 * Demo data for the embedded default: three tenants, four projects and the
 * personas of the sign-in page. Runs once per database (a marker row records
 * it); returns false when it had already run.
 */
export async function seedDemoData(db: Database, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    // Replicas starting together take turns; the second then finds the marker.
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_KEY})`);
    const [done] = await tx.select().from(instanceSettings).where(eq(instanceSettings.key, SEEDED_KEY));
    if (done) return false;

    const tenantRows = await tx
      .insert(tenants)
      .values([
        { slug: "vision-lab", name: "Vision Lab", costCentre: "CC-4100", isolationTier: "shared", createdAt: now },
        { slug: "language-models", name: "Language Models", costCentre: "CC-4200", isolationTier: "dedicated", createdAt: now },
        { slug: "robotics", name: "Robotics", costCentre: "CC-4300", isolationTier: "shared", createdAt: now },
      ])
      .returning();
    const tenant = (slug: string) => tenantRows.find((t) => t.slug === slug)!;

    const projectSpecs = [
      ["vision-lab", "detector-training", "Detector training", "Object detection models for the warehouse cameras."],
      ["vision-lab", "segmentation-research", "Segmentation research", "Exploratory work on instance segmentation."],
      ["language-models", "chat-eval", "Chat evaluation", "Evaluation harness for the assistant models."],
      ["language-models", "pretraining", "Pretraining", "Long-running pretraining jobs on the H100 pool."],
    ] as const;
    const projectRows = await tx
      .insert(projects)
      .values(
        projectSpecs.map(([t, slug, name, description]) => ({
          tenantId: tenant(t).id,
          slug,
          name,
          description,
          namespace: namespaceFor(t, slug),
          createdAt: now,
        })),
      )
      .returning();
    const project = (slug: string) => projectRows.find((p) => p.slug === slug)!;

    const principalOf = new Map<string, string>();
    for (const persona of DEMO_PERSONAS) principalOf.set(persona.key, await createUser(tx, persona, now));
    const who = (key: string) => principalOf.get(key)!;

    await tx.insert(platformAdmins).values({ principalId: who("platform-admin"), source: "seed", grantedAt: now });
    await tx.insert(memberships).values([
      { tenantId: tenant("vision-lab").id, principalId: who("vision-admin"), role: "tenant_admin", createdAt: now },
      { tenantId: tenant("language-models").id, principalId: who("language-admin"), role: "tenant_admin", createdAt: now },
      { tenantId: tenant("vision-lab").id, principalId: who("data-scientist"), role: "member", createdAt: now },
      { tenantId: tenant("language-models").id, principalId: who("viewer"), role: "viewer", createdAt: now },
    ]);
    await tx.insert(projectGrants).values([
      { projectId: project("detector-training").id, principalId: who("data-scientist"), role: "member", grantedBy: who("vision-admin"), createdAt: now },
      {
        projectId: project("chat-eval").id,
        principalId: who("collaborator"),
        role: "member",
        expiresAt: new Date(now.getTime() + 60 * DAY),
        grantedBy: who("language-admin"),
        createdAt: now,
      },
    ]);

    // The demo cluster follows the seeded state like any other change (record-only by default): the
    // platform's ResourceFlavors first (with Kueue on), so the tenants' queues never wait for them.
    await enqueuePlatformFlavorsChange(tx, { reason: "demo data seeded", at: now });
    for (const t of tenantRows) await enqueueTenantChange(tx, { tenantId: t.id, reason: "demo data seeded", at: now });

    // The demo cluster's node pools, their size history (lib/demo/pools.ts) and rate card (an older H100 price, so the history shows).
    const GiB = 2 ** 30;
    // Their hardware as GKE and GPU feature discovery label it; GPU nodes carry the GPU operator's usual taint.
    const GPU_TAINT = { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" as const };
    const pool = (name: string, gpu: Record<string, string> = {}) => ({ nodeLabels: { "cloud.google.com/gke-nodepool": name, ...gpu }, nodeTaints: Object.keys(gpu).length > 0 ? [GPU_TAINT] : [] });
    const poolRows = await tx.insert(nodePools).values([
      // The autoscaler keeps at least 3 H100 nodes: the 24 GPUs the tenants' envelopes guarantee (lib/demo/quota.ts). Training and preemptible work only: serving runs on MIG slices.
      { name: "h100-pool", gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 4, minNodes: 4, maxNodes: 6, cpuPerNode: 208, memoryBytesPerNode: 1843 * GiB, tiers: ["training", "preemptible"], offeredGpuResources: [{ resource: "nvidia.com/gpu", perNode: 8 }], createdAt: now, ...pool("h100-pool", { "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" }) },
      {
        name: "a100-mig",
        gpuModel: "A100 1g.10gb",
        gpuResource: "nvidia.com/mig-1g.10gb",
        gpusPerNode: 56,
        offeredGpuResources: [{ resource: "nvidia.com/mig-1g.10gb", perNode: 56 }],
        gpuSharing: "mig" as const,
        // Serving is pinned to MIG slices; training keeps whole GPUs.
        tiers: ["serving"],
        nodeCount: 2,
        cpuPerNode: 96,
        memoryBytesPerNode: 1152 * GiB,
        createdAt: now,
        ...pool("a100-mig", { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "8", "nvidia.com/mig.strategy": "mixed", "nvidia.com/mig.config": "all-1g.10gb" }),
      },
      { name: "cpu-general", gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 20, cpuPerNode: 64, memoryBytesPerNode: 256 * GiB, createdAt: now, ...pool("cpu-general") },
      { name: "l4-inference", gpuModel: "L4", gpuResource: "nvidia.com/gpu", gpusPerNode: 4, offeredGpuResources: [{ resource: "nvidia.com/gpu", perNode: 4 }], nodeCount: 6, cpuPerNode: 48, memoryBytesPerNode: 192 * GiB, createdAt: now, ...pool("l4-inference", { "nvidia.com/gpu.product": "NVIDIA-L4" }) },
    ]).returning();
    await seedDemoPoolHistory(tx, poolRows, now);
    const rateCardFrom = new Date("2026-01-01T00:00:00.000Z");
    await tx.insert(rates).values([
      { resource: "gpu:H100", unitPrice: "4.60", effectiveFrom: new Date("2025-06-01T00:00:00.000Z"), createdAt: now },
      ...(
        [
          ["gpu:H100", "4.10"],
          ["gpu:A100 1g.10gb", "0.55"],
          ["gpu:L4", "0.80"],
          ["cpu", "0.031"],
          ["memory", "0.004"],
          ["storage", "0.08"],
          ["inference", "0.02"],
        ] as const
      ).map(([resource, unitPrice]) => ({ resource, unitPrice, effectiveFrom: rateCardFrom, createdAt: now })),
    ]);

    await tx.insert(instanceSettings).values({ key: SEEDED_KEY, value: now.toISOString(), updatedAt: now });
    await recordAudit(tx, {
      actor: { principalId: null, label: "system:seed" },
      at: now,
      tenantId: null,
      action: "demo.seeded",
      target: { type: "instance", id: "demo" },
      after: { tenants: tenantRows.map((t) => t.slug), projects: projectRows.map((p) => p.slug), personas: DEMO_PERSONAS.map((p) => p.email) },
    });
    return true;
  });
}

async function createUser(tx: Database, persona: DemoPersona, now: Date): Promise<string> {
  const [principal] = await tx.insert(principals).values({ kind: "user", displayName: persona.name, createdAt: now }).returning({ id: principals.id });
  await tx.insert(users).values({ principalId: principal!.id, email: persona.email });
  return principal!.id;
}
