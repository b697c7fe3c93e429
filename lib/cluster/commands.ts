import { and, eq, ne } from "drizzle-orm";
import { z } from "zod";
import { wholeNumber } from "@/lib/input/numbers";
import { clusterChanges, projects, tenants } from "@/db/schema";
import type { Database } from "@/db/client";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { systemClock } from "@/lib/clock";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { checkDrift } from "./drift-check";
import { enqueueClusterChange, enqueuePlatformFlavorsChange, enqueueTenantChange } from "./outbox";
import { PLATFORM_FLAVORS_TARGET } from "./target-keys";
import { clusterRuntime } from "./runtime";
import { VALID_ID } from "@/lib/input/messages";

const onCluster = () => Promise.resolve({ action: "cluster.manage" as const, resource: { kind: "platform" as const } });
// Change ids live in a bigint column, so any safe integer can name one.
const changeId = wholeNumber("Change", { min: 1, max: Number.MAX_SAFE_INTEGER });

/**
 * Try a failed change again with a fresh budget of attempts. When a newer
 * change for the same target already waits, that one will render the current
 * state anyway, so the failed one is marked superseded instead.
 */
export const retryClusterChange = defineCommand({
  name: "retryClusterChange",
  input: z.object({ changeId }),
  target: onCluster,
  async run(ctx, input) {
    return ctx.db.transaction(async (tx) => {
      const [change] = await tx.select().from(clusterChanges).where(eq(clusterChanges.id, input.changeId)).for("update");
      if (!change) throw new AppError("not_found", "No such cluster change.");
      if (change.status !== "failed") throw new AppError("conflict", `Change #${change.id} is ${change.status}, not failed; only failed changes can be retried.`);
      const [waiting] = await tx
        .select({ id: clusterChanges.id })
        .from(clusterChanges)
        .where(and(eq(clusterChanges.targetKey, change.targetKey), eq(clusterChanges.status, "pending"), ne(clusterChanges.id, change.id)));
      await tx
        .update(clusterChanges)
        .set(
          waiting
            ? { status: "superseded", updatedAt: ctx.now }
            : { status: "pending", attempts: 0, nextAttemptAt: ctx.now, finishedAt: null, reasons: [...change.reasons, "retried by an admin"].slice(-20), updatedAt: ctx.now },
        )
        .where(eq(clusterChanges.id, change.id));
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId: change.tenantId,
        action: "cluster_change.retried",
        target: { type: "cluster_change", id: String(change.id) },
        before: { status: "failed", lastError: change.lastError },
        after: { status: waiting ? "superseded" : "pending", ...(waiting ? { supersededBy: waiting.id } : {}) },
      });
      return { retried: !waiting, supersededBy: waiting?.id ?? null };
    });
  },
});

/** Reconcile one project's namespace (or a tenant's cluster-scoped objects, or without a tenant the platform's flavours) now: the fix for drift. */
export const reconcileTarget = defineCommand({
  name: "reconcileTarget",
  input: z
    .object({ tenantId: z.uuid(VALID_ID).optional(), projectId: z.uuid(VALID_ID).optional() })
    .refine((v) => v.tenantId !== undefined || v.projectId === undefined, { path: ["tenantId"], message: "Choose the tenant of the project." }),
  target: onCluster,
  async run(ctx, input) {
    return ctx.db.transaction(async (tx) => {
      if (input.tenantId === undefined) {
        await enqueuePlatformFlavorsChange(tx, { reason: "reconcile requested by an admin", at: ctx.now }, { always: true });
        await recordAudit(tx, { actor: auditActorOf(ctx.actor), at: ctx.now, tenantId: null, action: "cluster.reconcile_requested", target: { type: "cluster", id: PLATFORM_FLAVORS_TARGET } });
        return { queued: true };
      }
      const [tenant] = await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, input.tenantId));
      if (!tenant) throw new AppError("not_found", "No such tenant.");
      if (input.projectId) {
        const [project] = await tx.select({ id: projects.id }).from(projects).where(and(eq(projects.id, input.projectId), eq(projects.tenantId, input.tenantId)));
        if (!project) throw new AppError("not_found", "No such project in this tenant.");
      }
      await enqueueClusterChange(tx, { tenantId: input.tenantId, projectId: input.projectId, reason: "reconcile requested by an admin", at: ctx.now });
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId: input.tenantId,
        action: "cluster.reconcile_requested",
        target: input.projectId ? { type: "project", id: input.projectId } : { type: "tenant", id: input.tenantId },
      });
      return { queued: true };
    });
  },
});

/** Queue every tenant and project, archived ones included: after a restore, a config change or a new cluster. */
export async function queueReconcileOfEverything(db: Database, now: Date, actor: AuditActor = { principalId: null, label: "system:cli" }) {
  return db.transaction(async (tx) => {
    const reason = "reconcile of everything requested";
    const all = await tx.select({ id: tenants.id }).from(tenants);
    for (const t of all) {
      await enqueueTenantChange(tx, { tenantId: t.id, reason, at: now }, { includeArchived: true });
      // The tenant's cluster-scoped objects too, even with Kueue off: that prunes queues left from when it was on.
      await enqueueClusterChange(tx, { tenantId: t.id, reason, at: now });
    }
    // The platform's flavours too, Kueue on or off (off: that prunes the ones left from when it was on).
    await enqueuePlatformFlavorsChange(tx, { reason, at: now }, { always: true });
    await recordAudit(tx, { actor, at: now, tenantId: null, action: "cluster.reconcile_all_requested", target: { type: "cluster", id: "all" } });
    return { tenants: all.length };
  });
}

export const reconcileEverything = defineCommand({
  name: "reconcileEverything",
  input: z.object({}),
  target: onCluster,
  run: (ctx) => queueReconcileOfEverything(ctx.db, ctx.now, auditActorOf(ctx.actor)),
});

/** Read back the cluster now instead of at the next periodic check. */
export const checkDriftNow = defineCommand({
  name: "checkDriftNow",
  input: z.object({}),
  target: onCluster,
  async run(ctx) {
    const runtime = clusterRuntime(config().cluster);
    if (!runtime.client) throw new AppError("conflict", "No cluster is connected (record-only mode): there is nothing to compare with.");
    return checkDrift({ db: ctx.db, client: runtime.client, clock: systemClock });
  },
});
