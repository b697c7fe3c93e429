import { ClusterApiError, toClusterApiError, UNKNOWN_KIND, type ClusterClient, type KubeObject } from "./kube-client";
import { KUEUE_GROUP, type KueueApiVersion } from "./kueue-discovery";
import { parseQuantity } from "./quantity";

/**
 * What Kueue says about a tenant's queues now: the ClusterQueues' status
 * (quota reserved and borrowed per flavour and resource, workload counts,
 * fair-sharing), a project's Workloads (admitted or waiting, and why), and
 * the positions of its pending workloads from Kueue's visibility API, and
 * the tenants' Cohort objects where Kueue serves them (their status carries
 * fair sharing only: use is the sum of their ClusterQueues'). Read only, for
 * "Share now" (lib/quota/share-now.ts). A failure becomes a
 * QueueStatusError that says what to do; positions are optional extras
 * (Kueue's visibility server is a separate, often disabled, feature), so a
 * failure there is a note, not an error.
 */

export const VISIBILITY_GROUP = "visibility.kueue.x-k8s.io";

/** One flavour and resource of a ClusterQueue's status; amounts in cores, bytes or devices. */
export interface QueueFlavorUse {
  /** The ResourceFlavor's name (`<tenant>-<flavour>`). */
  flavor: string;
  resource: string;
  total: number;
  borrowed: number;
}

export interface ClusterQueueStatus {
  name: string;
  /** spec.cohort (v1beta1) or spec.cohortName (v1beta2). */
  cohort: string | null;
  /** Labels the portal put on it (tenant, project). */
  labels: Record<string, string>;
  /** Quota held by workloads that have it reserved (status.flavorsReservation, else flavorsUsage). */
  reserved: QueueFlavorUse[];
  pendingWorkloads: number;
  admittedWorkloads: number;
  /** status.fairSharing.weightedShare; null when fair sharing is off. */
  weightedShare: number | null;
}

/** A Cohort object's status: Kueue reports its fair sharing, not its use. */
export interface CohortStatus {
  name: string;
  labels: Record<string, string>;
  /** status.fairSharing.weightedShare; null when fair sharing is off or not computed yet. */
  weightedShare: number | null;
}

export type WorkloadState = "pending" | "reserved" | "admitted" | "finished";

export interface WorkloadStatus {
  name: string;
  namespace: string;
  /** The LocalQueue it was submitted to. */
  queueName: string | null;
  priorityClassName: string | null;
  priority: number | null;
  state: WorkloadState;
  /** Why it waits, or was put back: the message of its QuotaReserved=False, Evicted or Preempted condition. */
  reason: string | null;
  /** True when it had run and was evicted or preempted (then waits again). */
  evicted: boolean;
  createdAt: string | null;
}

export interface PendingPosition {
  name: string;
  namespace: string;
  localQueue: string;
  positionInClusterQueue: number;
  positionInLocalQueue: number;
  priority: number;
}

export type QueueStatusProblem = "forbidden" | "not-served" | "unreachable" | "failed";

/** Why the figures could not be read, and what to do about it. */
export class QueueStatusError extends Error {
  override readonly name = "QueueStatusError";
  constructor(
    readonly problem: QueueStatusProblem,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A cluster error as the sentence the page shows: what failed and what to do. */
export function queueStatusError(err: unknown, what: string, server: string): QueueStatusError {
  if (err instanceof QueueStatusError) return err;
  const e = err instanceof ClusterApiError ? err : toClusterApiError(err, { server });
  if (e.status === 403) {
    return new QueueStatusError("forbidden", `The portal may not read ${what} (${e.message}). Apply the portal's ClusterRole from deploy/base/clusterrole.yaml (npm run deploy:rbac regenerates it).`, { cause: err });
  }
  if (e.status === 404 || e.reason === UNKNOWN_KIND) {
    return new QueueStatusError("not-served", `The cluster does not serve ${what}: is Kueue installed at ${KUEUE_GROUP}/v1beta1 or v1beta2? (${e.message})`, { cause: err });
  }
  if (e.retryable) return new QueueStatusError("unreachable", `Could not reach the cluster at ${server} to read ${what} (${e.message}). The figures return when it answers; reload later.`, { cause: err });
  return new QueueStatusError("failed", `Reading ${what} failed: ${e.message}`, { cause: err });
}

const num = (v: unknown): number => (typeof v === "string" ? (parseQuantity(v) ?? 0) : typeof v === "number" && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

interface FlavorUsageShape {
  name?: unknown;
  resources?: { name?: unknown; total?: unknown; borrowed?: unknown }[];
}

function flavorUses(list: unknown): QueueFlavorUse[] {
  if (!Array.isArray(list)) return [];
  return (list as FlavorUsageShape[]).flatMap((f) =>
    (Array.isArray(f.resources) ? f.resources : []).flatMap((r) => {
      const flavor = str(f.name);
      const resource = str(r.name);
      return flavor && resource ? [{ flavor, resource, total: num(r.total), borrowed: num(r.borrowed) }] : [];
    }),
  );
}

/** One ClusterQueue as the API server sent it. Pure. */
export function clusterQueueStatusOf(o: KubeObject): ClusterQueueStatus {
  const spec = (o.spec ?? {}) as { cohort?: unknown; cohortName?: unknown };
  const status = (o.status ?? {}) as { flavorsReservation?: unknown; flavorsUsage?: unknown; pendingWorkloads?: unknown; admittedWorkloads?: unknown; fairSharing?: { weightedShare?: unknown } };
  return {
    name: o.metadata.name,
    cohort: str(spec.cohortName) ?? str(spec.cohort),
    labels: o.metadata.labels ?? {},
    reserved: flavorUses(status.flavorsReservation ?? status.flavorsUsage),
    pendingWorkloads: num(status.pendingWorkloads),
    admittedWorkloads: num(status.admittedWorkloads),
    weightedShare: status.fairSharing?.weightedShare === undefined ? null : num(status.fairSharing.weightedShare),
  };
}

/** One Cohort as the API server sent it. Pure. */
export function cohortStatusOf(o: KubeObject): CohortStatus {
  const share = ((o.status ?? {}) as { fairSharing?: { weightedShare?: unknown } }).fairSharing?.weightedShare;
  return { name: o.metadata.name, labels: o.metadata.labels ?? {}, weightedShare: share === undefined ? null : num(share) };
}

interface Condition {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
}

/** One Workload as the API server sent it: its state from its conditions, as Kueue sets them. Pure. */
export function workloadStatusOf(o: KubeObject): WorkloadStatus {
  const spec = (o.spec ?? {}) as { queueName?: unknown; priorityClassName?: unknown; priority?: unknown };
  const conditions = (((o.status ?? {}) as { conditions?: unknown }).conditions ?? []) as Condition[];
  const find = (type: string) => (Array.isArray(conditions) ? conditions.find((c) => c.type === type) : undefined);
  const isTrue = (type: string) => find(type)?.status === "True";
  const explain = (c: Condition | undefined) => (c ? (str(c.message) ?? str(c.reason)) : null);
  const evicted = isTrue("Evicted") || isTrue("Preempted");
  const state: WorkloadState = isTrue("Finished") ? "finished" : isTrue("Admitted") ? "admitted" : isTrue("QuotaReserved") ? "reserved" : "pending";
  const reason =
    state === "pending"
      ? (explain(find("QuotaReserved")) ?? explain(isTrue("Preempted") ? find("Preempted") : find("Evicted")) ?? (evicted ? null : "Kueue has not considered it yet"))
      : state === "reserved"
        ? (explain(find("Admitted")) ?? "quota reserved; waiting for admission checks")
        : null;
  return {
    name: o.metadata.name,
    namespace: o.metadata.namespace ?? "",
    queueName: str(spec.queueName),
    priorityClassName: str(spec.priorityClassName),
    priority: typeof spec.priority === "number" ? spec.priority : null,
    state,
    reason,
    evicted,
    createdAt: o.metadata.creationTimestamp ?? null,
  };
}

/** The version of Kueue's visibility API to ask: the cluster's preferred one, from `/apis`; null when not served. */
export function visibilityVersionOf(groups: unknown): string | null {
  const list = (groups as { groups?: { name?: string; versions?: { version?: string }[]; preferredVersion?: { version?: string } }[] } | null)?.groups ?? [];
  const group = list.find((g) => g.name === VISIBILITY_GROUP);
  if (!group) return null;
  return group.preferredVersion?.version ?? group.versions?.at(-1)?.version ?? null;
}

interface PendingItem {
  metadata?: { name?: unknown; namespace?: unknown };
  localQueueName?: unknown;
  positionInClusterQueue?: unknown;
  positionInLocalQueue?: unknown;
  priority?: unknown;
}

export function pendingPositionsOf(summary: unknown, namespace: string, localQueue: string): PendingPosition[] {
  const items = ((summary as { items?: unknown } | null)?.items ?? []) as PendingItem[];
  if (!Array.isArray(items)) return [];
  return items.flatMap((i) => {
    const name = str(i.metadata?.name);
    return name ? [{ name, namespace: str(i.metadata?.namespace) ?? namespace, localQueue: str(i.localQueueName) ?? localQueue, positionInClusterQueue: num(i.positionInClusterQueue), positionInLocalQueue: num(i.positionInLocalQueue), priority: num(i.priority) }] : [];
  });
}

export interface QueueStatusRead {
  clusterQueues: ClusterQueueStatus[];
  /** The Cohorts asked for (empty when none were). */
  cohorts: CohortStatus[];
  /** The project's workloads (empty when no namespace was asked for). */
  workloads: WorkloadStatus[];
  positions: PendingPosition[];
  /** Why positions are missing, when they are (the visibility API is not served, or not allowed). */
  positionsNote: string | null;
}

export interface QueueStatusQuery {
  kueueVersion: KueueApiVersion;
  /** Which ClusterQueues: a label selector (the portal's tenant label, or managed-by for all). */
  clusterQueueSelector: string;
  /** Also read the Cohort objects with this selector (only where the cluster serves them). */
  cohortSelector?: string;
  /** The project's namespace and LocalQueues, to read its workloads and their positions. */
  project?: { namespace: string; localQueues: readonly string[] };
}

/** Reads ClusterQueues, and for a project its Workloads and pending positions. Throws QueueStatusError. */
export async function readQueueStatus(client: ClusterClient, query: QueueStatusQuery): Promise<QueueStatusRead> {
  const apiVersion = `${KUEUE_GROUP}/${query.kueueVersion}`;
  const attempt = async <T>(what: string, read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (err) {
      throw queueStatusError(err, what, client.server);
    }
  };
  const project = query.project;
  const cohortSelector = query.cohortSelector;
  const [queues, workloads, cohorts] = await Promise.all([
    attempt("Kueue ClusterQueues", () => client.list(apiVersion, "ClusterQueue", { labelSelector: query.clusterQueueSelector })),
    project ? attempt(`Kueue Workloads in ${project.namespace}`, () => client.list(apiVersion, "Workload", { namespace: project.namespace, labelSelector: "" })) : Promise.resolve([]),
    cohortSelector !== undefined ? attempt("Kueue Cohorts", () => client.list(apiVersion, "Cohort", { labelSelector: cohortSelector })) : Promise.resolve([]),
  ]);
  const read: QueueStatusRead = { clusterQueues: queues.map(clusterQueueStatusOf), cohorts: cohorts.map(cohortStatusOf), workloads: workloads.map(workloadStatusOf), positions: [], positionsNote: null };
  if (!project || !read.workloads.some((w) => w.state === "pending")) return read;

  try {
    const version = visibilityVersionOf(await client.getJson("/apis", "API discovery"));
    if (!version) return { ...read, positionsNote: "Positions in the queue are not available: the cluster does not serve Kueue's visibility API (the VisibilityOnDemand feature)." };
    const summaries = await Promise.all(
      project.localQueues.map(async (lq) => {
        const path = `/apis/${VISIBILITY_GROUP}/${version}/namespaces/${encodeURIComponent(project.namespace)}/localqueues/${encodeURIComponent(lq)}/pendingworkloads`;
        try {
          return pendingPositionsOf(await client.getJson(path, "Kueue pending workloads"), project.namespace, lq);
        } catch (err) {
          // A LocalQueue not created yet (no burst: no `preemptible`) has no positions to give.
          if (err instanceof ClusterApiError && err.status === 404) return [];
          throw err;
        }
      }),
    );
    return { ...read, positions: summaries.flat() };
  } catch (err) {
    return { ...read, positionsNote: `Positions in the queue are not available: ${queueStatusError(err, "Kueue's visibility API", client.server).message}` };
  }
}
