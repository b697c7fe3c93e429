/**
 * Benchmark: a spend API answer against the raw SQL of the same request.
 * Run on demand (not part of `npm test`), on PostgreSQL only:
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/NAME npm run bench:spend-api
 *   … npm run bench:spend-api -- --iterations 200 --warmup 20
 *   … npm run bench:spend-api -- --same-window   # one window for every call (lets a report cache show)
 *
 * WIPES the database DATABASE_URL names (as the integration tests do; only a
 * local server is accepted), migrates it and seeds the demo data with its 90
 * days of demo usage. Then, for the project, tenant and platform spend
 * endpoints, each iteration:
 *   1. calls the route's real handler in-process (as Next would: bearer token,
 *      path, query), recording every SQL statement it sends;
 *   2. replays that request's report statements (everything but the
 *      authentication's) on a plain postgres.js client with the same text and
 *      parameters, prepared, wave by wave as the request sent them (the
 *      statements the request had in flight together go together).
 * It prints p50/p95 of both, their ratio, and how many statements (and
 * sequential waves) authentication and the report cost per request.
 *
 * By default each iteration asks for a different 30-day window (ending 0 to
 * 19 days ago), so a cache keyed by window is missed and the figures are
 * those of computing the report; --same-window asks for one window every time.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { eq } from "drizzle-orm";
import postgres from "postgres";
import { installDatabase } from "@/db/client";
import { memberships, tenants } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import { addressRetryAfter } from "@/lib/api/rate-limit";
import { authenticateToken } from "@/lib/auth/token-auth";
import { seedDemoUsage } from "@/lib/demo/usage";
import { callApi, operatorAccount } from "@/test/api";
import { assertLocalDatabase, freshTestDatabase } from "@/test/database";
import { recordStatements, type RecordedStatement } from "@/test/sql-statements";

const { values: args } = parseArgs({
  options: {
    iterations: { type: "string", default: "150" },
    warmup: { type: "string", default: "20" },
    "same-window": { type: "boolean", default: false },
  },
});
const ITERATIONS = Number(args.iterations);
const WARMUP = Number(args.warmup);
const SAME_WINDOW = args["same-window"];
const DAY_MS = 86_400_000;
const log = (line: string) => console.log(`[bench:spend-api] ${line}`);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
const fmt = (n: number) => n.toFixed(1);

type Scope = "project" | "tenant" | "platform";
const PATHS: Record<Scope, string> = {
  project: "/api/v1/tenants/vision-lab/projects/detector-training/spend",
  tenant: "/api/v1/tenants/vision-lab/spend",
  platform: "/api/v1/spend",
};

function windowQuery(i: number, today: number): string {
  if (SAME_WINDOW) return "range=30d";
  const to = today - (i % 20) * DAY_MS;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return `range=custom&from=${day(to - 29 * DAY_MS)}&to=${day(to)}`;
}

/** Replay statements on the raw client, each wave's together, the next after them. */
async function replay(raw: postgres.Sql, statements: RecordedStatement[]): Promise<void> {
  const waves = new Map<number, RecordedStatement[]>();
  for (const s of statements) waves.set(s.wave, [...(waves.get(s.wave) ?? []), s]);
  for (const wave of [...waves.keys()].sort((a, b) => a - b)) {
    await Promise.all(waves.get(wave)!.map((s) => raw.unsafe(s.text, s.params as postgres.ParameterOrJSON<never>[], { prepare: true })));
  }
}

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("Set DATABASE_URL to a local PostgreSQL database this benchmark may wipe.");
  assertLocalDatabase(url);
  const started = performance.now();
  const handle = await freshTestDatabase();
  installDatabase(handle);
  const db = handle.db;
  const now = new Date();
  await seedDemoData(db, now);
  await seedDemoUsage(db, now);
  const [visionLab] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, "vision-lab"));
  const token = {} as Record<Scope, string>;
  token.platform = (await operatorAccount(db, now, null, "bench-platform-bot")).token;
  const admin = await operatorAccount(db, now, "vision-lab", "bench-admin-bot");
  await db.insert(memberships).values({ tenantId: visionLab!.id, principalId: admin.principalId, role: "tenant_admin", createdAt: now });
  token.tenant = admin.token;
  token.project = (await operatorAccount(db, now, "vision-lab", "bench-member-bot", [{ project: "detector-training", role: "member" }])).token;
  log(`seeded the demo data in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // The authentication's own statements (texts), to tell them from the report's.
  const authTexts = new Set<string>();
  for (const t of Object.values(token)) {
    const { statements } = await recordStatements(async () => {
      await addressRetryAfter(db, "bench", new Date());
      await authenticateToken(db, t, new Date(), []);
    });
    for (const s of statements) authTexts.add(s.text);
  }

  const raw = postgres(url, { max: 10, onnotice: () => {} });
  log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  log(`${ITERATIONS} iterations per endpoint after ${WARMUP} warm-up, one request at a time, ${SAME_WINDOW ? "one window (range=30d)" : "a different 30-day window each time"}`);
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  try {
    for (const scope of ["project", "tenant", "platform"] as Scope[]) {
      const apiMs: number[] = [];
      const rawMs: number[] = [];
      let auth = { statements: 0, waves: 0 };
      let report = { statements: 0, waves: 0 };
      for (let i = 0; i < WARMUP + ITERATIONS; i++) {
        const path = `${PATHS[scope]}?${windowQuery(i, today)}`;
        const a = performance.now();
        const { result, statements } = await recordStatements(() => callApi("GET", path, { token: token[scope], address: "bench" }));
        const apiElapsed = performance.now() - a;
        if (result.status !== 200) throw new Error(`${path} answered ${result.status}: ${result.text.slice(0, 300)}`);
        const reportStatements = statements.filter((s) => !authTexts.has(s.text));
        const authStatements = statements.filter((s) => authTexts.has(s.text));
        const b = performance.now();
        await replay(raw, reportStatements);
        const rawElapsed = performance.now() - b;
        if (i < WARMUP) continue;
        apiMs.push(apiElapsed);
        rawMs.push(rawElapsed);
        auth = { statements: Math.max(auth.statements, authStatements.length), waves: Math.max(auth.waves, new Set(authStatements.map((s) => s.wave)).size) };
        report = { statements: Math.max(report.statements, reportStatements.length), waves: Math.max(report.waves, new Set(reportStatements.map((s) => s.wave)).size) };
      }
      apiMs.sort((x, y) => x - y);
      rawMs.sort((x, y) => x - y);
      const ratio = percentile(apiMs, 95) / percentile(rawMs, 95);
      log(
        `${scope.padEnd(8)} API p50 ${fmt(percentile(apiMs, 50))} / p95 ${fmt(percentile(apiMs, 95))} ms; raw SQL p50 ${fmt(percentile(rawMs, 50))} / p95 ${fmt(percentile(rawMs, 95))} ms; ` +
          `p95 ratio ${ratio.toFixed(2)}x (target <= 1.5x); per request: authentication ${auth.statements} statements in ${auth.waves} waves, report ${report.statements} in ${report.waves}`,
      );
    }
  } finally {
    await raw.end({ timeout: 5 });
    (globalThis as { allotDb?: unknown }).allotDb = undefined;
    await handle.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
