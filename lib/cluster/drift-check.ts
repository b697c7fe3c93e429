import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "@/db/client";
import { clusterObjects } from "@/db/schema";
import type { Clock } from "@/lib/clock";
import type { PeriodicJob } from "@/lib/jobs/periodic";
import { metrics } from "@/lib/observability/metrics";
import { ownedFieldDrift } from "./drift";
import type { ClusterClient } from "./kube-client";

export interface DriftReport {
  checked: number;
  drifted: number;
  missing: number;
}

/**
 * Read back every object the cluster should hold (applied or already
 * drifted) and compare the fields the portal owns. Drifted and missing
 * objects are marked so the cluster page lists them; objects that match
 * again are marked applied. Objects still planned or failing are left alone:
 * their change is what will settle them.
 */
export async function checkDrift(o: { db: Database; client: ClusterClient; clock: Clock; projectId?: string }): Promise<DriftReport> {
  const report: DriftReport = { checked: 0, drifted: 0, missing: 0 };
  const statuses = inArray(clusterObjects.status, ["applied", "drifted"]);
  const rows = await o.db
    .select()
    .from(clusterObjects)
    .where(o.projectId ? and(statuses, eq(clusterObjects.projectId, o.projectId)) : statuses);
  for (const row of rows) {
    const live = await o.client.read({ apiVersion: row.apiVersion, kind: row.kind, name: row.name, ...(row.namespace ? { namespace: row.namespace } : {}) });
    const drift = live === null ? ("missing" as const) : ownedFieldDrift(row.manifest, live);
    const drifted = drift === "missing" || drift.length > 0;
    report.checked++;
    if (drift === "missing") report.missing++;
    else if (drifted) report.drifted++;
    await o.db
      .update(clusterObjects)
      .set({ status: drifted ? "drifted" : "applied", drift: drifted ? drift : null, checkedAt: o.clock() })
      // Only if no change re-rendered it meanwhile: that change's result wins.
      .where(and(eq(clusterObjects.id, row.id), eq(clusterObjects.updatedAt, row.updatedAt)));
  }
  metrics().driftFound.inc({ kind: "drifted" }, report.drifted);
  metrics().driftFound.inc({ kind: "missing" }, report.missing);
  return report;
}

/**
 * The drift check as a periodic job (live mode): every interval, after the
 * reconcile pass, and first one interval after start (what was just applied
 * needs no reading back).
 */
export function driftCheckJob(o: { db: Database; client: ClusterClient; clock: Clock; everyMs: number }): PeriodicJob {
  return {
    name: "drift check",
    everyMs: o.everyMs,
    phase: "after-reconcile",
    firstAfterInterval: true,
    async run() {
      const r = await checkDrift(o);
      return r.drifted + r.missing > 0 ? `${r.drifted} drifted and ${r.missing} missing of ${r.checked} objects` : null;
    },
  };
}
