import { and, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterScheduledChanges, notifications, quotaGrants, quotaRequests } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { projectTarget } from "@/lib/cluster/target-keys";
import { appErrorOf, auditLog, contextOf, countOf } from "@/test/fixtures";
import { actorOfPrincipal, addGrant, DAY, projectIdOf, seededDatabase, userWithEmail } from "@/test/tenancy";
import { requestQuotaExtension } from "./commands/extensions";
import { editQuotaRequest } from "./commands/request-edits";
import { approveQuotaRequest, rejectQuotaRequest } from "./commands/requests";
import { sweepQuotaTimeouts } from "./expiry";
import { insertGrant } from "./grant-store";
import { approvalQueue } from "./queries";

/**
 * Extending a time-bound grant on a real database: asking (refused for an
 * ended or permanent grant, another project's or tenant's grant, a viewer, an
 * expired collaborator, with nothing written), the approval queue's picture,
 * approval moving the grant's end with its scheduled change and audit event,
 * rejection leaving it, and the sweep expiring both requests at the new end.
 */
const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const OLD_END = new Date("2026-12-12T00:00:00.000Z");
const NEW_END = new Date("2027-01-11T00:00:00.000Z");
const GiB = 2 ** 30;
const TABLES = ["quota_requests", "quota_request_lines", "quota_request_events", "audit_events", "webhook_deliveries"] as const;

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let detector: string;
let chatEval: string;
let grant: string;

async function timeBoundGrant(projectId: string, endsAt: Date | null = OLD_END): Promise<string> {
  // In one transaction, as the commands write grants: the rollout trigger that gives lines to column-only rows runs at commit.
  return db.transaction((tx) => insertGrant(tx, {
    projectId,
    lines: [
      { flavor: "H100", resource: "nvidia.com/gpu", guarantee: 2, burst: 0, lendLimit: null },
      { flavor: "default", resource: "cpu", guarantee: 16, burst: 0, lendLimit: null },
      { flavor: "default", resource: "memory", guarantee: 64 * GiB, burst: 0, lendLimit: null },
    ],
    startsAt: SEEDED_AT,
    endsAt,
    source: "demo",
    createdAt: SEEDED_AT,
  }));
}

const ask = (who: Parameters<typeof contextOf>[1], input: Record<string, unknown>, now = NOW) =>
  contextOf(db, who, now).then((ctx) => executeCommand(requestQuotaExtension, ctx, { tenant: "vision-lab", project: "detector-training", grantId: grant, endsAt: "2027-01-11", justification: "The detector's training run needs four more weeks.", ...input }));

async function snapshot() {
  return Promise.all(TABLES.map((t) => countOf(db, t)));
}

beforeAll(async () => {
  db = seeded.db;
  detector = await projectIdOf(db, "vision-lab", "detector-training");
  chatEval = await projectIdOf(db, "language-models", "chat-eval");
  grant = await timeBoundGrant(detector);
});

describe("asking to extend a grant", () => {
  it("is refused, writing nothing, for a viewer, another tenant, an expired collaborator and grants that cannot be extended", async () => {
    const viewerId = await userWithEmail(db, "extension-viewer@example.com", SEEDED_AT);
    await addGrant(db, { projectId: detector, principalId: viewerId, role: "viewer", expiresAt: null, grantedBy: null, createdAt: SEEDED_AT });
    const theirs = await timeBoundGrant(chatEval, new Date(SEEDED_AT.getTime() + 90 * DAY));
    const permanent = await timeBoundGrant(detector, null);
    const before = await snapshot();
    const viewer = { db, actor: await actorOfPrincipal(db, viewerId), now: NOW };
    expect((await appErrorOf(executeCommand(requestQuotaExtension, viewer, { tenant: "vision-lab", project: "detector-training", grantId: grant, endsAt: "2027-01-11", justification: "I would like more time please." }))).code).toBe("forbidden");
    // Another tenant's admin with this tenant's path learns nothing; with its own path, this grant is not found there.
    expect((await appErrorOf(ask("language-admin", {}))).code).toBe("not_found");
    expect((await appErrorOf(ask("language-admin", { tenant: "language-models", project: "chat-eval" }))).code).toBe("not_found");
    // The collaborator on chat-eval, once their access expired, may not ask there.
    const expired = new Date(SEEDED_AT.getTime() + 61 * DAY);
    expect((await appErrorOf(ask("collaborator", { tenant: "language-models", project: "chat-eval", grantId: theirs, endsAt: "2027-06-01" }, expired))).code).toBe("not_found");
    // Ended, permanent, or an end not later than the current one.
    expect((await appErrorOf(ask("data-scientist", {}, new Date(OLD_END.getTime() + 1)))).code).toBe("conflict");
    expect((await appErrorOf(ask("data-scientist", { grantId: permanent }))).fields).toEqual({ grantId: [expect.stringMatching(/permanent/)] });
    expect((await appErrorOf(ask("data-scientist", { endsAt: "2026-12-10" }))).fields).toEqual({ endsAt: [expect.stringMatching(/after the grant's current end/)] });
    expect(await snapshot()).toEqual(before);
  });

  it("writes a pending request naming the grant, with its amounts, and refuses a second while it waits", async () => {
    const { request } = await ask("data-scientist", {});
    expect(request).toMatchObject({ status: "pending", extendsGrantId: grant, gpuModel: "H100", gpuCount: 2, cpuCores: 16, memoryBytes: 64 * GiB });
    expect(request.extendsFrom?.toISOString()).toBe(OLD_END.toISOString());
    expect(request.endsAt?.toISOString()).toBe(NEW_END.toISOString());
    expect((await appErrorOf(ask("vision-admin", {}))).code).toBe("conflict");
    // It is not edited into something else: cancelled and asked again.
    const ctx = await contextOf(db, "data-scientist", NOW);
    expect((await appErrorOf(executeCommand(editQuotaRequest, ctx, { requestId: request.id, version: request.version, cpuCores: "1", justification: "Something else entirely now." }))).code).toBe("conflict");
  });

  it("shows in the approval queue as an extension, with the cost of the added period beside the monthly rate", async () => {
    const queue = await approvalQueue(await contextOf(db, "platform-admin", NOW));
    const entry = queue!.find((e) => e.extension?.grantId === grant)!;
    const x = entry.extensionPicture!;
    expect(x.from.toISOString()).toBe(OLD_END.toISOString());
    expect(x.to.toISOString()).toBe(NEW_END.toISOString());
    expect(x.monthly).toBeGreaterThan(0);
    // 30 days of a 730-hour month, rounded once.
    expect(x.added).toEqual({ cost: Math.round(((x.monthly * 720) / 730) * 100) / 100, hours: 720 });
    // Nothing is added now: the quota after equals the quota now.
    expect(entry.assessment.after.quota).toEqual(entry.assessment.current.quota);
  });
});

describe("deciding an extension", () => {
  it("refuses amounts and an end beyond the one asked, then moves the grant's end with its scheduled change in one step", async () => {
    const [r] = await db.select().from(quotaRequests).where(and(eq(quotaRequests.extendsGrantId, grant), eq(quotaRequests.status, "pending")));
    const admin = await contextOf(db, "platform-admin", NOW);
    expect((await appErrorOf(executeCommand(approveQuotaRequest, admin, { requestId: r!.id, version: r!.version, cpuCores: "8" }))).fields).toHaveProperty("cpuCores");
    expect((await appErrorOf(executeCommand(approveQuotaRequest, admin, { requestId: r!.id, version: r!.version, endsAt: "2027-02-01" }))).fields).toHaveProperty("endsAt");
    expect((await appErrorOf(executeCommand(approveQuotaRequest, admin, { requestId: r!.id, version: r!.version, endsAt: "2026-12-11" }))).fields).toHaveProperty("endsAt");

    const result = await executeCommand(approveQuotaRequest, admin, { requestId: r!.id, version: r!.version });
    expect(result.complete).toBe(true);
    expect(result.request.status).toBe("approved");
    expect(result.request.clusterChangeId).not.toBeNull();
    const [g] = await db.select().from(quotaGrants).where(eq(quotaGrants.id, grant));
    expect(g!.endsAt?.toISOString()).toBe(NEW_END.toISOString());
    const scheduled = await db
      .select({ dueAt: clusterScheduledChanges.dueAt })
      .from(clusterScheduledChanges)
      .where(and(eq(clusterScheduledChanges.targetKey, projectTarget(detector)), isNull(clusterScheduledChanges.enqueuedAt)));
    const due = scheduled.map((s) => s.dueAt.toISOString());
    expect(due).toContain(NEW_END.toISOString());
    expect(due).not.toContain(OLD_END.toISOString());
    const event = (await auditLog(db)).find((e) => e.action === "quota_grant.extended");
    expect(event).toMatchObject({ targetType: "quota_grant", targetId: grant });
    const told = await db.select().from(notifications).where(eq(notifications.kind, "quota_request.decided"));
    expect(told.some((n) => n.title.includes("extended to"))).toBe(true);
  });

  it("leaves the grant as it is when rejected", async () => {
    const { request } = await ask("data-scientist", { endsAt: "2027-03-01" });
    const admin = await contextOf(db, "platform-admin", NOW);
    await executeCommand(rejectQuotaRequest, admin, { requestId: request.id, version: request.version, reason: "Ask again in January." });
    const [g] = await db.select().from(quotaGrants).where(eq(quotaGrants.id, grant));
    expect(g!.endsAt?.toISOString()).toBe(NEW_END.toISOString());
  });

  it("expires the grant's extension with it at the new end", async () => {
    await sweepQuotaTimeouts(db, new Date(NEW_END.getTime() + 1000));
    const [r] = await db.select().from(quotaRequests).where(and(eq(quotaRequests.extendsGrantId, grant), eq(quotaRequests.status, "expired")));
    expect(r).toBeDefined();
  });
});
