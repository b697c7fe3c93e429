import { sql } from "drizzle-orm";
import { Gauge } from "prom-client";
import type { DatabaseHandle } from "@/db/client";
import { APPLICATION_NAME, POSTGRES_POOL_MAX } from "@/db/client";
import { rowsOf } from "@/db/rows";
import type { Clock } from "@/lib/clock";
import { metrics } from "./metrics";

/**
 * Gauges read from the database at scrape time rather than counted in
 * process: every replica shares one outbox and one ingest cursor, so what is
 * true of them is in the database, not in whichever process did the work.
 * A scrape that cannot reach the database answers without these series (and
 * says so in allot_metrics_database_up) instead of failing the whole scrape.
 */

/** The statuses that make the outbox's depth: work waiting, being done, or needing someone. */
const WAITING_STATUSES = ["pending", "applying", "failed"] as const;

type Source = { database: () => DatabaseHandle | null; clock: Clock };
const globalForDbMetrics = globalThis as unknown as { allotDbMetricsSource?: Source; allotDbMetricsRegistered?: boolean };

interface Snapshot {
  outbox: Map<string, number>;
  oldestWaitingSeconds: number;
  ingestLag: { source: string; seconds: number }[];
  pool: { max: number; connections: Map<string, number> | null };
}

async function readSnapshot(handle: DatabaseHandle, now: Date): Promise<Snapshot> {
  const { db } = handle;
  const outboxRows = await rowsOf<{ status: string; n: number }>(
    db,
    sql`select status::text as status, count(*)::int as n from cluster_changes where status in ('pending', 'applying', 'failed') group by status`,
  );
  // A change scheduled for later (a grant's end) is not waiting until its time comes; a retried one waits since it was asked for.
  const [oldest] = await rowsOf<{ since: string | Date | null }>(
    db,
    sql`select min(case when attempts = 0 then greatest(created_at, next_attempt_at) else created_at end) as since
        from cluster_changes
        where status in ('pending', 'applying') and (status = 'applying' or attempts > 0 or next_attempt_at <= ${now.toISOString()}::timestamptz)`,
  );
  const sources = await rowsOf<{ source: string; next_hour: string | Date }>(db, sql`select source, next_hour from usage_sources`);
  let connections: Map<string, number> | null = null;
  if (handle.kind === "postgres") {
    const rows = await rowsOf<{ state: string | null; n: number }>(
      db,
      sql`select coalesce(state, 'unknown') as state, count(*)::int as n from pg_stat_activity where application_name = ${APPLICATION_NAME} group by 1`,
    );
    connections = new Map(rows.map((r) => [r.state ?? "unknown", r.n]));
  }
  const since = oldest?.since ? new Date(oldest.since) : null;
  return {
    outbox: new Map(outboxRows.map((r) => [r.status, r.n])),
    oldestWaitingSeconds: since ? Math.max(0, (now.getTime() - since.getTime()) / 1000) : 0,
    ingestLag: sources.map((s) => ({ source: s.source, seconds: Math.max(0, (now.getTime() - new Date(s.next_hour).getTime()) / 1000) })),
    // PGlite is one session inside this process: a pool of one, with nothing more to report.
    pool: { max: handle.kind === "postgres" ? POSTGRES_POOL_MAX : 1, connections },
  };
}

/** Point the database gauges at `database` (the process-wide handle, or a test's); registers them on first call. */
export function collectFromDatabase(database: () => DatabaseHandle | null, clock: Clock): void {
  globalForDbMetrics.allotDbMetricsSource = { database, clock };
  if (globalForDbMetrics.allotDbMetricsRegistered) return;
  globalForDbMetrics.allotDbMetricsRegistered = true;
  const registers = [metrics().registry];

  // One read per scrape shared by every gauge below: the first gauge's collect starts it, the others await it.
  let pending: Promise<Snapshot | null> | null = null;
  const snapshot = (): Promise<Snapshot | null> => {
    pending ??= (async () => {
      const source = globalForDbMetrics.allotDbMetricsSource;
      const handle = source?.database();
      if (!source || !handle) return null;
      try {
        return await readSnapshot(handle, source.clock());
      } catch {
        return null;
      }
    })();
    const current = pending;
    void current.finally(() => {
      if (pending === current) pending = null;
    });
    return current;
  };

  new Gauge({
    name: "allot_metrics_database_up",
    help: "1 when this scrape could read the database-backed series below, else 0.",
    registers,
    async collect() {
      this.set((await snapshot()) ? 1 : 0);
    },
  });
  new Gauge({
    name: "allot_outbox_changes",
    help: "Cluster changes in the outbox by status: pending (due, or waiting to retry; changes scheduled for a later instant wait in cluster_scheduled_changes), applying (claimed by a worker), failed (given up, needs a retry by an admin).",
    labelNames: ["status"],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      if (!s) return;
      for (const status of WAITING_STATUSES) this.set({ status }, s.outbox.get(status) ?? 0);
    },
  });
  new Gauge({
    name: "allot_outbox_oldest_waiting_seconds",
    help: "Age of the oldest cluster change that is due and not yet applied (0 when none waits).",
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      if (s) this.set(s.oldestWaitingSeconds);
    },
  });
  new Gauge({
    name: "allot_usage_ingest_lag_seconds",
    help: "Seconds since the end of the last complete hour of usage read from a pulling source (Prometheus); about 1 h to 2 h when ingest keeps up.",
    labelNames: ["source"],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const lag of s?.ingestLag ?? []) this.set({ source: lag.source }, lag.seconds);
    },
  });
  new Gauge({
    name: "allot_db_pool_max_connections",
    help: "Connections this process may open to the database (postgres.js pool size; 1 for embedded PGlite).",
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      if (s) this.set(s.pool.max);
    },
  });
  new Gauge({
    name: "allot_db_pool_connections",
    help: "Connections this process holds open to PostgreSQL by state (active, idle, idle in transaction), as pg_stat_activity reports them (PostgreSQL only).",
    labelNames: ["state"],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const [state, n] of s?.pool.connections ?? []) this.set({ state }, n);
    },
  });
}
