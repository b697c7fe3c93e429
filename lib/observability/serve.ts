import type { DatabaseHandle } from "@/db/client";
import type { Clock } from "@/lib/clock";
import { collectFromDatabase } from "./db-metrics";
import { metrics } from "./metrics";
import { startMetricsServer, type MetricsServer } from "./metrics-server";

/**
 * Serve this process's metrics on `port` (the portal's server and `allot worker` both do).
 * A port already taken is reported and the process goes on without /metrics: Prometheus then
 * shows the target down, which is the alert, rather than the portal refusing to start.
 */
export async function serveMetrics(port: number | null, database: () => DatabaseHandle | null, clock: Clock, log: (message: string, error?: unknown) => void): Promise<MetricsServer | null> {
  collectFromDatabase(database, clock);
  if (port === null) return null;
  try {
    const server = await startMetricsServer(metrics().registry, { port });
    log(`metrics: http://0.0.0.0:${server.port}/metrics`);
    return server;
  } catch (error) {
    log(`metrics: could not listen on port ${port} (METRICS_PORT); going on without /metrics`, error);
    return null;
  }
}
