/**
 * Benchmark: metering at the scale of a large platform. A year of hourly usage
 * for 500 projects × 5 resources (21.9 million hourly rows) with its daily
 * rollup, then ingestion through the push path (ingestUsage) and the spend
 * queries the pages run. Run on demand (not part of `npm test`), on
 * PostgreSQL only:
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:metering
 *   … npm run bench:metering -- --keep      # keep allot_bench_metering afterwards
 *   … npm run bench:metering -- --reuse     # use the kept database if it is complete (and keep it)
 *   … npm run bench:metering -- --projects 100 --days 30   # a smaller run
 *   … npm run bench:metering -- --ingest 200000 --resend 200000 --batch 5000 --iterations 200
 *   … npm run bench:metering -- --database allot_bench_mine   # another database to drop and create
 *
 * DATABASE_URL names the server (and the database to connect to for
 * administration); the benchmark drops and creates its own database,
 * allot_bench_metering, so only a local server is accepted.
 *
 * The year is bulk-loaded with set-based INSERT … SELECT generate_series and
 * the rollup built with recomputeDailyRollup: that bypasses the push path on
 * purpose (22 million samples through ingestUsage would take too long). The
 * push path is measured separately afterwards, on fresh hours after the year,
 * and those samples are deleted again so a kept database stays as generated.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { openDatabase, type Database } from "@/db/client";
import { runMigrations } from "@/db/migrate";
import { instanceSettings, nodePools, projects, rates, tenants } from "@/db/schema";
import { recordPoolSize } from "@/lib/quota/pool-sizes";
import { ingestUsage, type UsageSample } from "@/lib/metering/ingest";
import { borrowedByResource } from "@/lib/metering/borrowed";
import { ensureUsagePartitions } from "@/lib/metering/partitions";
import { recomputeDailyRollup } from "@/lib/metering/rollup";
import { spendByProject, spendByResource, spendByTenant, spendSeries } from "@/lib/metering/spend";
import { namespaceFor } from "@/lib/tenancy/slugs";
import { assertLocalDatabase } from "@/test/database";

const { values: args } = parseArgs({
  options: {
    projects: { type: "string", default: "500" },
    tenants: { type: "string", default: "50" },
    days: { type: "string", default: "365" },
    ingest: { type: "string", default: "200000" },
    resend: { type: "string", default: "50000" },
    batch: { type: "string", default: "5000" },
    iterations: { type: "string", default: "200" },
    concurrency: { type: "string", default: "2" },
    database: { type: "string", default: "allot_bench_metering" },
    keep: { type: "boolean", default: false },
    reuse: { type: "boolean", default: false },
  },
});
const PROJECTS = Number(args.projects);
const TENANTS = Number(args.tenants);
const DAYS = Number(args.days);
const INGEST_SAMPLES = Number(args.ingest);
/** How many of those samples are sent a second time (the idempotent path), from the first batch on. */
const RESEND_SAMPLES = Number(args.resend);
const BATCH = Number(args.batch);
const ITERATIONS = Number(args.iterations);
/** Bulk-load statements and rollup recomputations run this many at a time. */
const CONCURRENCY = Number(args.concurrency);
/** A reused database is kept again; otherwise only with --keep. */
const KEEP = args.keep || args.reuse;

/** The database the benchmark drops and creates (--database, so parallel checkouts each use their own). */
const BENCH_DATABASE = args.database;
if (!/^[a-z_][a-z0-9_]*$/.test(BENCH_DATABASE)) throw new Error(`--database must be a plain lower-case identifier, not ${JSON.stringify(BENCH_DATABASE)}`);
const MARKER_KEY = "bench_metering";
const RESOURCES_PER_PROJECT = 5;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** The generated year, and the mid-year price change inside it. */
const YEAR_FROM = new Date("2025-01-01T00:00:00.000Z");
const YEAR_TO = new Date(YEAR_FROM.getTime() + DAYS * DAY_MS);
const PRICE_CHANGE = new Date(YEAR_FROM.getTime() + Math.floor(DAYS / 2) * DAY_MS);
const BULK_SOURCE = "bench";
const PUSH_SOURCE = "push:bench";
const COPY_SOURCE = "copy:bench";
const COPY_ONE_SOURCE = "copy:bench-one";

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const fmt = (n: number, digits = 1) => n.toFixed(digits);
const int = (n: number) => Math.round(n).toLocaleString("en-US");
const seconds = (startedMs: number) => (performance.now() - startedMs) / 1000;
const log = (line: string) => console.log(`[bench:metering] ${line}`);

/** A small seeded PRNG (mulberry32), so the random projects and months are the same every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Runs `tasks` with at most `limit` at once; resolves when all are done. */
async function pool<T>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await task(items[i]!, i);
      }
    }),
  );
}

type BenchProject = { id: string; tenantId: string; n: number };
type Generated = { projects: number; tenants: number; days: number; from: string; rows: number };

/** The GPU resource of bench project n: 30 % H100, 40 % MIG slices, 30 % L4. */
const gpuResourceOf = (n: number) => (n % 10 < 3 ? "gpu:H100" : n % 10 < 7 ? "gpu:A100 1g.10gb" : "gpu:L4");

// ---------------------------------------------------------------------------
// Databases

function urls(url: string): { admin: string; bench: string } {
  try {
    assertLocalDatabase(url);
  } catch {
    throw new Error(`Refusing to run the metering benchmark against ${new URL(url).hostname}: it drops and creates the database ${BENCH_DATABASE}. Point DATABASE_URL at a local server.`);
  }
  const admin = new URL(url);
  if (admin.pathname === `/${BENCH_DATABASE}`) admin.pathname = "/postgres";
  const bench = new URL(url);
  bench.pathname = `/${BENCH_DATABASE}`;
  return { admin: admin.toString(), bench: bench.toString() };
}

async function isSuperuser(client: postgres.Sql): Promise<boolean> {
  const [row] = await client<{ superuser: boolean }[]>`select rolsuper as superuser from pg_roles where rolname = current_user`;
  return row?.superuser === true;
}

async function readMarker(benchUrl: string): Promise<Generated | null> {
  const client = postgres(benchUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await client<{ value: Generated }[]>`select value from instance_settings where key = ${MARKER_KEY}`;
    return rows[0]?.value ?? null;
  } catch {
    return null; // not migrated, or not ours
  } finally {
    await client.end({ timeout: 5 });
  }
}

// ---------------------------------------------------------------------------
// Generation: tenants, projects, pools and rate card through drizzle; the year
// of usage set-based; the rollup by recomputeDailyRollup.

async function createCatalogue(db: Database): Promise<BenchProject[]> {
  const tenantRows = await db
    .insert(tenants)
    .values(Array.from({ length: TENANTS }, (_, t) => ({ slug: `bench-t${String(t).padStart(3, "0")}`, name: `Bench tenant ${t}`, costCentre: `CC-${9000 + t}` })))
    .returning({ id: tenants.id, slug: tenants.slug });
  const specs = Array.from({ length: PROJECTS }, (_, n) => {
    const tenant = tenantRows[n % TENANTS]!;
    const slug = `p-${String(n).padStart(4, "0")}`;
    return { tenantId: tenant.id, slug, name: `Bench project ${n}`, namespace: namespaceFor(tenant.slug, slug) };
  });
  const projectRows = await db.insert(projects).values(specs).returning({ id: projects.id, tenantId: projects.tenantId, slug: projects.slug });

  // Pools roughly the size of what the projects use, so idle is neither zero nor everything.
  const GiB = 2 ** 30;
  const scale = Math.max(1, Math.round(PROJECTS / 50));
  const poolRows = await db.insert(nodePools).values([
    { name: "h100-pool", gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 4 * scale, cpuPerNode: 208, memoryBytesPerNode: 1843 * GiB },
    { name: "a100-mig", gpuModel: "A100 1g.10gb", gpuResource: "nvidia.com/mig-1g.10gb", gpusPerNode: 56, nodeCount: Math.ceil(scale / 2), cpuPerNode: 96, memoryBytesPerNode: 1152 * GiB },
    { name: "l4-inference", gpuModel: "L4", gpuResource: "nvidia.com/gpu", gpusPerNode: 4, nodeCount: 6 * scale, cpuPerNode: 48, memoryBytesPerNode: 192 * GiB },
    { name: "cpu-general", gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 4 * scale, cpuPerNode: 64, memoryBytesPerNode: 256 * GiB },
  ]).returning();
  // Each pool as it stood over the whole benchmark year (its size history: what idle cost is priced on).
  for (const pool of poolRows) await recordPoolSize(db, pool, YEAR_FROM);
  // The rate card from the start of the year, with H100 and CPU repriced mid-year.
  await db.insert(rates).values([
    ...(
      [
        ["gpu:H100", "4.60"],
        ["gpu:A100 1g.10gb", "0.55"],
        ["gpu:L4", "0.80"],
        ["cpu", "0.034"],
        ["memory", "0.004"],
        ["storage", "0.08"],
        ["inference", "0.02"],
      ] as const
    ).map(([resource, unitPrice]) => ({ resource, unitPrice, effectiveFrom: YEAR_FROM })),
    { resource: "gpu:H100", unitPrice: "4.10", effectiveFrom: PRICE_CHANGE },
    { resource: "cpu", unitPrice: "0.031", effectiveFrom: PRICE_CHANGE },
  ]);
  const nOf = new Map(specs.map((s, n) => [s.slug, n]));
  return projectRows.map((p) => ({ id: p.id, tenantId: p.tenantId, n: nOf.get(p.slug)! }));
}

/**
 * One statement per tenant: every hour of the year × its projects × 5
 * resources (GPU of the project's model, cpu, memory, storage, inference),
 * in primary-key order. The figures are smooth functions of the hour and the
 * project number: a daily wave, GPU jobs on and off over days, storage growth.
 */
async function bulkLoad(client: postgres.Sql, batch: readonly BenchProject[], skipForeignKeyChecks: boolean): Promise<number> {
  return client.begin(async (tx) => {
    // The rows are made from the projects table itself, so checking their foreign keys row by row
    // (which halves the load rate) proves nothing; a superuser may skip those triggers for this transaction.
    if (skipForeignKeyChecks) await tx`set local session_replication_role = replica`;
    return (await bulkInsert(tx, batch)).count;
  });
}

function bulkInsert(client: postgres.TransactionSql, batch: readonly BenchProject[]) {
  return client`
    with p as (
      select * from unnest(${batch.map((p) => p.id)}::uuid[], ${batch.map((p) => p.tenantId)}::uuid[], ${batch.map((p) => p.n)}::int[]) as p(id, tenant_id, n)
    ),
    h as (
      select hour, (extract(epoch from hour - ${YEAR_FROM.toISOString()}::timestamptz) / 3600)::float8 as x
      from generate_series(${YEAR_FROM.toISOString()}::timestamptz, ${new Date(YEAR_TO.getTime() - HOUR_MS).toISOString()}::timestamptz, interval '1 hour') as hour
    )
    insert into usage_hourly (project_id, tenant_id, resource, hour, source, quantity, requested, used, gpu_utilization, ingested_at)
      select p.id, p.tenant_id, v.resource, h.hour, ${BULK_SOURCE}, v.quantity, v.requested, v.used, v.util, now()
      from p
      cross join h
      cross join lateral (
        select 0.5 + 0.5 * sin(h.x * pi() / 12 + p.n) as wave,
          ((1 + p.n % 8) * (case when sin(h.x * pi() / 84 + p.n) > -0.3 then 1 else 0 end))::float8 as gpus,
          (4 + p.n % 32)::float8 as cpu_req,
          (16 + 4 * (p.n % 32))::float8 as mem_req
      ) w
      cross join lateral (values
        (case when p.n % 10 < 3 then 'gpu:H100' when p.n % 10 < 7 then 'gpu:A100 1g.10gb' else 'gpu:L4' end,
          w.gpus, null::float8, null::float8, case when w.gpus > 0 then 0.3 + 0.6 * abs(sin(h.x * 0.13 + p.n * 7)) end),
        ('cpu', greatest(w.cpu_req, round((w.cpu_req * (0.3 + 0.9 * w.wave))::numeric, 3)::float8), w.cpu_req, round((w.cpu_req * (0.3 + 0.9 * w.wave))::numeric, 3)::float8, null),
        ('memory', greatest(w.mem_req, round((w.mem_req * (0.5 + 0.7 * w.wave))::numeric, 3)::float8), w.mem_req, round((w.mem_req * (0.5 + 0.7 * w.wave))::numeric, 3)::float8, null),
        ('storage', round((200 + p.n * 10 + h.x * 0.02)::numeric, 1)::float8, null, null, null),
        ('inference', round(2000 * w.wave * (1 + p.n % 5))::float8, null, null, null)
      ) as v(resource, quantity, requested, used, util)
    order by p.id, v.resource, h.hour`;
}

async function generate(db: Database, bulk: postgres.Sql): Promise<Generated> {
  let started = performance.now();
  const benchProjects = await createCatalogue(db);
  log(`catalogue: ${TENANTS} tenants, ${PROJECTS} projects, 4 node pools, rate card with H100 and CPU repriced on ${PRICE_CHANGE.toISOString().slice(0, 10)} (${fmt(seconds(started), 2)} s)`);

  const expected = PROJECTS * RESOURCES_PER_PROJECT * DAYS * 24;
  const superuser = await isSuperuser(bulk);
  log(
    `bulk load: ${int(expected)} hourly rows, set-based INSERT … SELECT generate_series, one statement per tenant, ${CONCURRENCY} at a time` +
      `${superuser ? ", foreign-key triggers skipped (session_replication_role = replica)" : ""} — this BYPASSES the push path (ingestUsage) on purpose`,
  );
  // The year's monthly partitions first: the bulk INSERT routes rows into them (there is no DEFAULT partition).
  await ensureUsagePartitions(db, YEAR_FROM, new Date(YEAR_TO.getTime() - HOUR_MS));
  started = performance.now();
  const byTenant = new Map<string, BenchProject[]>();
  for (const p of benchProjects) byTenant.set(p.tenantId, [...(byTenant.get(p.tenantId) ?? []), p]);
  const chunks = [...byTenant.values()];
  let rows = 0;
  let done = 0;
  await pool(chunks, CONCURRENCY, async (chunk) => {
    const n = await bulkLoad(bulk, chunk, superuser);
    rows += n;
    done += 1;
    if (done % 10 === 0 || done === chunks.length) log(`  ${done}/${chunks.length} tenants, ${int(rows)} rows, ${fmt(seconds(started))} s, ${int(rows / seconds(started))} rows/s`);
  });
  const loadSeconds = seconds(started);
  log(`bulk load: ${int(rows)} rows in ${fmt(loadSeconds)} s = ${int(rows / loadSeconds)} rows/s`);

  started = performance.now();
  done = 0;
  await pool(benchProjects, CONCURRENCY, async (p) => {
    await recomputeDailyRollup(db, { projectId: p.id });
    done += 1;
    if (done % 100 === 0 || done === benchProjects.length) log(`  rollup: ${done}/${benchProjects.length} projects, ${fmt(seconds(started))} s`);
  });
  const rollupSeconds = seconds(started);
  const [daily] = await bulk<{ n: number }[]>`select count(*)::int as n from usage_daily`;
  log(`daily rollup (recomputeDailyRollup per project): ${int(daily!.n)} rows in ${fmt(rollupSeconds)} s`);

  started = performance.now();
  await bulk`vacuum (analyze) usage_hourly`;
  await bulk`vacuum (analyze) usage_daily`;
  log(`vacuum analyze: ${fmt(seconds(started))} s`);

  const generated: Generated = { projects: PROJECTS, tenants: TENANTS, days: DAYS, from: YEAR_FROM.toISOString(), rows };
  await db.insert(instanceSettings).values({ key: MARKER_KEY, value: generated, updatedAt: new Date() });
  log(`generation total: ${fmt(loadSeconds + rollupSeconds + seconds(started))} s (bulk ${fmt(loadSeconds)} s, rollup ${fmt(rollupSeconds)} s)`);
  return generated;
}

// ---------------------------------------------------------------------------
// The push path: ingestUsage with fresh hours after the year, then the same
// batches again (the idempotent path: every sample replaces an equal one),
// then fresh hours from two senders at once, each for half of the projects.

/** Samples for `hours` hours from `firstHour` hours after the year, hour by hour, in batches of BATCH. */
function pushBatches(benchProjects: readonly BenchProject[], firstHour: number, hours: number): UsageSample[][] {
  const samples: UsageSample[] = [];
  for (let i = firstHour; i < firstHour + hours; i++) {
    const hour = new Date(YEAR_TO.getTime() + i * HOUR_MS);
    const x = (hour.getTime() - YEAR_FROM.getTime()) / HOUR_MS;
    for (const p of benchProjects) {
      const wave = 0.5 + 0.5 * Math.sin((x * Math.PI) / 12 + p.n);
      const gpus = (1 + (p.n % 8)) * (Math.sin((x * Math.PI) / 84 + p.n) > -0.3 ? 1 : 0);
      const cpuReq = 4 + (p.n % 32);
      const cpuUsed = Number((cpuReq * (0.3 + 0.9 * wave)).toFixed(3));
      const memReq = 16 + 4 * (p.n % 32);
      const memUsed = Number((memReq * (0.5 + 0.7 * wave)).toFixed(3));
      const base = { projectId: p.id, tenantId: p.tenantId, hour };
      samples.push(
        { ...base, resource: gpuResourceOf(p.n), quantity: gpus, gpuUtilization: gpus > 0 ? Number((0.3 + 0.6 * Math.abs(Math.sin(x * 0.13 + p.n * 7))).toFixed(3)) : null },
        { ...base, resource: "cpu", quantity: Math.max(cpuReq, cpuUsed), requested: cpuReq, used: cpuUsed },
        { ...base, resource: "memory", quantity: Math.max(memReq, memUsed), requested: memReq, used: memUsed },
        { ...base, resource: "storage", quantity: Number((200 + p.n * 10 + x * 0.02).toFixed(1)) },
        { ...base, resource: "inference", quantity: Math.round(2000 * wave * (1 + (p.n % 5))) },
      );
    }
  }
  const batches: UsageSample[][] = [];
  for (let i = 0; i < samples.length; i += BATCH) batches.push(samples.slice(i, i + BATCH));
  return batches;
}

type IngestResult = { label: string; samples: number; seconds: number; batchMs: number[] };

/** Each sender sends its batches one after another; the senders run at once. */
async function ingestRun(db: Database, label: string, senders: readonly (readonly UsageSample[][])[]): Promise<IngestResult> {
  const batchMs: number[] = [];
  let samples = 0;
  const started = performance.now();
  await Promise.all(
    senders.map(async (batches) => {
      for (const batch of batches) {
        const t = performance.now();
        const { stored } = await ingestUsage(db, PUSH_SOURCE, batch, new Date());
        samples += stored;
        batchMs.push(performance.now() - t);
      }
    }),
  );
  return { label, samples, seconds: seconds(started), batchMs: batchMs.sort((a, b) => a - b) };
}


/** Rows in COPY's text format: tab-separated, \\N for null, backslash, tab and line breaks escaped. */
function copyText(rows: readonly (readonly (string | number | null | undefined)[])[]): string {
  const field = (v: string | number | null | undefined) => (v === null || v === undefined ? "\\N" : String(v).replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c]!));
  return rows.map((row) => row.map(field).join("\t") + "\n").join("");
}

/** COPY each sender's batches into usage_hourly, one COPY statement (and commit) per batch; the senders run at once, on connections with the server's default settings. */
async function copyRun(benchUrl: string, label: string, senders: readonly (readonly UsageSample[][])[], source: string): Promise<IngestResult> {
  const client = postgres(benchUrl, { max: senders.length, onnotice: () => {} });
  const batchMs: number[] = [];
  let rows = 0;
  const started = performance.now();
  try {
    await Promise.all(
      senders.map(async (batches) => {
        for (const batch of batches) {
          const t = performance.now();
          const now = new Date().toISOString();
          const text = copyText(batch.map((s) => [s.projectId, s.tenantId, s.resource, s.hour.toISOString(), source, s.quantity, s.requested, s.used, s.gpuUtilization, now]));
          const stream = await client`copy usage_hourly (project_id, tenant_id, resource, hour, source, quantity, requested, used, gpu_utilization, ingested_at) from stdin`.writable();
          await new Promise<void>((resolve, reject) => {
            stream.on("error", reject);
            stream.on("finish", resolve);
            stream.end(text);
          });
          rows += batch.length;
          batchMs.push(performance.now() - t);
        }
      }),
    );
  } finally {
    await client.end({ timeout: 5 });
  }
  return { label, samples: rows, seconds: seconds(started), batchMs: batchMs.sort((a, b) => a - b) };
}

async function measureIngest(db: Database, bulk: postgres.Sql, benchUrl: string, benchProjects: readonly BenchProject[]): Promise<void> {
  const perHour = benchProjects.length * RESOURCES_PER_PROJECT;
  const hours = Math.max(1, Math.ceil(INGEST_SAMPLES / perHour));
  const batches = pushBatches(benchProjects, 0, hours);
  const total = batches.reduce((n, b) => n + b.length, 0);
  // Two senders, each for half of the projects (ingest serialises batches that share a project).
  const half = Math.ceil(benchProjects.length / 2);
  const halves = [benchProjects.slice(0, half), benchProjects.slice(half)];
  const senders = halves.map((projectsOfSender) => pushBatches(projectsOfSender, hours, hours));
  const until = new Date(YEAR_TO.getTime() + 2 * hours * HOUR_MS);
  log(`push path: ingestUsage (source "${PUSH_SOURCE}"), ${int(total)} samples = ${hours} fresh hours after the year × ${benchProjects.length} projects × ${RESOURCES_PER_PROJECT} resources, batches of ${int(BATCH)}`);

  const fresh = await ingestRun(db, "fresh samples, one sender", [batches]);
  const resend = batches.slice(0, Math.max(1, Math.ceil(RESEND_SAMPLES / BATCH)));
  const again = await ingestRun(db, `the first ${resend.length} of those batches again (idempotent), one sender`, [resend]);
  const parallel = await ingestRun(db, "fresh samples, two senders at once (half of the projects each)", senders);

  // The reference in the same run: the two senders' rows again, COPYed straight into usage_hourly
  // (under another source, so no key collides), the same batches from two connections at once,
  // each batch one COPY statement committed on its own; then all of them in one COPY stream.
  const copy = await copyRun(benchUrl, "COPY of the same rows into usage_hourly, same batches, two connections at once", senders, COPY_SOURCE);
  const copyOne = await copyRun(benchUrl, "COPY of the same rows into usage_hourly, one stream", [[senders.flat(2)]], COPY_ONE_SOURCE);

  // The retry counted nothing twice: the rollup of those hours equals the hourly table.
  const [check] = await bulk<{ hourly: string; daily: string }[]>`
    select (select sum(quantity::numeric) from usage_hourly where source = ${PUSH_SOURCE})::text as hourly,
           (select sum(quantity) from usage_daily where day >= ${YEAR_TO.toISOString().slice(0, 10)}::date and day <= ${until.toISOString().slice(0, 10)}::date)::text as daily`;
  const consistent = Number(check!.hourly) === Number(check!.daily);

  for (const r of [fresh, again, parallel, copy, copyOne]) {
    const copying = r === copy || r === copyOne;
    log(
      `  ${r.label}: ${int(r.samples)} ${copying ? "rows" : "samples"} in ${fmt(r.seconds, 2)} s = ${int(r.samples / r.seconds)} ${copying ? "rows/s (reference)" : "samples/s (target ≥ 50,000)"}; ` +
        `per batch p50 ${fmt(percentile(r.batchMs, 50))} ms, p95 ${fmt(percentile(r.batchMs, 95))} ms, max ${fmt(r.batchMs.at(-1) ?? 0)} ms`,
    );
  }
  const rate = (r: IngestResult) => r.samples / r.seconds;
  log(
    `  push with two senders vs COPY into the same table (target ≥ 0.5x): ${fmt(rate(parallel) / rate(copy), 2)}x of COPY in the same batches from two connections, ` +
      `${fmt(rate(parallel) / rate(copyOne), 2)}x of one COPY stream`,
  );
  log(`  after the re-send, the rollup of those hours equals the hourly table (nothing counted twice): ${consistent ? "yes" : `NO (${check!.hourly} vs ${check!.daily})`}`);

  // Leave the database as generated, so --keep / --reuse runs measure the same data.
  await bulk`delete from usage_hourly where source in (${PUSH_SOURCE}, ${COPY_SOURCE}, ${COPY_ONE_SOURCE})`;
  await bulk`delete from usage_daily where day >= ${YEAR_TO.toISOString().slice(0, 10)}::date`;
}

// ---------------------------------------------------------------------------
// Query timings over the generated year (lib/metering/spend.ts).

type Timing = { label: string; target: string; ms: number[] };

async function timeQuery(label: string, target: string, run: (i: number) => Promise<unknown>): Promise<Timing> {
  const WARM_UP = 10;
  for (let i = 0; i < WARM_UP; i++) await run(-1 - i);
  const ms: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t = performance.now();
    await run(i);
    ms.push(performance.now() - t);
  }
  return { label, target, ms: ms.sort((a, b) => a - b) };
}

/** Random month window inside the generated year. */
function monthWindow(random: () => number): { from: Date; to: Date } {
  const months = Math.max(1, Math.floor(DAYS / 31));
  const m = Math.floor(random() * months);
  const from = new Date(Date.UTC(YEAR_FROM.getUTCFullYear(), YEAR_FROM.getUTCMonth() + m, 1));
  return { from, to: new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1)) };
}

/** A project's spend over the year: the monthly series, the cost drivers and their borrowed part (target p95 < 50 ms each). */
async function timeProjectYearSpend(db: Database, benchProjects: readonly BenchProject[]): Promise<Timing[]> {
  const random = prng(42);
  const pick = () => benchProjects[Math.floor(random() * benchProjects.length)]!;
  const year = { from: YEAR_FROM, to: YEAR_TO };
  return [
    await timeQuery("project spend, year by month (spendSeries)", "< 50 ms", () => spendSeries(db, { projectId: pick().id }, year, "month")),
    await timeQuery("project spend, year by resource (spendByResource)", "< 50 ms", () => spendByResource(db, { projectId: pick().id }, year)),
    // The one year-long report query that reads usage_hourly (the report's borrowed GPU-hours): the partitioned table's case.
    await timeQuery("project GPU-hours beyond the guarantee, year of hours (borrowedByResource)", "< 50 ms", () => borrowedByResource(db, { projectId: pick().id }, year)),
  ];
}

/** The platform's spend over a month: by tenant, and by project (target p95 < 200 ms). */
async function timePlatformMonthSpend(db: Database): Promise<Timing[]> {
  const random = prng(7);
  return [
    await timeQuery("platform spend by tenant, one month (spendByTenant)", "< 200 ms", () => spendByTenant(db, monthWindow(random))),
    await timeQuery("platform spend by project, one month (spendByProject)", "< 200 ms", () => spendByProject(db, { platform: true }, monthWindow(random))),
  ];
}

// ---------------------------------------------------------------------------

async function main(): Promise<number> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error("bench:metering runs on PostgreSQL only: set DATABASE_URL to a local server, e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:metering");
    return 2;
  }
  const { admin: adminUrl, bench: benchUrl } = urls(url);
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const [{ version } = { version: "?" }] = await admin<{ version: string }[]>`select current_setting('server_version') as version`;
  const cpus = os.cpus();
  const load = () => os.loadavg().map((l) => fmt(l, 2)).join(" ");
  log(`${cpus.length} cores (${cpus[0]?.model ?? "unknown CPU"}), Node ${process.version}, PostgreSQL ${version}; load average ${load()} (other work on the machine skews every figure)`);

  const marker = args.reuse ? await readMarker(benchUrl) : null;
  const reusable = marker !== null && marker.projects === PROJECTS && marker.tenants === TENANTS && marker.days === DAYS && marker.from === YEAR_FROM.toISOString();
  if (args.reuse && !reusable) log(`--reuse: no complete ${BENCH_DATABASE} with these parameters; generating it`);
  if (!reusable) {
    await admin.unsafe(`drop database if exists ${BENCH_DATABASE} with (force)`);
    await admin.unsafe(`create database ${BENCH_DATABASE}`);
  }

  const target = { kind: "postgres", url: benchUrl } as const;
  const handle = openDatabase(target);
  const db = handle.db;
  // Bulk work gets memory for its sorts and skips waiting for the WAL flush at each commit.
  const bulk = postgres(benchUrl, {
    max: Math.max(1, CONCURRENCY),
    onnotice: () => {},
    connection: { work_mem: "256MB", maintenance_work_mem: "512MB", synchronous_commit: "off" },
  });
  try {
    await runMigrations(handle, target);
    const generated = reusable ? marker : await generate(db, bulk);
    if (reusable) log(`--reuse: ${BENCH_DATABASE} already holds ${int(generated.rows)} hourly rows for ${generated.projects} projects × ${generated.days} days; generation skipped`);

    const benchProjects = (await db.select({ id: projects.id, tenantId: projects.tenantId, slug: projects.slug }).from(projects))
      .map((p) => ({ id: p.id, tenantId: p.tenantId, n: Number(p.slug.slice(2)) }))
      .sort((a, b) => a.n - b.n);
    const [size] = await bulk<{ hourly: string; daily: string }[]>`
      select (select pg_size_pretty(sum(pg_total_relation_size(relid))) from pg_partition_tree('usage_hourly')) as hourly,
             (select pg_size_pretty(sum(pg_total_relation_size(relid))) from pg_partition_tree('usage_daily')) as daily`;
    // Summed over the monthly partitions: a partitioned parent holds no rows of its own (its size is 0).
    log(`size on disk (with indexes, all partitions): usage_hourly ${size!.hourly}, usage_daily ${size!.daily}`);

    // Start the measurements without the load's dirty pages still being written out.
    if (await isSuperuser(bulk)) await bulk`checkpoint`;
    await measureIngest(db, bulk, benchUrl, benchProjects);

    const timings = [...(await timeProjectYearSpend(db, benchProjects)), ...(await timePlatformMonthSpend(db))];
    log(`query timings: ${ITERATIONS} iterations each after 10 warm-up calls, random projects and months (seeded), one at a time, through drizzle/postgres.js`);
    for (const t of timings) {
      log(`  ${t.label}: p50 ${fmt(percentile(t.ms, 50))} ms, p95 ${fmt(percentile(t.ms, 95))} ms, p99 ${fmt(percentile(t.ms, 99))} ms, max ${fmt(t.ms.at(-1) ?? 0)} ms (target p95 ${t.target})`);
    }
  } finally {
    await Promise.all([handle.close(), bulk.end({ timeout: 5 })]);
    log(`load average at the end: ${load()}`);
    if (KEEP) log(`kept ${BENCH_DATABASE} (${benchUrl.replace(/\/\/[^@]*@/, "//")}); run again with --reuse to skip generation`);
    else await admin.unsafe(`drop database if exists ${BENCH_DATABASE} with (force)`);
    await admin.end({ timeout: 5 });
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
