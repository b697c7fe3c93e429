import path from "node:path";

/**
 * Where the e2e server and the test OpenID provider listen. Shared by
 * playwright.config.ts (which starts the portal) and the journeys (which start
 * the provider), so both sides agree on every URL.
 */
export const PORT = Number(process.env.E2E_PORT ?? 3210);
export const OIDC_PORT = Number(process.env.E2E_OIDC_PORT ?? 3219);
/** The portal's /metrics port (METRICS_PORT): beside the portal's, so parallel runs on other ports do not collide. */
export const METRICS_PORT = Number(process.env.E2E_METRICS_PORT ?? PORT + 8);

/** Always localhost, never 127.0.0.1: the OIDC redirect_uri must match exactly (STACK.md pitfall 5). */
export const BASE_URL = `http://localhost:${PORT}`;

/**
 * A second portal in live mode, connected to the stand-in Kubernetes API
 * server (test/kube-api) with Kueue on: the journeys named *.live.spec.ts run
 * against it and play Kueue through the stand-in's API. Both listen beside the
 * portal's port, so parallel runs on other ports do not collide.
 */
export const LIVE_PORT = Number(process.env.E2E_LIVE_PORT ?? PORT + 1);
export const LIVE_BASE_URL = `http://localhost:${LIVE_PORT}`;
export const KUBE_API_PORT = Number(process.env.E2E_KUBE_API_PORT ?? PORT + 2);
export const KUBE_API_URL = `http://127.0.0.1:${KUBE_API_PORT}`;
export const OIDC_ISSUER = `http://127.0.0.1:${OIDC_PORT}`;
export const OIDC_CLIENT_ID = "allot-e2e";
export const OIDC_CLIENT_SECRET = "allot-e2e-client-secret-not-for-production";
export const ADMIN_GROUP = "allot-platform-admins";

/**
 * The file the portal reads its clock offset from (lib/clock.ts). It lies in
 * the run's temporary data root, which playwright.config.ts creates in the
 * runner and hands to every worker as E2E_DATA_ROOT: both sides resolve the
 * same file, and it is deleted with the root at the end of the run.
 */
export function testClockFile(): string {
  const root = process.env.E2E_DATA_ROOT;
  if (!root) throw new Error("E2E_DATA_ROOT is not set: run the journeys through playwright.config.ts");
  return path.join(root, "clock.json");
}

/** The live portal's kubeconfig (written by playwright.config.ts in the run's data root): the stand-in, no credentials. */
export function liveKubeconfigFile(): string {
  const root = process.env.E2E_DATA_ROOT;
  if (!root) throw new Error("E2E_DATA_ROOT is not set: run the journeys through playwright.config.ts");
  return path.join(root, "kubeconfig.json");
}

const ROOT = path.resolve(__dirname, "..", "..");
export const AUTH_DIR = path.join(ROOT, "e2e", ".auth");
export const SCREENSHOT_DIR = path.join(ROOT, "test-results", "screenshots");
