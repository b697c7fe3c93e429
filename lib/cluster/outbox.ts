import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { clusterChanges, projectGrants, projects, tenants } from "@/db/schema";
import { config } from "@/lib/config";
import { scheduleBoundaries } from "./schedule";
import { PLATFORM_FLAVORS_TARGET, projectTarget, tenantTarget } from "./target-keys";

export { projectTarget, tenantTarget };

const kueueEnabled = () => config().cluster.render.kueue.enabled;

/** Coalesced changes keep this many of their newest reasons. */
const MAX_REASONS = 20;

interface Enqueue {
  tenantId: string;
  /** Omit for the tenant's cluster-scoped objects (Kueue flavours and ClusterQueue). */
  projectId?: string;
  reason: string;
  at: Date;
}

/**
 * Ask for a target to be reconciled. Call it inside the transaction that
 * changes the desired state, so the change and its cluster change commit
 * together or not at all. A target has at most one pending change: asking
 * again while one waits only adds the reason (the worker renders whatever the
 * database says when it runs, so nothing is lost by coalescing).
 */
export async function enqueueClusterChange(db: Database, e: Enqueue): Promise<number> {
  return upsertChange(db, { ...e, tenantId: e.tenantId, projectId: e.projectId ?? null, targetKey: e.projectId ? projectTarget(e.projectId) : tenantTarget(e.tenantId) });
}

/**
 * The platform's Kueue ResourceFlavors follow the node pools (their labels,
 * taints, models and sharing) and the dedicated tenants: call it in the
 * transaction that changes them. Nothing is queued with Kueue off, unless
 * `always` (a reconcile of everything, which also prunes flavours left from
 * when it was on).
 */
export async function enqueuePlatformFlavorsChange(db: Database, e: { reason: string; at: Date }, options: { always?: boolean } = {}): Promise<number | null> {
  if (!options.always && !kueueEnabled()) return null;
  return upsertChange(db, { ...e, tenantId: null, projectId: null, targetKey: PLATFORM_FLAVORS_TARGET });
}

async function upsertChange(db: Database, e: { tenantId: string | null; projectId: string | null; targetKey: string; reason: string; at: Date }): Promise<number> {
  const [row] = await db
    .insert(clusterChanges)
    .values({
      tenantId: e.tenantId,
      projectId: e.projectId,
      targetKey: e.targetKey,
      reasons: [e.reason],
      status: "pending",
      nextAttemptAt: e.at,
      createdAt: e.at,
      updatedAt: e.at,
    })
    .onConflictDoUpdate({
      target: clusterChanges.targetKey,
      targetWhere: sql`${clusterChanges.status} = 'pending'`,
      set: {
        // jsonb arrays: append, then keep the newest MAX_REASONS.
        reasons: sql`(select coalesce(jsonb_agg(r order by i), '[]'::jsonb) from jsonb_array_elements(${clusterChanges.reasons} || excluded.reasons) with ordinality as t(r, i) where i > jsonb_array_length(${clusterChanges.reasons} || excluded.reasons) - ${MAX_REASONS})`,
        nextAttemptAt: sql`least(${clusterChanges.nextAttemptAt}, excluded.next_attempt_at)`,
        updatedAt: sql`excluded.updated_at`,
      },
    })
    .returning({ id: clusterChanges.id });
  return row!.id;
}

/**
 * A project's namespace changed; with Kueue the tenant's ClusterQueue sums its
 * projects, so it follows too. Every command that writes a project's grants
 * calls this in its transaction, so this is also where the grants' future
 * boundaries (an expiry, a quota grant's end) are scheduled: with the grant,
 * or not at all.
 */
export async function enqueueProjectChange(db: Database, e: Enqueue & { projectId: string }): Promise<number> {
  const id = await enqueueClusterChange(db, e);
  const kueue = kueueEnabled();
  if (kueue) await enqueueClusterChange(db, { tenantId: e.tenantId, reason: e.reason, at: e.at });
  await scheduleBoundaries(db, { tenantId: e.tenantId, projectIds: [e.projectId], at: e.at, projects: true, tenant: kueue });
  return id;
}

/**
 * Something about one principal changed that the cluster shows only where it
 * holds a project grant (a service account disabled, enabled or deleted): one
 * change per such project, not one per project of the tenant. Call it before
 * deleting the principal's grants.
 */
export async function enqueueGrantedProjectChanges(db: Database, e: Omit<Enqueue, "projectId"> & { principalId: string }): Promise<void> {
  const { principalId, ...change } = e;
  const rows = await db.selectDistinct({ id: projectGrants.projectId }).from(projectGrants).where(eq(projectGrants.principalId, principalId));
  for (const p of rows) await enqueueProjectChange(db, { ...change, projectId: p.id });
}

/**
 * Something that reaches every project of a tenant changed (a membership, the
 * tenant's status or settings): one change per project and one for the
 * tenant's cluster-scoped objects.
 */
export async function enqueueTenantChange(db: Database, e: Omit<Enqueue, "projectId">, options: { includeArchived?: boolean } = {}): Promise<void> {
  const rows = await db
    .select({ id: projects.id })
    .from(projects)
    .where(options.includeArchived ? eq(projects.tenantId, e.tenantId) : and(eq(projects.tenantId, e.tenantId), isNull(projects.archivedAt)));
  for (const p of rows) await enqueueClusterChange(db, { ...e, projectId: p.id });
  const kueue = kueueEnabled();
  if (kueue) await enqueueClusterChange(db, e);
  await scheduleBoundaries(db, { tenantId: e.tenantId, projectIds: rows.map((p) => p.id), at: e.at, projects: true, tenant: kueue });
}

/**
 * Every tenant's cluster-scoped objects (its Kueue queues), with Kueue on:
 * after the pools' flavours changed in a way the queues follow (a flavour
 * gone, or the tiers it admits).
 */
export async function enqueueTenantQueuesChanges(db: Database, e: { reason: string; at: Date }): Promise<void> {
  if (!kueueEnabled()) return;
  for (const t of await db.select({ id: tenants.id }).from(tenants)) await enqueueClusterChange(db, { tenantId: t.id, reason: e.reason, at: e.at });
}
