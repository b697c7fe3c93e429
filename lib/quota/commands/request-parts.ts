import "server-only";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { quotaRequestEvents, quotaRequests } from "@/db/schema";
import type { AuditActor } from "@/lib/audit/record";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { notify, tenantAdminIds } from "@/lib/notify/in-app";
import { enqueueWebhookEvent } from "@/lib/notify/webhooks";
import { futureInstant } from "@/lib/tenancy/inputs";
import type { QuotaAmounts } from "../amounts";
import { insertRequestLines } from "../grant-store";
import { columnGpuOfLines, type QuotaLine } from "../lines";
import { projectPlace, requestPath } from "../places";
import { FILL_IN, atMostChars } from "@/lib/input/messages";

/** What the quota request commands share (asking, extending, deciding, editing): kept apart so each may import it without a cycle. */

export type RequestRow = typeof quotaRequests.$inferSelect;

/** An optional end: empty or null means permanent (never the epoch, as a bare coercion would make it). */
export const optionalEnd = z.preprocess((v) => (v === "" || v === null ? undefined : v), futureInstant.optional());

export const justificationInput = z
  .string({ message: FILL_IN })
  .trim()
  .min(10, "Say in a sentence what the resources are for, at least 10 characters.")
  .max(2000, atMostChars(2000));

export async function addEvent(db: Database, requestId: string, actor: AuditActor, kind: string, at: Date, detail?: Record<string, unknown>) {
  await db.insert(quotaRequestEvents).values({ requestId, at, actorPrincipalId: actor.principalId, actorLabel: actor.label, kind, detail: detail ?? null });
}

/**
 * A new pending request, its lines and its "created" event: what asking for quota and asking to extend a grant
 * both write. The row's amount columns are picked one by one: burst and flavour live only in the lines, and an
 * amounts object may carry more than the table has columns for.
 */
export async function insertPendingRequest(
  tx: Database,
  ask: {
    tenantId: string;
    projectId: string;
    requestedBy: string;
    actor: AuditActor;
    amounts: QuotaAmounts;
    lines: readonly QuotaLine[];
    endsAt: Date | null;
    justification: string;
    monthly: number;
    at: Date;
    /** Set when the request asks to move the end of a time-bound grant. */
    extends?: { grantId: string; from: Date; to: Date };
  },
): Promise<RequestRow> {
  const { amounts } = ask;
  const [request] = await tx
    .insert(quotaRequests)
    .values({
      tenantId: ask.tenantId,
      projectId: ask.projectId,
      requestedBy: ask.requestedBy,
      // The one model the previous release can read; the lines hold every model (columnGpuOfLines says why).
      ...columnsOf(ask.lines),
      cpuCores: amounts.cpuCores,
      memoryBytes: amounts.memoryBytes,
      storageBytes: amounts.storageBytes,
      endsAt: ask.endsAt,
      justification: ask.justification,
      monthlyCost: ask.monthly.toFixed(2),
      extendsGrantId: ask.extends?.grantId ?? null,
      extendsFrom: ask.extends?.from ?? null,
      createdAt: ask.at,
    })
    .returning();
  await insertRequestLines(tx, request!.id, ask.lines);
  const extension = ask.extends && { grantId: ask.extends.grantId, from: ask.extends.from.toISOString(), to: ask.extends.to.toISOString() };
  await addEvent(tx, request!.id, ask.actor, "created", ask.at, { estimate: ask.monthly, currency: config().currency, ...(extension ? { extension } : {}) });
  return request!;
}

/** A request row's GPU columns from its lines: gpu_model and gpu_count of one model (a request row has no gpu_resource). */
export function columnsOf(lines: readonly QuotaLine[]): { gpuModel: string | null; gpuCount: number } {
  const { gpuModel, gpuCount } = columnGpuOfLines(lines);
  return { gpuModel, gpuCount };
}

/** Tell the requester and the tenant admins about a decision, in-app and to subscribed webhooks. */
export async function announceDecision(tx: Database, r: RequestRow, outcome: string, at: Date, note?: string | null) {
  const s = await projectPlace(tx, r.projectId);
  const link = requestPath(s.tenant, s.project, r.id);
  const title = `Quota request for ${s.name} ${outcome}`;
  await notify(tx, [r.requestedBy, ...(await tenantAdminIds(tx, r.tenantId))], { kind: "quota_request.decided", title, body: note ?? "", link }, at);
  await enqueueWebhookEvent(tx, "request.decided", { text: `${title}${note ? `: ${note}` : ""}`, requestId: r.id, tenant: s.tenant, project: s.project, outcome }, at);
}

/** Load a request by id, or not_found. */
export async function requestById(db: Database, id: string): Promise<RequestRow> {
  const [row] = await db.select().from(quotaRequests).where(eq(quotaRequests.id, id));
  if (!row) throw new AppError("not_found", "No such quota request.");
  return row;
}

/** Take a pending request at the version the decider saw, or report that someone else got there first. */
export async function lockPending(tx: Database, id: string, version: number): Promise<RequestRow> {
  const [row] = await tx.select().from(quotaRequests).where(eq(quotaRequests.id, id)).for("update");
  if (!row) throw new AppError("not_found", "No such quota request.");
  if (row.status !== "pending") throw new AppError("conflict", `This request was already decided (${row.status.replace("_", " ")}). Reload to see the decision.`);
  // An edit by the requester bumps the version too: an approval never decides content its approver did not see.
  if (row.version !== version) throw new AppError("conflict", "This request changed since you opened it (the requester edited it, or another admin acted on it). Reload and decide again.");
  return row;
}

/**
 * The request row's side of a final approval, shared by a quota request and a grant extension: decided by whom,
 * when and with what note, the amounts granted when they differ from those asked, the cluster change that applies
 * them. Guarded by the version the decider locked, as `lockPending` took it.
 */
export async function markApproved(
  tx: Database,
  r: RequestRow,
  decision: { by: string; at: Date; note?: string | null; granted: RequestRow["granted"]; clusterChangeId: number | null },
): Promise<RequestRow> {
  const [row] = await tx
    .update(quotaRequests)
    .set({
      status: "approved",
      decidedBy: decision.by,
      decidedAt: decision.at,
      decisionNote: decision.note || null,
      granted: decision.granted,
      clusterChangeId: decision.clusterChangeId,
      version: r.version + 1,
    })
    .where(and(eq(quotaRequests.id, r.id), eq(quotaRequests.version, r.version)))
    .returning();
  return row!;
}
