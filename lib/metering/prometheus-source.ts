import { and, eq, gte, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { projects, usageHourly, usageSources } from "@/db/schema";
import type { Clock } from "@/lib/clock";
import type { PrometheusSettings } from "@/lib/config";
import { loadPools } from "@/lib/quota/store";
import { ingestUsage, type UsageSample } from "./ingest";
import { apiTarget, hourUsageOf, instantQuery, queryTimeOf, usageQueries, type HourAnswers, type UsageQueryName } from "./prometheus";
import { hourStart } from "./units";

/**
 * Usage from Prometheus against the database: which hours to read, reading
 * them (prometheus.ts has the queries and the mapping), storing them through
 * ingestUsage, and the progress in usage_sources ("prometheus": hours before
 * next_hour are done).
 *
 * The worker loop looks once a minute (prometheusUsageTicker) and reads the
 * complete hours not yet read, at most MAX_HOURS_PER_RUN per run; the first
 * run starts PROMETHEUS_BACKFILL_DAYS before the start of today (UTC). An
 * hour is complete SETTLE_MS after it ends, so its last scrapes are stored
 * before it is read. Replicas claim a run by moving last_run_at with a
 * conditional update; two runs of the same hour (a run longer than the claim)
 * are harmless because ingest replaces a source's figure for an hour. A run
 * that fails keeps its place (next_hour stays at the failed hour), records the
 * error, and is tried again RETRY_AFTER_FAILURE_MS later.
 */

export const PROMETHEUS_SOURCE = "prometheus";
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Two days per run: a first run or a long outage catches up over a few runs, a minute apart, without one run holding Prometheus for long. */
export const MAX_HOURS_PER_RUN = 48;
/** Scrapes (and any remote-write lag) of the hour's last minute must be stored before the hour is read. */
export const SETTLE_MS = 5 * 60_000;
const RUN_CLAIM_MS = 60_000;
const RETRY_AFTER_FAILURE_MS = 5 * 60_000;

/** What a run did. `to` is where it stopped: the end of its range, or the hour that failed. */
export interface UsageRunSummary {
  prometheus: string;
  from: Date;
  to: Date;
  hours: number;
  samples: number;
  ignoredNamespaces: string[];
  unmatchedGpus: string[];
  error: string | null;
}

/** Hours before this one are complete at `now`. */
export const completeHoursUntil = (now: Date): Date => hourStart(new Date(now.getTime() - SETTLE_MS));

const startOfUtcDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
const iso = (at: Date) => `${at.toISOString().slice(0, 16)}Z`;

async function answersFor(settings: PrometheusSettings, queries: Record<UsageQueryName, string>, hour: Date, fetchImpl: typeof fetch): Promise<HourAnswers> {
  const at = queryTimeOf(hour);
  const entries = await Promise.all(
    (Object.keys(queries) as UsageQueryName[]).map(async (name) => [name, await instantQuery(settings, queries[name], at, fetchImpl)] as const),
  );
  return Object.fromEntries(entries) as HourAnswers;
}

/**
 * Figures this source stored for the hour before that the new answer no
 * longer has (the pod was found to have ended earlier, a namespace moved):
 * set to zero, so reading an hour again replaces all of it.
 */
async function vanishedSince(db: Database, hour: Date, samples: readonly UsageSample[]): Promise<UsageSample[]> {
  const present = new Set(samples.map((s) => `${s.projectId}\u0000${s.resource}`));
  const stored = await db
    .select({ projectId: usageHourly.projectId, tenantId: usageHourly.tenantId, resource: usageHourly.resource, quantity: usageHourly.quantity })
    .from(usageHourly)
    .where(and(eq(usageHourly.source, PROMETHEUS_SOURCE), eq(usageHourly.hour, hour)));
  return stored
    .filter((r) => r.quantity !== 0 && !present.has(`${r.projectId}\u0000${r.resource}`))
    .map((r) => ({ projectId: r.projectId, tenantId: r.tenantId, resource: r.resource, hour, quantity: 0, requested: null, used: null, gpuUtilization: null }));
}

/** Read and store the hours [from, to) one by one, stopping at the first that fails; `afterHour` records progress. */
async function ingestHours(
  db: Database,
  settings: PrometheusSettings,
  range: { from: Date; to: Date },
  now: Date,
  afterHour: (doneUntil: Date) => Promise<void>,
  fetchImpl: typeof fetch,
): Promise<UsageRunSummary> {
  const pools = await loadPools(db);
  const namespaces = await db.select({ projectId: projects.id, tenantId: projects.tenantId, namespace: projects.namespace }).from(projects);
  const queries = usageQueries(pools);
  const ignored = new Set<string>();
  const unmatched = new Set<string>();
  const summary: UsageRunSummary = { prometheus: apiTarget(settings.url, "").shown, from: range.from, to: range.from, hours: 0, samples: 0, ignoredNamespaces: [], unmatchedGpus: [], error: null };
  for (let hour = range.from; hour < range.to; hour = new Date(hour.getTime() + HOUR_MS)) {
    try {
      const usage = hourUsageOf(hour, await answersFor(settings, queries, hour, fetchImpl), namespaces, pools);
      const samples = [...usage.samples, ...(await vanishedSince(db, hour, usage.samples))];
      await ingestUsage(db, PROMETHEUS_SOURCE, samples, now);
      usage.ignoredNamespaces.forEach((n) => ignored.add(n));
      usage.unmatchedGpus.forEach((g) => unmatched.add(g));
      summary.samples += usage.samples.length;
    } catch (error) {
      summary.error = `hour ${iso(hour)}: ${error instanceof Error ? error.message : String(error)}`;
      break;
    }
    summary.hours += 1;
    summary.to = new Date(hour.getTime() + HOUR_MS);
    await afterHour(summary.to);
  }
  summary.ignoredNamespaces = [...ignored].sort();
  summary.unmatchedGpus = [...unmatched].sort();
  return summary;
}

/** The source's row, made on first use: the first run starts backfillDays before the start of today (UTC). */
async function nextHourOf(db: Database, settings: PrometheusSettings, now: Date): Promise<Date> {
  const firstHour = new Date(startOfUtcDay(now).getTime() - settings.backfillDays * DAY_MS);
  await db.insert(usageSources).values({ source: PROMETHEUS_SOURCE, nextHour: firstHour }).onConflictDoNothing();
  const [row] = await db.select({ nextHour: usageSources.nextHour }).from(usageSources).where(eq(usageSources.source, PROMETHEUS_SOURCE));
  return row!.nextHour;
}

/** Never backwards: a slower run finishing after a faster one keeps the furthest point. */
async function advanceTo(db: Database, doneUntil: Date): Promise<void> {
  await db
    .update(usageSources)
    .set({ nextHour: sql`greatest(${usageSources.nextHour}, ${doneUntil.toISOString()}::timestamptz)` })
    .where(eq(usageSources.source, PROMETHEUS_SOURCE));
}

/** Read the complete hours not yet read (at most maxHours), and record the run. */
export async function catchUpPrometheusUsage(
  db: Database,
  settings: PrometheusSettings,
  now: Date,
  o: { maxHours?: number; fetchImpl?: typeof fetch } = {},
): Promise<UsageRunSummary> {
  const from = await nextHourOf(db, settings, now);
  const to = new Date(Math.min(completeHoursUntil(now).getTime(), from.getTime() + (o.maxHours ?? MAX_HOURS_PER_RUN) * HOUR_MS));
  const summary = await ingestHours(db, settings, { from, to }, now, (doneUntil) => advanceTo(db, doneUntil), o.fetchImpl ?? fetch);
  if (summary.hours > 0 || summary.error) {
    await db.update(usageSources).set({ lastRunAt: now, lastError: summary.error, lastSamples: summary.samples }).where(eq(usageSources.source, PROMETHEUS_SOURCE));
  }
  return summary;
}

/**
 * The worker's run: only when a complete hour is waiting and no other run
 * (of this or another replica) started within the claim, or, after a failure,
 * within the retry delay. Null when there was nothing to do.
 */
export async function runPrometheusUsageIfDue(db: Database, settings: PrometheusSettings, now: Date, fetchImpl: typeof fetch = fetch): Promise<UsageRunSummary | null> {
  await nextHourOf(db, settings, now);
  const s = usageSources;
  const claimed = await db
    .update(s)
    .set({ lastRunAt: now })
    .where(
      and(
        eq(s.source, PROMETHEUS_SOURCE),
        lt(s.nextHour, completeHoursUntil(now)),
        or(isNull(s.lastRunAt), and(isNull(s.lastError), lte(s.lastRunAt, new Date(now.getTime() - RUN_CLAIM_MS))), lte(s.lastRunAt, new Date(now.getTime() - RETRY_AFTER_FAILURE_MS))),
      ),
    )
    .returning({ source: s.source });
  if (claimed.length === 0) return null;
  return catchUpPrometheusUsage(db, settings, now, { fetchImpl });
}

/**
 * Read [from, to) again (rounded out to whole hours, up to the last complete
 * one), replacing what was stored for it. When the range covers next_hour,
 * the hourly run moves on past it instead of reading it a second time.
 */
export async function backfillPrometheusUsage(db: Database, settings: PrometheusSettings, range: { from: Date; to: Date }, now: Date, fetchImpl: typeof fetch = fetch): Promise<UsageRunSummary> {
  const from = hourStart(range.from);
  const to = new Date(Math.min(Math.ceil(range.to.getTime() / HOUR_MS) * HOUR_MS, completeHoursUntil(now).getTime()));
  const s = usageSources;
  const moveOn = async (doneUntil: Date) => {
    await db
      .update(s)
      .set({ nextHour: doneUntil })
      .where(and(eq(s.source, PROMETHEUS_SOURCE), gte(s.nextHour, from), lt(s.nextHour, doneUntil)));
  };
  return ingestHours(db, settings, { from, to: to > from ? to : from }, now, moveOn, fetchImpl);
}

/** For the worker loop: a run looked for every checkEveryMs, one at a time, beside the reconcile passes (slow queries never hold up cluster changes). */
export function prometheusUsageTicker(o: {
  db: Database;
  settings: PrometheusSettings;
  clock: Clock;
  log: (message: string, error?: unknown) => void;
  checkEveryMs?: number;
}): { tick(): void; stop(): Promise<void> } {
  const checkEveryMs = o.checkEveryMs ?? 60_000;
  let lastCheck = -Infinity;
  let running: Promise<void> | null = null;
  let stopped = false;
  return {
    tick() {
      if (stopped || running || Date.now() - lastCheck < checkEveryMs) return;
      lastCheck = Date.now();
      running = runPrometheusUsageIfDue(o.db, o.settings, o.clock())
        .then(
          (summary) => {
            if (summary) o.log(describeUsageRun(summary));
          },
          (error: unknown) => o.log("reading usage from Prometheus failed; trying again later", error),
        )
        .finally(() => {
          running = null;
        });
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** A summary for people: the CLI prints it, the worker logs it. */
export function describeUsageRun(r: UsageRunSummary): string {
  const done =
    r.hours > 0
      ? `${r.hours} hour${r.hours === 1 ? "" : "s"} read (${iso(r.from)} to ${iso(r.to)}), ${r.samples} samples stored.`
      : r.error
        ? "no hour read."
        : `no complete hour to read from ${iso(r.from)}.`;
  const lines = [`Usage from Prometheus at ${r.prometheus}: ${done}`];
  if (r.ignoredNamespaces.length > 0) lines.push(`Namespaces of no project, ignored (${r.ignoredNamespaces.length}): ${r.ignoredNamespaces.join(", ")}`);
  if (r.unmatchedGpus.length > 0) lines.push(`GPUs no node pool describes (${r.unmatchedGpus.length}), counted under their own name:\n${r.unmatchedGpus.map((g) => `  ${g}`).join("\n")}`);
  if (r.error) lines.push(`Stopped: ${r.error}`);
  return lines.join("\n");
}
