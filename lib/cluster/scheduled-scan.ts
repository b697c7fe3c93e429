import { and, asc, eq, isNull, lte } from "drizzle-orm";
import type { Database } from "@/db/client";
import { clusterScheduledChanges } from "@/db/schema";
import type { PeriodicJob } from "@/lib/jobs/periodic";
import { enqueueClusterChange } from "./outbox";

const BATCH = 100;

/**
 * The recovery scan: move scheduled changes whose instant has come into the
 * outbox, each in the same transaction that marks it enqueued. It reads only
 * the database, so a change scheduled by a process that has since died, or
 * while no worker ran, is enqueued by the next pass of any worker; rows are
 * taken with SKIP LOCKED, so replicas scanning at once enqueue each row once.
 * Returns how many it enqueued.
 */
export async function enqueueDueScheduledChanges(db: Database, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await db.transaction(async (tx) => {
      const due = await tx
        .select()
        .from(clusterScheduledChanges)
        .where(and(isNull(clusterScheduledChanges.enqueuedAt), lte(clusterScheduledChanges.dueAt, now)))
        .orderBy(asc(clusterScheduledChanges.dueAt), asc(clusterScheduledChanges.id))
        .limit(BATCH)
        .for("update", { skipLocked: true });
      for (const d of due) {
        // The target's own change only: a quota boundary has its own row for the tenant's ClusterQueue.
        const changeId = await enqueueClusterChange(tx, { tenantId: d.tenantId, ...(d.projectId ? { projectId: d.projectId } : {}), reason: d.reason, at: now });
        await tx.update(clusterScheduledChanges).set({ enqueuedAt: now, changeId }).where(eq(clusterScheduledChanges.id, d.id));
      }
      return due.length;
    });
    total += n;
    if (n < BATCH) return total;
  }
}

/**
 * The scan as a periodic job, on every pass and before the reconcile pass, so
 * a change whose instant has come is applied in the same pass. One replica
 * (the leader) scans; every replica then applies from the outbox.
 */
export function scheduledChangesJob(db: Database): PeriodicJob {
  return {
    name: "scheduled changes",
    everyMs: 0,
    phase: "before-reconcile",
    async run(now) {
      const n = await enqueueDueScheduledChanges(db, now);
      return n > 0 ? `${n} due changes enqueued` : null;
    },
  };
}
