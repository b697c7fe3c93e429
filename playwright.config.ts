import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { ADMIN_GROUP, BASE_URL, METRICS_PORT, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_ISSUER, PORT, testClockFile } from "./e2e/support/env";

/**
 * End-to-end journeys against a production build (`next build` runs first, done
 * by the caller) served by `next start`, on a fresh embedded database that
 * seeds the demo data on start. The OpenID provider is started by the journeys
 * that sign in through it (runOidcProviderForThisFile); the portal only contacts it at sign-in.
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
  return root;
}
// A sub-directory: the database lock file is written beside the data directory.
const dataDir = path.join(runDataRoot(), "pglite");

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
      testIgnore: /\.(changes|tenancy|reviews)\.spec\.ts$/,
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
  ],
  webServer: {
    // The server's own process, not npx, so nothing is left behind on the port (STACK.md pitfall 8).
    command: `node node_modules/next/dist/bin/next start -p ${PORT}`,
    url: `${BASE_URL}/readyz`,
    reuseExistingServer: false,
    timeout: 90_000,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      // Warnings and errors only: an access line per request would bury the run's report.
      LOG_LEVEL: process.env.LOG_LEVEL || "warn",
      ALLOT_DATA_DIR: dataDir,
      // Empty means unset to the portal's configuration: PGlite even when the shell points at PostgreSQL.
      DATABASE_URL: "",
      AUTH_SECRET: "allot-e2e-auth-secret-0123456789-abcdefghijklmnop",
      AUTH_URL: BASE_URL,
      ALLOT_DEMO: "1",
      OIDC_ISSUER,
      OIDC_CLIENT_ID,
      OIDC_CLIENT_SECRET,
      ALLOT_ADMIN_GROUP: ADMIN_GROUP,
      // Journeys move the server's clock by writing this file (e2e/support/clock.ts).
      ALLOT_TEST_CLOCK_FILE: testClockFile(),
      // Sessions outlive a clock shift of a few days: an expiry seen then is the grant's, not the session's.
      ALLOT_SESSION_HOURS: "720",
      METRICS_PORT: String(METRICS_PORT),
    },
  },
});
