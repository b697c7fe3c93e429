/**
 * Benchmark: the spend page's server response under load, 20 concurrent
 * users against `next start`, on the year of usage that `bench:metering`
 * generates. Run on demand (not part of `npm test`):
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:metering -- --keep
 *   npm run build
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:spend-page
 *
 * It starts the production server on the kept database (allot_bench_metering)
 * with the in-process worker off, signs a platform admin in by recording a
 * session and minting the cookie next-auth would set, then drives autocannon
 * at each path for --seconds with --connections at once and prints the
 * latency of every response (p50/p95/p99), requests/s and failures.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { desc, eq, sql } from "drizzle-orm";
import { encode } from "next-auth/jwt";
import { openDatabase } from "@/db/client";
import { platformAdmins, principals, projects, tenants, usageDaily, users } from "@/db/schema";
import { startSession } from "@/lib/auth/sign-in";
import { assertLocalDatabase } from "@/test/database";

const { values: args } = parseArgs({
  options: {
    connections: { type: "string", default: "20" },
    seconds: { type: "string", default: "20" },
    port: { type: "string", default: "3497" },
  },
});
const CONNECTIONS = Number(args.connections);
const SECONDS = Number(args.seconds);
const PORT = Number(args.port);
const BENCH_DATABASE = "allot_bench_metering";
const COOKIE = "authjs.session-token";
const log = (line: string) => console.log(`[bench:spend-page] ${line}`);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

async function main() {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error("Set DATABASE_URL to a local PostgreSQL server; run `npm run bench:metering -- --keep` first.");
  assertLocalDatabase(serverUrl);
  if (!fs.existsSync(path.join(".next", "BUILD_ID"))) throw new Error("No production build: run `npm run build` first.");
  const url = new URL(serverUrl);
  url.pathname = `/${BENCH_DATABASE}`;
  const databaseUrl = url.toString();

  const handle = openDatabase({ kind: "postgres", url: databaseUrl });
  const db = handle.db;
  const now = new Date();
  // A platform admin for the benchmark, signed in the way the portal records sessions.
  const email = "bench-admin@allot.bench";
  let [admin] = await db.select({ id: users.principalId }).from(users).where(eq(users.email, email));
  if (!admin) {
    const [p] = await db.insert(principals).values({ kind: "user", displayName: "Bench admin", createdAt: now }).returning({ id: principals.id });
    await db.insert(users).values({ principalId: p!.id, email });
    await db.insert(platformAdmins).values({ principalId: p!.id, source: "seed", grantedAt: now });
    admin = p!;
  }
  const sid = await startSession(db, admin.id, "bench", now, 2);
  const secret = randomBytes(32).toString("base64url");
  const cookie = `${COOKIE}=${await encode({ token: { sid }, secret, salt: COOKIE })}`;

  // The most expensive project of the year, so its page has the most to show.
  const [busiest] = await db
    .select({ tenant: tenants.slug, project: projects.slug })
    .from(usageDaily)
    .innerJoin(projects, eq(projects.id, usageDaily.projectId))
    .innerJoin(tenants, eq(tenants.id, usageDaily.tenantId))
    .groupBy(tenants.slug, projects.slug)
    .orderBy(desc(sql`sum(${usageDaily.cost})`))
    .limit(1);
  await handle.close();
  if (!busiest) throw new Error(`${BENCH_DATABASE} holds no usage: run \`npm run bench:metering -- --keep\` first.`);

  const server = startServer(databaseUrl, secret);
  try {
    await waitForReady(server);
    const base = `/tenants/${busiest.tenant}/projects/${busiest.project}/spend`;
    const paths = [
      `${base}`,
      `${base}/data?range=month`,
      `${base}/data?range=custom&from=2025-01-01&to=2025-12-31`,
      `/tenants/${busiest.tenant}/spend`,
      `/admin/spend`,
    ];
    log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), Node ${process.version}; ${CONNECTIONS} connections for ${SECONDS} s per path`);
    for (const p of paths) await run(p, cookie);
  } finally {
    server.kill("SIGTERM");
  }
}

function startServer(databaseUrl: string, secret: string): ChildProcess {
  const next = path.join("node_modules", "next", "dist", "bin", "next");
  return spawn(process.execPath, [next, "start", "-p", String(PORT)], {
    env: { ...process.env, DATABASE_URL: databaseUrl, AUTH_SECRET: secret, ALLOT_CLUSTER_WORKER: "false", ALLOT_DEMO: "false", NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function waitForReady(server: ChildProcess) {
  for (let i = 0; i < 120; i++) {
    if (server.exitCode !== null) throw new Error(`next start exited with ${server.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${PORT}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("the server did not become ready in 60 s");
}

async function run(pathname: string, cookie: string) {
  // One warm-up request compiles nothing (production build) but fills caches, as a returning user would.
  const warm = await fetch(`http://127.0.0.1:${PORT}${pathname}`, { headers: { cookie }, redirect: "manual" });
  if (warm.status !== 200) throw new Error(`${pathname} answered ${warm.status}; is the session cookie accepted?`);
  const latencies: number[] = [];
  const result = await autocannon({
    url: `http://127.0.0.1:${PORT}${pathname}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { cookie },
    setupClient: (client) => client.on("response", (_status: number, _bytes: number, responseTime: number) => latencies.push(responseTime)),
  });
  latencies.sort((a, b) => a - b);
  const failures = result.non2xx + result.errors + result.timeouts;
  log(
    `${pathname.padEnd(64)} ${result.requests.total} requests, ${result.requests.average.toFixed(1)} req/s, latency p50 ${percentile(latencies, 50).toFixed(0)} / p95 ${percentile(latencies, 95).toFixed(0)} / p99 ${percentile(latencies, 99).toFixed(0)} ms, failures ${failures}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
