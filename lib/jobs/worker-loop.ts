import os from "node:os";
import type { Database } from "@/db/client";
import type { Clock } from "@/lib/clock";
import type { AuditCheckpointSettings, ClusterSettings } from "@/lib/config";
import { auditCheckpointTicker } from "@/lib/audit/checkpoint-ticker";
import { driftCheckJob } from "@/lib/cluster/drift-check";
import type { ClusterClient } from "@/lib/cluster/kube-client";
import { scheduledChangesJob } from "@/lib/cluster/scheduled-scan";
import { reconcileDue, type ChangeSettledHook, type ReconcilerOptions } from "@/lib/cluster/worker";
import { spendAlertsJob } from "@/lib/metering/alerts";
import { prometheusUsageTicker } from "@/lib/metering/prometheus-source";
import { usagePartitionsJob } from "@/lib/metering/retention";
import { webhookDeliveryJob } from "@/lib/notify/webhooks";
import { setLeader } from "@/lib/observability/metrics";
import { logLine } from "@/lib/observability/log";
import { followClusterChange } from "@/lib/quota/follow";
import { quotaExpiryJob } from "@/lib/quota/expiry";
import { expiryRemindersJob } from "@/lib/reminders/send";
import { reviewDeadlineJob } from "@/lib/reviews/deadline";
import { leadershipHolder } from "./leadership";
import { periodicSchedule, type BackgroundJob, type JobLog, type PeriodicJob } from "./periodic";

/** The leadership lease for the periodic jobs (lib/jobs/leadership.ts). */
export const PERIODIC_LEADERSHIP = "periodic";

export const workerIdentity = (role: string) => `${role}@${os.hostname()}:${process.pid}`;

/** What follows an applied or failed cluster change, in its transaction: quota requests become applied or apply-failed. */
export const CHANGE_SETTLED_HOOKS: readonly ChangeSettledHook[] = [followClusterChange];

interface JobContext {
  db: Database;
  settings: ClusterSettings;
  client: ClusterClient | null;
  clock: Clock;
  log: JobLog;
  auditCheckpoints?: AuditCheckpointSettings;
}

/**
 * Every periodic job of the portal, in the order a pass runs them. Only the
 * leader runs them; each capability defines its own job.
 */
export function leaderJobs(c: JobContext): PeriodicJob[] {
  const driftEveryMs = c.settings.driftIntervalMinutes * 60_000;
  return [
    quotaExpiryJob(c.db),
    // Before the reconcile pass: what a deadline revokes reaches the cluster in the same pass.
    reviewDeadlineJob(c.db),
    spendAlertsJob(c.db),
    // Scheduled changes (expiries) whose instant has come join the outbox first, so this pass applies them.
    scheduledChangesJob(c.db),
    // Before the webhook retries, so a reminder's deliveries go out in the same pass.
    expiryRemindersJob(c.db),
    webhookDeliveryJob(c.db),
    // After the reconcile pass: a retention drop may wait seconds for its lock and must not hold up cluster changes.
    usagePartitionsJob(c.db),
    ...(c.client && driftEveryMs > 0 ? [driftCheckJob({ db: c.db, client: c.client, clock: c.clock, everyMs: driftEveryMs })] : []),
  ];
}

/** The leader's jobs that run beside the passes (slow reads and deliveries that must not hold up cluster changes). */
export function backgroundJobs(c: JobContext): BackgroundJob[] {
  return [
    ...(c.settings.prometheus ? [prometheusUsageTicker({ db: c.db, settings: c.settings.prometheus, clock: c.clock, log: c.log })] : []),
    ...(c.auditCheckpoints?.signing ? [auditCheckpointTicker({ db: c.db, settings: c.auditCheckpoints, clock: c.clock, log: c.log })] : []),
  ];
}

export interface WorkerLoop {
  /** Run a pass now instead of at the next tick (after an admin asks). */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * The worker loop of every replica: every pollMs, one pass. Every replica
 * reconciles (SKIP LOCKED shares the outbox); the periodic jobs run only in
 * the replica holding the "periodic" leadership lease (asked for every few
 * seconds, not every pass): the jobs before the reconcile pass, then the
 * reconcile pass, then the jobs after it. One pass at a time; errors are
 * logged and the loop goes on (the database may be briefly away, the
 * cluster too).
 */
export function startWorkerLoop(
  o: ReconcilerOptions & {
    pollMs?: number;
    log?: JobLog;
    auditCheckpoints?: AuditCheckpointSettings;
    /** How often to ask for the periodic jobs' leadership (default a third of the lease); tests shorten it. */
    leadershipRenewMs?: number;
  },
): WorkerLoop {
  const pollMs = o.pollMs ?? 1000;
  const log: JobLog = o.log ?? logLine;
  const reconciler: ReconcilerOptions = { ...o, afterSettled: o.afterSettled ?? CHANGE_SETTLED_HOOKS };
  const context: JobContext = { db: o.db, settings: o.settings, client: o.client, clock: o.clock, log, auditCheckpoints: o.auditCheckpoints };
  // Made afresh each time this replica becomes the leader: it cannot know when the previous
  // leader last ran each job, so a job that waits an interval first (drift) waits it again, and
  // the expiry sweep reads every ended grant once; a takeover never doubles a drift read.
  let periodic: ReturnType<typeof periodicSchedule> | null = null;
  const background = backgroundJobs(context);
  let stopped = false;
  // Aborted by stop(): the pass in progress claims nothing more and hands back what it has not started.
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const leadership = leadershipHolder(o.db, PERIODIC_LEADERSHIP, o.workerId, { leaseMs: o.settings.leaderLeaseMs, renewMs: o.leadershipRenewMs });
  const pass = async () => {
    try {
      const leading = await leadership.leads(o.clock());
      setLeader(leading);
      if (!leading) periodic = null;
      else if (!periodic) periodic = periodicSchedule(leaderJobs(context), log);
      if (periodic) {
        for (const job of background) job.tick();
        await periodic.runDue("before-reconcile", o.clock());
      }
      await reconcileDue({ ...reconciler, signal: stopping.signal });
      if (periodic && !stopping.signal.aborted) await periodic.runDue("after-reconcile", o.clock());
    } catch (error) {
      log("worker pass failed; trying again shortly", error);
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
      await Promise.all([running, ...background.map((job) => job.stop())]);
      // Hand the periodic jobs to another replica at its next pass instead of a lease later.
      await leadership.release().catch(() => undefined);
      setLeader(false);
    },
  };
}
