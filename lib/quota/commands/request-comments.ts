import "server-only";
import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { quotaRequestComments, quotaRequests } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { mayDiscussRequest } from "@/lib/auth/policy";
import { AppError } from "@/lib/errors";
import { notify, platformAdminIds } from "@/lib/notify/in-app";
import { uuidInput } from "@/lib/tenancy/inputs";
import { projectPlace, requestPath } from "../places";
import { requestById } from "./requests";
import { FILL_IN } from "@/lib/input/messages";

/** Everyone who has written in a request's conversation, each once. */
export async function commenterIds(db: Database, requestId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ id: quotaRequestComments.authorPrincipalId })
    .from(quotaRequestComments)
    .where(eq(quotaRequestComments.requestId, requestId))
    .orderBy(asc(quotaRequestComments.authorPrincipalId));
  return rows.map((r) => r.id).filter((id): id is string => id !== null);
}

/** The first lines of a comment, for a notice. */
const excerpt = (body: string) => (body.length > 280 ? `${body.slice(0, 279)}…` : body);

/**
 * A comment in the conversation between a request's requester and those who
 * decide it. The other side is told: a requester's comment reaches whoever
 * already took part and, while the request waits for a decision, the
 * platform's approvers; an approver's or admin's comment reaches the
 * requester and whoever took part. Comments are kept on decided requests too
 * (a rejection may be asked about).
 */
export const commentOnQuotaRequest = defineCommand({
  name: "commentOnQuotaRequest",
  input: z.object({
    requestId: uuidInput,
    body: z.string({ message: FILL_IN }).trim().min(1, "Write a comment before sending it.").max(4000, "Keep a comment to 4,000 characters or fewer."),
  }),
  async target(ctx, input) {
    const r = await requestById(ctx.db, input.requestId);
    return { action: "quota_request.discuss" as const, resource: { kind: "project" as const, tenantId: r.tenantId, projectId: r.projectId } };
  },
  async run(ctx, input) {
    return ctx.db.transaction(async (tx) => {
      const [r] = await tx.select().from(quotaRequests).where(eq(quotaRequests.id, input.requestId)).for("no key update");
      if (!r) throw new AppError("not_found", "No such quota request.");
      if (!mayDiscussRequest(ctx.actor, r, ctx.now)) throw new AppError("forbidden", "Only the requester, the tenant's admins and the platform's approvers take part in a request's conversation.");
      const actor = auditActorOf(ctx.actor);
      const [comment] = await tx
        .insert(quotaRequestComments)
        .values({ requestId: r.id, authorPrincipalId: ctx.actor.principalId, authorLabel: ctx.actor.displayName, revision: r.revision, body: input.body, createdAt: ctx.now })
        .returning();
      await recordAudit(tx, {
        actor,
        at: ctx.now,
        tenantId: r.tenantId,
        action: "quota_request.commented",
        target: { type: "quota_request", id: r.id },
        after: { commentId: comment!.id, revision: r.revision, body: input.body },
      });
      const fromRequester = r.requestedBy === ctx.actor.principalId;
      const otherSide = fromRequester ? [r.decidedBy, r.firstApprovedBy, ...(r.status === "pending" ? await platformAdminIds(tx) : [])] : [r.requestedBy];
      const recipients = [...otherSide, ...(await commenterIds(tx, r.id))].filter((id) => id !== ctx.actor.principalId);
      const place = await projectPlace(tx, r.projectId);
      await notify(tx, recipients, { kind: "quota_request.comment", title: `${ctx.actor.displayName} commented on the quota request for ${place.name}`, body: excerpt(input.body), link: requestPath(place.tenant, place.project, r.id) }, ctx.now);
      return comment!;
    });
  },
});
