import { withLogContext } from "@/lib/observability/log";

/**
 * Periodic jobs, as the capabilities define them and the worker loop runs
 * them. A capability says what its job does and how often (quota expiry in
 * lib/quota, spend alerts in lib/metering, webhook retries in lib/notify, drift
 * checks in lib/cluster); lib/jobs/worker-loop.ts decides when and where: in
 * the replica that holds the periodic leadership, around the reconcile pass.
 */
export interface PeriodicJob {
  /** Names the job in logs. */
  name: string;
  /** At most one run per this many milliseconds; 0 runs it on every pass. */
  everyMs: number;
  /**
   * Before the reconcile pass (what it enqueues is applied in the same pass,
   * e.g. scheduled changes that are due) or after it (what reads the result,
   * e.g. drift checks, or may be slow and must not hold up cluster changes).
   */
  phase: "before-reconcile" | "after-reconcile";
  /** Wait one interval before the first run instead of running at once (a drift check right at start-up reads what was just applied). */
  firstAfterInterval?: boolean;
  /** Runs the job; returns a line worth logging, or null when there is nothing to say. */
  run(now: Date): Promise<string | null>;
}

/** A job that runs beside the passes, started by tick() when due and awaited by stop() (slow reads that must not hold a pass up). */
export interface BackgroundJob {
  tick(): void;
  stop(): Promise<void>;
}

export type JobLog = (message: string, error?: unknown) => void;

/**
 * Tracks when each job last ran and runs the due ones of a phase in order. A
 * job that fails is logged and counted as run (it is tried again an interval
 * later, not on every pass); the others still run. `elapsed` is the loop's
 * own monotonic time, so a test clock that stands still cannot stop the jobs.
 */
export function periodicSchedule(jobs: readonly PeriodicJob[], log: JobLog, elapsed: () => number = () => performance.now()) {
  const started = elapsed();
  const lastRun = new Map<string, number>(jobs.map((j) => [j.name, j.firstAfterInterval ? started : Number.NEGATIVE_INFINITY]));
  return {
    async runDue(phase: PeriodicJob["phase"], now: Date): Promise<void> {
      for (const job of jobs) {
        if (job.phase !== phase) continue;
        const at = elapsed();
        if (at - lastRun.get(job.name)! < job.everyMs) continue;
        lastRun.set(job.name, at);
        // Every line the job logs (its own, an unexpected error's) names it.
        await withLogContext({ job: job.name }, async () => {
          try {
            const line = await job.run(now);
            if (line) log(`${job.name}: ${line}`);
          } catch (error) {
            log(`${job.name} failed; trying again at its next interval`, error);
          }
        });
      }
    },
  };
}
