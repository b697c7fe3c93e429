import { closeDatabase } from "@/db/client";
import { stopInProcessWorker } from "@/lib/jobs/in-process";
import { shutdownTracing } from "@/lib/observability/tracing";
import { log } from "@/lib/observability/log";
import { beginDraining } from "./draining";

/**
 * How the server stops on SIGTERM (every rollout and scale-down in Kubernetes)
 * and SIGINT (Ctrl-C), in order:
 *   1. readiness turns false (/readyz answers 503), so the Service stops sending
 *      new requests here;
 *   2. the reconcile worker claims nothing more, hands back the changes it has
 *      not started (another replica takes them at once) and finishes the ones
 *      in flight;
 *   3. for the drain period (ALLOT_SHUTDOWN_DRAIN_SECONDS) the server goes on
 *      answering: requests in flight finish, and requests routed here before
 *      the endpoints caught up are still served;
 *   4. the database closes (PGlite writes its files out), exit 0.
 * In the container, node is PID 1, which ignores SIGTERM unless a handler is
 * installed. Next installs its own handlers that exit at once with 143 unless
 * NEXT_MANUAL_SIG_HANDLE is set; the image's entry and `npm start` set it, so
 * this is the one place a stop happens. The pod's terminationGracePeriodSeconds
 * must exceed the drain period plus STEP_DEADLINE_MS.
 */
const STEP_DEADLINE_MS = 8_000;

export type ShutdownStep = { name: string; run: () => Promise<void> };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function shutdownSteps(drainMs: number): ShutdownStep[] {
  return [
    { name: "readiness", run: () => Promise.resolve(beginDraining()) },
    { name: "reconcile worker", run: stopInProcessWorker },
    { name: "drain", run: () => sleep(drainMs) },
    // Spans still queued for the OTLP endpoint (the last requests' among them) leave before the process does.
    { name: "traces", run: shutdownTracing },
    { name: "database", run: closeDatabase },
  ];
}

/**
 * Run the steps in order, all of them even when one fails, until the shared deadline; resolves
 * to the exit code: 0 when every step finished, 1 when one failed or the deadline passed.
 */
export async function shutDown(steps: ShutdownStep[], log: (message: string) => void, deadlineMs = STEP_DEADLINE_MS): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), deadlineMs);
    timer.unref();
  });
  let code = 0;
  try {
    for (const step of steps) {
      const outcome = await Promise.race([step.run().then(() => "done" as const, (error: unknown) => error), deadline]);
      if (outcome === "late") {
        log(`shutdown: ${step.name} did not stop within ${deadlineMs / 1000} s; exiting anyway`);
        return 1;
      }
      if (outcome !== "done") {
        log(`shutdown: ${step.name}: ${outcome instanceof Error ? outcome.message : String(outcome)}`);
        code = 1;
      }
    }
    return code;
  } finally {
    clearTimeout(timer);
  }
}

const globalForShutdown = globalThis as unknown as { allotShutdownHooked?: boolean };

/** Install the SIGTERM/SIGINT handlers once per process; a second signal exits at once. */
export function exitCleanlyOnSignals(drainMs: number): void {
  const steps = shutdownSteps(drainMs);
  if (globalForShutdown.allotShutdownHooked) return;
  globalForShutdown.allotShutdownHooked = true;
  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      log().info(`${signal}: stopping`);
      void shutDown(steps, (m) => log().error(m), drainMs + STEP_DEADLINE_MS).then((code) => {
        log().info(`stopped (exit ${code})`);
        process.exit(code);
      });
    });
  }
}
