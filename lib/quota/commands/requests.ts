import "server-only";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { projects, quotaRequests } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import type { CommandContext } from "@/lib/auth/context";
import { can, decisionConflict } from "@/lib/auth/policy";
import { enqueueProjectChange } from "@/lib/cluster/outbox";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { enqueueWebhookEvent } from "@/lib/notify/webhooks";
import { uuidInput, versionInput } from "@/lib/tenancy/inputs";
import { assertProjectOpen, assertTenantActive, projectBySlugs } from "@/lib/tenancy/lookup";
import { onProject, projectAddress } from "@/lib/tenancy/targets";
import { amountFields, cpuBurstInput, gpuBurstInput, memoryBurstInput } from "../amount-inputs";
import { amountProblems, amountsOf, burstFields, isEmpty, type QuotaAmounts } from "../amounts";
import { insertGrant, linesOfRequests } from "../grant-store";
import { raiseEnvelopeToHoldings } from "./envelopes";
import { lockGuaranteeSum } from "../envelope-store";
import { linesOfAmounts } from "../lines";
import { grantedColumn, requestAmountsOf, sameAmounts } from "../request-amounts";
import { assessRequest, UnknownGpuModelError } from "../assess";
import { minimumProblem } from "../sharing-arithmetic";
import { requestPath } from "../places";
import { describeAmounts } from "../view-helpers";
import { gpuResourcesByModel } from "../pool-profiles";
import { loadPools } from "../store";

import { addEvent, announceDecision, insertPendingRequest, justificationInput, lockPending, markApproved, optionalEnd, requestById, type RequestRow } from "./request-parts";
import { approveExtension } from "./extensions";
import { FILL_IN, FUTURE_DATE, NO_POOL_OFFERS, TELL_REQUESTER_WHY, atMostChars } from "@/lib/input/messages";

export { requestPath };
export { addEvent, justificationInput, optionalEnd, requestById };

const SYSTEM: AuditActor = { principalId: null, label: "system:auto-approval" };

/**
 * Turn a request into a grant and enqueue the project's cluster change, in
 * the caller's transaction: the grant and the change commit together.
 */
async function grantAndApply(tx: Database, request: RequestRow, amounts: QuotaAmounts, endsAt: Date | null, gpuResource: string | null, at: Date, actor: AuditActor): Promise<number> {
  const lines = linesOfAmounts(amounts, gpuResource);
  await insertGrant(tx, { projectId: request.projectId, requestId: request.id, lines, startsAt: at, endsAt, createdAt: at });
  await raiseEnvelopeToHoldings(tx, request.tenantId, lines, actor, at);
  return enqueueProjectChange(tx, { tenantId: request.tenantId, projectId: request.projectId, reason: "quota request approved", at });
}

/** What a request asked for: its columns hold the guarantees, its GPU line the burst. */
async function amountsOfRequest(db: Database, r: RequestRow): Promise<QuotaAmounts> {
  const lines = (await linesOfRequests(db, [r.id])).get(r.id) ?? [];
  return requestAmountsOf(r, lines);
}


export const createQuotaRequest = defineCommand({
  name: "createQuotaRequest",
  input: projectAddress.extend({ ...amountFields, endsAt: optionalEnd, justification: justificationInput }),
  target: onProject("project.quota.request"),
  async run(ctx, input, { tenantId, projectId }) {
    const amounts = amountsOf(input);
    const problems = amountProblems(amounts, { burstAllowed: config().cluster.render.kueue.enabled });
    if (problems) throw new AppError("validation", undefined, problems);
    if (input.endsAt && input.endsAt.getTime() <= ctx.now.getTime()) throw new AppError("validation", undefined, { endsAt: [FUTURE_DATE] });
    const settings = config().cluster;
    return ctx.db.transaction(async (tx) => {
      const { tenant, project } = await projectBySlugs(tx, input.tenant, input.project);
      assertTenantActive(tenant);
      assertProjectOpen(project);
      // One request of a project is judged at a time: the cumulative cap of automatic approval counts the grants the one before wrote.
      await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).for("no key update");
      // A rule may approve GPUs (the cost rule): it reads every tenant's guarantees, taking turns with approvals.
      if (amounts.gpuCount > 0) await lockGuaranteeSum(tx);
      let assessment;
      try {
        assessment = await assessRequest(tx, settings, projectId, amounts, ctx.now);
      } catch (error) {
        if (error instanceof UnknownGpuModelError) throw new AppError("validation", undefined, { gpuModel: [NO_POOL_OFFERS] });
        throw error;
      }
      const actor = auditActorOf(ctx.actor);
      const request = await insertPendingRequest(tx, {
        tenantId,
        projectId,
        requestedBy: ctx.actor.principalId,
        actor,
        amounts,
        lines: linesOfAmounts(amounts, assessment.gpuResource),
        endsAt: input.endsAt ?? null,
        justification: input.justification,
        monthly: assessment.estimate.monthly,
        at: ctx.now,
      });
      await recordAudit(tx, { actor, at: ctx.now, tenantId, action: "quota_request.created", target: { type: "quota_request", id: request.id }, after: { ...amounts, endsAt: input.endsAt ?? null } });
      const link = requestPath(tenant.slug, project.slug, request.id);
      await enqueueWebhookEvent(tx, "request.created", { text: `${ctx.actor.displayName} asks for ${describeAmounts(amounts)} on ${tenant.slug}/${project.slug}`, requestId: request.id, tenant: tenant.slug, project: project.slug, link }, ctx.now);

      // A rule never guarantees GPUs the pools would not hold at their autoscaler minimum: a person decides (and is told why).
      if (!assessment.auto.auto || minimumProblem(assessment.sharing)) return { request, autoApproved: false, assessment };
      const changeId = await grantAndApply(tx, request, amounts, input.endsAt ?? null, assessment.gpuResource, ctx.now, SYSTEM);
      const [approved] = await tx
        .update(quotaRequests)
        .set({ status: "auto_approved", decidedAt: ctx.now, decisionNote: `Approved automatically: ${assessment.auto.rule}.`, clusterChangeId: changeId, version: request.version + 1 })
        .where(eq(quotaRequests.id, request.id))
        .returning();
      await addEvent(tx, request.id, SYSTEM, "auto_approved", ctx.now, { rule: assessment.auto.rule });
      await recordAudit(tx, { actor: SYSTEM, at: ctx.now, tenantId, action: "quota_request.auto_approved", target: { type: "quota_request", id: request.id }, after: { rule: assessment.auto.rule } });
      await announceDecision(tx, approved!, "approved automatically", ctx.now, approved!.decisionNote);
      return { request: approved!, autoApproved: true, assessment };
    });
  },
});


/** Deciding is the platform's; people who cannot even see the request learn nothing about it (not found). */
const decisionTarget = async (ctx: CommandContext, input: { requestId: string }) => {
  const r = await requestById(ctx.db, input.requestId);
  const project = { kind: "project" as const, tenantId: r.tenantId, projectId: r.projectId };
  if (!can(ctx.actor, "quota.decide", { kind: "platform" }, ctx.now) && !can(ctx.actor, "project.quota.view", project, ctx.now)) throw new AppError("not_found", "No such quota request.");
  return { action: "quota.decide" as const, resource: { kind: "platform" as const } };
};


/** A field of "approve with changes": left empty, it grants what was asked. */
const changedAmount = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === "" || v === null ? undefined : v), schema.optional());

export const approveQuotaRequest = defineCommand({
  name: "approveQuotaRequest",
  input: z.object({
    requestId: uuidInput,
    version: versionInput,
    /** Approve with changes: less than asked, or for a shorter time. Omitted fields grant what was asked. */
    gpuCount: changedAmount(amountFields.gpuCount),
    gpuBurst: changedAmount(gpuBurstInput),
    cpuCores: changedAmount(amountFields.cpuCores),
    cpuBurst: changedAmount(cpuBurstInput),
    memory: changedAmount(amountFields.memory),
    memoryBurst: changedAmount(memoryBurstInput),
    storage: changedAmount(amountFields.storage),
    endsAt: optionalEnd,
    note: z.string().trim().max(2000, atMostChars(2000)).optional(),
  }),
  target: decisionTarget,
  async run(ctx, input) {
    return ctx.db.transaction(async (tx) => {
      const r = await lockPending(tx, input.requestId, input.version);
      const conflict = decisionConflict(ctx.actor, r, ctx.now);
      if (conflict) throw new AppError("forbidden", conflict);
      // An extension moves its grant's end; it grants no amounts of its own.
      if (r.extendsGrantId) return approveExtension(tx, ctx, r, input);
      const asked = await amountsOfRequest(tx, r);
      // After a first approval with changes, what it granted is the default the second approver confirms.
      const proposed = r.granted;
      const pick = (given: number | undefined, max: number, field: string, errors: Record<string, string[]>, fallback = max) => {
        // An empty field arrives as undefined (changedAmount) and grants what was asked; 0 grants none.
        if (given === undefined) return fallback;
        if (given > max) errors[field] = ["Enter at most what was asked for."];
        return given;
      };
      const errors: Record<string, string[]> = {};
      // A first approval's burst left out is none (not what was asked).
      const proposedBurst = (field: "gpuBurst" | "cpuBurst" | "memoryBurstBytes") => (proposed ? (proposed[field] ?? 0) : undefined);
      const granted: QuotaAmounts = {
        gpuModel: asked.gpuModel,
        gpuCount: pick(input.gpuCount, asked.gpuCount, "gpuCount", errors, proposed?.gpuCount),
        cpuCores: pick(input.cpuCores, asked.cpuCores, "cpuCores", errors, proposed?.cpuCores),
        memoryBytes: pick(input.memory, asked.memoryBytes, "memory", errors, proposed?.memoryBytes),
        storageBytes: pick(input.storage, asked.storageBytes, "storage", errors, proposed?.storageBytes),
        ...burstFields({
          gpuBurst: pick(input.gpuBurst, asked.gpuBurst ?? 0, "gpuBurst", errors, proposedBurst("gpuBurst")),
          cpuBurst: pick(input.cpuBurst, asked.cpuBurst ?? 0, "cpuBurst", errors, proposedBurst("cpuBurst")),
          memoryBurstBytes: pick(input.memoryBurst, asked.memoryBurstBytes ?? 0, "memoryBurst", errors, proposedBurst("memoryBurstBytes")),
        }),
      };
      const endsAt = input.endsAt ?? (proposed ? (proposed.endsAt ? new Date(proposed.endsAt) : null) : r.endsAt);
      if (input.endsAt && r.endsAt && input.endsAt > r.endsAt) errors.endsAt = ["Enter an end no later than the one asked for."];
      if (endsAt && endsAt.getTime() <= ctx.now.getTime()) errors.endsAt = [FUTURE_DATE];
      if (isEmpty(granted)) errors._form = ["Grant at least one resource, or reject the request."];
      if (Object.keys(errors).length > 0) throw new AppError("validation", undefined, errors);
      const changed = !sameAmounts(granted, asked) || (endsAt?.getTime() ?? null) !== (r.endsAt?.getTime() ?? null);
      const actor = auditActorOf(ctx.actor);

      // The capacity check below reads every tenant's guarantees: approvals and envelope changes take turns on it.
      if (granted.gpuCount > 0) await lockGuaranteeSum(tx);
      let assessment;
      try {
        assessment = await assessRequest(tx, config().cluster, r.projectId, granted, ctx.now);
      } catch (error) {
        if (error instanceof UnknownGpuModelError) throw new AppError("conflict", `${error.message} Reject the request or add the pool first.`);
        throw error;
      }
      // Guarantees across all tenants stay within what the pools hold at their autoscaler minimum, as setTenantEnvelope keeps them.
      const beyondMinimum = minimumProblem(assessment.sharing);
      if (beyondMinimum) throw new AppError("validation", undefined, { gpuCount: [`This ${beyondMinimum}.`] });
      // Above the cost limit the first approval only records itself; a different admin completes it.
      if (assessment.secondApproval && !r.firstApprovedBy) {
        const [row] = await tx
          .update(quotaRequests)
          .set({
            firstApprovedBy: ctx.actor.principalId,
            firstApprovedAt: ctx.now,
            granted: changed ? grantedColumn(granted, endsAt) : null,
            version: r.version + 1,
          })
          .where(and(eq(quotaRequests.id, r.id), eq(quotaRequests.version, r.version)))
          .returning();
        await addEvent(tx, r.id, actor, "first_approval", ctx.now, { revision: r.revision, ...(changed ? { granted, endsAt } : {}) });
        await recordAudit(tx, { actor, at: ctx.now, tenantId: r.tenantId, action: "quota_request.first_approved", target: { type: "quota_request", id: r.id } });
        return { request: row!, complete: false };
      }
      if (r.firstApprovedBy && r.firstApprovedBy === ctx.actor.principalId) throw new AppError("forbidden", "You gave the first approval; a second, different platform admin must approve too.");

      const changeId = await grantAndApply(tx, r, granted, endsAt, assessment.gpuResource, ctx.now, actor);
      const row = await markApproved(tx, r, { by: ctx.actor.principalId, at: ctx.now, note: input.note, granted: changed ? grantedColumn(granted, endsAt) : null, clusterChangeId: changeId });
      await addEvent(tx, r.id, actor, changed ? "approved_with_changes" : "approved", ctx.now, { revision: r.revision, ...(changed ? { granted, endsAt } : {}), ...(input.note ? { note: input.note } : {}) });
      await recordAudit(tx, {
        actor,
        at: ctx.now,
        tenantId: r.tenantId,
        action: changed ? "quota_request.approved_with_changes" : "quota_request.approved",
        target: { type: "quota_request", id: r.id },
        before: { ...asked, endsAt: r.endsAt, revision: r.revision },
        after: { ...granted, endsAt },
      });
      await announceDecision(tx, row, changed ? `approved with changes (${describeAmounts(granted)})` : "approved", ctx.now, input.note);
      return { request: row, complete: true };
    });
  },
});

export const rejectQuotaRequest = defineCommand({
  name: "rejectQuotaRequest",
  input: z.object({
    requestId: uuidInput,
    version: versionInput,
    reason: z.string({ message: FILL_IN }).trim().min(5, TELL_REQUESTER_WHY).max(2000, atMostChars(2000)),
  }),
  target: decisionTarget,
  async run(ctx, input) {
    return ctx.db.transaction(async (tx) => {
      const r = await lockPending(tx, input.requestId, input.version);
      const conflict = decisionConflict(ctx.actor, r, ctx.now);
      if (conflict) throw new AppError("forbidden", conflict);
      const [row] = await tx
        .update(quotaRequests)
        .set({ status: "rejected", decidedBy: ctx.actor.principalId, decidedAt: ctx.now, decisionNote: input.reason, version: r.version + 1 })
        .where(and(eq(quotaRequests.id, r.id), eq(quotaRequests.version, r.version)))
        .returning();
      const actor = auditActorOf(ctx.actor);
      await addEvent(tx, r.id, actor, "rejected", ctx.now, { reason: input.reason });
      await recordAudit(tx, { actor, at: ctx.now, tenantId: r.tenantId, action: "quota_request.rejected", target: { type: "quota_request", id: r.id }, after: { reason: input.reason } });
      await announceDecision(tx, row!, "rejected", ctx.now, input.reason);
      return row!;
    });
  },
});

/** The requester withdraws a request that nobody has decided yet. */
export const cancelQuotaRequest = defineCommand({
  name: "cancelQuotaRequest",
  input: z.object({ requestId: uuidInput }),
  async target(ctx, input) {
    const r = await requestById(ctx.db, input.requestId);
    return { action: "project.quota.view" as const, resource: { kind: "project" as const, tenantId: r.tenantId, projectId: r.projectId } };
  },
  async run(ctx, input) {
    return ctx.db.transaction(async (tx) => {
      const [r] = await tx.select().from(quotaRequests).where(eq(quotaRequests.id, input.requestId)).for("update");
      if (!r) throw new AppError("not_found", "No such quota request.");
      if (r.requestedBy !== ctx.actor.principalId) throw new AppError("forbidden", "Only the person who asked can cancel a request.");
      if (r.status !== "pending") throw new AppError("conflict", `This request was already decided (${r.status.replace("_", " ")}); it can no longer be cancelled.`);
      const [row] = await tx.update(quotaRequests).set({ status: "cancelled", version: r.version + 1 }).where(eq(quotaRequests.id, r.id)).returning();
      const actor = auditActorOf(ctx.actor);
      await addEvent(tx, r.id, actor, "cancelled", ctx.now);
      await recordAudit(tx, { actor, at: ctx.now, tenantId: r.tenantId, action: "quota_request.cancelled", target: { type: "quota_request", id: r.id } });
      return row!;
    });
  },
});

/** GPU models people can ask for: one entry per model the node pools offer (each requestable profile of a mixed MIG pool too), MIG profiles apart. */
export async function requestableGpuModels(db: Database): Promise<{ model: string; resource: string; mig: boolean }[]> {
  const models = [...gpuResourcesByModel(await loadPools(db))].map(([model, resource]) => ({ model, resource, mig: resource.includes("/mig-") }));
  return models.sort((a, b) => Number(a.mig) - Number(b.mig) || (a.model < b.model ? -1 : 1));
}
