import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { ADMIN_GROUP, BASE_URL, KUBE_API_PORT, KUBE_API_URL, LIVE_BASE_URL, LIVE_PORT, liveKubeconfigFile, METRICS_PORT, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_ISSUER, PORT, testClockFile } from "./e2e/support/env";

/**
 * End-to-end journeys against a production build (`next build` runs first, done
 * by the caller) served by `next start`, on a fresh embedded database that
 * seeds the demo data on start. The OpenID provider is started by the journeys
 * that sign in through it (runOidcProviderForThisFile); the portal only contacts it at sign-in.
 *
 * Beside it, for the *.live.spec.ts journeys: the stand-in Kubernetes API
 * server (test/kube-api) as a process of its own, and a second portal in live
 * mode on its own port and data directory, connected to it with Kueue on. Its
 * worker applies the demo's objects to the stand-in; the journeys play Kueue
 * (statuses, Workloads) through the stand-in's API. The record-only portal
 * never sees it, so what the other journeys assert stays as it was.
 */

// Playwright evaluates this file in the runner and again in every worker. The
// runner creates the data directory and passes it on through the environment,
// so the whole run shares one directory and only the runner deletes it.
function runDataRoot(): string {
  const inherited = process.env.E2E_DATA_ROOT;
  if (inherited) return inherited;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "allot-e2e-"));
  process.env.E2E_DATA_ROOT = root;
  process.on("exit", () => fs.rmSync(root, { recursive: true, force: true }));
  // The live portal's kubeconfig, before any server starts. Plain http, so the
  // client must be told to skip TLS verification (there is none to verify).
  const kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "stand-in", cluster: { server: KUBE_API_URL, "insecure-skip-tls-verify": true } }],
    users: [{ name: "e2e", user: {} }],
    contexts: [{ name: "stand-in", context: { cluster: "stand-in", user: "e2e" } }],
    "current-context": "stand-in",
  };
  fs.writeFileSync(liveKubeconfigFile(), JSON.stringify(kubeconfig, null, 2));
  return root;
}
// Sub-directories: the database lock file is written beside the data directory.
const dataDir = path.join(runDataRoot(), "pglite");
const liveDataDir = path.join(runDataRoot(), "pglite-live");

const portalEnv = {
  NODE_ENV: "production",
  NEXT_TELEMETRY_DISABLED: "1",
  // Warnings and errors only: an access line per request would bury the run's report.
  LOG_LEVEL: process.env.LOG_LEVEL || "warn",
  // Empty means unset to the portal's configuration: PGlite even when the shell points at PostgreSQL.
  DATABASE_URL: "",
  AUTH_SECRET: "allot-e2e-auth-secret-0123456789-abcdefghijklmnop",
  ALLOT_DEMO: "1",
};

const chromiumPath = "/usr/bin/chromium";

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results/e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: Boolean(process.env.CI),
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: "test-results/e2e-results.json" }]],
  use: {
    baseURL: BASE_URL,
    // The journeys read times as UTC whatever this machine's zone; time-zone.spec.ts sets another.
    timezoneId: "UTC",
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: {
      // Debian's chromium where present (browser downloads are blocked on these machines).
      ...(fs.existsSync(chromiumPath) ? { executablePath: chromiumPath } : {}),
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  projects: [
    // Signs each demo persona in once and saves its storageState to e2e/.auth/.
    { name: "setup", testMatch: /auth\.setup\.ts$/ },
    {
      // Journeys that only read, or that create sessions and users of their own.
      name: "journeys",
      testMatch: /\.spec\.ts$/,
      testIgnore: /\.(changes|tenancy|live|reviews)\.spec\.ts$/,
      dependencies: ["setup"],
      use: { ...devices["Desktop Chrome"] },
    },
    {
      // Journeys that add tenants and projects: they run after the read-only
      // journeys, which assert exactly what each persona sees.
      name: "changes",
      testMatch: /\.changes\.spec\.ts$/,
      dependencies: ["journeys"],
      use: { ...devices["Desktop Chrome"] },
    },
    {
      // Invitations, collaborators and service accounts: a new Vision Lab viewer
      // shows on every Vision Lab project's access list, which the onboarding
      // journey asserts exactly, so these run last. Some move the server's clock.
      name: "tenancy",
      testMatch: /\.tenancy\.spec\.ts$/,
      dependencies: ["changes"],
      use: { ...devices["Desktop Chrome"] },
    },
    {
      // Access reviews revoke access that every journey above asserts, so they run after all of them.
      name: "reviews",
      testMatch: /\.reviews\.spec\.ts$/,
      dependencies: ["tenancy"],
      use: { ...devices["Desktop Chrome"] },
    },
    {
      // Journeys against the live portal (see above): they sign in there themselves, so need no setup.
      name: "live",
      testMatch: /\.live\.spec\.ts$/,
      use: { ...devices["Desktop Chrome"], baseURL: LIVE_BASE_URL },
    },
  ],
  webServer: [
    {
      // The stand-in API server first: the live portal's worker applies to it from its start.
      command: "node --import tsx test/kube-api/main.ts",
      url: `${KUBE_API_URL}/api`,
      reuseExistingServer: false,
      timeout: 60_000,
      stderr: "pipe",
      env: { STAND_IN_PORT: String(KUBE_API_PORT) },
    },
    {
      // The server's own process, not npx, so nothing is left behind on the port (STACK.md pitfall 8).
      command: `node node_modules/next/dist/bin/next start -p ${PORT}`,
      url: `${BASE_URL}/readyz`,
      reuseExistingServer: false,
      timeout: 90_000,
      stdout: "pipe",
      stderr: "pipe",
      env: {
        ...portalEnv,
        ALLOT_DATA_DIR: dataDir,
        AUTH_URL: BASE_URL,
        OIDC_ISSUER,
        OIDC_CLIENT_ID,
        OIDC_CLIENT_SECRET,
        ALLOT_ADMIN_GROUP: ADMIN_GROUP,
        // Journeys move the server's clock by writing this file (e2e/support/clock.ts).
        ALLOT_TEST_CLOCK_FILE: testClockFile(),
        // Sessions outlive a clock shift of a few days: an expiry seen then is the grant's, not the session's.
        ALLOT_SESSION_HOURS: "720",
        // Likewise the groups-claim re-check (ALLOT_SESSION_RECHECK_MINUTES): a session from the test provider must survive the shift.
        ALLOT_SESSION_RECHECK_MINUTES: "43200",
        METRICS_PORT: String(METRICS_PORT),
        // Record-only, whatever the shell's KUBECONFIG says.
        ALLOT_CLUSTER_MODE: "record-only",
      },
    },
    {
      // The live portal: the demo, Kueue on, connected to the stand-in; demo sign-in only, the real clock.
      command: `node node_modules/next/dist/bin/next start -p ${LIVE_PORT}`,
      url: `${LIVE_BASE_URL}/readyz`,
      reuseExistingServer: false,
      timeout: 90_000,
      stdout: "pipe",
      stderr: "pipe",
      env: {
        ...portalEnv,
        ALLOT_DATA_DIR: liveDataDir,
        AUTH_URL: LIVE_BASE_URL,
        ALLOT_CLUSTER_MODE: "auto",
        KUBECONFIG: liveKubeconfigFile(),
        ALLOT_KUEUE: "1",
        // Drift is not what these journeys look at; reading every object back would only add load.
        ALLOT_DRIFT_INTERVAL_MINUTES: "0",
        METRICS_PORT: "0",
      },
    },
  ],
});
