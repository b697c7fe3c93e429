/**
 * Benchmark: the approval queue with 500 pending requests and the audit log at
 * a million events, on the scale data (bench/scale-data.ts; built first when the
 * database lacks it, and brought up to today's migrations when it has it). Run
 * on demand, never as a timed test:
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/NAME npm run bench:audit-queue
 *   … npm run bench:audit-queue -- --iterations 40 --concurrency 20 --only queue,audit
 *
 * It times, in this process and as the scale data's platform admin, the query
 * functions the pages call (what /admin/requests and /admin/audit render, without
 * Next's own rendering, which the spend-page bench measures):
 * - approval queue: approvalQueuePage (one page with every entry's full
 *   picture), the first page and a later page reached through the `next`
 *   cursors, unfiltered and with each filter; then the first page with
 *   --concurrency pages in flight at once (20 users through one pool of the
 *   portal's size, one round). The platform's quota basis is kept between
 *   pages while nothing it is computed from changes (lib/quota/platform-quota.ts):
 *   "basis read afresh" is the first page after a change (a new handle each run).
 *   Also GET /api/v1/quota-requests's query (visibleRequests, a page of 100).
 * - audit log: listAuditEvents (a page of 100, as /admin/audit) with no filter
 *   and with each filter (tenant, actor, action, target, dates), on the first
 *   page and on a deep page (`before` near the oldest end), sequentially and
 *   with --concurrency in flight.
 * Each case gets one warm-up run (plans cached, pages in shared buffers, as for
 * a returning user). The reference measured in the same run is `select 1`
 * through the same pool, so a machine loaded by others shows as such.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { eq, sql } from "drizzle-orm";
import { openDatabase } from "@/db/client";
import { auditEvents, users } from "@/db/schema";
import { auditFilterInput, listAuditEvents } from "@/lib/audit/queries";
import type { CommandContext } from "@/lib/auth/context";
import { loadActor } from "@/lib/auth/load-actor";
import { decodeCursor } from "@/lib/input/cursor";
import { approvalQueuePage, QUEUE_PAGE_SIZE, visibleRequests, type QueueFilter } from "@/lib/quota/queries";
import { ensureScaleData, SCALE_ADMIN_EMAIL } from "./scale-data";

const { values: args } = parseArgs({
  options: {
    iterations: { type: "string", default: "30" },
    concurrency: { type: "string", default: "20" },
    only: { type: "string", default: "queue,audit" },
  },
});
const ITERATIONS = Number(args.iterations);
const CONCURRENCY = Number(args.concurrency);
const ONLY = new Set(args.only.split(","));
const log = (line: string) => console.log(`[bench:audit-queue] ${line}`);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

interface Figure {
  label: string;
  p50: number;
  p95: number;
  target: number;
}
const figures: Figure[] = [];

function report(label: string, ms: number[], target: number, how: string) {
  ms.sort((a, b) => a - b);
  const f = { label, p50: percentile(ms, 50), p95: percentile(ms, 95), target };
  figures.push(f);
  log(`${label.padEnd(60)} p50 ${f.p50.toFixed(1).padStart(8)} ms  p95 ${f.p95.toFixed(1).padStart(8)} ms  (${how})`);
}

/** Sequential: one run at a time, `iterations` runs after a warm-up. */
async function time(label: string, run: () => Promise<unknown>, target: number, iterations = ITERATIONS): Promise<void> {
  await run();
  const ms: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await run();
    ms.push(performance.now() - t);
  }
  report(label, ms, target, `${iterations} runs, sequential`);
}

/** Concurrent: `CONCURRENCY` runs in flight at once, `rounds` times; each run's own latency counts. */
async function timeConcurrent(label: string, run: () => Promise<unknown>, target: number, rounds = 3): Promise<void> {
  await run();
  const ms: number[] = [];
  for (let r = 0; r < rounds; r++) {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        const t = performance.now();
        await run();
        ms.push(performance.now() - t);
      }),
    );
  }
  report(label, ms, target, `${CONCURRENCY} in flight x ${rounds} rounds`);
}

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("Set DATABASE_URL to a local PostgreSQL database (the scale data is built there if missing).");
  const data = await ensureScaleData(url);
  const handle = openDatabase({ kind: "postgres", url });
  const db = handle.db;
  try {
    const [admin] = await db.select({ id: users.principalId }).from(users).where(eq(users.email, SCALE_ADMIN_EMAIL));
    const actor = await loadActor(db, admin!.id, []);
    const ctx = (): CommandContext => ({ actor: actor!, db, now: new Date() });
    log(`machine: ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} (shared with others), Node ${process.version}`);
    log(`data: ${JSON.stringify(data.rows)}`);
    await time("reference: select 1", () => db.execute(sql`select 1`), Infinity, 50);

    if (ONLY.has("queue")) {
      log(`approval queue (${data.shape.pendingRequests} pending), target p95 < 500 ms`);
      const page = (filter: QueueFilter = {}, after?: string) => approvalQueuePage(ctx(), filter, { after: after ? decodeCursor(after)! : undefined });
      // Walk the queue by its `next` cursors, as a person clicking "Next" would.
      const cursors: string[] = [];
      for (let i = 0; i < 100; i++) {
        const r = await page({}, cursors.at(-1));
        if (!r?.next) break;
        cursors.push(r.next);
      }
      const laterIndex = Math.min(cursors.length, 10);
      const later = cursors[laterIndex - 1];
      log(`  ${cursors.length + 1} pages of ${QUEUE_PAGE_SIZE}; "a later page" is page ${laterIndex + 1}`);
      // Cold: a fresh handle has no kept basis, as the first page after a change to grants, projects or tenants.
      await time(
        "queue: first page, basis read afresh (first after a change)",
        async () => {
          const fresh = openDatabase({ kind: "postgres", url });
          try {
            await approvalQueuePage({ actor: actor!, db: fresh.db, now: new Date() });
          } finally {
            await fresh.close();
          }
        },
        500,
        Math.min(ITERATIONS, 5),
      );
      await time("queue: first page", () => page(), 500);
      if (later) await time(`queue: page ${laterIndex + 1} (via next)`, () => page({}, later), 500);
      if (cursors.length) await time(`queue: the last page (${cursors.length + 1})`, () => page({}, cursors.at(-1)), 500);
      await time("queue: tenant=scale-t100", () => page({ tenant: "scale-t100" }), 500);
      await time("queue: gpuModel=H100", () => page({ gpuModel: "H100" }), 500);
      await time("queue: size=gpu", () => page({ size: "gpu" }), 500);
      await time("queue: size=small", () => page({ size: "small" }), 500);
      await time("queue: size=large", () => page({ size: "large" }), 500);
      await timeConcurrent("queue: first page, concurrent", () => page(), 500, 1);
      if (later) await timeConcurrent(`queue: page ${laterIndex + 1}, concurrent`, () => page({}, later), 500, 1);
      await time("API GET /quota-requests?status=pending&limit=100 (its query)", () => visibleRequests(ctx(), "pending", { limit: 100 }), 500);
    }
    if (ONLY.has("audit")) {
      log("audit log (1,000,000 events), pages of 100, target p95 < 100 ms");
      const [{ maxSeq }] = (await db.select({ maxSeq: sql<number>`coalesce(max(${auditEvents.seq}), 0)::int` }).from(auditEvents)) as [{ maxSeq: number }];
      const day = (offset: number) => new Date(Date.parse(`${data.from}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
      const deep = Math.max(1, Math.floor(maxSeq * 0.02));
      const audit = (filter: Record<string, unknown>) => () => listAuditEvents(ctx(), auditFilterInput.parse({ limit: 100, ...filter }));
      const cases: [string, Record<string, unknown>][] = [
        ["no filter, first page", {}],
        ["no filter, deep page", { before: deep }],
        ["tenant, first page", { tenant: "scale-t042" }],
        ["tenant, deep page", { tenant: "scale-t042", before: deep }],
        ["actor (email substring), first page", { actor: "u03.t117" }],
        ["actor (email substring), deep page", { actor: "u03.t117", before: deep }],
        ["actor (principal id), first page", { actor: admin!.id }],
        ["action (substring), first page", { action: "budget" }],
        ["action (substring), deep page", { action: "budget", before: deep }],
        ["action (rare: rate.added), first page", { action: "rate.added" }],
        ["target (type), first page", { target: "service_account" }],
        ["target (type), deep page", { target: "service_account", before: deep }],
        ["target (id fragment), first page", { target: "abcd" }],
        ["from-to: one day a year ago", { from: day(0), to: day(1) }],
        ["from-to: one month mid-year", { from: day(180), to: day(210) }],
        ["tenant + action + month", { tenant: "scale-t042", action: "quota", from: day(90), to: day(120) }],
        ["actor with no match", { actor: "nobody-matches-this" }],
        ["action with no match", { action: "no.such.action" }],
        ["target with no match", { target: "no-such-target" }],
      ];
      for (const [label, filter] of cases) await time(`audit: ${label}`, audit(filter), 100);
      await timeConcurrent("audit: no filter, first page, concurrent", audit({}), 100);
      await timeConcurrent("audit: actor, deep page, concurrent", audit({ actor: "u03.t117", before: deep }), 100);
    }

    log("summary");
    for (const f of figures.filter((x) => Number.isFinite(x.target))) log(`  ${f.label.padEnd(60)} p95 ${f.p95.toFixed(0).padStart(6)} ms  target < ${f.target} ms: ${f.p95 < f.target ? "met" : "NOT met"}`);
  } finally {
    await handle.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
