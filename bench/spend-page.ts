/**
 * Benchmark: the three spend pages' server response under load, 20
 * concurrent users against the production server (`next start` of the build
 * in this checkout), with /healthz as the reference measured in the same run.
 * Run on demand (not part of `npm test`), after `npm run build`:
 *
 *   npm run bench:spend-page                        # embedded default (PGlite) with its demo data
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/NAME npm run bench:spend-page
 *                                                   # PostgreSQL: that database, demo data seeded if absent
 *
 * Before the server starts it prepares the database as the portal does on a
 * first start (migrations, the demo data and its 90 days of usage) and
 * records a session for two demo personas, minting the cookie next-auth sets
 * on their demo sign-in: Alex Chen (tenant admin) for the project and tenant
 * pages, Priya Raman (platform admin) for the platform page. Each path gets
 * one warm-up request (a returning user's caches), then autocannon keeps
 * --connections requests in flight for --seconds; it prints p50/p95/p99 of
 * every response, requests/s, failures, and p95 as a multiple of /healthz's.
 * --seconds 10 and --connections 20 by default; --only project,tenant,platform;
 * --cpu-prof DIR writes the server's V8 CPU profile there (node --cpu-prof) to see where its time goes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { eq } from "drizzle-orm";
import { decode, encode } from "next-auth/jwt";
import { openDatabase, type Database } from "@/db/client";
import { prepareDatabase } from "@/db/prepare";
import { users } from "@/db/schema";
import { loadActorForSession } from "@/lib/auth/load-actor";
import { startSession } from "@/lib/auth/sign-in";
import { parseConfig } from "@/lib/config";
import { spendWindowOf } from "@/lib/metering/inputs";
import { platformSpendReport, projectSpendReport, tenantSpendReport, type SpendReport } from "@/lib/metering/report";
import type { CommandContext } from "@/lib/auth/context";
import type { ResolvedWindow } from "@/lib/metering/window";
import { assertLocalDatabase } from "@/test/database";

const { values: args } = parseArgs({
  options: {
    connections: { type: "string", default: "20" },
    seconds: { type: "string", default: "10" },
    port: { type: "string", default: "3497" },
    only: { type: "string", default: "project,tenant,platform" },
    "cpu-prof": { type: "string" },
  },
});
const CONNECTIONS = Number(args.connections);
const SECONDS = Number(args.seconds);
const PORT = Number(args.port);
const COOKIE = "authjs.session-token";
const SECRET = "allot-bench-spend-page-secret-0123456789-abcdefghij";
const log = (line: string) => console.log(`[bench:spend-page] ${line}`);

type Report = (ctx: CommandContext, window: ResolvedWindow) => Promise<SpendReport>;
const ALL_PAGES: { name: string; persona: string; path: string; report: Report }[] = [
  { name: "project", persona: "alex@vision.allot.demo", path: "/tenants/vision-lab/projects/detector-training/spend", report: (c, w) => projectSpendReport(c, "vision-lab", "detector-training", w) },
  { name: "tenant", persona: "alex@vision.allot.demo", path: "/tenants/vision-lab/spend", report: (c, w) => tenantSpendReport(c, "vision-lab", w) },
  { name: "platform", persona: "priya@platform.allot.demo", path: "/admin/spend", report: (c, w) => platformSpendReport(c, w) },
];
const PAGES = ALL_PAGES.filter((p) => args.only.split(",").includes(p.name));

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/** The server's environment: the embedded default in a fresh data directory, or the given PostgreSQL database. */
function serverEnvironment(): { env: Record<string, string>; where: string; cleanup: () => void } {
  const url = process.env.DATABASE_URL;
  if (url) {
    assertLocalDatabase(url);
    return { env: { DATABASE_URL: url }, where: `PostgreSQL (${new URL(url).pathname.slice(1)})`, cleanup: () => {} };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allot-bench-spend-"));
  const dataDir = path.join(dir, "data");
  return { env: { DATABASE_URL: "", ALLOT_DATA_DIR: dataDir }, where: "embedded PGlite (fresh data directory)", cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Where a page's time goes, measured in this process on the same database
 * before the server holds it: the session cookie's decode (next-auth's JWE,
 * an HKDF derivation), the actor's load, and the page's report (its first
 * call, then the mean of repeated calls), each the mean of ITERATIONS calls
 * one after another. The server's time per page beyond these is Next's and
 * React's (routing, rendering, the HTML).
 */
async function breakdown(db: Database, cookies: Map<string, string>, now: Date) {
  const ITERATIONS = 10;
  const mean = async (f: () => Promise<unknown>) => {
    const started = performance.now();
    for (let i = 0; i < ITERATIONS; i++) await f();
    return (performance.now() - started) / ITERATIONS;
  };
  const resolved = spendWindowOf(new URLSearchParams(), now);
  if ("errors" in resolved) throw new Error("the default spend window does not resolve");
  for (const page of PAGES) {
    const token = cookies.get(page.persona)!.slice(COOKIE.length + 1);
    const sid = String((await decode({ token, secret: SECRET, salt: COOKIE }))!.sid);
    const actor = (await loadActorForSession(db, sid, now, []))!;
    const ctx = { actor, db, now };
    const decodeMs = await mean(() => decode({ token, secret: SECRET, salt: COOKIE }));
    const actorMs = await mean(() => loadActorForSession(db, sid, now, []));
    const started = performance.now();
    await page.report(ctx, resolved.window);
    const firstMs = performance.now() - started;
    const reportMs = await mean(() => page.report(ctx, resolved.window));
    log(`in process: ${page.name.padEnd(8)} session decode ${decodeMs.toFixed(1)} ms, actor load ${actorMs.toFixed(1)} ms, report ${reportMs.toFixed(1)} ms (first call ${firstMs.toFixed(1)} ms)`);
  }
}

/** Migrate and seed as a first start would, mint one session cookie per persona, and measure the breakdown. */
async function prepare(env: Record<string, string>): Promise<Map<string, string>> {
  const c = parseConfig({ ...process.env, ...env, ALLOT_DEMO: "1", AUTH_SECRET: SECRET });
  const handle = openDatabase(c.database);
  try {
    const now = new Date();
    await prepareDatabase(handle, { ...c, migrateOnStart: true }, now);
    const cookies = new Map<string, string>();
    for (const email of new Set(PAGES.map((p) => p.persona))) {
      const [user] = await handle.db.select({ id: users.principalId }).from(users).where(eq(users.email, email));
      if (!user) throw new Error(`demo persona ${email} is missing after seeding`);
      const sid = await startSession(handle.db, user.id, "demo", now, 2);
      cookies.set(email, `${COOKIE}=${await encode({ token: { sid }, secret: SECRET, salt: COOKIE })}`);
    }
    await breakdown(handle.db, cookies, now);
    return cookies;
  } finally {
    await handle.close();
  }
}

async function main() {
  if (!fs.existsSync(path.join(".next", "BUILD_ID"))) throw new Error("No production build: run `npm run build` first.");
  const { env, where, cleanup } = serverEnvironment();
  const server: { process?: ChildProcess } = {};
  try {
    const cookies = await prepare(env);
    server.process = startServer(env);
    await waitForReady(server.process);
    log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), load ${os.loadavg()[0]!.toFixed(1)}, Node ${process.version}; ${where}; ${CONNECTIONS} connections for ${SECONDS} s per path`);
    const reference = await run("/healthz", undefined);
    const results: { name: string; p95: number }[] = [];
    for (const page of PAGES) {
      const r = await run(page.path, cookies.get(page.persona));
      results.push({ name: page.name, p95: r.p95 });
    }
    const again = await run("/healthz", undefined);
    log(`summary: /healthz p95 ${reference.p95.toFixed(0)} ms before the pages, ${again.p95.toFixed(0)} ms after`);
    for (const r of results) log(`summary: ${r.name.padEnd(8)} spend page p95 ${r.p95.toFixed(0).padStart(5)} ms = ${(r.p95 / Math.max(1, reference.p95)).toFixed(1)}x /healthz; target < 300 ms: ${r.p95 < 300 ? "met" : "not met"}`);
  } finally {
    server.process?.kill("SIGTERM");
    if (server.process && server.process.exitCode === null) await new Promise((r) => server.process!.once("exit", r));
    cleanup();
  }
}

function startServer(env: Record<string, string>): ChildProcess {
  const next = path.join("node_modules", "next", "dist", "bin", "next");
  const profile = args["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(args["cpu-prof"])}`] : [];
  return spawn(process.execPath, [...profile, next, "start", "-p", String(PORT)], {
    env: { ...process.env, ...env, NODE_ENV: "production", AUTH_SECRET: SECRET, ALLOT_DEMO: "1", ALLOT_CLUSTER_WORKER: "false", LOG_LEVEL: "warn", NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function waitForReady(server: ChildProcess) {
  for (let i = 0; i < 240; i++) {
    if (server.exitCode !== null) throw new Error(`next start exited with ${server.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("the server did not become ready in 120 s");
}

async function run(pathname: string, cookie: string | undefined): Promise<{ p95: number }> {
  const headers: Record<string, string> = cookie ? { cookie } : {};
  // One warm-up request fills caches, as a returning user would have them; it must be the page itself, not a redirect.
  const warm = await fetch(`http://127.0.0.1:${PORT}${pathname}`, { headers, redirect: "manual" });
  const body = await warm.text();
  if (warm.status !== 200) throw new Error(`${pathname} answered ${warm.status}; is the session cookie accepted?`);
  const latencies: number[] = [];
  const result = await autocannon({
    url: `http://127.0.0.1:${PORT}${pathname}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers,
    setupClient: (client) => client.on("response", (_status: number, _bytes: number, responseTime: number) => latencies.push(responseTime)),
  });
  latencies.sort((a, b) => a - b);
  const failures = result.non2xx + result.errors + result.timeouts;
  const p95 = percentile(latencies, 95);
  log(
    `${pathname.padEnd(54)} ${String(result.requests.total).padStart(5)} requests, ${result.requests.average.toFixed(1).padStart(6)} req/s, p50 ${percentile(latencies, 50).toFixed(0)} / p95 ${p95.toFixed(0)} / p99 ${percentile(latencies, 99).toFixed(0)} ms, HTML ${(Buffer.byteLength(body) / 1024).toFixed(0)} KB, failures ${failures}`,
  );
  return { p95 };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
