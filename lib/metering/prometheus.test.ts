import { describe, expect, it } from "vitest";
import {
  apiTarget,
  gpuResourceMatcher,
  gpuUsageKey,
  hourUsageOf,
  instantQuery,
  PrometheusError,
  queryTimeOf,
  sanitizeLabelName,
  usageQueries,
  type HourAnswers,
  type PromSample,
} from "./prometheus";

const POOLS = [
  { gpuModel: "H100", gpuResource: "nvidia.com/gpu" },
  { gpuModel: "A100 1g.10gb", gpuResource: "nvidia.com/mig-1g.10gb" },
  { gpuModel: null, gpuResource: null },
  { gpuModel: "L4", gpuResource: "nvidia.com/gpu" },
];
const HOUR = new Date("2026-11-30T10:00:00.000Z");
const GiB = 2 ** 30;
const PROJECTS = [
  { projectId: "p-train", tenantId: "t-vision", namespace: "vision-lab--detector-training" },
  { projectId: "p-serve", tenantId: "t-lang", namespace: "language-models--chat-eval" },
];

const series = (labels: Record<string, string>, value: number): PromSample => ({ labels, value });
const answers = (given: Partial<HourAnswers>): HourAnswers => ({
  requests: [],
  gpuRequests: [],
  cpuUsed: [],
  memoryUsed: [],
  storage: [],
  nodeGpuProducts: [],
  gpuBusy: [],
  gpuMeasured: [],
  ...given,
});
const products = (byNode: Record<string, string>) => Object.entries(byNode).map(([node, product]) => series({ node, label_nvidia_com_gpu_product: product }, 1));

describe("the queries", () => {
  it("are evaluated at the end of the hour they describe", () => {
    expect(queryTimeOf(HOUR)).toEqual(new Date("2026-11-30T11:00:00.000Z"));
  });

  it("sample held amounts at the 60 minutes of the hour (59m59s: Prometheus 2.x would give 61 points for 1h)", () => {
    const q = usageQueries(POOLS);
    for (const name of ["requests", "gpuRequests", "memoryUsed", "storage"] as const) {
      expect(q[name]).toMatch(/^sum_over_time\(\(.*\)\[59m59s:1m\]\) \/ 60$/);
    }
    for (const name of ["gpuBusy", "gpuMeasured"] as const) expect(q[name]).toMatch(/^sum_over_time\(\(.*\)\[59m59s:1m\]\)$/);
    expect(q.cpuUsed).toBe('sum by (namespace) (increase(container_cpu_usage_seconds_total{container!="", container!="POD"}[1h])) / 3600');
  });

  it("count requests only of pods on a node that have not finished", () => {
    const q = usageQueries(POOLS);
    for (const name of ["requests", "gpuRequests", "gpuBusy"] as const) {
      expect(q[name]).toContain('kube_pod_info{node!=""}');
      expect(q[name]).toContain('kube_pod_status_phase{phase=~"Pending|Running"} == 1');
    }
    expect(q.storage).toContain('kube_persistentvolumeclaim_status_phase{phase="Bound"} == 1');
  });

  it("ask for the GPU resources as kube-state-metrics names them: the pools', nvidia.com/gpu and every MIG profile", () => {
    expect(sanitizeLabelName("nvidia.com/mig-1g.10gb")).toBe("nvidia_com_mig_1g_10gb");
    expect(gpuResourceMatcher(POOLS)).toBe("nvidia_com_gpu|nvidia_com_mig_.+");
    expect(gpuResourceMatcher([...POOLS, { gpuModel: "MI300X", gpuResource: "amd.com/gpu" }])).toBe("amd_com_gpu|nvidia_com_gpu|nvidia_com_mig_.+");
    expect(usageQueries([{ gpuModel: "MI300X", gpuResource: "amd.com/gpu" }]).gpuRequests).toContain('resource=~"amd_com_gpu|nvidia_com_gpu|nvidia_com_mig_.+"');
  });

  it("read GPU activity from the profiling metric, else device utilisation in percent, under the pod's own namespace", () => {
    const q = usageQueries(POOLS);
    expect(q.gpuBusy).toContain("DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_DEV_GPU_UTIL / 100");
    expect(q.gpuBusy).toContain('"namespace", "$1", "exported_namespace", "(.+)"');
    expect(q.gpuMeasured).toContain("count by (namespace, node, GPU_I_PROFILE)");
    expect(q.nodeGpuProducts).toBe('max by (node, label_nvidia_com_gpu_product) (last_over_time(kube_node_labels{label_nvidia_com_gpu_product!=""}[1h]))');
  });
});

describe("gpuUsageKey", () => {
  it("names a whole GPU by the pool whose model matches the node's product", () => {
    expect(gpuUsageKey("nvidia_com_gpu", "n1", "NVIDIA-H100-80GB-HBM3", POOLS)).toEqual({ resource: "gpu:H100", unmatched: null });
    expect(gpuUsageKey("nvidia_com_gpu", "n2", "NVIDIA-L4", POOLS)).toEqual({ resource: "gpu:L4", unmatched: null });
  });

  it("prefers an exact model name, then the pool naming the most of the product's words", () => {
    const pools = [
      { gpuModel: "H100", gpuResource: "nvidia.com/gpu" },
      { gpuModel: "H100 NVL", gpuResource: "nvidia.com/gpu" },
      { gpuModel: "H100 80GB HBM3", gpuResource: "nvidia.com/gpu" },
    ];
    expect(gpuUsageKey("nvidia_com_gpu", "n", "NVIDIA-H100-80GB-HBM3", pools).resource).toBe("gpu:H100 80GB HBM3");
    expect(gpuUsageKey("nvidia_com_gpu", "n", "NVIDIA-H100-NVL", pools).resource).toBe("gpu:H100 NVL");
    expect(gpuUsageKey("nvidia_com_gpu", "n", "NVIDIA-H100-PCIe", pools).resource).toBe("gpu:H100");
  });

  it("names a time-sliced GPU by the pool of its slices, never the whole GPU's model", () => {
    const pools = [...POOLS, { gpuModel: "L4 shared x4", gpuResource: "nvidia.com/gpu" }, { gpuModel: "T4 shared x2", gpuResource: "nvidia.com/gpu.shared" }];
    expect(gpuUsageKey("nvidia_com_gpu", "n", "NVIDIA-L4-SHARED", pools)).toEqual({ resource: "gpu:L4 shared x4", unmatched: null });
    expect(gpuUsageKey("nvidia_com_gpu", "n", "NVIDIA-L4", pools)).toEqual({ resource: "gpu:L4", unmatched: null });
    expect(gpuUsageKey("nvidia_com_gpu_shared", "n", "Tesla-T4", pools)).toEqual({ resource: "gpu:T4 shared x2", unmatched: null });
    // No pool of L4 slices: counted under a key of its own, not at the whole L4's rate.
    const orphan = gpuUsageKey("nvidia_com_gpu", "n7", "NVIDIA-L4-SHARED", POOLS);
    expect(orphan.resource).toBe("gpu:L4 shared");
    expect(orphan.unmatched).toMatch(/no node pool has this model/);
  });

  it("names a MIG slice by the pool offering that profile, checked against the node's product when there is one", () => {
    expect(gpuUsageKey("nvidia_com_mig_1g_10gb", "n", "NVIDIA-A100-SXM4-80GB", POOLS)).toEqual({ resource: "gpu:A100 1g.10gb", unmatched: null });
    expect(gpuUsageKey("nvidia_com_mig_1g_10gb", "n", undefined, POOLS)).toEqual({ resource: "gpu:A100 1g.10gb", unmatched: null });
    const h100Slice = gpuUsageKey("nvidia_com_mig_1g_10gb", "n9", "NVIDIA-H100-80GB-HBM3", POOLS);
    expect(h100Slice.resource).toBe("gpu:H100 80GB HBM3 1g.10gb");
    expect(h100Slice.unmatched).toMatch(/nvidia\.com\/mig-1g\.10gb on node n9 \(NVIDIA-H100-80GB-HBM3\): no node pool has this model/);
  });

  it("counts GPUs no pool describes under their own name, and says so", () => {
    const l40s = gpuUsageKey("nvidia_com_gpu", "n3", "NVIDIA-L40S", POOLS);
    expect(l40s.resource).toBe("gpu:L40S");
    expect(l40s.unmatched).toContain("node n3 (NVIDIA-L40S)");
    const unlabelled = gpuUsageKey("nvidia_com_gpu", "n4", undefined, POOLS);
    expect(unlabelled.resource).toBe("gpu:unknown GPU");
    expect(unlabelled.unmatched).toContain("choose among 2 pools");
    const unpooledSlice = gpuUsageKey("nvidia_com_mig_2g_20gb", "n5", undefined, POOLS);
    expect(unpooledSlice.resource).toBe("gpu:unknown GPU 2g.20gb");
    expect(unpooledSlice.unmatched).toContain("nvidia.com/mig-2g.20gb on node n5: no node pool offers it");
    expect(gpuUsageKey("nvidia_com_gpu", "n6", "Weird/GPU (rev 2)", POOLS).resource).toBe("gpu:Weird-GPU -rev 2-");
  });
});

describe("hourUsageOf", () => {
  it("takes CPU and memory as max(requested, used), keeping both, in cores and GiB", () => {
    const { samples } = hourUsageOf(
      HOUR,
      answers({
        requests: [
          series({ namespace: "vision-lab--detector-training", resource: "cpu" }, 8),
          series({ namespace: "vision-lab--detector-training", resource: "memory" }, 64 * GiB),
          series({ namespace: "language-models--chat-eval", resource: "cpu" }, 2),
        ],
        cpuUsed: [series({ namespace: "vision-lab--detector-training" }, 10), series({ namespace: "language-models--chat-eval" }, 0.5)],
        memoryUsed: [series({ namespace: "vision-lab--detector-training" }, 32 * GiB), series({ namespace: "language-models--chat-eval" }, 3 * GiB)],
      }),
      PROJECTS,
      POOLS,
    );
    expect(samples).toEqual([
      { projectId: "p-serve", tenantId: "t-lang", resource: "cpu", hour: HOUR, quantity: 2, requested: 2, used: 0.5 },
      // Memory with no requests at all: what was used counts, and "requested" says none was found.
      { projectId: "p-serve", tenantId: "t-lang", resource: "memory", hour: HOUR, quantity: 3, requested: null, used: 3 },
      { projectId: "p-train", tenantId: "t-vision", resource: "cpu", hour: HOUR, quantity: 10, requested: 8, used: 10 },
      { projectId: "p-train", tenantId: "t-vision", resource: "memory", hour: HOUR, quantity: 64, requested: 64, used: 32 },
    ]);
  });

  it("counts storage in GiB-hours and GPUs per model with their GPU-time-weighted utilisation", () => {
    const train = "vision-lab--detector-training";
    const { samples, unmatchedGpus } = hourUsageOf(
      HOUR,
      answers({
        storage: [series({ namespace: train }, 150 * GiB)],
        nodeGpuProducts: products({ "h100-a": "NVIDIA-H100-80GB-HBM3", "h100-b": "NVIDIA-H100-80GB-HBM3", "a100-a": "NVIDIA-A100-SXM4-80GB" }),
        gpuRequests: [
          series({ namespace: train, resource: "nvidia_com_gpu", node: "h100-a" }, 2),
          series({ namespace: train, resource: "nvidia_com_gpu", node: "h100-b" }, 1),
          series({ namespace: train, resource: "nvidia_com_mig_1g_10gb", node: "a100-a" }, 1.5),
        ],
        // Two GPUs a whole hour on h100-a at 0.1 and 0.4, one on h100-b at 1.0 for half the hour it was measured.
        gpuBusy: [series({ namespace: train, node: "h100-a" }, 30), series({ namespace: train, node: "h100-b" }, 30)],
        gpuMeasured: [series({ namespace: train, node: "h100-a" }, 120), series({ namespace: train, node: "h100-b" }, 30)],
      }),
      PROJECTS,
      POOLS,
    );
    expect(samples).toEqual([
      { projectId: "p-train", tenantId: "t-vision", resource: "gpu:A100 1g.10gb", hour: HOUR, quantity: 1.5, gpuUtilization: null },
      { projectId: "p-train", tenantId: "t-vision", resource: "gpu:H100", hour: HOUR, quantity: 3, gpuUtilization: 0.4 },
      { projectId: "p-train", tenantId: "t-vision", resource: "storage", hour: HOUR, quantity: 150 },
    ]);
    expect(unmatchedGpus.size).toBe(0);
  });

  it("attributes MIG activity by its profile, and keeps utilisation within 0–1", () => {
    const train = "vision-lab--detector-training";
    const { samples } = hourUsageOf(
      HOUR,
      answers({
        nodeGpuProducts: products({ "a100-a": "NVIDIA-A100-SXM4-80GB" }),
        gpuRequests: [series({ namespace: train, resource: "nvidia_com_mig_1g_10gb", node: "a100-a" }, 1)],
        gpuBusy: [series({ namespace: train, node: "a100-a", GPU_I_PROFILE: "1g.10gb" }, 61)],
        gpuMeasured: [series({ namespace: train, node: "a100-a", GPU_I_PROFILE: "1g.10gb" }, 60)],
      }),
      PROJECTS,
      POOLS,
    );
    expect(samples).toEqual([{ projectId: "p-train", tenantId: "t-vision", resource: "gpu:A100 1g.10gb", hour: HOUR, quantity: 1, gpuUtilization: 1 }]);
  });

  it("leaves out namespaces of no project and names them; zero amounts make no sample", () => {
    const usage = hourUsageOf(
      HOUR,
      answers({
        requests: [series({ namespace: "kube-system", resource: "cpu" }, 2), series({ namespace: "vision-lab--detector-training", resource: "cpu" }, 0)],
        cpuUsed: [series({ namespace: "vision-lab--detector-training" }, 0)],
        storage: [series({ namespace: "monitoring" }, 50 * GiB)],
        gpuRequests: [series({ namespace: "ml-sandbox", resource: "nvidia_com_gpu", node: "x" }, 1)],
      }),
      PROJECTS,
      POOLS,
    );
    expect(usage.samples).toEqual([]);
    expect([...usage.ignoredNamespaces].sort()).toEqual(["kube-system", "ml-sandbox", "monitoring"]);
    expect(usage.unmatchedGpus.size).toBe(0);
  });

  it("drops the float noise of the divisions", () => {
    const { samples } = hourUsageOf(HOUR, answers({ cpuUsed: [series({ namespace: "vision-lab--detector-training" }, 1740 * (1800 / 1740) / 3600)] }), PROJECTS, POOLS);
    expect(samples[0]?.quantity).toBe(0.5);
  });
});

describe("instantQuery", () => {
  const endpoint = { url: "http://ops:s3cret@prometheus.monitoring:9090/prom", timeoutMs: 5000 };
  const answer = (status: number, body: unknown) => new Response(typeof body === "string" ? body : JSON.stringify(body), { status });

  it("posts the query at the given time, with credentials as a header, and reads the vector", async () => {
    let seen: { url: string; init: RequestInit } | null = null;
    const fakeFetch = ((url: URL, init: RequestInit) => {
      seen = { url: String(url), init };
      return Promise.resolve(answer(200, {
        status: "success",
        data: {
          resultType: "vector",
          result: [
            { metric: { namespace: "a" }, value: [1796140800, "2.5"] },
            { metric: { namespace: "b" }, value: [1796140800, "NaN"] },
          ],
        },
      }));
    }) as unknown as typeof fetch;
    const result = await instantQuery(endpoint, "up", new Date("2026-11-30T11:00:00Z"), fakeFetch);
    expect(result).toEqual([{ labels: { namespace: "a" }, value: 2.5 }]);
    expect(seen!.url).toBe("http://prometheus.monitoring:9090/prom/api/v1/query");
    expect((seen!.init.headers as Record<string, string>).Authorization).toBe(`Basic ${Buffer.from("ops:s3cret").toString("base64")}`);
    expect(Object.fromEntries(seen!.init.body as URLSearchParams)).toEqual({ query: "up", time: "1796036400", timeout: "5s" });
  });

  it("names the URL, without its credentials, in every failure", async () => {
    const refusing = (() => Promise.reject(new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) }))) as unknown as typeof fetch;
    await expect(instantQuery(endpoint, "up", HOUR, refusing)).rejects.toThrow(new PrometheusError("could not reach Prometheus at http://prometheus.monitoring:9090/prom: ECONNREFUSED"));

    const slow = (() => Promise.reject(new DOMException("The operation was aborted due to timeout", "TimeoutError"))) as unknown as typeof fetch;
    await expect(instantQuery(endpoint, "up", HOUR, slow)).rejects.toThrow("Prometheus at http://prometheus.monitoring:9090/prom did not answer within 5 s");

    const refused = (() => Promise.resolve(answer(400, { status: "error", errorType: "bad_data", error: 'parse error: unexpected "}"' }))) as unknown as typeof fetch;
    await expect(instantQuery(endpoint, "up{", HOUR, refused)).rejects.toThrow('Prometheus at http://prometheus.monitoring:9090/prom refused the query (HTTP 400, bad_data): parse error: unexpected "}"');

    const proxy = (() => Promise.resolve(answer(502, "<html>Bad Gateway</html>"))) as unknown as typeof fetch;
    await expect(instantQuery(endpoint, "up", HOUR, proxy)).rejects.toThrow("Prometheus at http://prometheus.monitoring:9090/prom answered HTTP 502 without a query result: <html>Bad Gateway</html>");
  });

  it("joins the API path to a base URL with or without a trailing slash", () => {
    expect(String(apiTarget("http://p:9090", "api/v1/query").url)).toBe("http://p:9090/api/v1/query");
    expect(String(apiTarget("http://p:9090/", "api/v1/query").url)).toBe("http://p:9090/api/v1/query");
    expect(apiTarget("https://p.example/thanos/", "").shown).toBe("https://p.example/thanos");
  });
});
