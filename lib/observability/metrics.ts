import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * The portal's Prometheus metrics: one registry per process, on globalThis
 * because Next loads instrumentation and route code as separate bundles that
 * would otherwise each get a registry of their own. Metrics that describe the
 * shared database (outbox depth, ingest lag, pool use) are read at scrape by
 * the collectors in db-metrics.ts; the rest are counted where things happen.
 */
export interface AllotMetrics {
  registry: Registry;
  httpDuration: Histogram<"method" | "route" | "status">;
  applyAttempts: Counter<"mode" | "outcome">;
  applyFailures: Counter<"reason">;
  approvalToApplied: Histogram;
  driftFound: Counter<"kind">;
  webhookFailures: Counter<"outcome">;
  usageMonthsDropped: Counter;
  leader: Gauge<"loop">;
}

function createMetrics(): AllotMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client's totals of these are gauges named like counters (promtool rejects them); the per-type gauges without _total stay.
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) registry.removeSingleMetric(name);
  return {
    registry,
    httpDuration: new Histogram({
      name: "allot_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by method, route pattern (not the raw path) and status code.",
      labelNames: ["method", "route", "status"],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    applyAttempts: new Counter({
      name: "allot_cluster_apply_attempts_total",
      help: "Cluster changes worked on by this process's reconcile worker, by mode (live, record-only) and outcome (applied, recorded, retry, failed).",
      labelNames: ["mode", "outcome"],
      registers: [registry],
    }),
    applyFailures: new Counter({
      name: "allot_cluster_apply_failures_total",
      help: "Attempts to apply a cluster change that did not succeed (retried or given up), by reason (the API's Status reason, a connection failure, InvalidObject).",
      labelNames: ["reason"],
      registers: [registry],
    }),
    approvalToApplied: new Histogram({
      name: "allot_quota_approval_to_applied_seconds",
      help: "Time from a quota request's approval to its grant being applied on the cluster.",
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600],
      registers: [registry],
    }),
    driftFound: new Counter({
      name: "allot_cluster_drift_found_total",
      help: "Objects the drift check found differing from what the portal applied (drifted) or gone from the cluster (missing).",
      labelNames: ["kind"],
      registers: [registry],
    }),
    webhookFailures: new Counter({
      name: "allot_webhook_delivery_failures_total",
      help: "Webhook deliveries that failed, by outcome: retry (tried again later) or failed (out of attempts).",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    usageMonthsDropped: new Counter({
      name: "allot_usage_months_dropped_total",
      help: "Months of usage (an hourly and a daily partition each) dropped by retention (ALLOT_USAGE_RETENTION_MONTHS) in this process.",
      registers: [registry],
    }),
    leader: new Gauge({
      name: "allot_leader",
      help: "1 when this process runs the periodic loops (drift check, usage ingest, alerts, expiry sweeps, webhook retries), else 0.",
      labelNames: ["loop"],
      registers: [registry],
    }),
  };
}

const globalForMetrics = globalThis as unknown as { allotMetrics?: AllotMetrics };

export function metrics(): AllotMetrics {
  if (!globalForMetrics.allotMetrics) {
    const m = createMetrics();
    // Series that exist from the start, so rate() and absent-based alerts see a 0 instead of nothing.
    m.leader.set({ loop: "periodic" }, 0);
    for (const kind of ["drifted", "missing"]) m.driftFound.inc({ kind }, 0);
    for (const outcome of ["retry", "failed"]) m.webhookFailures.inc({ outcome }, 0);
    m.usageMonthsDropped.inc(0);
    globalForMetrics.allotMetrics = m;
  }
  return globalForMetrics.allotMetrics;
}

/** Say whether this process runs the periodic loops (today: every process with a worker does). */
export function setLeader(leading: boolean): void {
  metrics().leader.set({ loop: "periodic" }, leading ? 1 : 0);
}
