import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterChanges, clusterScheduledChanges, projects, usageSources } from "@/db/schema";
import { parseConfig } from "@/lib/config";
import { projectTarget } from "@/lib/cluster/outbox";
import { reconcileDue } from "@/lib/cluster/worker";
import { databaseLabel } from "@/test/database";
import { prometheusBinaries, startPrometheusScraping, type RunningPrometheus } from "@/test/prometheus/server";
import { DAY, HOUR, seededDatabase } from "@/test/tenancy";
import { collectFromDatabase } from "./db-metrics";
import { metrics, setLeader } from "./metrics";
import { startMetricsServer, type MetricsServer } from "./metrics-server";

/**
 * /metrics as Prometheus sees it: served on a port of its own, the database
 * gauges read at scrape from the seeded database, the text accepted by
 * `promtool check metrics`, and a real Prometheus scraping it.
 */
const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const settings = parseConfig({}).cluster;
const seeded = seededDatabase(SEEDED_AT);
const clock = () => NOW;
let server: MetricsServer;
const run = promisify(execFile);

beforeAll(async () => {
  collectFromDatabase(() => seeded.handle, clock);
  server = await startMetricsServer(metrics().registry, { port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await server?.close();
});

async function scrape(): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The value of one series in the text format, or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe(`/metrics (${databaseLabel()})`, () => {
  it("answers only GET /metrics on its port", async () => {
    const other = await fetch(`http://127.0.0.1:${server.port}/`);
    expect(other.status).toBe(404);
    const post = await fetch(`http://127.0.0.1:${server.port}/metrics`, { method: "POST" });
    expect(post.status).toBe(404);
  });

  it("reads the outbox depth and the oldest waiting change from the database at scrape", async () => {
    const pending = await seeded.db.select().from(clusterChanges).where(eq(clusterChanges.status, "pending"));
    expect(pending.length).toBeGreaterThan(0);
    const oldest = Math.min(...pending.map((c) => Math.max(c.createdAt.getTime(), c.nextAttemptAt.getTime())));
    const text = await scrape();
    expect(sample(text, "allot_metrics_database_up")).toBe(1);
    expect(sample(text, 'allot_outbox_changes{status="pending"}')).toBe(pending.length);
    expect(sample(text, 'allot_outbox_changes{status="applying"}')).toBe(0);
    expect(sample(text, 'allot_outbox_changes{status="failed"}')).toBe(0);
    expect(sample(text, "allot_outbox_oldest_waiting_seconds")).toBeCloseTo((NOW.getTime() - oldest) / 1000, 3);
  });

  it("counts the worker's attempts by outcome, and a change scheduled for later is not waiting yet", async () => {
    const series = 'allot_cluster_apply_attempts_total{mode="record-only",outcome="recorded"}';
    const before = sample(await scrape(), series) ?? 0;
    const processed = await reconcileDue({ db: seeded.db, settings, client: null, clock, workerId: "metrics-test" });
    expect(processed).toBeGreaterThan(0);
    // A grant that ends tomorrow waits as a scheduled change, outside the outbox, until the worker's scan enqueues it then.
    const [project] = await seeded.db.select({ id: projects.id, tenantId: projects.tenantId }).from(projects).limit(1);
    await seeded.db
      .insert(clusterScheduledChanges)
      .values({ tenantId: project!.tenantId, projectId: project!.id, targetKey: projectTarget(project!.id), dueAt: new Date(NOW.getTime() + DAY), reason: "access expires", createdAt: NOW });

    const pending = await seeded.db.select().from(clusterChanges).where(eq(clusterChanges.status, "pending"));
    expect(pending).toEqual([]);
    const text = await scrape();
    expect(sample(text, series)).toBe(before + processed);
    expect(sample(text, 'allot_outbox_changes{status="pending"}')).toBe(0);
    expect(sample(text, "allot_outbox_oldest_waiting_seconds")).toBe(0);
  });

  it("reports ingest lag as the time since the last complete hour read", async () => {
    await seeded.db.insert(usageSources).values({ source: "prometheus", nextHour: new Date(NOW.getTime() - 2 * HOUR) });
    expect(sample(await scrape(), 'allot_usage_ingest_lag_seconds{source="prometheus"}')).toBe(7200);
  });

  it("reports this process's database pool and its leadership", async () => {
    setLeader(true);
    const text = await scrape();
    expect(sample(text, 'allot_leader{loop="periodic"}')).toBe(1);
    if (seeded.handle.kind === "postgres") {
      expect(sample(text, "allot_db_pool_max_connections")).toBe(10);
      // The scrape's own query holds one connection of this process while it runs.
      const states = text.split("\n").filter((l) => l.startsWith("allot_db_pool_connections{"));
      expect(states.reduce((n, l) => n + Number(l.split(" ")[1]), 0)).toBeGreaterThanOrEqual(1);
    } else {
      expect(sample(text, "allot_db_pool_max_connections")).toBe(1);
      expect(text).not.toMatch(/^allot_db_pool_connections\{/m);
    }
    setLeader(false);
  });

  it("passes promtool check metrics", async () => {
    const text = await scrape();
    const { promtool } = prometheusBinaries();
    const check = run(promtool, ["check", "metrics"], { encoding: "utf8" });
    check.child.stdin!.end(text);
    const { stdout, stderr } = await check;
    expect(`${stdout}${stderr}`.trim()).toBe("");
  });

  describe("scraped by a real Prometheus", () => {
    let prometheus: RunningPrometheus;
    beforeAll(async () => {
      prometheus = await startPrometheusScraping(`127.0.0.1:${server.port}`);
    });
    afterAll(async () => {
      await prometheus?.stop();
    });

    it("queries the outbox depth back", async () => {
      const pending = await seeded.db.select().from(clusterChanges).where(eq(clusterChanges.status, "pending"));
      const deadline = Date.now() + 20_000;
      let value: string | undefined;
      while (Date.now() < deadline) {
        const response = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent('allot_outbox_changes{job="allot",status="pending"}')}`);
        const body = (await response.json()) as { data: { result: { value: [number, string] }[] } };
        value = body.data.result[0]?.value[1];
        if (value !== undefined) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(value).toBe(String(pending.length));
    });
  });
});
