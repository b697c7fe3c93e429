import { expect } from "@playwright/test";
import { KUBE_API_URL } from "./env";

/**
 * Kueue's part in the live journeys, played as Kueue's controllers would play
 * it, through the stand-in API server's HTTP API (test/kube-api, started by
 * playwright.config.ts): Workloads applied, statuses applied to the status
 * subresource, and the visibility API read back. The ClusterQueues and
 * LocalQueues are the live portal's own, applied by its worker from the demo.
 */

export const KUEUE_API = "kueue.x-k8s.io/v1beta2";
const FIELD_MANAGER = "kueue-controller";

/** A Kubernetes object as the API server returns it (only what the journeys read). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; creationTimestamp?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

async function call<T>(method: "GET" | "PATCH", path: string, body?: object): Promise<{ status: number; json: T }> {
  const res = await fetch(`${KUBE_API_URL}${path}`, {
    method,
    headers: body ? { "content-type": "application/apply-patch+yaml" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json()) as T };
}

/** GET; throws with the API server's message unless it answers 200. */
async function read<T>(path: string): Promise<T> {
  const { status, json } = await call<T & { message?: string }>("GET", path);
  if (status !== 200) throw new Error(`GET ${path}: ${status} ${json.message ?? ""}`);
  return json;
}

/** Server-side apply as Kueue's field manager; throws with the API server's message on a refusal. */
async function apply(path: string, body: object): Promise<KubeObject> {
  const { status, json } = await call<KubeObject & { message?: string }>("PATCH", `${path}?fieldManager=${FIELD_MANAGER}&force=true`, body);
  if (status !== 200 && status !== 201) throw new Error(`apply ${path}: ${status} ${json.message ?? ""}`);
  return json;
}

export const clusterQueuePath = (name: string) => `/apis/${KUEUE_API}/clusterqueues/${encodeURIComponent(name)}`;
export const localQueuePath = (namespace: string, name: string) => `/apis/${KUEUE_API}/namespaces/${encodeURIComponent(namespace)}/localqueues/${encodeURIComponent(name)}`;
const workloadPath = (namespace: string, name: string) => `/apis/${KUEUE_API}/namespaces/${encodeURIComponent(namespace)}/workloads/${encodeURIComponent(name)}`;

/** Waits until the live portal's worker has applied these objects (it starts with the portal and applies the whole demo). */
export async function waitForObjects(paths: readonly string[], timeout = 60_000): Promise<void> {
  await expect
    .poll(async () => (await Promise.all(paths.map(async (p) => (await call("GET", p)).status))).filter((s) => s !== 200).length, {
      message: `the live portal's worker applies ${paths.join(", ")} to the stand-in`,
      timeout,
      intervals: [250, 500, 1000],
    })
    .toBe(0);
}

export const getObject = (path: string) => read<KubeObject>(path);

/** One flavour's resources in a ClusterQueue's status, as Kueue reports quota reserved. */
export type FlavorUse = { name: string; resources: { name: string; total: string; borrowed: string }[] };

export interface ClusterQueueStatus {
  flavorsReservation: FlavorUse[];
  pendingWorkloads: number;
  reservingWorkloads: number;
  admittedWorkloads: number;
}

/** Sets a ClusterQueue's status as Kueue's ClusterQueue controller does (reservation and usage alike: every workload here is admitted once reserved). */
export function setClusterQueueStatus(name: string, status: ClusterQueueStatus): Promise<KubeObject> {
  return apply(`${clusterQueuePath(name)}/status`, { apiVersion: KUEUE_API, kind: "ClusterQueue", metadata: { name }, status: { ...status, flavorsUsage: status.flavorsReservation } });
}

export interface WorkloadSpec {
  namespace: string;
  name: string;
  /** The LocalQueue it was submitted to. */
  queueName: string;
  priorityClassName: string;
  priority: number;
  /** What its one pod set asks for: GPUs, and CPU and memory as Kubernetes quantities. */
  gpus: number;
  cpu?: string;
  memory?: string;
}

export type WorkloadState = { admitted: true } | { admitted: false; message: string };

/**
 * A Workload as Kueue's job controller creates it for a job, then its status
 * as the scheduler sets it: admitted (quota reserved), or waiting with the
 * scheduler's message on QuotaReserved=False.
 */
export async function applyWorkload(w: WorkloadSpec, state: WorkloadState): Promise<KubeObject> {
  const path = workloadPath(w.namespace, w.name);
  await apply(path, {
    apiVersion: KUEUE_API,
    kind: "Workload",
    metadata: { name: w.name, namespace: w.namespace },
    spec: {
      queueName: w.queueName,
      priorityClassName: w.priorityClassName,
      priorityClassSource: "kueue.x-k8s.io/workloadpriorityclass",
      priority: w.priority,
      podSets: [{ name: "main", count: 1, template: { spec: { containers: [{ name: "main", resources: { requests: { "nvidia.com/gpu": String(w.gpus), ...(w.cpu ? { cpu: w.cpu } : {}), ...(w.memory ? { memory: w.memory } : {}) } } }] } } }],
    },
  });
  const at = new Date().toISOString();
  const conditions = state.admitted
    ? [
        { type: "QuotaReserved", status: "True", reason: "QuotaReserved", message: `Quota reserved in ClusterQueue`, lastTransitionTime: at },
        { type: "Admitted", status: "True", reason: "Admitted", message: "The workload is admitted", lastTransitionTime: at },
      ]
    : [{ type: "QuotaReserved", status: "False", reason: "Pending", message: state.message, lastTransitionTime: at }];
  return apply(`${path}/status`, { apiVersion: KUEUE_API, kind: "Workload", metadata: { name: w.name, namespace: w.namespace }, status: { conditions } });
}

export interface PendingWorkloadItem {
  metadata: { name: string; namespace: string };
  localQueueName: string;
  positionInClusterQueue: number;
  positionInLocalQueue: number;
  priority: number;
}

/** A LocalQueue's pending workloads from Kueue's visibility API, first in line first. */
export async function pendingWorkloads(namespace: string, localQueue: string): Promise<PendingWorkloadItem[]> {
  const summary = await read<{ items: PendingWorkloadItem[] }>(`/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/${encodeURIComponent(namespace)}/localqueues/${encodeURIComponent(localQueue)}/pendingworkloads`);
  return summary.items;
}
