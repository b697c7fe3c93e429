import { and, asc, desc, eq, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { clusterChangeAttempts, clusterChanges, clusterObjects, projects, tenants } from "@/db/schema";

/** Apply order of the kinds we render, for listing objects the way they are applied. */
const KIND_ORDER = ["WorkloadPriorityClass", "ResourceFlavor", "Cohort", "ClusterQueue", "Namespace", "ResourceQuota", "LimitRange", "NetworkPolicy", "ServiceAccount", "RoleBinding", "LocalQueue"];
const kindRank = sql<number>`array_position(array[${sql.join(
  KIND_ORDER.map((k) => sql`${k}`),
  sql`, `,
)}]::text[], ${clusterObjects.kind})`;

export type ClusterObjectRow = typeof clusterObjects.$inferSelect;
export type ClusterChangeRow = typeof clusterChanges.$inferSelect;

/** A project's objects as last rendered, in apply order, with what is known of each on the cluster. */
export async function projectClusterObjects(db: Database, projectId: string): Promise<ClusterObjectRow[]> {
  return db.select().from(clusterObjects).where(eq(clusterObjects.projectId, projectId)).orderBy(kindRank, asc(clusterObjects.name));
}

/** The newest changes of one project, newest first. */
export async function projectClusterChanges(db: Database, projectId: string, limit = 5): Promise<ClusterChangeRow[]> {
  return db.select().from(clusterChanges).where(eq(clusterChanges.projectId, projectId)).orderBy(desc(clusterChanges.id)).limit(limit);
}

export type ChangeStatus = ClusterChangeRow["status"];
export const CHANGE_STATUSES: readonly ChangeStatus[] = ["pending", "applying", "applied", "recorded", "failed", "superseded"];

export interface ChangeListItem extends ClusterChangeRow {
  /** null: the platform's flavours. */
  tenantSlug: string | null;
  projectSlug: string | null;
  namespace: string | null;
  attemptLog: (typeof clusterChangeAttempts.$inferSelect)[];
}

/** Changes shown on one page of the platform cluster page. */
export const CHANGES_PAGE_SIZE = 100;

export interface ClusterChangesPage {
  changes: ChangeListItem[];
  /** The id to pass as `before` for the next (older) page; null on the last page. */
  older: number | null;
}

/**
 * One page of the platform cluster page's changes, newest first, with their
 * targets and every attempt. Keyset paging on the change's id (the outbox's
 * order): a page is "the changes before #before", so a late page costs what
 * the first costs and a change queued meanwhile neither repeats nor hides
 * another. One row more than the page is read to know whether an older page exists.
 */
export async function clusterChangesPage(db: Database, filter: { status?: ChangeStatus; before?: number; limit?: number } = {}): Promise<ClusterChangesPage> {
  const limit = filter.limit ?? CHANGES_PAGE_SIZE;
  const conditions = [filter.status ? eq(clusterChanges.status, filter.status) : undefined, filter.before !== undefined ? lt(clusterChanges.id, filter.before) : undefined];
  const rows = await db
    .select({ change: clusterChanges, tenantSlug: tenants.slug, projectSlug: projects.slug, namespace: projects.namespace })
    .from(clusterChanges)
    .leftJoin(tenants, eq(tenants.id, clusterChanges.tenantId))
    .leftJoin(projects, eq(projects.id, clusterChanges.projectId))
    .where(and(...conditions))
    .orderBy(desc(clusterChanges.id))
    .limit(limit + 1);
  const shown = rows.slice(0, limit);
  const ids = shown.map((r) => r.change.id);
  const attempts = ids.length
    ? await db.select().from(clusterChangeAttempts).where(inArray(clusterChangeAttempts.changeId, ids)).orderBy(asc(clusterChangeAttempts.id))
    : [];
  const attemptsByChange = new Map<number, typeof attempts>();
  for (const a of attempts) attemptsByChange.set(a.changeId, [...(attemptsByChange.get(a.changeId) ?? []), a]);
  return {
    changes: shown.map((r) => ({
      ...r.change,
      tenantSlug: r.tenantSlug,
      projectSlug: r.projectSlug,
      namespace: r.namespace,
      attemptLog: attemptsByChange.get(r.change.id) ?? [],
    })),
    older: rows.length > limit ? shown[shown.length - 1]!.change.id : null,
  };
}

/** How many changes are in each status: the summary line of the cluster page. */
export async function changeCounts(db: Database): Promise<Record<ChangeStatus, number>> {
  const rows = await db.select({ status: clusterChanges.status, n: sql<number>`count(*)::int` }).from(clusterChanges).groupBy(clusterChanges.status);
  const counts = Object.fromEntries(CHANGE_STATUSES.map((s) => [s, 0])) as Record<ChangeStatus, number>;
  for (const r of rows) counts[r.status] = Number(r.n);
  return counts;
}

export interface DriftedObject extends ClusterObjectRow {
  /** null: a platform object (a shared ResourceFlavor). */
  tenantSlug: string | null;
  projectSlug: string | null;
}

/** Objects whose live state differs from what the portal applied, or that are gone. */
export async function driftedObjects(db: Database): Promise<DriftedObject[]> {
  const rows = await db
    .select({ object: clusterObjects, tenantSlug: tenants.slug, projectSlug: projects.slug })
    .from(clusterObjects)
    .leftJoin(tenants, eq(tenants.id, clusterObjects.tenantId))
    .leftJoin(projects, eq(projects.id, clusterObjects.projectId))
    .where(eq(clusterObjects.status, "drifted"))
    .orderBy(sql`${tenants.slug} asc nulls first`, asc(clusterObjects.namespace), kindRank, asc(clusterObjects.name));
  return rows.map((r) => ({ ...r.object, tenantSlug: r.tenantSlug, projectSlug: r.projectSlug }));
}

export async function clusterChangeById(db: Database, id: number): Promise<ChangeListItem | null> {
  const [row] = await db
    .select({ change: clusterChanges, tenantSlug: tenants.slug, projectSlug: projects.slug, namespace: projects.namespace })
    .from(clusterChanges)
    .leftJoin(tenants, eq(tenants.id, clusterChanges.tenantId))
    .leftJoin(projects, eq(projects.id, clusterChanges.projectId))
    .where(eq(clusterChanges.id, id));
  if (!row) return null;
  const attemptLog = await db.select().from(clusterChangeAttempts).where(eq(clusterChangeAttempts.changeId, id)).orderBy(asc(clusterChangeAttempts.id));
  return { ...row.change, tenantSlug: row.tenantSlug, projectSlug: row.projectSlug, namespace: row.namespace, attemptLog };
}
