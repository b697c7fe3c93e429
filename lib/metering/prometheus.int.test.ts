import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { usageSources } from "@/db/schema";
import type { PrometheusSettings } from "@/lib/config";
import { namespaceFor } from "@/lib/tenancy/slugs";
import { databaseLabel } from "@/test/database";
import { rowsOf } from "@/test/fixtures";
import { openMetricsText, scrapedEveryMinute, type Family } from "@/test/prometheus/openmetrics";
import { freePort } from "@/test/ports";
import { startPrometheusWith, type RunningPrometheus } from "@/test/prometheus/server";
import { DAY, HOUR, projectIdOf, seededDatabase } from "@/test/tenancy";
import { ingestUsage } from "./ingest";
import { backfillPrometheusUsage, catchUpPrometheusUsage, PROMETHEUS_SOURCE, prometheusUsageTicker, runPrometheusUsageIfDue } from "./prometheus-source";
import { recomputeDailyRollup } from "./rollup";

/**
 * The Prometheus source against a real Prometheus (Debian's 2.42) serving
 * synthetic kube-state-metrics, cAdvisor and dcgm-exporter series for two
 * hours two days ago (inside the retention), and a real database: the stored
 * hours and their daily rollup must be exactly the known answer.
 *
 * The cluster in those two hours, H1 and H2 (on the demo node pools: H100 on
 * nvidia.com/gpu, A100 1g.10gb MIG, L4 on nvidia.com/gpu):
 * - detector-training: a pod with 2 H100 (DCGM activity 0.1 and 0.4: 0.25),
 *   8 cores requested and 10 used in H1, 3 in H2, 64 GiB requested and 32 used,
 *   a Bound 100 GiB PVC; a finished job's requests, an unscheduled pod's and a
 *   Pending PVC's must not count; cAdvisor's pod-level and pause series neither.
 * - segmentation-research: 3 MIG 1g.10gb slices on an A100 node (activity 0.5);
 *   in H2 a pod present the last 30 minutes requesting 4 cores, using 1.
 * - pretraining: an L4 (only DCGM_FI_DEV_GPU_UTIL, 60 %, with the exporter's
 *   own namespace kept and the pod's in exported_namespace), and a GPU on a
 *   node without a product label, which cannot be told apart between the
 *   H100 and L4 pools.
 * - kube-system and monitoring, which belong to no project.
 */
const DAY_START = new Date(Math.floor(Date.now() / DAY) * DAY - 2 * DAY);
const hourOfDay = (hours: number, minutes = 0) => new Date(DAY_START.getTime() + hours * HOUR + minutes * 60_000);
const H1 = hourOfDay(10);
const H2 = hourOfDay(11);
const END = hourOfDay(12);
const GiB = 2 ** 30;
const DT = namespaceFor("vision-lab", "detector-training");
const SR = namespaceFor("vision-lab", "segmentation-research");
const PT = namespaceFor("language-models", "pretraining");

interface Pod {
  namespace: string;
  pod: string;
  container: string;
  node: string;
  phase: "Pending" | "Running" | "Succeeded";
  from: Date;
  requests: Record<string, number>;
}
const PODS: Pod[] = [
  { namespace: DT, pod: "train-h100", container: "trainer", node: "h100-node-1", phase: "Running", from: H1, requests: { cpu: 8, memory: 64 * GiB, nvidia_com_gpu: 2 } },
  { namespace: DT, pod: "old-job", container: "job", node: "h100-node-1", phase: "Succeeded", from: H1, requests: { cpu: 16, memory: 8 * GiB } },
  { namespace: DT, pod: "waiting", container: "w", node: "", phase: "Pending", from: H1, requests: { cpu: 4, nvidia_com_gpu: 4 } },
  { namespace: SR, pod: "mig-notebook", container: "nb", node: "a100-node-1", phase: "Running", from: H1, requests: { nvidia_com_mig_1g_10gb: 3 } },
  { namespace: SR, pod: "half-hour", container: "work", node: "cpu-node-1", phase: "Running", from: hourOfDay(11, 30), requests: { cpu: 4 } },
  { namespace: PT, pod: "l4-serve", container: "server", node: "l4-node-1", phase: "Running", from: H1, requests: { nvidia_com_gpu: 1 } },
  { namespace: PT, pod: "mystery", container: "m", node: "gpu-x", phase: "Running", from: H1, requests: { nvidia_com_gpu: 1 } },
  { namespace: "kube-system", pod: "coredns", container: "coredns", node: "cpu-node-1", phase: "Running", from: H1, requests: { cpu: 2 } },
];

const steady = (value: number) => () => value;
/**
 * Every series ends at END. Blocks written by promtool carry no staleness
 * markers (a real scrape writes one when a series disappears), so Prometheus
 * would go on seeing the last sample for its 5-minute lookback; five more
 * minutes of what a vanished series adds to these sums stand in for them: 0
 * for a gauge, no increase for a counter.
 */
const STALE_UNTIL = new Date(END.getTime() + 5 * 60_000);
const gauge = (labels: Record<string, string>, value: (atMs: number) => number, from = H1) => ({
  labels,
  samples: [...scrapedEveryMinute(from, END, value), ...scrapedEveryMinute(END, STALE_UNTIL, steady(0))],
});
const counter = (labels: Record<string, string>, value: (atMs: number) => number, from = H1) => ({
  labels,
  samples: [...scrapedEveryMinute(from, END, value), ...scrapedEveryMinute(END, STALE_UNTIL, steady(value(END.getTime())))],
});
/** A CPU-seconds counter growing at `cores` per second (a function of the time). */
const cpuSeconds = (start: Date, base: number, cores: (atMs: number) => number) => (atMs: number) => {
  let total = base;
  for (let t = start.getTime(); t < atMs; t += 1000) total += cores(t);
  return total;
};

function clusterSeries(): Family[] {
  const phases = ["Pending", "Running", "Succeeded", "Failed", "Unknown"] as const;
  const units: Record<string, string> = { cpu: "core", memory: "byte" };
  const dcgm = (labels: Record<string, string>) => ({ gpu: "0", UUID: "GPU-0", device: "nvidia0", modelName: "NVIDIA H100 80GB HBM3", Hostname: "h100-node-1", ...labels });
  const h100 = (gpu: string, pod: Record<string, string>) => dcgm({ gpu, UUID: `GPU-h100-${gpu}`, device: `nvidia${gpu}`, ...pod });
  const onTrainer = { namespace: DT, pod: "train-h100", container: "trainer" };
  const mig = (id: string) => ({ gpu: "0", UUID: "GPU-a100-0", modelName: "NVIDIA A100-SXM4-80GB", Hostname: "a100-node-1", GPU_I_PROFILE: "1g.10gb", GPU_I_ID: id, namespace: SR, pod: "mig-notebook", container: "nb" });
  return [
    { name: "kube_pod_info", type: "gauge", series: PODS.map((p) => gauge({ namespace: p.namespace, pod: p.pod, uid: `uid-${p.pod}`, node: p.node }, steady(1), p.from)) },
    {
      name: "kube_pod_status_phase",
      type: "gauge",
      series: PODS.flatMap((p) => phases.map((phase) => gauge({ namespace: p.namespace, pod: p.pod, uid: `uid-${p.pod}`, phase }, steady(phase === p.phase ? 1 : 0), p.from))),
    },
    {
      name: "kube_pod_container_resource_requests",
      type: "gauge",
      series: PODS.flatMap((p) =>
        Object.entries(p.requests).map(([resource, amount]) =>
          gauge({ namespace: p.namespace, pod: p.pod, uid: `uid-${p.pod}`, container: p.container, node: p.node, resource, unit: units[resource] ?? "integer" }, steady(amount), p.from),
        ),
      ),
    },
    {
      name: "kube_node_labels",
      type: "gauge",
      series: [
        gauge({ node: "h100-node-1", label_nvidia_com_gpu_product: "NVIDIA-H100-80GB-HBM3" }, steady(1)),
        gauge({ node: "a100-node-1", label_nvidia_com_gpu_product: "NVIDIA-A100-SXM4-80GB" }, steady(1)),
        gauge({ node: "l4-node-1", label_nvidia_com_gpu_product: "NVIDIA-L4" }, steady(1)),
        gauge({ node: "gpu-x" }, steady(1)),
        gauge({ node: "cpu-node-1" }, steady(1)),
      ],
    },
    {
      name: "container_cpu_usage_seconds_total",
      type: "counter",
      series: [
        counter({ namespace: DT, pod: "train-h100", container: "trainer" }, cpuSeconds(H1, 1e6, (t) => (t < H2.getTime() ? 10 : 3))),
        // The pod's own cgroup and its pause container: counted already, or not work.
        counter({ namespace: DT, pod: "train-h100", container: "" }, cpuSeconds(H1, 2e6, steady(50))),
        counter({ namespace: DT, pod: "train-h100", container: "POD" }, cpuSeconds(H1, 10, steady(5))),
        counter({ namespace: SR, pod: "half-hour", container: "work" }, cpuSeconds(hourOfDay(11, 30), 0, steady(1)), hourOfDay(11, 30)),
        counter({ namespace: "kube-system", pod: "coredns", container: "coredns" }, cpuSeconds(H1, 500, steady(0.1))),
      ],
    },
    {
      name: "container_memory_working_set_bytes",
      type: "gauge",
      series: [gauge({ namespace: DT, pod: "train-h100", container: "trainer" }, steady(32 * GiB)), gauge({ namespace: DT, pod: "train-h100", container: "" }, steady(100 * GiB))],
    },
    {
      name: "kube_persistentvolumeclaim_resource_requests_storage_bytes",
      type: "gauge",
      series: [
        gauge({ namespace: DT, persistentvolumeclaim: "data" }, steady(100 * GiB)),
        gauge({ namespace: DT, persistentvolumeclaim: "scratch" }, steady(500 * GiB)),
        gauge({ namespace: "monitoring", persistentvolumeclaim: "prometheus-db" }, steady(50 * GiB)),
      ],
    },
    {
      name: "kube_persistentvolumeclaim_status_phase",
      type: "gauge",
      series: [
        ["data", DT, "Bound"],
        ["scratch", DT, "Pending"],
        ["prometheus-db", "monitoring", "Bound"],
      ].flatMap(([claim, namespace, current]) =>
        ["Bound", "Pending", "Lost"].map((phase) => gauge({ namespace: namespace!, persistentvolumeclaim: claim!, phase }, steady(phase === current ? 1 : 0))),
      ),
    },
    {
      name: "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
      type: "gauge",
      series: [
        gauge(h100("0", onTrainer), steady(0.1)),
        gauge(h100("1", onTrainer), steady(0.4)),
        // Allocated to no pod: no namespace, nobody's usage.
        gauge(h100("2", {}), steady(0.9)),
        ...["1", "2", "3"].map((id) => gauge(mig(id), steady(0.5))),
      ],
    },
    {
      name: "DCGM_FI_DEV_GPU_UTIL",
      type: "gauge",
      series: [
        // Where the profiling metric exists for the same GPU, it is the one used.
        gauge(h100("0", onTrainer), steady(90)),
        gauge(h100("1", onTrainer), steady(90)),
        gauge(
          { gpu: "0", UUID: "GPU-l4-0", modelName: "NVIDIA L4", Hostname: "l4-node-1", namespace: "gpu-operator", pod: "nvidia-dcgm-exporter-x7", exported_namespace: PT, exported_pod: "l4-serve", exported_container: "server" },
          steady(60),
        ),
      ],
    },
  ];
}

const seeded = seededDatabase(new Date(DAY_START.getTime() - 30 * DAY));
let db: Database;
let prometheus: RunningPrometheus;
let settings: PrometheusSettings;
let project: { dt: string; sr: string; pt: string };

beforeAll(async () => {
  db = seeded.db;
  prometheus = await startPrometheusWith(openMetricsText(clusterSeries()));
  settings = { url: prometheus.url, backfillDays: 0, timeoutMs: 10_000 };
  project = {
    dt: await projectIdOf(db, "vision-lab", "detector-training"),
    sr: await projectIdOf(db, "vision-lab", "segmentation-research"),
    pt: await projectIdOf(db, "language-models", "pretraining"),
  };
});
afterAll(async () => {
  await prometheus?.stop();
});

type HourlyRow = { project_id: string; resource: string; hour: string; quantity: number; requested: number | null; used: number | null; gpu_utilization: number | null };
async function hourly() {
  const rows = await rowsOf<HourlyRow>(
    db,
    sql`select project_id, resource, to_char(hour at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI"Z"') as hour, quantity, requested, used, gpu_utilization
        from usage_hourly where source = ${PROMETHEUS_SOURCE}`,
  );
  const slug = Object.fromEntries(Object.entries(project).map(([k, v]) => [v, k]));
  return inOrder(rows.map((r) => ({
    project: slug[r.project_id] ?? r.project_id,
    resource: r.resource,
    hour: r.hour,
    quantity: Number(r.quantity),
    requested: r.requested === null ? null : Number(r.requested),
    used: r.used === null ? null : Number(r.used),
    utilization: r.gpu_utilization === null ? null : Number(r.gpu_utilization),
  })));
}

type DailyRow = { project_id: string; resource: string; day: string; quantity: string; cost: string; gpu_measured_hours: string; gpu_busy_hours: string };
const daily = () =>
  rowsOf<DailyRow>(db, sql`select project_id, resource, day::text as day, quantity::text, cost::text, gpu_measured_hours::text, gpu_busy_hours::text from usage_daily`).then((rows) =>
    rows.sort((a, b) => a.project_id.localeCompare(b.project_id) || byProjectAndResource(a, b) || a.day.localeCompare(b.day)),
  );

const hourLabel = (h: Date) => `${h.toISOString().slice(0, 16)}Z`;
const sample = (p: "dt" | "sr" | "pt", resource: string, quantity: number, extra: { requested?: number; used?: number; utilization?: number | null } = {}) => ({
  project: p,
  resource,
  quantity,
  requested: extra.requested ?? null,
  used: extra.used ?? null,
  utilization: extra.utilization ?? null,
});
const inHour = (h: Date, rows: ReturnType<typeof sample>[]) => rows.map((r) => ({ ...r, hour: hourLabel(h) }));
const byProjectAndResource = (a: { project?: string; resource: string }, b: { project?: string; resource: string }) =>
  (a.project ?? "").localeCompare(b.project ?? "") || (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0);
const inOrder = <T extends { hour: string; project: string; resource: string }>(rows: T[]) => [...rows].sort((a, b) => a.hour.localeCompare(b.hour) || byProjectAndResource(a, b));

const EVERY_HOUR = [
  sample("dt", "gpu:H100", 2, { utilization: 0.25 }),
  sample("dt", "memory", 64, { requested: 64, used: 32 }),
  sample("dt", "storage", 100),
  sample("sr", "gpu:A100 1g.10gb", 3, { utilization: 0.5 }),
  sample("pt", "gpu:L4", 1, { utilization: 0.6 }),
  sample("pt", "gpu:unknown GPU", 1),
];
const EXPECTED = [
  ...inHour(H1, [...EVERY_HOUR, sample("dt", "cpu", 10, { requested: 8, used: 10 })]),
  ...inHour(H2, [...EVERY_HOUR, sample("dt", "cpu", 8, { requested: 8, used: 3 }), sample("sr", "cpu", 2, { requested: 2, used: 0.5 })]),
];

describe(`usage from a real Prometheus (${databaseLabel()})`, () => {
  const FIRST_RUN_AT = hourOfDay(12, 10);

  it("reads every complete hour since the start of the day on the first run, with exactly the known usage", async () => {
    const summary = await catchUpPrometheusUsage(db, settings, FIRST_RUN_AT);
    expect(summary).toMatchObject({ from: DAY_START, to: END, hours: 12, samples: EXPECTED.length, error: null, ignoredNamespaces: ["kube-system", "monitoring"] });
    expect(summary.unmatchedGpus).toEqual([expect.stringMatching(/nvidia\.com\/gpu on node gpu-x: node has no nvidia\.com\/gpu\.product label/)]);
    expect(await hourly()).toEqual(inOrder(EXPECTED));

    const [source] = await db.select().from(usageSources);
    expect(source).toEqual({ source: PROMETHEUS_SOURCE, nextHour: END, lastRunAt: FIRST_RUN_AT, lastError: null, lastSamples: EXPECTED.length });
  });

  it("rolls the hours up per day, priced at the rate card, the same as a recomputation", async () => {
    const day = DAY_START.toISOString().slice(0, 10);
    const rows = (await daily()).map((r) => ({
      project: Object.entries(project).find(([, id]) => id === r.project_id)?.[0],
      resource: r.resource,
      day: r.day,
      quantity: Number(r.quantity),
      cost: Number(Number(r.cost).toFixed(6)),
      measured: Number(r.gpu_measured_hours),
      busy: Number(Number(r.gpu_busy_hours).toFixed(9)),
    }));
    // Demo rate card: H100 4.10, A100 1g.10gb 0.55, L4 0.80 per GPU-hour, 0.031 per core-hour,
    // 0.004 per GiB-hour of memory, 0.08 per GiB-month (730 hours) of storage; no price for "unknown GPU".
    expect(rows.sort(byProjectAndResource)).toEqual(
      [
        { project: "dt", resource: "cpu", day, quantity: 18, cost: 0.558, measured: 0, busy: 0 },
        { project: "dt", resource: "gpu:H100", day, quantity: 4, cost: 16.4, measured: 4, busy: 1 },
        { project: "dt", resource: "memory", day, quantity: 128, cost: 0.512, measured: 0, busy: 0 },
        { project: "dt", resource: "storage", day, quantity: 200, cost: Number(((200 * 0.08) / 730).toFixed(6)), measured: 0, busy: 0 },
        { project: "pt", resource: "gpu:L4", day, quantity: 2, cost: 1.6, measured: 2, busy: 1.2 },
        { project: "pt", resource: "gpu:unknown GPU", day, quantity: 2, cost: 0, measured: 0, busy: 0 },
        { project: "sr", resource: "cpu", day, quantity: 2, cost: 0.062, measured: 0, busy: 0 },
        { project: "sr", resource: "gpu:A100 1g.10gb", day, quantity: 6, cost: 3.3, measured: 6, busy: 3 },
      ].sort(byProjectAndResource),
    );
    const before = await daily();
    await recomputeDailyRollup(db);
    expect(await daily()).toEqual(before);
  });

  it("runs in the worker only when a complete hour waits, and then reads it", async () => {
    expect((await catchUpPrometheusUsage(db, settings, FIRST_RUN_AT)).hours).toBe(0);
    expect(await runPrometheusUsageIfDue(db, settings, hourOfDay(12, 30))).toBeNull();
    // 13:03 is not yet 5 minutes past the hour 12:00–13:00.
    expect(await runPrometheusUsageIfDue(db, settings, hourOfDay(13, 3))).toBeNull();

    const summary = await runPrometheusUsageIfDue(db, settings, hourOfDay(13, 10));
    expect(summary).toMatchObject({ from: END, to: hourOfDay(13), hours: 1, samples: 0, error: null });
    expect(await runPrometheusUsageIfDue(db, settings, hourOfDay(13, 10))).toBeNull();
    expect(await hourly()).toEqual(inOrder(EXPECTED));
  });

  it("keeps its place and records the error, naming the URL, when Prometheus cannot be reached; retries after a pause", async () => {
    const unreachable = { ...settings, url: `http://127.0.0.1:${await freePort()}` };
    const failed = await runPrometheusUsageIfDue(db, unreachable, hourOfDay(14, 10));
    expect(failed?.error).toBe(`hour ${hourLabel(hourOfDay(13))}: could not reach Prometheus at ${unreachable.url}: ECONNREFUSED`);
    expect(failed).toMatchObject({ hours: 0, samples: 0 });
    const [afterFailure] = await db.select().from(usageSources);
    expect(afterFailure).toMatchObject({ nextHour: hourOfDay(13), lastRunAt: hourOfDay(14, 10), lastError: failed!.error });

    expect(await runPrometheusUsageIfDue(db, settings, hourOfDay(14, 12))).toBeNull();
    const retried = await runPrometheusUsageIfDue(db, settings, hourOfDay(14, 16));
    expect(retried).toMatchObject({ from: hourOfDay(13), to: hourOfDay(14), hours: 1, error: null });
    const [afterRetry] = await db.select().from(usageSources);
    expect(afterRetry).toMatchObject({ nextHour: hourOfDay(14), lastError: null });
  });

  it("reads a range again on demand, replacing what was stored, without counting twice", async () => {
    const dailyBefore = await daily();
    // A figure the source stored earlier that Prometheus no longer has: re-reading the hour sets it to zero.
    await ingestUsage(db, PROMETHEUS_SOURCE, [{ projectId: project.pt, tenantId: seeded.tenantId["language-models"]!, resource: "gpu:H100", hour: H1, quantity: 5 }], hourOfDay(14, 20));

    const summary = await backfillPrometheusUsage(db, settings, { from: hourOfDay(10, 20), to: hourOfDay(11, 40) }, hourOfDay(14, 20));
    expect(summary).toMatchObject({ from: H1, to: END, hours: 2, samples: EXPECTED.length, error: null });
    expect(await hourly()).toEqual(inOrder([...EXPECTED, { project: "pt", resource: "gpu:H100", hour: hourLabel(H1), quantity: 0, requested: null, used: null, utilization: null }]));
    const dailyAfter = (await daily()).filter((r) => !(r.project_id === project.pt && r.resource === "gpu:H100"));
    expect(dailyAfter).toEqual(dailyBefore);
    const [source] = await db.select().from(usageSources);
    expect(source!.nextHour).toEqual(hourOfDay(14));
  });

  it("moves the hourly run on when a backfill covers its next hour, and never past the last complete hour", async () => {
    const summary = await backfillPrometheusUsage(db, settings, { from: hourOfDay(13), to: hourOfDay(20) }, hourOfDay(16, 2));
    expect(summary).toMatchObject({ from: hourOfDay(13), to: hourOfDay(15), hours: 2, error: null });
    const [source] = await db.select().from(usageSources);
    expect(source!.nextHour).toEqual(hourOfDay(15));
  });

  it("runs from the worker loop one run at a time, logging what it read", async () => {
    const logged: string[] = [];
    const ticker = prometheusUsageTicker({ db, settings, clock: () => hourOfDay(17, 10), log: (message) => logged.push(message), checkEveryMs: 0 });
    ticker.tick();
    ticker.tick(); // while the first run is in flight: nothing more
    await ticker.stop();
    ticker.tick(); // stopped: nothing
    expect(logged).toEqual([`Usage from Prometheus at ${prometheus.url}: 2 hours read (${hourLabel(hourOfDay(15))} to ${hourLabel(hourOfDay(17))}), 0 samples stored.`]);
    const [source] = await db.select().from(usageSources);
    expect(source).toMatchObject({ nextHour: hourOfDay(17), lastRunAt: hourOfDay(17, 10), lastError: null, lastSamples: 0 });
  });
});
