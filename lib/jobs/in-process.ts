import type { Database } from "@/db/client";
import type { Clock } from "@/lib/clock";
import type { AuditCheckpointSettings, ClusterSettings } from "@/lib/config";
import { clusterRuntime } from "@/lib/cluster/runtime";
import { startWorkerLoop, workerIdentity, type WorkerLoop } from "./worker-loop";

const globalForWorker = globalThis as unknown as { allotReconcileLoop?: WorkerLoop };

/** Start the reconcile worker inside the server process (the default; ALLOT_CLUSTER_WORKER=0 leaves it to `allot worker`). */
export function startInProcessWorker(db: Database, settings: ClusterSettings, clock: Clock, auditCheckpoints?: AuditCheckpointSettings): WorkerLoop {
  if (globalForWorker.allotReconcileLoop) return globalForWorker.allotReconcileLoop;
  const runtime = clusterRuntime(settings);
  globalForWorker.allotReconcileLoop = startWorkerLoop({ db, settings, client: runtime.client, clock, workerId: workerIdentity("server"), auditCheckpoints });
  return globalForWorker.allotReconcileLoop;
}

/** Nudge the in-process worker after an admin asks for a reconcile, so the page shows the result without waiting for the next poll. */
export function wakeWorker(): void {
  globalForWorker.allotReconcileLoop?.wake();
}

/** Let the pass in progress finish, then stop polling (on shutdown). */
export async function stopInProcessWorker(): Promise<void> {
  const loop = globalForWorker.allotReconcileLoop;
  globalForWorker.allotReconcileLoop = undefined;
  await loop?.stop();
}
