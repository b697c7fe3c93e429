import "server-only";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db/client";
import { quotaGrants, quotaRequests } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf, type CommandContext } from "@/lib/auth/context";
import { enqueueProjectChange } from "@/lib/cluster/outbox";
import { dropTenantBoundaryIfUnused } from "@/lib/cluster/schedule";
import { AppError } from "@/lib/errors";
import { formatDate, formatDateTime } from "@/lib/format";
import { enqueueWebhookEvent } from "@/lib/notify/webhooks";
import { futureInstant, uuidInput } from "@/lib/tenancy/inputs";
import { assertProjectOpen, assertTenantActive, projectBySlugs } from "@/lib/tenancy/lookup";
import { onProject, projectAddress } from "@/lib/tenancy/targets";
import type { QuotaAmounts } from "../amounts";
import { monthlyCost, ratesInForce } from "../cost";
import { linesOfGrants } from "../grant-store";
import { needsSecondApproval } from "../policy";
import { requestPath } from "../places";
import { grantedColumn, requestAmountsOf } from "../request-amounts";
import { loadQuotaPolicy, loadRates } from "../store";
import { describeAmounts } from "../view-helpers";
import { addEvent, announceDecision, insertPendingRequest, justificationInput, markApproved, type RequestRow } from "./request-parts";

/**
 * Keeping a time-bound grant longer. Asking writes a request that names the
 * grant (`extends_grant_id`) and its end when asked (`extends_from`), with the
 * grant's own amounts and lines, priced at the rate card now: the approval
 * queue shows it as an extension, with the cost of the added period. Approval
 * moves the grant's end in place (the grant is in force, so the project's
 * quota at every past instant stays as it was, and the audit event keeps the
 * old end); rejection leaves the grant alone. Never approved by a rule: a
 * person decides.
 */
export const requestQuotaExtension = defineCommand({
  name: "requestQuotaExtension",
  input: projectAddress.extend({ grantId: uuidInput, endsAt: futureInstant, justification: justificationInput }),
  target: onProject("project.quota.extend"),
  async run(ctx, input, { tenantId, projectId }) {
    return ctx.db.transaction(async (tx) => {
      const { tenant, project } = await projectBySlugs(tx, input.tenant, input.project);
      assertTenantActive(tenant);
      assertProjectOpen(project);
      // The grant is taken from this project only: another project's (or tenant's) grant id names nothing here.
      const [grant] = await tx
        .select()
        .from(quotaGrants)
        .where(and(eq(quotaGrants.id, input.grantId), eq(quotaGrants.projectId, projectId)))
        .for("update");
      if (!grant) throw new AppError("not_found", "No such quota grant on this project.");
      if (!grant.endsAt) throw new AppError("validation", undefined, { grantId: ["This grant is permanent: it has no end to move."] });
      if (grant.endsAt.getTime() <= ctx.now.getTime()) throw new AppError("conflict", `This grant ended ${formatDateTime(grant.endsAt)}; ask for quota again instead.`);
      if (input.endsAt.getTime() <= grant.endsAt.getTime()) {
        throw new AppError("validation", undefined, { endsAt: [`Pick a date after the grant's current end, ${formatDate(grant.endsAt)}.`] });
      }
      const [waiting] = await tx
        .select({ id: quotaRequests.id })
        .from(quotaRequests)
        .where(and(eq(quotaRequests.extendsGrantId, grant.id), eq(quotaRequests.status, "pending")));
      if (waiting) throw new AppError("conflict", "An extension of this grant is already waiting for a decision; cancel it to ask for another end.");

      const lines = (await linesOfGrants(tx, [grant.id])).get(grant.id) ?? [];
      const amounts = requestAmountsOf(grant, lines);
      const estimate = monthlyCost(amounts, ratesInForce(await loadRates(tx), ctx.now));
      const actor = auditActorOf(ctx.actor);
      const request = await insertPendingRequest(tx, {
        tenantId,
        projectId,
        requestedBy: ctx.actor.principalId,
        actor,
        amounts,
        lines,
        endsAt: input.endsAt,
        justification: input.justification,
        monthly: estimate.monthly,
        at: ctx.now,
        extends: { grantId: grant.id, from: grant.endsAt, to: input.endsAt },
      });
      await recordAudit(tx, {
        actor,
        at: ctx.now,
        tenantId,
        action: "quota_request.extension_created",
        target: { type: "quota_request", id: request.id },
        before: { grantId: grant.id, endsAt: grant.endsAt },
        after: { grantId: grant.id, endsAt: input.endsAt },
      });
      await enqueueWebhookEvent(
        tx,
        "request.created",
        {
          text: `${ctx.actor.displayName} asks to extend ${describeAmounts(amounts)} on ${tenant.slug}/${project.slug} from ${formatDate(grant.endsAt)} to ${formatDate(input.endsAt)}`,
          requestId: request.id,
          tenant: tenant.slug,
          project: project.slug,
          link: requestPath(tenant.slug, project.slug, request.id),
        },
        ctx.now,
      );
      return { request: request };
    });
  },
});

/** What "approve" may carry; an extension takes only an earlier end and a note. */
interface ApprovalInput {
  endsAt?: Date;
  note?: string;
  gpuCount?: number;
  gpuBurst?: number;
  cpuCores?: number;
  memory?: number;
  storage?: number;
}

const AMOUNT_FIELDS = ["gpuCount", "gpuBurst", "cpuCores", "memory", "storage"] as const;

/**
 * Approve an extension, in approveQuotaRequest's transaction after its lock
 * and separation-of-duties check: the grant's end moves (and its end warning
 * is owed again), the project's cluster change is queued with the boundary
 * moved, the request records the decision, one audit event says from when to
 * when. The second-approval rule counts the grant's monthly rate at the rate
 * card now, as it counts a request's estimate.
 */
export async function approveExtension(tx: Database, ctx: CommandContext, r: RequestRow, input: ApprovalInput): Promise<{ request: RequestRow; complete: boolean }> {
  const given = AMOUNT_FIELDS.filter((f) => input[f] !== undefined);
  if (given.length > 0) {
    throw new AppError("validation", undefined, Object.fromEntries(given.map((f) => [f, ["An extension keeps the grant's amounts: approve the new end, an earlier one, or reject it."]])));
  }
  const [grant] = await tx.select().from(quotaGrants).where(eq(quotaGrants.id, r.extendsGrantId!)).for("update");
  if (!grant?.endsAt || grant.endsAt.getTime() <= ctx.now.getTime()) {
    throw new AppError("conflict", "The grant this extends has ended; reject the extension, and the requester can ask for quota again.");
  }
  if (grant.endsAt.getTime() !== r.extendsFrom!.getTime()) {
    throw new AppError("conflict", `The grant's end moved since this extension was asked (it now ends ${formatDateTime(grant.endsAt)}); reject it, and the requester can ask again.`);
  }
  const asked = r.endsAt!;
  const proposed = r.granted?.endsAt ? new Date(r.granted.endsAt) : asked;
  const endsAt = input.endsAt ?? proposed;
  if (endsAt.getTime() > asked.getTime()) throw new AppError("validation", undefined, { endsAt: ["Enter an end no later than the one asked for."] });
  if (endsAt.getTime() <= grant.endsAt.getTime()) throw new AppError("validation", undefined, { endsAt: [`Enter an end after the grant's current end, ${formatDateTime(grant.endsAt)}.`] });
  const changed = endsAt.getTime() !== asked.getTime();
  const actor = auditActorOf(ctx.actor);
  const lines = (await linesOfGrants(tx, [grant.id])).get(grant.id) ?? [];
  const amounts: QuotaAmounts = requestAmountsOf(grant, lines);
  const [policy, rateRows] = await Promise.all([loadQuotaPolicy(tx), loadRates(tx)]);
  const monthly = monthlyCost(amounts, ratesInForce(rateRows, ctx.now)).monthly;

  if (needsSecondApproval(monthly, policy) && !r.firstApprovedBy) {
    const [row] = await tx
      .update(quotaRequests)
      .set({ firstApprovedBy: ctx.actor.principalId, firstApprovedAt: ctx.now, granted: changed ? grantedColumn(amounts, endsAt, r.gpuModel) : null, version: r.version + 1 })
      .where(and(eq(quotaRequests.id, r.id), eq(quotaRequests.version, r.version)))
      .returning();
    await addEvent(tx, r.id, actor, "first_approval", ctx.now, { revision: r.revision, ...(changed ? { granted: amounts, endsAt } : {}) });
    await recordAudit(tx, { actor, at: ctx.now, tenantId: r.tenantId, action: "quota_request.first_approved", target: { type: "quota_request", id: r.id } });
    return { request: row!, complete: false };
  }
  if (r.firstApprovedBy && r.firstApprovedBy === ctx.actor.principalId) throw new AppError("forbidden", "You gave the first approval; a second, different platform admin must approve too.");

  const from = grant.endsAt;
  await tx.update(quotaGrants).set({ endsAt, expiryWarnedAt: null }).where(eq(quotaGrants.id, grant.id));
  // Reschedules the project's boundary (the row at the old end goes, one at the new end comes) and, with Kueue, the tenant's.
  const changeId = await enqueueProjectChange(tx, { tenantId: r.tenantId, projectId: r.projectId, reason: "quota grant extended", at: ctx.now });
  await dropTenantBoundaryIfUnused(tx, r.tenantId, from);
  const row = await markApproved(tx, r, { by: ctx.actor.principalId, at: ctx.now, note: input.note, granted: changed ? grantedColumn(amounts, endsAt, r.gpuModel) : null, clusterChangeId: changeId });
  const extension = { grantId: grant.id, from: from.toISOString(), to: endsAt.toISOString() };
  await addEvent(tx, r.id, actor, changed ? "approved_with_changes" : "approved", ctx.now, { revision: r.revision, extension, ...(changed ? { endsAt } : {}), ...(input.note ? { note: input.note } : {}) });
  await recordAudit(tx, {
    actor,
    at: ctx.now,
    tenantId: r.tenantId,
    action: "quota_grant.extended",
    target: { type: "quota_grant", id: grant.id },
    before: { endsAt: from, requestId: r.id },
    after: { endsAt, requestId: r.id },
  });
  await announceDecision(tx, row, `approved: extended to ${formatDate(endsAt)}${changed ? ` (asked: ${formatDate(asked)})` : ""}`, ctx.now, input.note);
  return { request: row, complete: true };
}
