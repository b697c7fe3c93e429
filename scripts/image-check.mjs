#!/usr/bin/env node
// `npm run image:check`: run the image built by `npm run image` (localhost/allot:dev, or ALLOT_IMAGE)
// as a container with a read-only root would run, and check what the deployment relies on:
//   - its user is numeric and not root, and the running portal has that uid, as PID 1;
//   - the root file system is read-only to it (a write outside /tmp and the data dir fails);
//   - the CLI runs as the image's other entry commands (allot help, allot migrate);
//   - on PostgreSQL (a fresh database beside DATABASE_URL's): /readyz answers 200, the sign-in page
//     renders with its styles, and a demo persona signs in (Chromium);
//   - embedded (no DATABASE_URL): the database, its lock and the session secret go to the data dir,
//     and it opens again after a stop;
//   - SIGTERM stops it cleanly (exit 0) within a few seconds.
// Writes test-results/image-check.json ({ passed, failed, skipped, checks, figures }).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { APP_IMAGE, imageExists, whyImagesCannotBeBuilt } from "./image/buildah.mjs";
import { nodeInside, numericUser, runContained, startContained, waitForStatus, workingCopy } from "./image/container.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);
const resultsFile = path.join(root, "test-results", "image-check.json");
const READY_TIMEOUT_MS = 180_000;
const STOP_WITHIN_S = 10;

const checks = [];
const figures = {};
let firstReadyAt = null;
function record(name, ok, detail = "") {
  checks.push({ name, status: ok ? "passed" : "failed", detail });
  console.log(`  ${ok ? "✓" : "✗"} ${name}${detail ? ` — ${detail}` : ""}`);
  return ok;
}
function skip(name, reason) {
  checks.push({ name, status: "skipped", detail: reason });
  console.log(`  - ${name} — skipped: ${reason}`);
}

async function freePort() {
  if (process.env.IMAGE_CHECK_PORT) return Number(process.env.IMAGE_CHECK_PORT);
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The uid, gid, PID-namespace pid and root mount options of a running process, from /proc. */
function processFacts(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) => new RegExp(`^${name}:\\s*(.*)$`, "m").exec(status)?.[1].trim().split(/\s+/) ?? [];
  const rootMount = fs
    .readFileSync(`/proc/${pid}/mountinfo`, "utf8")
    .split("\n")
    .map((line) => line.split(" "))
    .filter((f) => f[4] === "/")
    .at(-1);
  return { uids: field("Uid"), gids: field("Gid"), nspid: field("NSpid"), rootOptions: rootMount?.[5] ?? "" };
}

// Writes by the image's user (and, for the root itself, by uid 0): EROFS means the mount refused it.
const PROBE = `const fs = require("node:fs");
const out = {};
for (const p of process.argv.slice(1)) {
  try { fs.writeFileSync(p, "probe"); fs.unlinkSync(p); out[p] = "written"; } catch (e) { out[p] = e.code; }
}
console.log(JSON.stringify(out));`;
const probe = (pid, user, imagePath, paths) => JSON.parse(nodeInside(pid, user, PROBE, paths, imagePath));

async function stopWithSigterm(run, label, figure) {
  const pid = run.pid();
  const started = Date.now();
  process.kill(pid, "SIGTERM");
  const exit = await Promise.race([run.exited, new Promise((resolve) => setTimeout(() => resolve(null), STOP_WITHIN_S * 1000))]);
  const took = ((Date.now() - started) / 1000).toFixed(1);
  figures[figure] = Number(took);
  if (!exit) run.kill();
  return record(`${label}: SIGTERM to PID 1 stops it with exit 0 within ${STOP_WITHIN_S} s`, exit?.code === 0, exit ? `exit ${exit.code ?? exit.signal} after ${took} s` : "still running; killed");
}

async function signInWithChromium(baseUrl) {
  const { chromium } = await import("@playwright/test");
  const executablePath = fs.existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined;
  const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--no-first-run"] });
  try {
    const page = await browser.newPage();
    const styles = [];
    page.on("response", (r) => {
      if (r.url().includes("/_next/static/") && r.url().endsWith(".css")) styles.push(r.status());
    });
    const response = await page.goto(`${baseUrl}/sign-in`);
    const heading = await page.getByRole("heading", { level: 1 }).textContent();
    await page.screenshot({ path: path.join(root, "test-results", "image-check-sign-in.png") });
    record("sign-in page renders (200, heading, stylesheet from .next/static)", response?.status() === 200 && heading === "Sign in" && styles.length > 0 && styles.every((s) => s === 200), `status ${response?.status()}, heading "${heading}", stylesheets ${styles.join(",") || "none"}`);
    const persona = page.getByRole("button", { name: /^Sign in as / }).first();
    // The button's name is its text ("Sign in as " for screen readers, then the persona's name and title).
    const firstName = /^Sign in as (\S+)/.exec(((await persona.textContent()) ?? "").trim())?.[1];
    await persona.click();
    await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"), { timeout: 30_000 });
    const welcome = await page.getByRole("heading", { level: 1 }).textContent();
    await page.screenshot({ path: path.join(root, "test-results", "image-check-signed-in.png") });
    record("a demo persona signs in and sees the portal (server action, session, database)", Boolean(firstName) && welcome === `Welcome, ${firstName}`, `landed on ${new URL(page.url()).pathname}: "${welcome}"`);
  } finally {
    await browser.close();
  }
}

async function postgresChecks(copy, user) {
  if (!process.env.DATABASE_URL) {
    const reason = "DATABASE_URL is not set (.ci/run sets it)";
    if (process.env.CI) return record("PostgreSQL checks", false, reason);
    return skip("PostgreSQL checks", reason);
  }
  const admin = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} });
  const database = `allot_image_check_${process.pid}_${Date.now()}`;
  await admin.unsafe(`create database "${database}"`);
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${database}`;
  const port = await freePort();
  const env = { DATABASE_URL: url.toString(), AUTH_SECRET: randomBytes(32).toString("base64url"), PORT: String(port), AUTH_URL: `http://localhost:${port}`, ALLOT_DEMO: "1", ALLOT_MIGRATE_ON_START: "0" };
  try {
    const help = await runContained(copy, { args: ["help"] });
    record("CLI as entry command: allot help", help.code === 0 && help.output.includes("Commands:"), `exit ${help.code}`);
    const migrate = await runContained(copy, { args: ["migrate"], env });
    record("CLI as entry command: allot migrate (PostgreSQL)", migrate.code === 0 && /Migrations applied/.test(migrate.output), migrate.output.trim().split("\n").at(-1));
    // As a manifest's `command: ["allot", ...]` runs it, replacing the entry point: `allot` found on PATH.
    const onPath = await runContained(copy, { command: ["allot", "verify-audit"], env });
    record("allot is on PATH: command [allot, verify-audit]", onPath.code === 0 && /Hash chain intact: \d+ events verified/.test(onPath.output), onPath.output.trim().split("\n").at(-1));

    const started = Date.now();
    const run = startContained(copy, { env });
    const gone = () => run.pid() === null && Date.now() - started > 2000;
    const ready = await waitForStatus(`http://127.0.0.1:${port}/readyz`, 200, READY_TIMEOUT_MS, gone);
    figures.postgresStartToReadySeconds = ready;
    firstReadyAt ??= ready === null ? null : Date.now();
    if (!record("portal: /readyz answers 200 on PostgreSQL", ready !== null, ready === null ? run.output().slice(-2000) : `${ready.toFixed(1)} s after start`)) {
      run.kill();
      return;
    }
    const pid = run.pid();
    const facts = processFacts(pid);
    record(`portal runs as uid ${user.uid}, gid ${user.gid}, as PID 1 of its namespace`, facts.uids.every((u) => Number(u) === user.uid) && facts.gids.every((g) => Number(g) === user.gid) && facts.nspid.at(-1) === "1", `Uid ${facts.uids.join(" ")}, Gid ${facts.gids.join(" ")}, NSpid ${facts.nspid.join(" ")}`);
    record("root file system is mounted read-only", facts.rootOptions.split(",").includes("ro"), `/ mounted ${facts.rootOptions}`);
    const imagePath = (copy.config.Env ?? []).find((e) => e.startsWith("PATH="))?.slice(5) ?? "/usr/local/bin:/usr/bin:/bin";
    const asUser = probe(pid, user, imagePath, ["/probe", "/app/probe", "/app/.next/probe", "/etc/probe", "/var/lib/allot/probe", "/tmp/probe"]);
    const asRoot = probe(pid, { uid: 0, gid: 0 }, imagePath, ["/probe", "/app/probe"]);
    const refused = Object.entries(asUser).filter(([p]) => p !== "/tmp/probe").every(([, code]) => code === "EROFS") && Object.values(asRoot).every((code) => code === "EROFS");
    record("writes outside /tmp fail with EROFS (even as root); /tmp is writable", refused && asUser["/tmp/probe"] === "written", JSON.stringify({ ...asUser, root: asRoot }));

    await signInWithChromium(`http://localhost:${port}`);
    const traced = await fetch(`http://127.0.0.1:${port}/sign-in`, { headers: { "X-Request-Id": "image-check-1" } }).catch(() => null);
    await new Promise((r) => setTimeout(r, 300));
    const accessLine = run
      .output()
      .split("\n")
      .map((line) => { try { return JSON.parse(line); } catch { return null; } })
      .find((entry) => entry?.msg === "request" && entry.requestId === "image-check-1");
    record("logs are JSON lines; a request's X-Request-Id is echoed and on its access line", traced?.headers.get("x-request-id") === "image-check-1" && accessLine?.status === 200 && accessLine.path === "/sign-in", JSON.stringify(accessLine ?? run.output().split("\n").slice(-3)));
    const readOnlyErrors = run.output().split("\n").filter((line) => /EROFS|read-only file system/i.test(line));
    record("server log has no read-only file system errors", readOnlyErrors.length === 0, readOnlyErrors.slice(0, 3).join(" | "));
    await stopWithSigterm(run, "PostgreSQL", "postgresStopSeconds");
  } finally {
    await admin.unsafe(`drop database if exists "${database}" with (force)`).catch(() => {});
    await admin.end({ timeout: 5 });
  }
}

async function embeddedChecks(copy, user) {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "allot-image-data-"));
  fs.chownSync(data, user.uid, user.gid);
  const port = await freePort();
  const env = { PORT: String(port), AUTH_URL: `http://localhost:${port}` };
  try {
    for (const attempt of ["first start", "restart"]) {
      const started = Date.now();
      const run = startContained(copy, { env, dataDir: data });
      const gone = () => run.pid() === null && Date.now() - started > 2000;
      const ready = await waitForStatus(`http://127.0.0.1:${port}/readyz`, 200, READY_TIMEOUT_MS, gone);
      firstReadyAt ??= ready === null ? null : Date.now();
      figures[attempt === "first start" ? "embeddedFirstStartToReadySeconds" : "embeddedRestartToReadySeconds"] = ready;
      if (!record(`embedded (${attempt}): /readyz answers 200, the data dir its only writable path`, ready !== null, ready === null ? run.output().slice(-2000) : `${ready.toFixed(1)} s after start`)) {
        run.kill();
        return;
      }
      if (attempt === "first start") {
        const written = ["db/PG_VERSION", "db/auth-secret", "db.lock"].filter((f) => fs.existsSync(path.join(data, f)));
        const secret = fs.statSync(path.join(data, "db/auth-secret"), { throwIfNoEntry: false });
        record("embedded: database, lock and session secret are in the data dir, owned by the image's user", written.length === 3 && secret?.uid === user.uid && (secret.mode & 0o077) === 0, `found ${written.join(", ")}; secret mode ${secret ? (secret.mode & 0o777).toString(8) : "none"}`);
      }
      await stopWithSigterm(run, `embedded (${attempt})`, attempt === "first start" ? "embeddedFirstStopSeconds" : "embeddedRestartStopSeconds");
    }
    record("embedded: the stop released the database lock", !fs.existsSync(path.join(data, "db.lock")));
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
}

async function main() {
  const why = whyImagesCannotBeBuilt();
  if (why) throw new Error(`cannot run images here: ${why}`);
  if (!imageExists(APP_IMAGE)) throw new Error(`${APP_IMAGE} does not exist: run npm run image first`);
  console.log(`[image:check] ${APP_IMAGE}`);
  const copy = workingCopy(APP_IMAGE);
  try {
    const user = numericUser(copy.config.User);
    if (!record("image user is numeric and not root (runAsNonRoot can verify it)", user !== null && user.uid !== 0, `User "${copy.config.User}"`) || !user) return;
    record("entry point is allot, default command serve", JSON.stringify([...copy.config.Entrypoint, ...copy.config.Cmd]) === JSON.stringify(["node", "/app/bin/allot.mjs", "serve"]), JSON.stringify({ Entrypoint: copy.config.Entrypoint, Cmd: copy.config.Cmd }));
    await postgresChecks(copy, user);
    await embeddedChecks(copy, user);
  } finally {
    copy.remove();
  }
  const built = fs.existsSync(path.join(root, "test-results", "image-build.json")) ? JSON.parse(fs.readFileSync(path.join(root, "test-results", "image-build.json"), "utf8")) : null;
  if (built?.image === APP_IMAGE) {
    Object.assign(figures, { imageSize: built.size, appBuildSeconds: built.appBuildSeconds, baseBuiltSeconds: built.baseBuiltSeconds });
    // From the end of `npm run image` to the first /readyz 200 (working copy, CLI checks, start), when run right after it.
    const sinceBuild = firstReadyAt === null ? null : (firstReadyAt - Date.parse(built.finishedAt)) / 1000;
    if (sinceBuild !== null && sinceBuild < 3600) figures.buildEndToFirstReadySeconds = Number(sinceBuild.toFixed(1));
  }
}

const started = Date.now();
let crashed = null;
try {
  await main();
} catch (error) {
  crashed = error;
  record("image check ran", false, error instanceof Error ? error.message : String(error));
}
const count = (status) => checks.filter((c) => c.status === status).length;
const result = { image: APP_IMAGE, passed: count("passed"), failed: count("failed"), skipped: count("skipped"), seconds: Number(((Date.now() - started) / 1000).toFixed(1)), figures, checks };
fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
fs.writeFileSync(resultsFile, `${JSON.stringify(result, null, 2)}\n`);
console.log(`\n[image:check] ${JSON.stringify(figures)}`);
console.log(`[image:check] ${result.passed} passed, ${result.failed} failed${result.skipped ? `, ${result.skipped} skipped` : ""} in ${result.seconds} s`);
process.exit(result.failed === 0 && !crashed ? 0 : 1);
