import { and, eq, gt, inArray, isNull, ne, or } from "drizzle-orm";
import type { Database } from "@/db/client";
import { clusterScheduledChanges, projectGrants, projects, quotaGrants } from "@/db/schema";
import { projectTarget, tenantTarget } from "./target-keys";

/**
 * Changes the cluster must make later by itself, written beside the grant that
 * causes them. A project grant that expires takes its RoleBinding out of the
 * project's namespace; a quota grant that starts or ends changes the project's
 * ResourceQuota and LocalQueue and, with Kueue on, the tenant's ClusterQueue,
 * which sums its projects. Each of those targets gets its own row, so none of
 * them keeps an ended grant.
 */

interface Boundary {
  projectId: string;
  at: Date;
  reason: string;
  /** Quota moves: the tenant's ClusterQueue follows with Kueue on. */
  quota: boolean;
}

/** Every instant after `now` at which these projects' access or quota changes without anyone acting. */
async function futureBoundaries(db: Database, projectIds: readonly string[], now: Date): Promise<Boundary[]> {
  if (projectIds.length === 0) return [];
  const [access, quota] = await Promise.all([
    db
      .select({ projectId: projectGrants.projectId, expiresAt: projectGrants.expiresAt })
      .from(projectGrants)
      // A meter's grant renders nothing on the cluster, so its expiry changes nothing there.
      .where(and(inArray(projectGrants.projectId, [...projectIds]), gt(projectGrants.expiresAt, now), ne(projectGrants.role, "meter"))),
    db
      .select({ projectId: quotaGrants.projectId, startsAt: quotaGrants.startsAt, endsAt: quotaGrants.endsAt })
      .from(quotaGrants)
      .where(inArray(quotaGrants.projectId, [...projectIds])),
  ]);
  const out: Boundary[] = access.map((g) => ({ projectId: g.projectId, at: g.expiresAt!, reason: "access expires", quota: false }));
  for (const g of quota) {
    if (g.startsAt > now) out.push({ projectId: g.projectId, at: g.startsAt, reason: "quota grant starts", quota: true });
    if (g.endsAt && g.endsAt > now) out.push({ projectId: g.projectId, at: g.endsAt, reason: "quota grant ends", quota: true });
  }
  return out;
}

export interface ScheduleBoundaries {
  tenantId: string;
  projectIds: readonly string[];
  /** The writing transaction's instant: only boundaries after it are scheduled. */
  at: Date;
  /** Schedule the projects' own targets (their namespaces). */
  projects: boolean;
  /** Schedule the tenant's cluster-scoped target for quota boundaries (Kueue on). */
  tenant: boolean;
}

/**
 * Record every future boundary of these projects as a scheduled change. Call
 * it inside the transaction that writes the grants; it is idempotent (one row
 * per target and instant), so calling it again for a project that did not
 * change writes nothing.
 */
export async function scheduleBoundaries(db: Database, s: ScheduleBoundaries): Promise<number> {
  if (s.projectIds.length === 0 || (!s.projects && !s.tenant)) return 0;
  const boundaries = await futureBoundaries(db, s.projectIds, s.at);
  const rows = new Map<string, typeof clusterScheduledChanges.$inferInsert>();
  const add = (projectId: string | null, targetKey: string, b: Boundary) => {
    const key = `${targetKey}@${b.at.toISOString()}`;
    if (!rows.has(key)) rows.set(key, { tenantId: s.tenantId, projectId, targetKey, dueAt: b.at, reason: b.reason, createdAt: s.at });
  };
  for (const b of boundaries) {
    if (s.projects) add(b.projectId, projectTarget(b.projectId), b);
    if (s.tenant && b.quota) add(null, tenantTarget(s.tenantId), b);
  }
  if (s.projects) {
    // A grant revoked or moved to another instant leaves a row that would
    // change nothing: take it out, so the status page lists only what will happen.
    const wanted = new Set([...rows.keys()]);
    const waiting = await db
      .select({ id: clusterScheduledChanges.id, targetKey: clusterScheduledChanges.targetKey, dueAt: clusterScheduledChanges.dueAt })
      .from(clusterScheduledChanges)
      .where(and(inArray(clusterScheduledChanges.projectId, [...s.projectIds]), isNull(clusterScheduledChanges.enqueuedAt), gt(clusterScheduledChanges.dueAt, s.at)));
    const stale = waiting.filter((w) => !wanted.has(`${w.targetKey}@${w.dueAt.toISOString()}`)).map((w) => w.id);
    if (stale.length > 0) await db.delete(clusterScheduledChanges).where(inArray(clusterScheduledChanges.id, stale));
  }
  if (rows.size === 0) return 0;
  const written = await db
    .insert(clusterScheduledChanges)
    .values([...rows.values()])
    .onConflictDoNothing({ target: [clusterScheduledChanges.targetKey, clusterScheduledChanges.dueAt] })
    .returning({ id: clusterScheduledChanges.id });
  return written.length;
}

/**
 * A quota boundary that no longer exists (a grant's end moved by an
 * extension): the project's row goes through scheduleBoundaries, which knows
 * the project; the tenant's row (its ClusterQueue) is shared by every project
 * of the tenant, so it goes only when no quota grant of any of them starts or
 * ends at that instant.
 */
export async function dropTenantBoundaryIfUnused(db: Database, tenantId: string, at: Date): Promise<void> {
  const [still] = await db
    .select({ id: quotaGrants.id })
    .from(quotaGrants)
    .innerJoin(projects, eq(projects.id, quotaGrants.projectId))
    .where(and(eq(projects.tenantId, tenantId), or(eq(quotaGrants.startsAt, at), eq(quotaGrants.endsAt, at))))
    .limit(1);
  if (still) return;
  await db
    .delete(clusterScheduledChanges)
    .where(and(eq(clusterScheduledChanges.targetKey, tenantTarget(tenantId)), eq(clusterScheduledChanges.dueAt, at), isNull(clusterScheduledChanges.enqueuedAt)));
}
