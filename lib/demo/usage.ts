import { and, eq, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { instanceSettings, projects, tenants } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { DEMO_SOURCE, ingestUsage, type UsageSample } from "@/lib/metering/ingest";
import { hourStart, utcDay } from "@/lib/metering/units";
import { seedDemoQuota } from "./quota";

/**
 * Generated usage for the demo projects of the embedded default, so the spend
 * pages show real charts from the first start: 90 days of hourly samples up
 * to the last complete hour, stored under the source "demo" through the same
 * ingest as real usage (so the daily rollup is built the ordinary way and
 * every figure it feeds is marked as demo data).
 *
 * The figures are deterministic: every value is a hash of a fixed seed, the
 * project, the resource and the hour, so the same hour always gets the same
 * figure and screenshots and tests are stable (no Math.random). What depends
 * on `now` is only the window and where slow growth (storage, traffic) ends.
 *
 * The story the charts tell:
 * - language-models/pretraining holds 16 H100 nearly all the time, busy
 *   (DCGM utilisation 0.70–0.95), with the odd restart at half or no GPUs;
 * - vision-lab/detector-training runs bursts of 4–8 H100 on weekdays
 *   (moderate utilisation), sometimes a run over the weekend;
 * - vision-lab/segmentation-research holds 4 L4 GPUs that sit idle
 *   (utilisation around 0.05), the case the idle-GPU flag is for;
 * - language-models/chat-eval serves from A100 MIG slices, more of them in
 *   working hours, with inference requests following the day;
 * - every project has CPU core-hours and memory GiB-hours counted as
 *   max(requested, used), and storage that grows slowly.
 */

export const DEMO_USAGE_DAYS = 90;
const DEMO_USAGE_KEY = "demo_usage_seeded_at";
const DEMO_QUOTA_KEY = "demo_quota_seeded_at";
const DEMO_USAGE_LOCK_KEY = 7_418_004;
const DEMO_SEED = 0x5eed_a110;
const HOUR_MS = 3_600_000;
const HOURS_PER_DAY = 24;

/** The demo projects that get usage, by tenant and project slug (db/seed.ts creates them). */
export const DEMO_USAGE_PROJECTS = [
  ["vision-lab", "detector-training"],
  ["vision-lab", "segmentation-research"],
  ["language-models", "chat-eval"],
  ["language-models", "pretraining"],
] as const;

export type DemoProjectSlug = (typeof DEMO_USAGE_PROJECTS)[number][1];
export type DemoProjectRef = { slug: DemoProjectSlug; projectId: string; tenantId: string };

// ---------------------------------------------------------------------------
// Deterministic noise: a 32-bit hash of (seed, stream, hour) mapped to [0, 1).

function mix32(h: number): number {
  // murmur3's finaliser: every input bit moves every output bit.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const streamHashes = new Map<string, number>();
function streamHash(stream: string): number {
  let h = streamHashes.get(stream);
  if (h === undefined) {
    h = 0x811c_9dc5 ^ DEMO_SEED; // FNV-1a over the stream name
    for (let i = 0; i < stream.length; i++) h = Math.imul(h ^ stream.charCodeAt(i), 0x0100_0193);
    h >>>= 0;
    streamHashes.set(stream, h);
  }
  return h;
}

/** A uniform figure in [0, 1) for this stream and integer (an hour or day index): the same inputs, the same figure. */
function unit(stream: string, n: number): number {
  const lo = n >>> 0;
  const hi = Math.floor(n / 2 ** 32) >>> 0;
  return mix32(mix32(streamHash(stream) ^ lo) ^ Math.imul(hi + 1, 0x9e37_79b9)) / 2 ** 32;
}

const between = (u: number, lo: number, hi: number) => lo + u * (hi - lo);
const round = (x: number, digits: number) => Number(x.toFixed(digits));

// ---------------------------------------------------------------------------
// Calendar helpers on absolute hour indexes (hours since the epoch, UTC).

const dayOf = (h: number) => Math.floor(h / HOURS_PER_DAY);
const hourOfDay = (h: number) => h - dayOf(h) * HOURS_PER_DAY;
/** 0 Sunday … 6 Saturday; 1970-01-01 was a Thursday. */
const weekdayOf = (day: number) => (((day + 4) % 7) + 7) % 7;
const isWeekday = (day: number) => {
  const w = weekdayOf(day);
  return w >= 1 && w <= 5;
};
/** Demand over the (UTC) working day: ~0.15 at night, 1 in the afternoon, much lower at weekends. */
function dayCurve(h: number): number {
  const hod = hourOfDay(h);
  const daytime = Math.max(0, Math.sin(((hod - 6) / 16) * Math.PI)); // 06:00–22:00, peak ~14:00
  const level = 0.15 + 0.85 * daytime;
  return isWeekday(dayOf(h)) ? level : 0.15 + 0.25 * daytime;
}

// ---------------------------------------------------------------------------
// Each project's hour: the samples it contributes (GPU rows only when GPUs were held).

type Hour = { h: number; hour: Date; daysBeforeEnd: number };
type Row = Omit<UsageSample, "projectId" | "tenantId" | "hour">;

/** CPU or memory as the cost model counts it: max(requested, used), both kept. */
function requestedUsed(resource: "cpu" | "memory", requested: number, used: number, digits = 3): Row {
  const r = round(requested, digits);
  const u = round(used, digits);
  return { resource, quantity: Math.max(r, u), requested: r, used: u };
}

const storage = (gib: number): Row => ({ resource: "storage", quantity: round(gib, 1) });

function pretraining({ h, daysBeforeEnd }: Hour): Row[] {
  // About one day in twelve a restart or node drain: a few hours at half or no GPUs.
  const day = dayOf(h);
  let gpus = 16;
  for (const d of [day - 1, day]) {
    if (unit("pretraining:incident", d) >= 0.08) continue;
    const start = d * HOURS_PER_DAY + Math.floor(unit("pretraining:incident-start", d) * HOURS_PER_DAY);
    const length = 2 + Math.floor(unit("pretraining:incident-length", d) * 5);
    if (h >= start && h < start + length) gpus = Math.min(gpus, unit("pretraining:incident-kind", d) < 0.5 ? 8 : 0);
  }
  const rows: Row[] = [];
  if (gpus > 0) {
    // Busy, with a slow wander and hourly jitter inside 0.70–0.95.
    const wander = 0.04 * Math.sin((h / 37) * Math.PI);
    const utilisation = Math.min(0.95, Math.max(0.7, 0.84 + wander + between(unit("pretraining:util", h), -0.07, 0.07)));
    rows.push({ resource: "gpu:H100", quantity: gpus, gpuUtilization: round(utilisation, 3) });
  }
  const cpuRequested = gpus > 0 ? 12 * gpus : 8;
  rows.push(requestedUsed("cpu", cpuRequested, cpuRequested * (gpus > 0 ? between(unit("pretraining:cpu", h), 0.78, 1.08) : between(unit("pretraining:cpu", h), 0.1, 0.3))));
  const memRequested = gpus > 0 ? 96 * gpus : 64;
  rows.push(requestedUsed("memory", memRequested, memRequested * between(unit("pretraining:memory", h), 0.7, 1.05)));
  rows.push(storage(42_000 - 180 * daysBeforeEnd));
  return rows;
}

function detectorTraining({ h, daysBeforeEnd }: Hour): Row[] {
  // Weekday training runs from the morning, 6–14 hours of 4, 6 or 8 GPUs;
  // a Friday run sometimes goes on over the weekend.
  const day = dayOf(h);
  let gpus = 0;
  let run = -1;
  for (let d = day - 3; d <= day; d++) {
    if (!isWeekday(d) || unit("detector:run", d) >= 0.85) continue;
    const start = d * HOURS_PER_DAY + 7 + Math.floor(unit("detector:start", d) * 4);
    let length = 6 + Math.floor(unit("detector:length", d) * 9);
    if (weekdayOf(d) === 5 && unit("detector:weekend", d) < 0.3) length += 36;
    const size = [4, 6, 8][Math.floor(unit("detector:size", d) * 3)]!;
    if (h >= start && h < start + length && size > gpus) {
      gpus = size;
      run = d;
    }
  }
  const rows: Row[] = [];
  if (gpus > 0) {
    // Moderate: data loading keeps the GPUs waiting part of the time; each run has its own level.
    const level = between(unit("detector:run-util", run), 0.45, 0.62);
    rows.push({ resource: "gpu:H100", quantity: gpus, gpuUtilization: round(Math.min(0.8, level + between(unit("detector:util", h), -0.08, 0.08)), 3) });
  }
  // A notebook server all the time, plus the run's pods.
  const cpuRequested = 8 + 10 * gpus;
  const cpuUsed = between(unit("detector:cpu-base", h), 1, 4) + 10 * gpus * between(unit("detector:cpu", h), 0.6, 1);
  rows.push(requestedUsed("cpu", cpuRequested, cpuUsed));
  const memRequested = 32 + 80 * gpus;
  const memUsed = between(unit("detector:memory-base", h), 8, 20) + 80 * gpus * between(unit("detector:memory", h), 0.5, 0.9);
  rows.push(requestedUsed("memory", memRequested, memUsed));
  rows.push(storage(6_500 - 25 * daysBeforeEnd));
  return rows;
}

function segmentationResearch({ h, daysBeforeEnd }: Hour): Row[] {
  // Four L4s reserved for weeks and barely touched: the idle-GPU case.
  return [
    { resource: "gpu:L4", quantity: 4, gpuUtilization: round(between(unit("segmentation:util", h), 0.01, 0.09), 3) },
    requestedUsed("cpu", 16, between(unit("segmentation:cpu", h), 0.5, 2.5)),
    requestedUsed("memory", 64, between(unit("segmentation:memory", h), 10, 16)),
    storage(1_800 - 2 * daysBeforeEnd),
  ];
}

function chatEval({ h, daysBeforeEnd }: Hour): Row[] {
  // Serving on MIG slices: 7 at night and weekends, 14 in weekday working hours;
  // requests follow the day and grow ~25 % over the 90 days.
  const load = dayCurve(h);
  const busyHours = isWeekday(dayOf(h)) && hourOfDay(h) >= 8 && hourOfDay(h) < 20;
  const slices = busyHours ? 14 : 7;
  const trend = 1 / (1 + 0.0025 * daysBeforeEnd);
  const requests = Math.round(40_000 * load * trend * between(unit("chat:requests", h), 0.85, 1.15));
  const perSlice = requests / slices / 4_000; // a slice is comfortably busy at ~4,000 requests an hour
  return [
    { resource: "gpu:A100 1g.10gb", quantity: slices, gpuUtilization: round(Math.min(0.9, Math.max(0.2, 0.15 + 0.6 * perSlice + between(unit("chat:util", h), -0.05, 0.05))), 3) },
    { resource: "inference", quantity: requests },
    requestedUsed("cpu", 24, 6 + 26 * load * between(unit("chat:cpu", h), 0.8, 1.15)),
    requestedUsed("memory", 96, 60 + 60 * load * between(unit("chat:memory", h), 0.8, 1.1)),
    storage(900 - 3 * daysBeforeEnd),
  ];
}

const GENERATORS: Record<DemoProjectSlug, (hour: Hour) => Row[]> = {
  "detector-training": detectorTraining,
  "segmentation-research": segmentationResearch,
  "chat-eval": chatEval,
  pretraining,
};

/**
 * The demo samples for the hours [from, to) (both on the hour), in hour order.
 * Pure: the same projects and window give the same samples.
 */
export function demoUsageSamples(projectRefs: readonly DemoProjectRef[], from: Date, to: Date): UsageSample[] {
  const first = from.getTime() / HOUR_MS;
  const end = to.getTime() / HOUR_MS;
  if (!Number.isInteger(first) || !Number.isInteger(end)) throw new Error("demo usage window must start and end on the hour");
  const samples: UsageSample[] = [];
  for (let h = first; h < end; h++) {
    const hour = new Date(h * HOUR_MS);
    const at: Hour = { h, hour, daysBeforeEnd: (end - 1 - h) / HOURS_PER_DAY };
    for (const p of projectRefs) {
      for (const row of GENERATORS[p.slug](at)) samples.push({ ...row, projectId: p.projectId, tenantId: p.tenantId, hour });
    }
  }
  return samples;
}

/** The demo window ending at `now`: the DEMO_USAGE_DAYS × 24 hours up to the last complete hour. */
export function demoUsageWindow(now: Date): { from: Date; to: Date } {
  const to = hourStart(now);
  return { from: new Date(to.getTime() - DEMO_USAGE_DAYS * HOURS_PER_DAY * HOUR_MS), to };
}

export async function demoProjects(db: Database): Promise<DemoProjectRef[]> {
  const found: DemoProjectRef[] = [];
  for (const [tenantSlug, slug] of DEMO_USAGE_PROJECTS) {
    const [row] = await db
      .select({ projectId: projects.id, tenantId: projects.tenantId })
      .from(projects)
      .innerJoin(tenants, eq(tenants.id, projects.tenantId))
      .where(and(eq(tenants.slug, tenantSlug), eq(projects.slug, slug)));
    if (row) found.push({ slug, ...row });
  }
  return found;
}

/**
 * Store 90 days of demo usage for the demo projects, and the quota grants it
 * runs under (lib/demo/quota.ts), each once per database (marker rows record
 * them); returns false when the usage had already been stored or there are
 * no demo projects (seedDemoData has not run). One transaction: a crash
 * part-way leaves nothing behind, and replicas starting together take turns.
 * The samples go through ingestUsage a UTC day at a time, so each day's
 * rollup row is written once, exactly as a recomputation would write it.
 */
export async function seedDemoUsage(db: Database, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${DEMO_USAGE_LOCK_KEY})`);
    const refs = await demoProjects(tx);
    if (refs.length === 0) return false;
    const [done] = await tx.select().from(instanceSettings).where(eq(instanceSettings.key, DEMO_USAGE_KEY));
    // The quota the usage runs under starts with the usage window, also for a database whose usage was seeded before demo quota existed.
    const usageSeededAt = done && typeof done.value === "string" ? new Date(done.value) : now;
    await seedDemoQuotaOnce(tx, refs, demoUsageWindow(usageSeededAt).from, now);
    if (done) return false;

    const { from, to } = demoUsageWindow(now);
    const samples = demoUsageSamples(refs, from, to);
    let batch: UsageSample[] = [];
    let batchDay = "";
    for (const s of samples) {
      const day = utcDay(s.hour);
      if (day !== batchDay && batch.length > 0) {
        await ingestUsage(tx, DEMO_SOURCE, batch, now);
        batch = [];
      }
      batchDay = day;
      batch.push(s);
    }
    await ingestUsage(tx, DEMO_SOURCE, batch, now);

    await tx.insert(instanceSettings).values({ key: DEMO_USAGE_KEY, value: now.toISOString(), updatedAt: now });
    await recordAudit(tx, {
      actor: { principalId: null, label: "system:seed" },
      at: now,
      tenantId: null,
      action: "demo.usage_seeded",
      target: { type: "instance", id: "demo" },
      after: { source: DEMO_SOURCE, from: from.toISOString(), to: to.toISOString(), samples: samples.length, projects: refs.map((p) => p.slug) },
    });
    return true;
  });
}

async function seedDemoQuotaOnce(tx: Database, refs: readonly DemoProjectRef[], startsAt: Date, now: Date): Promise<void> {
  const [done] = await tx.select().from(instanceSettings).where(eq(instanceSettings.key, DEMO_QUOTA_KEY));
  if (done) return;
  const grants = await seedDemoQuota(tx, refs, startsAt, now);
  await tx.insert(instanceSettings).values({ key: DEMO_QUOTA_KEY, value: now.toISOString(), updatedAt: now });
  await recordAudit(tx, {
    actor: { principalId: null, label: "system:seed" },
    at: now,
    tenantId: null,
    action: "demo.quota_seeded",
    target: { type: "instance", id: "demo" },
    after: { grants, startsAt: startsAt.toISOString(), projects: refs.map((p) => p.slug) },
  });
}
