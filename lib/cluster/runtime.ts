import os from "node:os";
import { auditCheckpointTicker } from "@/lib/audit/checkpoint-ticker";
import type { AuditCheckpointSettings, ClusterSettings } from "@/lib/config";
import { prometheusUsageTicker } from "@/lib/metering/prometheus-source";
import { evaluateSpendAlerts } from "@/lib/metering/alerts";
import { deliverDueWebhooks } from "@/lib/notify/webhooks";
import { leadershipHolder } from "@/lib/jobs/leadership";
import { setLeader } from "@/lib/observability/metrics";
import { sweepQuotaTimeouts } from "@/lib/quota/expiry";
import { checkDrift } from "./drift-check";
import { clusterConnection, kubeClientFromConfig, type ClusterClient } from "./kube-client";
import { enqueueDueScheduledChanges } from "./scheduled-scan";
import { reconcileDue, type ReconcilerOptions } from "./worker";

export interface ClusterRuntime {
  mode: "live" | "record-only";
  /** The API server URL in live mode. */
  server: string | null;
  client: ClusterClient | null;
}

const globalForCluster = globalThis as unknown as { allotClusterRuntime?: ClusterRuntime };

/**
 * Live when KUBECONFIG or an in-cluster service account is present (and
 * ALLOT_CLUSTER_MODE is not record-only); otherwise record-only: changes are
 * rendered, validated and stored as plans, and nothing is sent anywhere.
 */
export function clusterRuntime(settings: ClusterSettings, env: NodeJS.ProcessEnv = process.env): ClusterRuntime {
  if (globalForCluster.allotClusterRuntime) return globalForCluster.allotClusterRuntime;
  const connection = settings.mode === "record-only" ? ({ mode: "record-only" } as const) : clusterConnection(env);
  globalForCluster.allotClusterRuntime =
    connection.mode === "live"
      ? { mode: "live", server: connection.server, client: kubeClientFromConfig(connection.kubeConfig) }
      : { mode: "record-only", server: null, client: null };
  return globalForCluster.allotClusterRuntime;
}

/** The leadership lease for the periodic loops (lib/jobs/leadership.ts). */
export const PERIODIC_LEADERSHIP = "periodic";

export const workerIdentity = (role: string) => `${role}@${os.hostname()}:${process.pid}`;

export interface ReconcileLoop {
  /** Run a pass now instead of at the next tick (after an admin asks). */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * The worker loop: every pollMs, enqueue scheduled changes that are due, then
 * take and process due changes; every
 * driftIntervalMinutes (live mode), read back what the cluster holds; with
 * PROMETHEUS_URL set, read the hours of usage that are complete; every
 * quarter-hour, send the budget and idle-GPU alerts that are due; with a
 * checkpoint key, sign the audit chain's head every interval it moved. One
 * pass at a time; errors are logged and the loop goes on (the database may
 * be briefly away, the cluster too).
 */
export function startReconcileLoop(
  o: ReconcilerOptions & {
    pollMs?: number;
    log?: (message: string, error?: unknown) => void;
    auditCheckpoints?: AuditCheckpointSettings;
    /** How often to ask for the periodic loops' leadership (default a third of the lease); tests shorten it. */
    leadershipRenewMs?: number;
  },
): ReconcileLoop {
  const pollMs = o.pollMs ?? 1000;
  const log = o.log ?? ((m, e) => (e ? console.error(`[allot] ${m}`, e) : console.log(`[allot] ${m}`)));
  const driftEveryMs = o.settings.driftIntervalMinutes * 60_000;
  let lastDrift = Date.now();
  // Request statuses and expiry warnings need minute precision, not a query per second:
  // the quota itself drops on time through the cluster change scheduled for the grant's end.
  const SWEEP_EVERY_MS = 60_000;
  let lastSweep = 0;
  // Usage arrives by the hour (Prometheus) or in batches (push API): a quarter-hour is prompt enough for budget alerts.
  const ALERTS_EVERY_MS = 15 * 60_000;
  let lastAlerts = 0;
  let stopped = false;
  // Aborted by stop(): the pass in progress claims nothing more and hands back what it has not started.
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const usage = o.settings.prometheus ? prometheusUsageTicker({ db: o.db, settings: o.settings.prometheus, clock: o.clock, log }) : null;
  const checkpoints = o.auditCheckpoints?.signing ? auditCheckpointTicker({ db: o.db, settings: o.auditCheckpoints, clock: o.clock, log }) : null;

  // Every replica reconciles (SKIP LOCKED shares the queue); the periodic loops run in one at a
  // time, the holder of the "periodic" leadership lease (asked for every few seconds, not every pass).
  const leadership = leadershipHolder(o.db, PERIODIC_LEADERSHIP, o.workerId, { leaseMs: o.settings.leaderLeaseMs, renewMs: o.leadershipRenewMs });
  let leading = false;
  const pass = async () => {
    try {
      leading = await leadership.leads(o.clock());
      setLeader(leading);
      if (leading) {
        usage?.tick();
        checkpoints?.tick();
        if (Date.now() - lastSweep >= SWEEP_EVERY_MS) {
          lastSweep = Date.now();
          await sweepQuotaTimeouts(o.db, o.clock());
        }
        if (Date.now() - lastAlerts >= ALERTS_EVERY_MS) {
          lastAlerts = Date.now();
          const r = await evaluateSpendAlerts(o.db, o.clock());
          if (r.sent.length > 0) log(`spend alerts: ${r.sent.length} sent`);
        }
        // Scheduled changes (expiries) whose instant has come join the outbox first, so this pass applies them.
        // One replica scans; every replica then applies from the outbox.
        await enqueueDueScheduledChanges(o.db, o.clock());
      }
      await reconcileDue({ ...o, signal: stopping.signal });
      if (stopping.signal.aborted || !leading) return;
      await deliverDueWebhooks(o.db, o.clock());
      if (o.client && driftEveryMs > 0 && Date.now() - lastDrift >= driftEveryMs) {
        lastDrift = Date.now();
        const r = await checkDrift({ db: o.db, client: o.client, clock: o.clock });
        if (r.drifted + r.missing > 0) log(`drift: ${r.drifted} drifted and ${r.missing} missing of ${r.checked} objects`);
      }
    } catch (error) {
      log("reconcile pass failed; trying again shortly", error);
    }
  };
  // One pass at a time: a wake during a pass asks for another pass right after it.
  let busy = false;
  let again = false;
  const tick = async () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        running = pass();
        await running;
      } while (again && !stopped);
    } finally {
      busy = false;
    }
    schedule(pollMs);
  };
  const schedule = (delay: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), delay);
    timer.unref();
  };
  schedule(0);
  return {
    wake() {
      if (busy) again = true;
      else schedule(0);
    },
    async stop() {
      stopped = true;
      stopping.abort();
      clearTimeout(timer);
      await Promise.all([running, usage?.stop(), checkpoints?.stop()]);
      // Hand the periodic loops to another replica at its next pass instead of a lease later.
      await leadership.release().catch(() => undefined);
      setLeader(false);
    },
  };
}
