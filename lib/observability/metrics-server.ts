import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

/**
 * /metrics on a port of its own (METRICS_PORT, default 9464), apart from the
 * portal's: the Service that users reach does not carry it, so only what may
 * scrape the pod (Prometheus, through the NetworkPolicy) sees it.
 */
export interface MetricsServer {
  /** The port actually bound (differs from the one asked for when that was 0). */
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(registry: Registry, o: { port: number; host?: string }): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("Only GET /metrics is served on this port.\n");
      return;
    }
    registry.metrics().then(
      (body) => response.writeHead(200, { "Content-Type": registry.contentType, "Cache-Control": "no-store" }).end(request.method === "HEAD" ? undefined : body),
      (error: unknown) => response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  // A scrape holds nothing open: do not keep the process alive for idle keep-alive sockets on shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host ?? "0.0.0.0", () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.unref();
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
