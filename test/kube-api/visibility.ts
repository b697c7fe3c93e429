import type { StoredObject } from "./store";

/**
 * Kueue's visibility API (visibility.kueue.x-k8s.io, the "on-demand"
 * endpoint Kueue's own server aggregates into the API server), modelled from
 * the Workloads the stand-in stores: a LocalQueue's pending workloads are the
 * Workloads naming it in `spec.queueName` with no QuotaReserved=True and not
 * Finished, in Kueue's BestEffortFIFO order (higher priority first, then
 * older first). Positions count from 0, as Kueue's do, and the position in
 * the ClusterQueue counts every LocalQueue that feeds it.
 */

export const VISIBILITY_GROUP = "visibility.kueue.x-k8s.io";

interface WorkloadShape {
  spec?: { queueName?: string; priority?: number; priorityClassName?: string };
  status?: { conditions?: { type?: string; status?: string }[] };
}

const conditionTrue = (w: WorkloadShape, type: string) => (w.status?.conditions ?? []).some((c) => c.type === type && c.status === "True");
const isPending = (w: WorkloadShape) => !conditionTrue(w, "QuotaReserved") && !conditionTrue(w, "Finished");

/** The ClusterQueue a LocalQueue feeds, or undefined when there is no such LocalQueue. */
type LocalQueueTarget = (namespace: string, localQueue: string) => string | undefined;

export function pendingWorkloadsSummary(version: string, workloads: readonly StoredObject[], clusterQueueOf: LocalQueueTarget, namespace: string, localQueue: string): object {
  const target = clusterQueueOf(namespace, localQueue);
  const inClusterQueue = workloads
    .filter((o) => {
      const w = o as unknown as WorkloadShape;
      return isPending(w) && w.spec?.queueName !== undefined && target !== undefined && clusterQueueOf(o.metadata.namespace ?? "", w.spec.queueName) === target;
    })
    .sort((a, b) => {
      const pa = (a as unknown as WorkloadShape).spec?.priority ?? 0;
      const pb = (b as unknown as WorkloadShape).spec?.priority ?? 0;
      if (pa !== pb) return pb - pa;
      const ta = a.metadata.creationTimestamp ?? "";
      const tb = b.metadata.creationTimestamp ?? "";
      return ta < tb ? -1 : ta > tb ? 1 : a.metadata.name < b.metadata.name ? -1 : 1;
    });
  let inLocal = 0;
  const items = inClusterQueue.flatMap((o, positionInClusterQueue) => {
    const w = o as unknown as WorkloadShape;
    if (o.metadata.namespace !== namespace || w.spec?.queueName !== localQueue) return [];
    return [
      {
        metadata: { name: o.metadata.name, namespace: o.metadata.namespace, creationTimestamp: o.metadata.creationTimestamp },
        priority: w.spec?.priority ?? 0,
        localQueueName: localQueue,
        positionInClusterQueue,
        positionInLocalQueue: inLocal++,
      },
    ];
  });
  return { kind: "PendingWorkloadsSummary", apiVersion: `${VISIBILITY_GROUP}/${version}`, metadata: { creationTimestamp: null }, items };
}
