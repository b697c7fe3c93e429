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
import { amountFields, cpuBurstInput, gpuBurstInput, gpuCountInput, memoryBurstInput, readAmounts, withGpuRows } from "../amount-inputs";
import { burstFields, gpuAmountsOf, gpuRowLabel, gpuTotal, isEmpty, MAX_GPU_MODELS, type GpuAmount, type QuotaAmounts } from "../amounts";
import { insertGrant, linesOfRequests } from "../grant-store";
import { raiseEnvelopeToHoldings } from "./envelopes";
import { lockGuaranteeSum } from "../envelope-store";
import { linesOfAmounts } from "../lines";
import { grantedAmountsOf, grantedColumn, requestAmountsOf, sameAmounts } from "../request-amounts";
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
async function grantAndApply(tx: Database, request: RequestRow, amounts: QuotaAmounts, endsAt: Date | null, gpuResources: Record<string, string>, at: Date, actor: AuditActor): Promise<number> {
  const lines = linesOfAmounts(amounts, gpuResources);
  await insertGrant(tx, { projectId: request.projectId, requestId: request.id, lines, startsAt: at, endsAt, createdAt: at });
  await raiseEnvelopeToHoldings(tx, request.tenantId, lines, actor, at);
  return enqueueProjectChange(tx, { tenantId: request.tenantId, projectId: request.projectId, reason: "quota request approved", at });
}

/** What a request asked for: its lines hold every GPU model, its columns the CPU, memory and storage guarantees. */
async function amountsOfRequest(db: Database, r: RequestRow): Promise<QuotaAmounts> {
  const lines = (await linesOfRequests(db, [r.id])).get(r.id) ?? [];
  return requestAmountsOf(r, lines);
}


export const createQuotaRequest = defineCommand({
  name: "createQuotaRequest",
  input: withGpuRows(projectAddress.extend({ ...amountFields, endsAt: optionalEnd, justification: justificationInput })),
  target: onProject("project.quota.request"),
  async run(ctx, input, { tenantId, projectId }) {
    const { amounts, problems, modelField } = readAmounts(input, { burstAllowed: config().cluster.render.kueue.enabled });
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
      if (gpuTotal(amounts) > 0) await lockGuaranteeSum(tx);
      let assessment;
      try {
        assessment = await assessRequest(tx, settings, projectId, amounts, ctx.now);
      } catch (error) {
        if (error instanceof UnknownGpuModelError) throw new AppError("validation", undefined, { [modelField(error.model)]: [NO_POOL_OFFERS] });
        throw error;
      }
      const actor = auditActorOf(ctx.actor);
      const request = await insertPendingRequest(tx, {
        tenantId,
        projectId,
        requestedBy: ctx.actor.principalId,
        actor,
        amounts,
        lines: linesOfAmounts(amounts, assessment.gpuResources),
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
      const changeId = await grantAndApply(tx, request, amounts, input.endsAt ?? null, assessment.gpuResources, ctx.now, SYSTEM);
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

/** One GPU model's line of "approve with changes": the model asked for, and its guaranteed and burst GPUs to grant. */
const changedGpuRow = z.object({
  model: z.string({ message: "Name the GPU model of the line." }).trim().min(1, "Name the GPU model of the line.").max(100, atMostChars(100)),
  count: changedAmount(gpuCountInput),
  burst: changedAmount(gpuBurstInput),
});

/**
 * What "approve with changes" grants of each GPU model asked for: the given
 * count and burst (at most what was asked), else the first approval's (when
 * a second approver confirms), else what was asked. Problems are keyed by the
 * field the approver sent: "gpus.1.count", or "gpuCount" for the one-model
 * shorthand, which a request of several models cannot take.
 */
function grantedGpus(
  asked: readonly GpuAmount[],
  proposed: readonly GpuAmount[] | null,
  input: { gpus?: z.output<typeof changedGpuRow>[]; gpuCount?: number; gpuBurst?: number },
  pick: (given: number | undefined, max: number, field: string, fallback?: number) => number,
  errors: Record<string, string[]>,
): GpuAmount[] {
  const shorthand = input.gpuCount !== undefined || input.gpuBurst !== undefined;
  if (shorthand && asked.length > 1) {
    errors[input.gpuCount !== undefined ? "gpuCount" : "gpuBurst"] = [`This request asks for ${asked.length} GPU models: give gpus, each model with its count and burst.`];
    return [...asked];
  }
  const rows = new Map<string, number>();
  (input.gpus ?? []).forEach((row, i) => {
    if (!asked.some((g) => g.model === row.model)) errors[`gpus.${i}.model`] = [`${gpuRowLabel(i)}: ${row.model} was not asked for; an approval grants at most what was asked.`];
    else if (rows.has(row.model)) errors[`gpus.${i}.model`] = [`${gpuRowLabel(i)}: ${row.model} is already given as ${gpuRowLabel(rows.get(row.model)!)}.`];
    else rows.set(row.model, i);
  });
  if (shorthand && asked.length === 0) {
    if ((input.gpuCount ?? 0) > 0) errors.gpuCount = ["Enter at most what was asked for."];
    if ((input.gpuBurst ?? 0) > 0) errors.gpuBurst = ["Enter at most what was asked for."];
  }
  return asked.map((g) => {
    const i = rows.get(g.model);
    const row = i === undefined ? undefined : input.gpus![i];
    const field = (part: "count" | "burst") => (i === undefined ? (part === "count" ? "gpuCount" : "gpuBurst") : `gpus.${i}.${part}`);
    const given = (part: "count" | "burst") => (row ? row[part] : shorthand ? (part === "count" ? input.gpuCount : input.gpuBurst) : undefined);
    // A first approval's line left out is none of that model (not what was asked).
    const before = proposed ? (proposed.find((p) => p.model === g.model) ?? { count: 0, burst: 0 }) : undefined;
    return { model: g.model, count: pick(given("count"), g.count, field("count"), before?.count), burst: pick(given("burst"), g.burst, field("burst"), before?.burst) };
  });
}

export const approveQuotaRequest = defineCommand({
  name: "approveQuotaRequest",
  input: withGpuRows(z.object({
    requestId: uuidInput,
    version: versionInput,
    /** Approve with changes: less than asked, or for a shorter time. Omitted fields grant what was asked. */
    gpus: z.array(changedGpuRow).max(MAX_GPU_MODELS).optional().describe("Per GPU model asked for: the guaranteed (count) and burst GPUs to grant; a model left out grants what was asked of it"),
    gpuCount: changedAmount(gpuCountInput).describe("Shorthand for a request of one GPU model: its guaranteed GPUs to grant. Not together with gpus"),
    gpuBurst: changedAmount(gpuBurstInput).describe("Shorthand for a request of one GPU model: its burst GPUs to grant. Not together with gpus"),
    cpuCores: changedAmount(amountFields.cpuCores),
    cpuBurst: changedAmount(cpuBurstInput),
    memory: changedAmount(amountFields.memory),
    memoryBurst: changedAmount(memoryBurstInput),
    storage: changedAmount(amountFields.storage),
    endsAt: optionalEnd,
    note: z.string().trim().max(2000, atMostChars(2000)).optional(),
  })),
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
      const errors: Record<string, string[]> = {};
      const pick = (given: number | undefined, max: number, field: string, fallback = max) => {
        // An empty field arrives as undefined (changedAmount) and grants what was asked; 0 grants none.
        if (given === undefined) return fallback;
        if (given > max) errors[field] = ["Enter at most what was asked for."];
        return given;
      };
      const before = proposed ? grantedAmountsOf(proposed, asked) : null;
      // A first approval's burst left out is none (not what was asked).
      const proposedBurst = (field: "cpuBurst" | "memoryBurstBytes") => (before ? (before[field] ?? 0) : undefined);
      const granted: QuotaAmounts = {
        gpus: gpuAmountsOf(grantedGpus(asked.gpus, before?.gpus ?? null, input, pick, errors)),
        cpuCores: pick(input.cpuCores, asked.cpuCores, "cpuCores", before?.cpuCores),
        memoryBytes: pick(input.memory, asked.memoryBytes, "memory", before?.memoryBytes),
        storageBytes: pick(input.storage, asked.storageBytes, "storage", before?.storageBytes),
        ...burstFields({
          cpuBurst: pick(input.cpuBurst, asked.cpuBurst ?? 0, "cpuBurst", proposedBurst("cpuBurst")),
          memoryBurstBytes: pick(input.memoryBurst, asked.memoryBurstBytes ?? 0, "memoryBurst", proposedBurst("memoryBurstBytes")),
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
      if (gpuTotal(granted) > 0) await lockGuaranteeSum(tx);
      let assessment;
      try {
        assessment = await assessRequest(tx, config().cluster, r.projectId, granted, ctx.now);
      } catch (error) {
        if (error instanceof UnknownGpuModelError) throw new AppError("conflict", `${error.message} Reject the request or add the pool first.`);
        throw error;
      }
      // Guarantees across all tenants stay within what the pools hold at their autoscaler minimum, as setTenantEnvelope keeps them.
      const beyondMinimum = minimumProblem(assessment.sharing);
      if (beyondMinimum) {
        // Under the count of the model that breaks it, as the approval form shows that model's row.
        const flavor = assessment.sharing.find((l) => l.breaksMinimum)?.after.flavor;
        const row = asked.gpus.findIndex((g) => g.model === flavor);
        throw new AppError("validation", undefined, { [input.gpus || asked.gpus.length > 1 ? `gpus.${Math.max(0, row)}.count` : "gpuCount"]: [`This ${beyondMinimum}.`] });
      }
      // Above the cost limit the first approval only records itself; a different admin completes it.
      if (assessment.secondApproval && !r.firstApprovedBy) {
        const [row] = await tx
          .update(quotaRequests)
          .set({
            firstApprovedBy: ctx.actor.principalId,
            firstApprovedAt: ctx.now,
            granted: changed ? grantedColumn(granted, endsAt, r.gpuModel) : null,
            version: r.version + 1,
          })
          .where(and(eq(quotaRequests.id, r.id), eq(quotaRequests.version, r.version)))
          .returning();
        await addEvent(tx, r.id, actor, "first_approval", ctx.now, { revision: r.revision, ...(changed ? { granted, endsAt } : {}) });
        await recordAudit(tx, { actor, at: ctx.now, tenantId: r.tenantId, action: "quota_request.first_approved", target: { type: "quota_request", id: r.id } });
        return { request: row!, complete: false };
      }
      if (r.firstApprovedBy && r.firstApprovedBy === ctx.actor.principalId) throw new AppError("forbidden", "You gave the first approval; a second, different platform admin must approve too.");

      const changeId = await grantAndApply(tx, r, granted, endsAt, assessment.gpuResources, ctx.now, actor);
      const row = await markApproved(tx, r, { by: ctx.actor.principalId, at: ctx.now, note: input.note, granted: changed ? grantedColumn(granted, endsAt, r.gpuModel) : null, clusterChangeId: changeId });
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
