import { databaseHandle } from "@/db/client";
import { describeCheckpointSetup } from "@/lib/audit/checkpoint-setup";
import { prepareDatabase } from "@/db/prepare";
import { systemClock } from "@/lib/clock";
import { ConfigError, config } from "@/lib/config";
import { startInProcessWorker } from "@/lib/jobs/in-process";
import { clusterRuntime } from "@/lib/cluster/runtime";
import { serveMetrics } from "@/lib/observability/serve";
import { registerTracing } from "@/lib/observability/tracing";
import { exitCleanlyOnSignals } from "./shutdown";

export async function startServer(): Promise<void> {
  // Before the first request: Next reports requests as spans only once a tracer provider exists.
  registerTracing();
  let c;
  try {
    c = config();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`[allot] ${error.message}\n[allot] Fix the variables above and start again.`);
      process.exit(1);
    }
    throw error;
  }
  exitCleanlyOnSignals(c.shutdownDrainSeconds * 1000);
  if (!c.authSecret) {
    console.error("[allot] AUTH_SECRET is required: a random string of 32 or more characters (npm start creates one for the embedded default).");
    process.exit(1);
  }
  if (c.testClockFile) console.warn(`[allot] WARNING: test clock enabled (ALLOT_TEST_CLOCK_FILE=${c.testClockFile}); never use this in production.`);
  try {
    const { seeded } = await prepareDatabase(databaseHandle(), c, systemClock());
    const where = c.database.kind === "postgres" ? "PostgreSQL" : `embedded PGlite in ${c.database.dataDir}`;
    console.log(`[allot] database ready (${where})${seeded ? ", demo data seeded" : ""}`);
    await serveMetrics(c.metricsPort, databaseHandle, systemClock, (m, e) => (e ? console.error(`[allot] ${m}:`, e) : console.log(`[allot] ${m}`)));
    if (c.cluster.inProcessWorker) {
      startInProcessWorker(databaseHandle().db, c.cluster, systemClock, c.auditCheckpoints);
      const runtime = clusterRuntime(c.cluster);
      console.log(`[allot] cluster: ${runtime.mode === "live" ? `live, API server ${runtime.server}` : "record-only (no cluster connected): changes are stored as plans"}; reconcile worker running in this process`);
    } else {
      console.log("[allot] cluster: reconcile worker not started here (ALLOT_CLUSTER_WORKER=0); run `npm run allot -- worker`");
    }
    console.log(`[allot] ${describeCheckpointSetup(c.auditCheckpoints)}${c.auditCheckpoints.signing && !c.cluster.inProcessWorker ? " The periodic ones are written by `allot worker`." : ""}`);
    console.log(`[allot] sign-in: ${[c.oidc ? `OIDC (${c.oidc.issuer})` : null, c.demoSignIn ? "demo personas" : null].filter(Boolean).join(" and ") || "none configured"}`);
  } catch (error) {
    console.error("[allot] could not prepare the database:", error);
    process.exit(1);
  }
}
