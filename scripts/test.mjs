#!/usr/bin/env node
// `npm test`: every check, in order, stopping at the first failure:
//   type check, lint, unit tests, integration tests on PGlite with the operator CLI's,
//   integration tests on PostgreSQL (when DATABASE_URL is set), production build, its first-load
//   JavaScript budgets, the replica test
//   (portal processes of that build on one PostgreSQL; when DATABASE_URL is set), Playwright, and the
//   container image: built with buildah and run as a container would (where buildah
//   can run: Linux, as root; elsewhere said and counted as skipped, except in CI).
// Ends with one line "N passed, N failed" summing the test runners' counts.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { whyImagesCannotBeBuilt } from "./image/buildah.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);
const bin = (name) => path.join(root, "node_modules", ".bin", name);
const resultsDir = path.join(root, "test-results");
fs.mkdirSync(resultsDir, { recursive: true });

const totals = { passed: 0, failed: 0, skipped: 0 };
const timings = [];

function run(label, command, args, env = {}) {
  console.log(`\n=== ${label} ===`);
  const started = Date.now();
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env } });
  timings.push(`${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result.status === 0;
}

function countVitest(file) {
  const report = JSON.parse(fs.readFileSync(file, "utf8"));
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests;
  totals.skipped += report.numPendingTests + (report.numTodoTests ?? 0);
}

function countPlaywright(file) {
  const { stats } = JSON.parse(fs.readFileSync(file, "utf8"));
  totals.passed += stats.expected + stats.flaky;
  totals.failed += stats.unexpected;
  totals.skipped += stats.skipped;
}

function countImageCheck(file) {
  const report = JSON.parse(fs.readFileSync(file, "utf8"));
  totals.passed += report.passed;
  totals.failed += report.failed;
  totals.skipped += report.skipped;
}

function finish(ok) {
  console.log(`\n${timings.join("\n")}`);
  console.log(`\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ""}`);
  process.exit(ok && totals.failed === 0 ? 0 : 1);
}

function step(ok) {
  if (!ok) finish(false);
}

function vitest(label, projects, outFile, env) {
  const projectArgs = [projects].flat().flatMap((project) => ["--project", project]);
  const ok = run(label, bin("vitest"), ["run", ...projectArgs, "--reporter=default", "--reporter=json", `--outputFile.json=${outFile}`], env);
  if (fs.existsSync(outFile)) countVitest(outFile);
  step(ok);
}

step(run("Type check", bin("tsc"), ["--noEmit"]));
step(run("Lint", bin("eslint"), ["--max-warnings", "0", "."]));
vitest("Unit tests", "unit", path.join(resultsDir, "unit.json"), {});
// The operator CLI's test (project cli) runs its processes on embedded databases of their own whatever
// DATABASE_URL says, so it runs once, here, and not again on PostgreSQL.
vitest("Integration tests (PGlite) and the operator CLI", ["integration", "cli"], path.join(resultsDir, "integration-pglite.json"), { DATABASE_URL: "" });
if (process.env.DATABASE_URL) {
  vitest("Integration tests (PostgreSQL)", "integration", path.join(resultsDir, "integration-postgres.json"), {});
} else {
  console.log("\n(DATABASE_URL not set: integration tests ran on PGlite only; .ci/run also runs them on PostgreSQL.)");
}

// Playwright needs a browser: Debian's chromium where present, else Playwright's own.
if (!fs.existsSync("/usr/bin/chromium")) {
  step(run("Fetch Playwright's Chromium (no /usr/bin/chromium)", bin("playwright"), ["install", "chromium"]));
}
step(run("Production build", process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"]));
// The build's first-load JavaScript per route against its budget (test/build-output).
vitest("Build output: first-load JavaScript budgets", "build", path.join(resultsDir, "build-output.json"), {});
if (process.env.DATABASE_URL) {
  // Two and three portal processes of that build on one PostgreSQL (test/replicas): claims, leadership, shared rate limits.
  vitest("Replicas (PostgreSQL, production build)", "replicas", path.join(resultsDir, "replicas.json"), {});
} else {
  console.log("\n(DATABASE_URL not set: the replica test, which needs PostgreSQL, did not run; .ci/run runs it.)");
}
const e2eReport = path.join(resultsDir, "e2e-results.json");
fs.rmSync(e2eReport, { force: true });
const e2eOk = run("End-to-end tests (Playwright, Chromium)", bin("playwright"), ["test"]);
if (fs.existsSync(e2eReport)) countPlaywright(e2eReport);
step(e2eOk);

const imageBlocker = whyImagesCannotBeBuilt();
if (imageBlocker && !process.env.CI) {
  console.log(`\n=== Container image ===\nSkipped: ${imageBlocker}. CI (.ci/run) builds and checks it; npm run image and npm run image:check do it by hand.`);
  totals.skipped += 1;
  finish(true);
}
step(run("Container image: build (npm run image)", process.execPath, [path.join(root, "scripts", "image.mjs")]));
const imageReport = path.join(resultsDir, "image-check.json");
fs.rmSync(imageReport, { force: true });
const imageOk = run("Container image: check (npm run image:check)", process.execPath, [path.join(root, "scripts", "image-check.mjs")]);
if (fs.existsSync(imageReport)) countImageCheck(imageReport);
finish(imageOk);
