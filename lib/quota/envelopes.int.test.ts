import { asc, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { auditEvents, quotaGrants } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { kubeClientFromConfig, kubeConfigFor } from "@/lib/cluster/kube-client";
import { reconcileDue } from "@/lib/cluster/worker";
import { loadDesiredTenant } from "@/lib/cluster/desired-from-db";
import { config, parseConfig, type AllotConfig } from "@/lib/config";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf } from "@/test/fixtures";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { fingerprint, outcomeOf, projectIdOf, seededDatabase } from "@/test/tenancy";
import { approveQuotaRequest, createQuotaRequest } from "./commands/requests";
import { moveQuota, setTenantEnvelope } from "./commands/envelopes";
import { setProjectSharing } from "./commands/sharing";
import { effectiveQuotaAt } from "./effective";
import { tenantEnvelopeView } from "./envelope-queries";
import { grantsOfProjects } from "./store";

/**
 * A tenant's envelope and the moves its admins make inside it: the platform
 * sets it (never below what the projects hold), a tenant admin moves
 * guaranteed GPUs between two projects at once and the cluster follows, the
 * tenant's total never changes, nothing is half-written when a move is
 * refused, other tenants and members cannot move, and an approval beyond the
 * envelope raises it.
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
let db: Database;
let api: StandInApiServer;
beforeAll(async () => {
  db = seeded.db;
  api = await startStandInApiServer();
});
afterAll(async () => {
  await api?.close();
});

const as = (key: Parameters<typeof contextOf>[1]): Promise<CommandContext> => contextOf(db, key, NOW);
const h100 = async (project: string) => {
  const id = await projectIdOf(db, "vision-lab", project);
  const spans = (await grantsOfProjects(db, [id])).get(id)!;
  return effectiveQuotaAt(config().cluster.defaultProjectQuota, spans, NOW).gpus["nvidia.com/gpu"] ?? 0;
};
const hard = (namespace: string) => (api.get("v1", "ResourceQuota", namespace, "project-quota") as unknown as { spec: { hard: Record<string, string> } }).spec.hard["requests.nvidia.com/gpu"];
const envelopeRow = async () => (await tenantEnvelopeView(await as("vision-admin"), "vision-lab")).rows.find((r) => r.key === "gpu:H100")!;

describe(`quota envelopes and moves (${databaseLabel()})`, () => {
  it("the platform sets an envelope, never below what the projects hold, audited", async () => {
    // Before the envelope, the projects hold H100s from approved requests.
    for (const [project, gpuCount] of [
      ["detector-training", "8"],
      ["segmentation-research", "2"],
    ] as const) {
      const { request } = await executeCommand(createQuotaRequest, await as("vision-admin"), { tenant: "vision-lab", project, gpuModel: "H100", gpuCount, justification: "Held before the envelope existed." });
      await executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: request.id, version: request.version });
    }
    const held = (await h100("detector-training")) + (await h100("segmentation-research"));
    expect(held).toBeGreaterThan(0);
    const tooSmall = await appErrorOf(executeCommand(setTenantEnvelope, await as("platform-admin"), { tenant: "vision-lab", quota: "gpu:H100", guarantee: String(held - 1) }));
    expect(tooSmall.fields).toHaveProperty("guarantee");
    // Only the platform sets it; a tenant admin of the tenant may not, a foreign one does not even see it.
    expect(await outcomeOf(executeCommand(setTenantEnvelope, await as("vision-admin"), { tenant: "vision-lab", quota: "gpu:H100", guarantee: "64" }))).toBe("forbidden");
    expect(await outcomeOf(executeCommand(setTenantEnvelope, await as("language-admin"), { tenant: "vision-lab", quota: "gpu:H100", guarantee: "64" }))).toMatch(/forbidden|not_found/);

    // Guarantees across all tenants must fit the pools at their autoscaler minimum.
    const beyondMinimum = await appErrorOf(executeCommand(setTenantEnvelope, await as("platform-admin"), { tenant: "vision-lab", quota: "gpu:H100", guarantee: "1000" }));
    expect(beyondMinimum.fields?.guarantee?.[0]).toMatch(/autoscaler minimum/);
    await executeCommand(setTenantEnvelope, await as("platform-admin"), { tenant: "vision-lab", quota: "gpu:H100", guarantee: String(held + 4), burst: "8" });
    const row = await envelopeRow();
    expect(row.line).toMatchObject({ guarantee: held + 4, burst: 8 });
    expect(row.allocated).toBe(held);
    expect(row.unallocated).toBe(4);
    const [event] = await db.select().from(auditEvents).where(eq(auditEvents.action, "tenant.envelope.set"));
    expect(event!.after).toMatchObject({ quota: "gpu:H100", guarantee: held + 4, burst: 8 });
  });

  it("a tenant admin moves GPUs between two projects at once: the total stays, both namespaces follow on the cluster", async () => {
    const before = { detector: await h100("detector-training"), segmentation: await h100("segmentation-research") };
    const moved = await executeCommand(moveQuota, await as("vision-admin"), { tenant: "vision-lab", quota: "gpu:H100", from: "detector-training", to: "segmentation-research", amount: "2" });
    expect(moved).toMatchObject({ amount: 2, from: "detector-training", to: "segmentation-research" });
    expect(await h100("detector-training")).toBe(before.detector - 2);
    expect(await h100("segmentation-research")).toBe(before.segmentation + 2);
    expect((await envelopeRow()).allocated).toBe(before.detector + before.segmentation);
    const pair = await db.select().from(quotaGrants).where(eq(quotaGrants.transferId, moved.transferId)).orderBy(asc(quotaGrants.gpuCount));
    expect(pair.map((g) => [g.source, g.gpuCount])).toEqual([
      ["move", -2],
      ["move", 2],
    ]);

    const client = kubeClientFromConfig(kubeConfigFor(api.url));
    for (let i = 0; i < 5; i++) await reconcileDue({ db, settings: config().cluster, client, clock: () => NOW, workerId: "envelope-test", baseBackoffMs: 0, maxBackoffMs: 0 });
    expect(hard("vision-lab--detector-training")).toBe(String(before.detector - 2));
    expect(hard("vision-lab--segmentation-research")).toBe(String(before.segmentation + 2));
  });

  it("gives from and back to the unallocated part, within it", async () => {
    const before = await h100("segmentation-research");
    const over = await appErrorOf(executeCommand(moveQuota, await as("vision-admin"), { tenant: "vision-lab", quota: "gpu:H100", to: "segmentation-research", amount: "5" }));
    expect(over.fields).toHaveProperty("amount");
    await executeCommand(moveQuota, await as("vision-admin"), { tenant: "vision-lab", quota: "gpu:H100", to: "segmentation-research", amount: "4" });
    expect(await h100("segmentation-research")).toBe(before + 4);
    expect((await envelopeRow()).unallocated).toBe(0);
    await executeCommand(moveQuota, await as("vision-admin"), { tenant: "vision-lab", quota: "gpu:H100", from: "segmentation-research", amount: "1" });
    expect((await envelopeRow()).unallocated).toBe(1);
  });

  it("refuses what cannot be moved, naming the field, and writes nothing", async () => {
    const prints = await fingerprint(db);
    const cases: [Record<string, string>, string][] = [
      [{ from: "detector-training", to: "segmentation-research", amount: "1000" }, "amount"],
      [{ from: "detector-training", to: "detector-training", amount: "1" }, "to"],
      [{ from: "no-such-project", to: "detector-training", amount: "1" }, "from"],
      [{ from: "detector-training", to: "segmentation-research", amount: "1.5" }, "amount"],
      [{ from: "detector-training", to: "segmentation-research", amount: "0x10" }, "amount"],
    ];
    for (const [body, field] of cases) {
      const error = await appErrorOf(executeCommand(moveQuota, await as("vision-admin"), { tenant: "vision-lab", quota: "gpu:H100", ...body }));
      expect(error.code, JSON.stringify(body)).toBe("validation");
      expect(Object.keys(error.fields ?? {}), JSON.stringify(body)).toContain(field);
    }
    // A line without an envelope, and a model no pool offers.
    expect((await appErrorOf(executeCommand(moveQuota, await as("vision-admin"), { tenant: "vision-lab", quota: "gpu:L4", from: "detector-training", to: "segmentation-research", amount: "1" }))).fields).toHaveProperty("quota");
    expect((await appErrorOf(executeCommand(moveQuota, await as("vision-admin"), { tenant: "vision-lab", quota: "gpu:B200", from: "detector-training", to: "segmentation-research", amount: "1" }))).fields).toHaveProperty("quota");
    // Members, viewers and other tenants' admins cannot move.
    for (const who of ["data-scientist", "viewer", "language-admin"] as const) {
      expect(await outcomeOf(executeCommand(moveQuota, await as(who), { tenant: "vision-lab", quota: "gpu:H100", from: "detector-training", to: "segmentation-research", amount: "1" }))).toMatch(/forbidden|not_found/);
    }
    expect(await fingerprint(db)).toEqual(prints);
  });

  it("two moves of everything a project holds at once: one goes through, the other is refused, the total holds", async () => {
    const held = await h100("detector-training");
    const segmentation = await h100("segmentation-research");
    const unallocated = (await envelopeRow()).unallocated;
    const move = async (to: string) =>
      outcomeOf(executeCommand(moveQuota, await as("vision-admin"), { tenant: "vision-lab", quota: "gpu:H100", from: "detector-training", to, amount: String(held) }));
    const outcomes = await Promise.all([move("segmentation-research"), move("")]);
    expect(outcomes.sort()).toEqual(["ok", "validation"]);
    expect(await h100("detector-training")).toBe(0);
    // Exactly one of the two receivers got the GPUs, once.
    const gained = [(await h100("segmentation-research")) - segmentation, (await envelopeRow()).unallocated - unallocated];
    expect(gained.sort()).toEqual([0, held]);
  });

  it("an approval beyond the envelope raises it to what the projects hold, audited", async () => {
    const row = await envelopeRow();
    const { request } = await executeCommand(createQuotaRequest, await as("data-scientist"), {
      tenant: "vision-lab",
      project: "detector-training",
      gpuModel: "H100",
      gpuCount: String(row.unallocated + 3),
      justification: "More than the envelope holds: the platform decides.",
    });
    await executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: request.id, version: request.version });
    const after = await envelopeRow();
    expect(after.unallocated).toBe(0);
    expect(after.line.guarantee).toBe(row.line.guarantee + 3);
    const raised = await db.select().from(auditEvents).where(inArray(auditEvents.action, ["tenant.envelope.raised_by_approval"]));
    expect(raised).toHaveLength(1);
  });

  it("a tenant admin sets how a project shares (with Kueue): weight and lend limit reach the desired state; refused without Kueue", async () => {
    const globalConfig = globalThis as unknown as { allotConfig?: AllotConfig };
    const previous = globalConfig.allotConfig;
    try {
      globalConfig.allotConfig = parseConfig({ ALLOT_KUEUE: "0" });
      expect(await outcomeOf(executeCommand(setProjectSharing, await as("vision-admin"), { tenant: "vision-lab", project: "segmentation-research", fairShareWeight: "2" }))).toBe("conflict");
      const kueue = parseConfig({ ALLOT_KUEUE: "1" });
      globalConfig.allotConfig = kueue;
      expect(await outcomeOf(executeCommand(setProjectSharing, await as("data-scientist"), { tenant: "vision-lab", project: "detector-training", fairShareWeight: "2" }))).toBe("forbidden");
      const bad = await appErrorOf(executeCommand(setProjectSharing, await as("vision-admin"), { tenant: "vision-lab", project: "segmentation-research", quota: "gpu:H100", lendLimit: "1.5" }));
      expect(bad.fields).toHaveProperty("lendLimit");
      await executeCommand(setProjectSharing, await as("vision-admin"), { tenant: "vision-lab", project: "segmentation-research", fairShareWeight: "2.5", quota: "gpu:H100", lendLimit: "1" });
      const loaded = (await loadDesiredTenant(db, seeded.tenantId["vision-lab"]!, kueue.cluster, NOW))!.projects.find((p) => p.slug === "segmentation-research")!;
      expect(loaded.fairShareWeight).toBe(2.5);
      expect(loaded.quota.flavors!.find((f) => f.flavor === "H100")).toMatchObject({ lendLimit: 1 });
      // Empty lends all again.
      await executeCommand(setProjectSharing, await as("vision-admin"), { tenant: "vision-lab", project: "segmentation-research", quota: "gpu:H100", lendLimit: "" });
      const again = (await loadDesiredTenant(db, seeded.tenantId["vision-lab"]!, kueue.cluster, NOW))!.projects.find((p) => p.slug === "segmentation-research")!;
      expect(again.quota.flavors!.find((f) => f.flavor === "H100")).toMatchObject({ lendLimit: null });
    } finally {
      globalConfig.allotConfig = previous;
    }
  });
});
