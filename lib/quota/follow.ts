import { and, eq, inArray, lte } from "drizzle-orm";
import type { Database } from "@/db/client";
import { quotaRequestEvents, quotaRequests } from "@/db/schema";
import { notify } from "@/lib/notify/in-app";
import { enqueueWebhookEvent } from "@/lib/notify/webhooks";
import { metrics } from "@/lib/observability/metrics";
import { projectPlace, requestPath } from "./places";

const WORKER = { principalId: null, label: "system:reconcile" } as const;

/**
 * An approved request follows the cluster change that carries its grant: when
 * a live change for the project is applied, every request approved before the
 * change was taken is applied; when it fails, they are "apply failed" (and a
 * later success applies them). In record-only mode nothing is applied, so
 * requests stay approved.
 */
export async function followClusterChange(tx: Database, change: { projectId: string | null; claimedAt: Date }, outcome: { status: "applied" } | { status: "failed"; error: string }, at: Date): Promise<void> {
  if (!change.projectId) return;
  const waiting = outcome.status === "applied" ? (["approved", "auto_approved", "apply_failed"] as const) : (["approved", "auto_approved"] as const);
  const moved = await tx
    .update(quotaRequests)
    .set({ status: outcome.status === "applied" ? "applied" : "apply_failed" })
    .where(and(eq(quotaRequests.projectId, change.projectId), inArray(quotaRequests.status, [...waiting]), lte(quotaRequests.decidedAt, change.claimedAt)))
    .returning();
  if (moved.length === 0) return;
  const where = await projectPlace(tx, change.projectId);
  for (const r of moved) {
    if (outcome.status === "applied" && r.decidedAt) metrics().approvalToApplied.observe(Math.max(0, (at.getTime() - r.decidedAt.getTime()) / 1000));
    const kind = outcome.status === "applied" ? "applied" : "apply_failed";
    await tx.insert(quotaRequestEvents).values({ requestId: r.id, at, actorPrincipalId: null, actorLabel: WORKER.label, kind, detail: outcome.status === "failed" ? { error: outcome.error } : null });
    const title = outcome.status === "applied" ? `Quota for ${where.name} is applied on the cluster` : `Applying quota for ${where.name} failed`;
    const link = requestPath(where.tenant, where.project, r.id);
    await notify(tx, [r.requestedBy], { kind: `quota_request.${kind}`, title, body: outcome.status === "failed" ? "Platform admins see the error and can retry." : "", link }, at);
    await enqueueWebhookEvent(tx, outcome.status === "applied" ? "request.applied" : "request.failed", { text: title, requestId: r.id, tenant: where.tenant, project: where.project }, at);
  }
}
