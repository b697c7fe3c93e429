import { startStandInApiServer, type KueueVersion } from "./server";

/**
 * The stand-in API server as a process of its own, for end-to-end journeys: a
 * portal in live mode talks to it through a kubeconfig, and the journey plays
 * Kueue's controllers through the API (Workloads created, statuses applied to
 * the status subresource). Run as `node --import tsx test/kube-api/main.ts`.
 *
 * STAND_IN_PORT: the port on 127.0.0.1 (required: the portal's kubeconfig
 * names it before the server starts). STAND_IN_KUEUE_VERSIONS: comma-separated,
 * default both. Stops on SIGTERM or SIGINT; objects live in memory only.
 */
const port = Number(process.env.STAND_IN_PORT);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`STAND_IN_PORT must be a port number, not ${JSON.stringify(process.env.STAND_IN_PORT)}`);
  process.exit(2);
}
const versions = (process.env.STAND_IN_KUEUE_VERSIONS ?? "v1beta1,v1beta2").split(",").map((v) => v.trim()).filter(Boolean);
const unknown = versions.filter((v) => v !== "v1beta1" && v !== "v1beta2");
if (unknown.length > 0) {
  console.error(`STAND_IN_KUEUE_VERSIONS: ${unknown.join(", ")} is not a Kueue version the stand-in serves (v1beta1, v1beta2)`);
  process.exit(2);
}

// No top-level await: tsx loads this file as CommonJS (the package is not "type": "module").
startStandInApiServer({ port, kueueVersions: versions as KueueVersion[] }).then(
  (server) => {
    console.log(`stand-in API server listening on ${server.url}`);
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.once(signal, () => {
        void server.close().then(() => process.exit(0));
      });
    }
  },
  (err: unknown) => {
    console.error(`the stand-in API server could not start on 127.0.0.1:${port}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
