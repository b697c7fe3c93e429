import "server-only";
import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { projects, quotaRequestLines, quotaRequestRevisions, quotaRequests } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { mayEditRequest } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { notify } from "@/lib/notify/in-app";
import { uuidInput, versionInput } from "@/lib/tenancy/inputs";
import { assertProjectOpen } from "@/lib/tenancy/lookup";
import { amountFields, readAmounts, withGpuRows } from "../amount-inputs";
import { assessRequest, UnknownGpuModelError } from "../assess";
import { insertRequestLines, linesOfRequests } from "../grant-store";
import { linesOfAmounts } from "../lines";
import { projectPlace, requestPath } from "../places";
import { requestAmountsOf } from "../request-amounts";
import { contentChanges, type RequestContent } from "../revision-changes";
import { commenterIds } from "./request-comments";
import { addEvent, justificationInput, optionalEnd, requestById } from "./requests";
import { columnsOf } from "./request-parts";
import { FUTURE_DATE, NO_POOL_OFFERS } from "@/lib/input/messages";

type RequestRow = typeof quotaRequests.$inferSelect;

/** When the request's current revision was written: its creation, or the edit that replaced the one before. */
async function currentWrittenAt(db: Database, r: RequestRow): Promise<Date> {
  if (r.revision === 1) return r.createdAt;
  const [previous] = await db
    .select({ replacedAt: quotaRequestRevisions.replacedAt })
    .from(quotaRequestRevisions)
    .where(eq(quotaRequestRevisions.requestId, r.id))
    .orderBy(desc(quotaRequestRevisions.revision))
    .limit(1);
  return previous?.replacedAt ?? r.createdAt;
}

/**
 * The requester changes a pending request: its amounts, end or justification.
 * What it said before is kept as a revision; the request's version moves on,
 * so an approval quoting the version its approver saw is refused (409) and
 * cannot approve content nobody read. A first approval of the old content is
 * withdrawn: both approvals must be of the same revision. An edit is never
 * approved automatically; the person deciding sees what changed.
 */
export const editQuotaRequest = defineCommand({
  name: "editQuotaRequest",
  input: withGpuRows(z.object({ requestId: uuidInput, version: versionInput, ...amountFields, endsAt: optionalEnd, justification: justificationInput })),
  async target(ctx, input) {
    const r = await requestById(ctx.db, input.requestId);
    return { action: "quota_request.edit" as const, resource: { kind: "project" as const, tenantId: r.tenantId, projectId: r.projectId } };
  },
  async run(ctx, input) {
    const { amounts, problems, modelField } = readAmounts(input, { burstAllowed: config().cluster.render.kueue.enabled });
    if (problems) throw new AppError("validation", undefined, problems);
    const endsAt = input.endsAt ?? null;
    if (endsAt && endsAt.getTime() <= ctx.now.getTime()) throw new AppError("validation", undefined, { endsAt: [FUTURE_DATE] });
    return ctx.db.transaction(async (tx) => {
      const [r] = await tx.select().from(quotaRequests).where(eq(quotaRequests.id, input.requestId)).for("update");
      if (!r) throw new AppError("not_found", "No such quota request.");
      if (!mayEditRequest(ctx.actor, r, ctx.now)) throw new AppError("forbidden", "Only the person who asked can edit a request.");
      if (r.extendsGrantId) throw new AppError("conflict", "An extension is not edited: cancel it and extend the grant again to ask for another end.");
      if (r.status !== "pending") throw new AppError("conflict", `This request was already decided (${r.status.replace("_", " ")}); it can no longer be edited. Ask again instead.`);
      if (r.version !== input.version) throw new AppError("conflict", "This request changed since you opened it (it was edited in another window, or an approval was recorded). Reload and edit again.");
      const [project] = await tx.select().from(projects).where(eq(projects.id, r.projectId));
      assertProjectOpen(project!);

      let assessment;
      try {
        assessment = await assessRequest(tx, config().cluster, r.projectId, amounts, ctx.now);
      } catch (error) {
        if (error instanceof UnknownGpuModelError) throw new AppError("validation", undefined, { [modelField(error.model)]: [NO_POOL_OFFERS] });
        throw error;
      }
      const oldLines = (await linesOfRequests(tx, [r.id])).get(r.id) ?? [];
      const writtenAt = await currentWrittenAt(tx, r);
      const before: RequestContent = { amounts: requestAmountsOf(r, oldLines), endsAt: r.endsAt, justification: r.justification, monthlyCost: Number(r.monthlyCost), writtenAt };
      const monthlyCost = assessment.estimate.monthly.toFixed(2);
      const after: RequestContent = { amounts, endsAt, justification: input.justification, monthlyCost: Number(monthlyCost), writtenAt: ctx.now };
      const changes = contentChanges(before, after, config().currency);
      // A new estimate alone (the rate card moved) is not an edit of what is asked.
      if (!changes.some((c) => c.field !== "estimate")) throw new AppError("validation", "This edit changes nothing: change an amount, the end or the justification.");

      await tx.insert(quotaRequestRevisions).values({
        requestId: r.id,
        revision: r.revision,
        gpuModel: r.gpuModel,
        gpuCount: r.gpuCount,
        cpuCores: r.cpuCores,
        memoryBytes: r.memoryBytes,
        storageBytes: r.storageBytes,
        lines: oldLines.map(({ flavor, resource, guarantee, burst }) => ({ flavor, resource, guarantee, burst })),
        endsAt: r.endsAt,
        justification: r.justification,
        monthlyCost: r.monthlyCost,
        writtenAt,
        replacedAt: ctx.now,
      });
      const lines = linesOfAmounts(amounts, assessment.gpuResources);
      const [row] = await tx
        .update(quotaRequests)
        .set({
          ...columnsOf(lines),
          cpuCores: amounts.cpuCores,
          memoryBytes: amounts.memoryBytes,
          storageBytes: amounts.storageBytes,
          endsAt,
          justification: input.justification,
          monthlyCost,
          firstApprovedBy: null,
          firstApprovedAt: null,
          granted: null,
          revision: r.revision + 1,
          version: r.version + 1,
        })
        .where(and(eq(quotaRequests.id, r.id), eq(quotaRequests.version, r.version)))
        .returning();
      await tx.delete(quotaRequestLines).where(eq(quotaRequestLines.requestId, r.id));
      await insertRequestLines(tx, r.id, lines);

      const actor = auditActorOf(ctx.actor);
      const withdrawn = r.firstApprovedBy !== null;
      await addEvent(tx, r.id, actor, "edited", ctx.now, { revision: r.revision + 1, changes, ...(withdrawn ? { firstApprovalWithdrawn: true } : {}) });
      await recordAudit(tx, {
        actor,
        at: ctx.now,
        tenantId: r.tenantId,
        action: "quota_request.edited",
        target: { type: "quota_request", id: r.id },
        before: { revision: r.revision, ...before.amounts, endsAt: r.endsAt, justification: r.justification },
        after: { revision: r.revision + 1, ...amounts, endsAt, justification: input.justification },
      });
      // Whoever already looked at it on the deciding side learns that what they saw changed.
      const place = await projectPlace(tx, r.projectId);
      const readers = [r.firstApprovedBy, ...(await commenterIds(tx, r.id))].filter((id) => id !== ctx.actor.principalId);
      await notify(
        tx,
        readers,
        { kind: "quota_request.edited", title: `Quota request for ${place.name} edited (revision ${r.revision + 1})`, body: changes.map((c) => `${c.label}: ${c.before} → ${c.after}`).join("\n"), link: requestPath(place.tenant, place.project, r.id) },
        ctx.now,
      );
      return { request: row!, changes };
    });
  },
});
