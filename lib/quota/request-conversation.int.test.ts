import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { auditEvents, instanceSettings, nodePools, notifications, quotaGrants, quotaRequestRevisions, rates } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf } from "@/test/fixtures";
import { addGrant, contextFor, DAY, fingerprint, newMember, projectIdOf, racingBehindLock, seededDatabase, tenantIdsBySlug, WRITABLE_TABLES } from "@/test/tenancy";
import { commentOnQuotaRequest } from "./commands/request-comments";
import { editQuotaRequest } from "./commands/request-edits";
import { approveQuotaRequest, createQuotaRequest } from "./commands/requests";
import { DEFAULT_QUOTA_POLICY } from "./policy";
import { requestDetail } from "./queries";
import { QUOTA_POLICY_KEY } from "./store";

/**
 * A request's conversation and revisions on a real database: who may comment
 * and read, who is told, editing into a new revision with what changed, and
 * an approval never deciding content its approver did not see, even when it
 * races the edit (on PostgreSQL the two really run at once).
 */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const GiB = 2 ** 30;
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
let db: Database;

beforeAll(async () => {
  db = seeded.db;
  await db.delete(nodePools).where(sql`true`);
  await db.delete(rates).where(sql`true`);
  await db.insert(nodePools).values([
    { name: "h100", gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 4, cpuPerNode: 200, memoryBytesPerNode: 2000 * GiB },
    { name: "cpu", nodeCount: 10, cpuPerNode: 64, memoryBytesPerNode: 256 * GiB },
  ]);
  await db.insert(rates).values([
    { resource: "gpu:H100", unitPrice: "4.000000", effectiveFrom: new Date("2026-01-01T00:00:00Z") },
    { resource: "cpu", unitPrice: "0.030000", effectiveFrom: new Date("2026-01-01T00:00:00Z") },
  ]);
  const policy = { ...DEFAULT_QUOTA_POLICY, secondApprovalAboveMonthlyCost: null };
  await db.insert(instanceSettings).values({ key: QUOTA_POLICY_KEY, value: policy, updatedAt: NOW }).onConflictDoUpdate({ target: instanceSettings.key, set: { value: policy } });
});

const as = (key: Parameters<typeof contextOf>[1]): Promise<CommandContext> => contextOf(db, key, NOW);
const ask = {
  tenant: "vision-lab",
  project: "detector-training",
  gpuModel: "H100",
  gpuCount: "4",
  endsAt: new Date(NOW.getTime() + 14 * DAY).toISOString(),
  justification: "Fine-tuning the detector on the new camera data.",
};
const asked = async () => (await executeCommand(createQuotaRequest, await as("data-scientist"), ask)).request;
const noticesOf = async (principalId: string, kind: string) => db.select().from(notifications).where(and(eq(notifications.principalId, principalId), eq(notifications.kind, kind)));
const editOf = (requestId: string, version: number, changes: Record<string, string>) => ({ requestId, version, ...ask, ...changes });

describe(`the conversation on a quota request (${databaseLabel()})`, () => {
  it("the requester and an approver write to each other; each side is told, and every comment is audited", async () => {
    const r = await asked();
    const dana = await as("data-scientist");
    const priya = await as("platform-admin");
    await executeCommand(commentOnQuotaRequest, priya, { requestId: r.id, body: "Could 2 GPUs do for the first week?" });
    expect(await noticesOf(dana.actor.principalId, "quota_request.comment")).toHaveLength(1);
    await executeCommand(commentOnQuotaRequest, { ...dana, now: new Date(NOW.getTime() + 60_000) }, { requestId: r.id, body: "  Two would double the training time; four, please.  " });
    // Priya wrote in the thread and is a platform admin of a pending request: told once, not twice.
    expect(await noticesOf(priya.actor.principalId, "quota_request.comment")).toHaveLength(1);
    expect(await noticesOf(dana.actor.principalId, "quota_request.comment")).toHaveLength(1);

    const detail = (await requestDetail(dana, r.id))!;
    expect(detail.conversation.comments!.map((c) => [c.author, c.byRequester, c.body])).toEqual([
      ["Priya Raman", false, "Could 2 GPUs do for the first week?"],
      ["Dana Okafor", true, "Two would double the training time; four, please."],
    ]);
    const audits = await db.select().from(auditEvents).where(and(eq(auditEvents.targetId, r.id), eq(auditEvents.action, "quota_request.commented")));
    expect(audits).toHaveLength(2);
    // A comment does not move the version: an approval quoting it still stands.
    await executeCommand(approveQuotaRequest, priya, { requestId: r.id, version: r.version });
  });

  it("the tenant's admins take part; other members, viewers and other tenants neither read nor write, and nothing is written", async () => {
    const r = await asked();
    const tenants = await tenantIdsBySlug(db);
    const projectId = await projectIdOf(db, "vision-lab", "detector-training");
    const colleague = await newMember(db, tenants["vision-lab"]!, "member", NOW);
    await addGrant(db, { projectId, principalId: colleague, role: "member", expiresAt: null, grantedBy: null, createdAt: NOW });
    const viewer = await newMember(db, tenants["vision-lab"]!, "viewer", NOW);

    await executeCommand(commentOnQuotaRequest, await as("vision-admin"), { requestId: r.id, body: "Approved on our side: the camera data is ready." });
    const before = await fingerprint(db, WRITABLE_TABLES);
    const outsiders: [CommandContext, string][] = [
      [await contextFor(db, colleague, NOW), "forbidden"],
      [await contextFor(db, viewer, NOW), "forbidden"],
      [await as("language-admin"), "not_found"],
      [await as("collaborator"), "not_found"],
    ];
    for (const [ctx, code] of outsiders) {
      expect((await appErrorOf(executeCommand(commentOnQuotaRequest, ctx, { requestId: r.id, body: "May I?" }))).code).toBe(code);
    }
    expect(await fingerprint(db, WRITABLE_TABLES)).toEqual(before);
    // The colleague sees the request itself, but not the conversation.
    expect((await requestDetail(await contextFor(db, colleague, NOW), r.id))!.conversation).toMatchObject({ comments: null, canComment: false, canEdit: false });
    expect(await requestDetail(await as("language-admin"), r.id)).toBeNull();
  });

  it("refuses an empty comment with a sentence that says what to do", async () => {
    const r = await asked();
    const error = await appErrorOf(executeCommand(commentOnQuotaRequest, await as("data-scientist"), { requestId: r.id, body: "   " }));
    expect(error.fields).toEqual({ body: ["Write a comment before sending it."] });
  });
});

describe(`editing a pending request (${databaseLabel()})`, () => {
  it("keeps the earlier revision, shows what changed, and tells whoever already took part", async () => {
    const r = await asked();
    const dana = await as("data-scientist");
    const priya = await as("platform-admin");
    await executeCommand(commentOnQuotaRequest, priya, { requestId: r.id, body: "Could 2 GPUs do?" });
    const { request: edited, changes } = await executeCommand(editQuotaRequest, dana, editOf(r.id, r.version, { gpuCount: "2", justification: "Two GPUs for the first week, as suggested." }));
    expect(edited).toMatchObject({ revision: 2, version: r.version + 1, gpuCount: 2, monthlyCost: (2 * 4 * 730).toFixed(2), status: "pending" });
    expect(changes.map((c) => [c.field, c.before, c.after])).toEqual([
      ["gpus.H100.count", "4", "2"],
      ["justification", ask.justification, "Two GPUs for the first week, as suggested."],
      ["estimate", expect.stringMatching(/^\$11,680\.00 a month/), expect.stringMatching(/^\$5,840\.00 a month/)],
    ]);
    const [kept] = await db.select().from(quotaRequestRevisions).where(eq(quotaRequestRevisions.requestId, r.id));
    expect(kept).toMatchObject({ revision: 1, gpuCount: 4, justification: ask.justification, monthlyCost: "11680.00" });
    const detail = (await requestDetail(priya, r.id))!;
    expect(detail.conversation.revisions.map((v) => [v.revision, v.amounts.gpus[0]?.count, v.changes.length])).toEqual([
      [1, 4, 0],
      [2, 2, 3],
    ]);
    expect(detail.picture!.amounts.gpus).toEqual([{ model: "H100", count: 2, burst: 0 }]);
    expect(await noticesOf(priya.actor.principalId, "quota_request.edited")).toHaveLength(1);
    const [audit] = await db.select().from(auditEvents).where(and(eq(auditEvents.targetId, r.id), eq(auditEvents.action, "quota_request.edited")));
    expect(audit!.before).toMatchObject({ revision: 1, gpus: [{ model: "H100", count: 4, burst: 0 }] });
    expect(audit!.after).toMatchObject({ revision: 2, gpus: [{ model: "H100", count: 2, burst: 0 }] });
  });

  it("an approval quoting the version from before the edit is refused and grants nothing; quoting the new one grants the edited content", async () => {
    const r = await asked();
    const priya = await as("platform-admin");
    const edited = (await executeCommand(editQuotaRequest, await as("data-scientist"), editOf(r.id, r.version, { gpuCount: "6" }))).request;
    const stale = await appErrorOf(executeCommand(approveQuotaRequest, priya, { requestId: r.id, version: r.version }));
    expect(stale.code).toBe("conflict");
    expect(stale.message).toMatch(/the requester edited it/);
    expect(await db.select().from(quotaGrants).where(eq(quotaGrants.requestId, r.id))).toEqual([]);
    await executeCommand(approveQuotaRequest, priya, { requestId: r.id, version: edited.version });
    const [grant] = await db.select().from(quotaGrants).where(eq(quotaGrants.requestId, r.id));
    expect(grant).toMatchObject({ gpuCount: 6 });
    expect((await requestDetail(priya, r.id))!.events.find((e) => e.kind === "approved")!.detail).toMatchObject({ revision: 2 });
  });

  it("an approval racing an edit: one wins, and a grant is only ever of the revision its approver saw", async () => {
    const r = await asked();
    const [dana, priya] = [await as("data-scientist"), await as("platform-admin")];
    const [approval, edit] = await racingBehindLock(db, seeded.handle.target.kind, sql`select id from quota_requests where id = ${r.id} for update`, 2, () =>
      Promise.allSettled([
        executeCommand(approveQuotaRequest, priya, { requestId: r.id, version: r.version }),
        executeCommand(editQuotaRequest, dana, editOf(r.id, r.version, { gpuCount: "8" })),
      ]),
    );
    expect([approval.status, edit.status].sort()).toEqual(["fulfilled", "rejected"]);
    const grants = await db.select().from(quotaGrants).where(eq(quotaGrants.requestId, r.id));
    if (approval.status === "fulfilled") {
      expect(grants.map((g) => g.gpuCount)).toEqual([4]);
      expect(await db.select().from(quotaRequestRevisions).where(eq(quotaRequestRevisions.requestId, r.id))).toEqual([]);
    } else {
      expect(grants).toEqual([]);
      expect((await requestDetail(priya, r.id))!.request).toMatchObject({ status: "pending", revision: 2 });
    }
  });

  it("only the requester edits, only while pending, and an edit must change something", async () => {
    const r = await asked();
    const before = await fingerprint(db, WRITABLE_TABLES);
    expect((await appErrorOf(executeCommand(editQuotaRequest, await as("vision-admin"), editOf(r.id, r.version, { gpuCount: "1" })))).code).toBe("forbidden");
    expect((await appErrorOf(executeCommand(editQuotaRequest, await as("language-admin"), editOf(r.id, r.version, { gpuCount: "1" })))).code).toBe("not_found");
    expect((await appErrorOf(executeCommand(editQuotaRequest, await as("data-scientist"), editOf(r.id, r.version, {})))).message).toMatch(/^This edit changes nothing/);
    expect((await appErrorOf(executeCommand(editQuotaRequest, await as("data-scientist"), editOf(r.id, r.version, { gpuCount: "-1" })))).fields?.gpuCount).toHaveLength(1);
    expect(await fingerprint(db, WRITABLE_TABLES)).toEqual(before);
    await executeCommand(approveQuotaRequest, await as("platform-admin"), { requestId: r.id, version: r.version });
    const decided = await appErrorOf(executeCommand(editQuotaRequest, await as("data-scientist"), editOf(r.id, r.version + 1, { gpuCount: "1" })));
    expect(decided.code).toBe("conflict");
    expect(decided.message).toMatch(/can no longer be edited/);
  });
});
