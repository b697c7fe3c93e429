import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import { clusterScheduledChanges, projects, tenants } from "@/db/schema";

/** A change the cluster will make later by itself (an expiry, a grant that starts or ends), not yet in the outbox. */
export interface ScheduledChangeItem {
  id: number;
  tenantSlug: string;
  projectSlug: string | null;
  namespace: string | null;
  dueAt: Date;
  reason: string;
}

/**
 * Scheduled changes still ahead at `now`, soonest first, for every project or
 * for one. Rows whose instant has passed are the recovery scan's to enqueue
 * within seconds; they are not "scheduled" any more, so they are left out.
 */
export async function scheduledClusterChanges(db: Database, now: Date, filter: { projectId?: string } = {}): Promise<ScheduledChangeItem[]> {
  const rows = await db
    .select({
      id: clusterScheduledChanges.id,
      tenantSlug: tenants.slug,
      projectSlug: projects.slug,
      namespace: projects.namespace,
      dueAt: clusterScheduledChanges.dueAt,
      reason: clusterScheduledChanges.reason,
    })
    .from(clusterScheduledChanges)
    .innerJoin(tenants, eq(tenants.id, clusterScheduledChanges.tenantId))
    .leftJoin(projects, eq(projects.id, clusterScheduledChanges.projectId))
    .where(
      and(
        isNull(clusterScheduledChanges.enqueuedAt),
        gt(clusterScheduledChanges.dueAt, now),
        filter.projectId ? eq(clusterScheduledChanges.projectId, filter.projectId) : undefined,
      ),
    )
    .orderBy(asc(clusterScheduledChanges.dueAt), asc(clusterScheduledChanges.id));
  return rows;
}
