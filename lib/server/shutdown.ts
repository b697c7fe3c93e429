import { closeDatabase } from "@/db/client";
import { stopInProcessWorker } from "@/lib/cluster/in-process";

/**
 * How the server stops on SIGTERM (every rollout and scale-down in Kubernetes)
 * and SIGINT (Ctrl-C): finish the reconcile pass in progress, close the
 * database (PGlite writes its files out on close), exit 0. In the container,
 * node is PID 1, which ignores SIGTERM unless a handler is installed.
 *
 * Next installs its own handlers that exit at once with 143 unless
 * NEXT_MANUAL_SIG_HANDLE is set; the image's entry and `npm start` set it, so
 * this is the one place a stop happens. Graceful draining (refusing new work
 * while requests in flight finish) belongs here too.
 */
const DEADLINE_MS = 8_000;

export type ShutdownStep = { name: string; run: () => Promise<void> };

export const defaultShutdownSteps: ShutdownStep[] = [
  { name: "reconcile worker", run: stopInProcessWorker },
  { name: "database", run: closeDatabase },
];

/**
 * Run the steps in order, all of them even when one fails, until the shared deadline; resolves
 * to the exit code: 0 when every step finished, 1 when one failed or the deadline passed.
 */
export async function shutDown(steps: ShutdownStep[], log: (message: string) => void, deadlineMs = DEADLINE_MS): Promise<number> {
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
export function exitCleanlyOnSignals(steps: ShutdownStep[] = defaultShutdownSteps): void {
  if (globalForShutdown.allotShutdownHooked) return;
  globalForShutdown.allotShutdownHooked = true;
  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      console.log(`[allot] ${signal}: stopping`);
      void shutDown(steps, (m) => console.error(`[allot] ${m}`)).then((code) => {
        console.log(`[allot] stopped (exit ${code})`);
        process.exit(code);
      });
    });
  }
}
