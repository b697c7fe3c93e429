import { z } from "zod";
import { GPU_PRODUCT_LABEL, gpuModelName } from "@/lib/quota/import-pools";
import type { UsageSample } from "./ingest";
import { RESOURCE_KEY_PATTERN } from "./units";

/**
 * Usage from Prometheus, the part without a database: the PromQL asked for
 * each hour, the client of Prometheus's HTTP API, and the mapping of the
 * answers to hourly usage samples (prometheus-source.ts runs it against the
 * database).
 *
 * The series read are kube-state-metrics' (requests, pods, nodes, PVCs),
 * cAdvisor's (CPU and memory use) and dcgm-exporter's (GPU activity). Every
 * query is an instant query evaluated at the END of the hour [H, H+1h), at
 * time H+1h:
 *
 * - Amounts held over time (requests, memory working set, PVC sizes, GPU
 *   activity) are sampled at 60 one-minute points with a subquery and summed,
 *   `sum_over_time((X)[59m59s:1m]) / 60`, so a pod present 30 minutes counts
 *   half an hour (a minute without the series counts zero). The window is
 *   59m59s, not 1h, because Prometheus 2.x includes both ends of a range: [1h:1m]
 *   gives 61 points (H, H+1m … H+1h) and counts a whole-hour pod 61/60 hours.
 *   59m59s gives the 60 points H+1m … H+1h on 2.x and 3.x alike; each point
 *   sees the last scrape before it, i.e. the minute that ends there.
 * - Requests count only for pods that hold them: scheduled to a node
 *   (kube_pod_info{node!=""}) and Pending or Running (kube_pod_status_phase).
 *   kube-state-metrics keeps reporting the requests of Succeeded and Failed
 *   pods until they are deleted, and an unscheduled pod holds nothing. Init
 *   containers are not counted. Duplicates from replicated kube-state-metrics
 *   are collapsed with max by (namespace, pod, container, resource).
 * - CPU used is `increase(container_cpu_usage_seconds_total[1h]) / 3600`
 *   (core-hours); cAdvisor's pod-level and pause-container series are left out
 *   (container!="", container!="POD") so nothing is counted twice.
 * - Storage is the requested size of Bound PVCs (an unbound claim has no
 *   volume yet).
 * - GPUs are requests of the node pools' GPU resources (and of nvidia.com/gpu
 *   and any nvidia.com/mig-* profile) by namespace, resource and node; the
 *   model comes from the node's nvidia.com/gpu.product label
 *   (kube_node_labels, which kube-state-metrics exposes only when started with
 *   --metric-labels-allowlist=nodes=[nvidia.com/gpu.product]), see gpuUsageKey.
 * - GPU activity is DCGM_FI_PROF_GR_ENGINE_ACTIVE (0–1) per GPU or MIG
 *   instance, or DCGM_FI_DEV_GPU_UTIL / 100 where the profiling metric is
 *   absent, attributed by dcgm-exporter's namespace and pod labels (or
 *   exported_namespace / exported_pod when the scrape kept the exporter's own),
 *   joined to the pod's node like the requests. Busy and measured GPU-minutes
 *   are summed separately so utilisation is weighted by GPU-time.
 */

const HOUR_MS = 3_600_000;
const GiB = 2 ** 30;
const WINDOW = "59m59s";
const POINTS_PER_HOUR = 60;

/** kube-state-metrics' label-name sanitising: "nvidia.com/gpu" -> "nvidia_com_gpu". */
export const sanitizeLabelName = (name: string): string => name.replace(/[^a-zA-Z0-9_]/g, "_");

/** The kube_node_labels label holding the GPU product. */
export const NODE_PRODUCT_LABEL = `label_${sanitizeLabelName(GPU_PRODUCT_LABEL)}`;

export type UsageQueryName = "requests" | "gpuRequests" | "cpuUsed" | "memoryUsed" | "storage" | "nodeGpuProducts" | "gpuBusy" | "gpuMeasured";

/** What the mapping needs of a node pool. */
export interface GpuPool {
  gpuModel: string | null;
  gpuResource: string | null;
  /** A mixed MIG pool's further requestable profiles: each a model of its own; absent: none. */
  gpuProfiles?: readonly { model: string; resource: string }[];
}

/** Every model the pools offer with its resource, one entry each: a mixed MIG pool's further profiles are models of their own. */
const offersOf = (pools: readonly GpuPool[]): GpuPool[] => pools.flatMap((p) => [p, ...(p.gpuModel ? (p.gpuProfiles ?? []).map((x) => ({ gpuModel: x.model, gpuResource: x.resource })) : [])]);

/** Amount-hours within the hour: the sum over 60 one-minute points / 60 (see the module comment). */
const hoursOf = (expr: string) => `sum_over_time((${expr})[${WINDOW}:1m]) / ${POINTS_PER_HOUR}`;
const minutesOf = (expr: string) => `sum_over_time((${expr})[${WINDOW}:1m])`;

/** namespace, pod, node of every pod that holds its requests; value 1. */
const PODS_HOLDING_REQUESTS =
  '(max by (namespace, pod, node) (kube_pod_info{node!=""}) * on (namespace, pod) group_left () max by (namespace, pod) (kube_pod_status_phase{phase=~"Pending|Running"} == 1))';

const requested = (resourceMatcher: string) => `max by (namespace, pod, container, resource) (kube_pod_container_resource_requests{resource=~"${resourceMatcher}"})`;

const CONTAINERS = 'container!="", container!="POD"';

/** Per GPU or MIG instance, 0–1, labelled with the pod using it and its node. */
const GPU_ACTIVITY_ON_NODES =
  'label_replace(label_replace(DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_DEV_GPU_UTIL / 100, "namespace", "$1", "exported_namespace", "(.+)"), "pod", "$1", "exported_pod", "(.+)")' +
  ` * on (namespace, pod) group_left (node) ${PODS_HOLDING_REQUESTS}`;

/** The `resource` values (as kube-state-metrics writes them) counted as GPUs: the pools' GPU resources, nvidia.com/gpu and every MIG profile. */
export function gpuResourceMatcher(pools: readonly GpuPool[]): string {
  const named = new Set(["nvidia_com_gpu", ...offersOf(pools).flatMap((p) => (p.gpuResource ? [sanitizeLabelName(p.gpuResource)] : []))]);
  const explicit = [...named].filter((r) => !r.startsWith("nvidia_com_mig_")).sort();
  return [...explicit, "nvidia_com_mig_.+"].join("|");
}

/** The PromQL of each hourly figure; all are evaluated at the end of the hour (queryTimeOf). */
export function usageQueries(pools: readonly GpuPool[]): Record<UsageQueryName, string> {
  return {
    requests: hoursOf(`sum by (namespace, resource) (${requested("cpu|memory")} * on (namespace, pod) group_left () ${PODS_HOLDING_REQUESTS})`),
    gpuRequests: hoursOf(`sum by (namespace, resource, node) (${requested(gpuResourceMatcher(pools))} * on (namespace, pod) group_left (node) ${PODS_HOLDING_REQUESTS})`),
    cpuUsed: `sum by (namespace) (increase(container_cpu_usage_seconds_total{${CONTAINERS}}[1h])) / 3600`,
    memoryUsed: hoursOf(`sum by (namespace) (container_memory_working_set_bytes{${CONTAINERS}})`),
    storage: hoursOf(
      'sum by (namespace) (max by (namespace, persistentvolumeclaim) (kube_persistentvolumeclaim_resource_requests_storage_bytes) * on (namespace, persistentvolumeclaim) group_left () max by (namespace, persistentvolumeclaim) (kube_persistentvolumeclaim_status_phase{phase="Bound"} == 1))',
    ),
    nodeGpuProducts: `max by (node, ${NODE_PRODUCT_LABEL}) (last_over_time(kube_node_labels{${NODE_PRODUCT_LABEL}!=""}[1h]))`,
    gpuBusy: minutesOf(`sum by (namespace, node, GPU_I_PROFILE) (${GPU_ACTIVITY_ON_NODES})`),
    gpuMeasured: minutesOf(`count by (namespace, node, GPU_I_PROFILE) (${GPU_ACTIVITY_ON_NODES})`),
  };
}

/** The instant every query of the hour starting at `hour` is evaluated at: the hour's end. */
export const queryTimeOf = (hour: Date): Date => new Date(hour.getTime() + HOUR_MS);

/** One series of an instant-query answer. */
export interface PromSample {
  labels: Record<string, string>;
  value: number;
}

export type HourAnswers = Record<UsageQueryName, PromSample[]>;

/** Where a namespace's usage goes. */
export interface ProjectNamespace {
  projectId: string;
  tenantId: string;
  namespace: string;
}

/** The Kubernetes resource name behind a sanitised label: "nvidia_com_mig_1g_10gb" -> "nvidia.com/mig-1g.10gb". */
function resourceNameOf(label: string, pools: readonly GpuPool[]): string {
  const pooled = offersOf(pools).find((p) => p.gpuResource && sanitizeLabelName(p.gpuResource) === label)?.gpuResource;
  if (pooled) return pooled;
  if (label === "nvidia_com_gpu") return "nvidia.com/gpu";
  const mig = /^nvidia_com_mig_(\d+g)_(\d+gb)(?:_(me))?$/.exec(label);
  return mig ? `nvidia.com/mig-${mig[1]}.${mig[2]}${mig[3] ? "+me" : ""}` : label;
}

const words = (name: string) => name.toLowerCase().split(/\s+/).filter(Boolean);

/** A rate-card key for a model name that came from a label: characters the key does not allow become "-". */
function keyOf(model: string): string {
  const cleaned = model.replace(/[^A-Za-z0-9 ._-]/g, "-").replace(/^[^A-Za-z0-9]+/, "").slice(0, 63).trim();
  const key = `gpu:${cleaned || "unknown GPU"}`;
  return RESOURCE_KEY_PATTERN.test(key) ? key : "gpu:unknown GPU";
}

/**
 * The usage key ("gpu:<model>") of GPUs of one resource on one node. Among the
 * pools offering that resource: the only one, or the one whose model matches
 * the node's product as pool import names it (gpuModelName), exactly or by
 * its words ("H100" matches "H100 80GB HBM3", "A100 1g.10gb" matches
 * "A100 SXM4 80GB 1g.10gb"; the pool naming most words wins). A GPU no pool
 * describes is named from its product (or "unknown GPU") and reported in
 * `unmatched`: priced under its own key (unpriced until the rate card has
 * one), never at another model's rate.
 */
export function gpuUsageKey(resourceLabel: string, node: string, product: string | undefined, pools: readonly GpuPool[]): { resource: string; unmatched: string | null } {
  const candidates = offersOf(pools).filter((p): p is { gpuModel: string; gpuResource: string } => Boolean(p.gpuModel && p.gpuResource) && sanitizeLabelName(p.gpuResource!) === resourceLabel);
  const resourceName = resourceNameOf(resourceLabel, pools);
  if (!product) {
    if (candidates.length === 1) return { resource: keyOf(candidates[0]!.gpuModel), unmatched: null };
    const resource = keyOf(gpuModelName("unknown GPU", resourceName));
    const why = candidates.length === 0 ? "no node pool offers it" : `node has no ${GPU_PRODUCT_LABEL} label to choose among ${candidates.length} pools`;
    return { resource, unmatched: `${resourceName} on node ${node || "(unknown)"}: ${why}; counted as ${resource}` };
  }
  // A time-sliced node (product ending in -SHARED, or the renamed resource) matches pools named for its slices ("L4 shared x4"), never the
  // whole-GPU model, and a slice no pool names keeps "shared" in its key, so it is never priced at the whole GPU's rate.
  const shared = /-SHARED$/i.test(product) || resourceName === "nvidia.com/gpu.shared";
  const plain = gpuModelName(product, resourceName);
  const named = shared && !/ shared x\d+$/.test(plain) ? `${plain} shared` : plain;
  const nodeWords = new Set(words(named));
  const exact = candidates.find((p) => p.gpuModel.toLowerCase() === named.toLowerCase());
  const poolWords = (model: string) => words(model).filter((w) => !/^x\d+$/.test(w));
  const byWords = candidates
    .filter((p) => poolWords(p.gpuModel).every((w) => nodeWords.has(w)) && (!shared || poolWords(p.gpuModel).includes("shared")))
    .sort((a, b) => poolWords(b.gpuModel).length - poolWords(a.gpuModel).length || (a.gpuModel < b.gpuModel ? -1 : 1))[0];
  const pool = exact ?? byWords;
  if (pool) return { resource: keyOf(pool.gpuModel), unmatched: null };
  const resource = keyOf(named);
  return { resource, unmatched: `${resourceName} on node ${node} (${product}): no node pool has this model; counted as ${resource}` };
}

/** Usage of one hour, and what could not be attributed. */
export interface HourUsage {
  samples: UsageSample[];
  /** Namespaces with usage that belong to no project. */
  ignoredNamespaces: Set<string>;
  /** GPUs counted under a model no node pool names (see gpuUsageKey). */
  unmatchedGpus: Set<string>;
}

interface Tally {
  project: ProjectNamespace;
  resource: string;
  requested: number | null;
  used: number | null;
  quantity: number;
  busyMinutes: number;
  measuredMinutes: number;
}

/** Float noise from the division by 60 or 2^30 (5.999999999999999) is not a quantity anyone measured. */
const tidy = (v: number) => Number(v.toPrecision(12));
const add = (a: number | null, b: number) => (a ?? 0) + b;

/**
 * The hour's samples from the answers to usageQueries: per project and
 * resource, CPU and memory as max(requested, used) with both kept, storage in
 * GiB-hours, GPU-hours per model with the GPU-time-weighted utilisation where
 * DCGM measured it. Namespaces of no project are left out and named.
 */
export function hourUsageOf(hour: Date, answers: HourAnswers, projects: readonly ProjectNamespace[], pools: readonly GpuPool[]): HourUsage {
  const byNamespace = new Map(projects.map((p) => [p.namespace, p]));
  const ignoredNamespaces = new Set<string>();
  const unmatchedGpus = new Set<string>();
  const tallies = new Map<string, Tally>();
  const projectOf = (labels: Record<string, string>): ProjectNamespace | null => {
    const namespace = labels.namespace;
    if (!namespace) return null;
    const project = byNamespace.get(namespace);
    if (!project) ignoredNamespaces.add(namespace);
    return project ?? null;
  };
  const tally = (project: ProjectNamespace, resource: string): Tally => {
    const key = `${project.projectId}\u0000${resource}`;
    let t = tallies.get(key);
    if (!t) {
      t = { project, resource, requested: null, used: null, quantity: 0, busyMinutes: 0, measuredMinutes: 0 };
      tallies.set(key, t);
    }
    return t;
  };

  for (const s of answers.requests) {
    const project = projectOf(s.labels);
    const resource = s.labels.resource;
    if (!project || (resource !== "cpu" && resource !== "memory")) continue;
    const t = tally(project, resource);
    t.requested = add(t.requested, resource === "memory" ? s.value / GiB : s.value);
  }
  for (const s of answers.cpuUsed) {
    const project = projectOf(s.labels);
    if (!project) continue;
    const t = tally(project, "cpu");
    t.used = add(t.used, s.value);
  }
  for (const s of answers.memoryUsed) {
    const project = projectOf(s.labels);
    if (!project) continue;
    const t = tally(project, "memory");
    t.used = add(t.used, s.value / GiB);
  }
  for (const s of answers.storage) {
    const project = projectOf(s.labels);
    if (project) tally(project, "storage").quantity += s.value / GiB;
  }

  const productOfNode = new Map(answers.nodeGpuProducts.map((s) => [s.labels.node ?? "", s.labels[NODE_PRODUCT_LABEL]]));
  const gpuKey = (resourceLabel: string, node: string) => {
    const { resource, unmatched } = gpuUsageKey(resourceLabel, node, productOfNode.get(node), pools);
    if (unmatched) unmatchedGpus.add(unmatched);
    return resource;
  };
  for (const s of answers.gpuRequests) {
    const project = projectOf(s.labels);
    if (project) tally(project, gpuKey(s.labels.resource ?? "", s.labels.node ?? "")).quantity += s.value;
  }
  // DCGM names a MIG instance's profile; a whole GPU is nvidia.com/gpu.
  const activityKey = (labels: Record<string, string>) =>
    gpuKey(labels.GPU_I_PROFILE ? sanitizeLabelName(`nvidia.com/mig-${labels.GPU_I_PROFILE}`) : "nvidia_com_gpu", labels.node ?? "");
  for (const s of answers.gpuBusy) {
    const project = projectOf(s.labels);
    if (project) tally(project, activityKey(s.labels)).busyMinutes += s.value;
  }
  for (const s of answers.gpuMeasured) {
    const project = projectOf(s.labels);
    if (project) tally(project, activityKey(s.labels)).measuredMinutes += s.value;
  }

  const samples: UsageSample[] = [];
  for (const t of tallies.values()) {
    const base = { projectId: t.project.projectId, tenantId: t.project.tenantId, resource: t.resource, hour };
    if (t.resource === "cpu" || t.resource === "memory") {
      const quantity = Math.max(t.requested ?? 0, t.used ?? 0);
      if (quantity > 0) samples.push({ ...base, quantity: tidy(quantity), requested: t.requested === null ? null : tidy(t.requested), used: t.used === null ? null : tidy(t.used) });
    } else if (t.quantity > 0) {
      // Activity on GPUs the namespace requested none of (a key no request has) is dropped with its tally.
      const utilization = t.measuredMinutes > 0 ? Math.min(1, Math.max(0, tidy(t.busyMinutes / t.measuredMinutes))) : null;
      samples.push({ ...base, quantity: tidy(t.quantity), ...(t.resource.startsWith("gpu:") ? { gpuUtilization: utilization } : {}) });
    }
  }
  samples.sort((a, b) => a.projectId.localeCompare(b.projectId) || a.resource.localeCompare(b.resource));
  return { samples, ignoredNamespaces, unmatchedGpus };
}

/** Where Prometheus answers, and how long one query may take. */
export interface PrometheusEndpoint {
  url: string;
  timeoutMs: number;
}

export class PrometheusError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PrometheusError";
  }
}

const answerSchema = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("success"),
    data: z.object({
      resultType: z.literal("vector"),
      result: z.array(z.object({ metric: z.record(z.string(), z.string()), value: z.tuple([z.number(), z.string()]) })),
    }),
  }),
  z.object({ status: z.literal("error"), errorType: z.string().optional(), error: z.string() }),
]);

/**
 * The API URL and the URL to name in messages. fetch refuses URLs carrying
 * credentials, so user:password@ becomes a Basic Authorization header, and is
 * left out of every message.
 */
export function apiTarget(baseUrl: string, path: string): { url: URL; headers: Record<string, string>; shown: string } {
  const base = new URL(baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
  const headers: Record<string, string> = {};
  if (base.username || base.password) {
    headers.Authorization = `Basic ${Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString("base64")}`;
    base.username = "";
    base.password = "";
  }
  const shown = base.toString().replace(/\/$/, "");
  return { url: new URL(path, base), headers, shown };
}

function reasonOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : null;
  const code = cause && "code" in cause ? String(cause.code) : null;
  return code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** An instant query at `at` (POST /api/v1/query). Series whose value is NaN or infinite are left out. */
export async function instantQuery(endpoint: PrometheusEndpoint, query: string, at: Date, fetchImpl: typeof fetch = fetch): Promise<PromSample[]> {
  const { url, headers, shown } = apiTarget(endpoint.url, "api/v1/query");
  const seconds = Math.max(1, Math.ceil(endpoint.timeoutMs / 1000));
  let text: string;
  let status: number;
  try {
    const response = await fetchImpl(url, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({ query, time: String(at.getTime() / 1000), timeout: `${seconds}s` }),
      signal: AbortSignal.timeout(endpoint.timeoutMs),
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
      throw new PrometheusError(`Prometheus at ${shown} did not answer within ${seconds} s`);
    }
    throw new PrometheusError(`could not reach Prometheus at ${shown}: ${reasonOf(error)}`);
  }
  let parsed: z.infer<typeof answerSchema> | null = null;
  try {
    const result = answerSchema.safeParse(JSON.parse(text));
    if (result.success) parsed = result.data;
  } catch {
    parsed = null;
  }
  if (parsed?.status === "error") throw new PrometheusError(`Prometheus at ${shown} refused the query (HTTP ${status}, ${parsed.errorType ?? "error"}): ${parsed.error}`);
  if (!parsed || status !== 200) throw new PrometheusError(`Prometheus at ${shown} answered HTTP ${status} without a query result: ${text.slice(0, 200)}`);
  return parsed.data.result.map((r) => ({ labels: r.metric, value: Number(r.value[1]) })).filter((s) => Number.isFinite(s.value));
}
