import { databaseHandle } from "@/db/client";
import { describeCheckpointSetup } from "@/lib/audit/checkpoint-setup";
import { prepareDatabase } from "@/db/prepare";
import { systemClock } from "@/lib/clock";
import { ConfigError, config } from "@/lib/config";
import { startInProcessWorker } from "@/lib/jobs/in-process";
import { clusterRuntime } from "@/lib/cluster/runtime";
import { log, logLine } from "@/lib/observability/log";
import { installRequestLog } from "@/lib/observability/request-log";
import { serveMetrics } from "@/lib/observability/serve";
import { registerTracing } from "@/lib/observability/tracing";
import { exitCleanlyOnSignals } from "./shutdown";

export async function startServer(): Promise<void> {
  // Before the first request: Next reports requests as spans only once a tracer provider exists,
  // and each request gets its id (and its access line) from the hook on the HTTP server.
  installRequestLog();
  registerTracing();
  let c;
  try {
    c = config();
  } catch (error) {
    if (error instanceof ConfigError) {
      log().fatal(`${error.message}\nFix the variables above and start again.`);
      process.exit(1);
    }
    throw error;
  }
  exitCleanlyOnSignals(c.shutdownDrainSeconds * 1000);
  if (!c.authSecret) {
    log().fatal("AUTH_SECRET is required: a random string of 32 or more characters (npm start creates one for the embedded default).");
    process.exit(1);
  }
  if (c.testClockFile) log().warn(`test clock enabled (ALLOT_TEST_CLOCK_FILE=${c.testClockFile}); never use this in production.`);
  try {
    const { seeded } = await prepareDatabase(databaseHandle(), c, systemClock());
    const where = c.database.kind === "postgres" ? "PostgreSQL" : `embedded PGlite in ${c.database.dataDir}`;
    log().info(`database ready (${where})${seeded ? ", demo data seeded" : ""}`);
    await serveMetrics(c.metricsPort, databaseHandle, systemClock, logLine);
    if (c.cluster.inProcessWorker) {
      startInProcessWorker(databaseHandle().db, c.cluster, systemClock, c.auditCheckpoints);
      const runtime = clusterRuntime(c.cluster);
      log().info(`cluster: ${runtime.mode === "live" ? `live, API server ${runtime.server}` : "record-only (no cluster connected): changes are stored as plans"}; reconcile worker running in this process`);
    } else {
      log().info("cluster: reconcile worker not started here (ALLOT_CLUSTER_WORKER=0); run `npm run allot -- worker`");
    }
    log().info(`${describeCheckpointSetup(c.auditCheckpoints)}${c.auditCheckpoints.signing && !c.cluster.inProcessWorker ? " The periodic ones are written by `allot worker`." : ""}`);
    log().info(`sign-in: ${[c.oidc ? `OIDC (${c.oidc.issuer})` : null, c.demoSignIn ? "demo personas" : null].filter(Boolean).join(" and ") || "none configured"}`);
  } catch (error) {
    log().fatal({ err: error }, "could not prepare the database");
    process.exit(1);
  }
}
