/**
 * Benchmark: render and apply 1,000 projects against the stand-in Kubernetes
 * API server, over HTTP through @kubernetes/client-node, and print changes
 * per second and apply latency. Run on demand (not part of `npm test`):
 *
 *   npm run bench:reconcile                      # embedded PGlite, in memory
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/allot_bench npm run bench:reconcile
 *   npm run bench:reconcile -- --projects 2000 --concurrency 16
 *
 * The PostgreSQL database is wiped first, so only a local one is accepted.
 *
 * The reference, measured in the same run: the same server-side-apply PATCHes
 * the worker sent (path, query and body as recorded), replayed with plain
 * fetch (keep-alive) and the same concurrency against a fresh stand-in (for the
 * first apply) and the populated one (for the re-apply). "x raw" is the
 * worker's objects applied per second over the replay's.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { clusterChangeAttempts, clusterChanges, memberships, principals, projectGrants, projects, serviceAccounts, tenants, users } from "@/db/schema";
import { parseConfig } from "@/lib/config";
import { kubeClientFromConfig, kubeConfigFor } from "@/lib/cluster/kube-client";
import { enqueueClusterChange } from "@/lib/cluster/outbox";
import { reconcileDue } from "@/lib/cluster/worker";
import { namespaceFor } from "@/lib/tenancy/slugs";
import { freshTestDatabase } from "@/test/database";
import { startStandInApiServer, type RecordedRequest } from "@/test/kube-api/server";

const { values: args } = parseArgs({
  options: {
    projects: { type: "string", default: "1000" },
    "per-tenant": { type: "string", default: "20" },
    concurrency: { type: "string", default: "8" },
  },
});
const PROJECTS = Number(args.projects);
const PER_TENANT = Number(args["per-tenant"]);
const CONCURRENCY = Number(args.concurrency);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function main() {
  const handle = await freshTestDatabase();
  const db = handle.db;
  const api = await startStandInApiServer();
  const settings = parseConfig({}).cluster;
  const now = new Date();

  // Desired state: tenants of PER_TENANT projects, each tenant with an admin, a
  // viewer and a member, each project one member grant and one service account.
  const tenantCount = Math.ceil(PROJECTS / PER_TENANT);
  let made = 0;
  for (let t = 0; t < tenantCount; t++) {
    await db.transaction(async (tx) => {
      const [tenant] = await tx.insert(tenants).values({ slug: `bench-${t}`, name: `Bench ${t}`, costCentre: `CC-${t}` }).returning();
      const people = await tx
        .insert(principals)
        .values(["admin", "viewer", "member"].map((r) => ({ kind: "user" as const, displayName: `${r} ${t}` })))
        .returning();
      await tx.insert(users).values(people.map((p, i) => ({ principalId: p.id, email: `${["admin", "viewer", "member"][i]}-${t}@bench.example` })));
      await tx.insert(memberships).values([
        { tenantId: tenant!.id, principalId: people[0]!.id, role: "tenant_admin" },
        { tenantId: tenant!.id, principalId: people[1]!.id, role: "viewer" },
        { tenantId: tenant!.id, principalId: people[2]!.id, role: "member" },
      ]);
      for (let p = 0; p < PER_TENANT && made < PROJECTS; p++, made++) {
        const slug = `project-${p}`;
        const [project] = await tx.insert(projects).values({ tenantId: tenant!.id, slug, name: slug, namespace: namespaceFor(tenant!.slug, slug) }).returning();
        const [sa] = await tx.insert(principals).values({ kind: "service_account", displayName: `ci-${p}` }).returning();
        await tx.insert(serviceAccounts).values({ principalId: sa!.id, tenantId: tenant!.id, name: `ci-${p}` });
        await tx.insert(projectGrants).values([
          { projectId: project!.id, principalId: people[2]!.id, role: "member" },
          { projectId: project!.id, principalId: sa!.id, role: "member" },
        ]);
        await enqueueClusterChange(tx, { tenantId: tenant!.id, projectId: project!.id, reason: "benchmark", at: now });
      }
    });
  }

  const client = kubeClientFromConfig(kubeConfigFor(api.url));
  const run = async (label: string) => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const processed = await reconcileDue({ db, settings, client, clock: () => new Date(), workerId: "bench", concurrency: CONCURRENCY, batchSize: 50 });
    const seconds = (performance.now() - started) / 1000;
    return { label, processed, seconds, cpuMs: cpuMsSince(cpu) };
  };

  const requestsBefore = api.requests.length;
  const connectionsBefore = api.connections;
  const first = await run("first apply");
  const firstRequests = api.requests.slice(requestsBefore);
  const firstConnections = api.connections - connectionsBefore;
  const latencies = (
    await db
      .select({ ms: sql<number>`extract(epoch from (${clusterChangeAttempts.finishedAt} - ${clusterChangeAttempts.startedAt})) * 1000` })
      .from(clusterChangeAttempts)
  )
    .map((r) => Number(r.ms))
    .sort((a, b) => a - b);
  const statuses = await db.select({ status: clusterChanges.status, n: sql<number>`count(*)::int` }).from(clusterChanges).groupBy(clusterChanges.status);

  // Again, unchanged: every apply is a no-op on the server (idempotent).
  await db.transaction(async (tx) => {
    for (const p of await tx.select({ id: projects.id, tenantId: projects.tenantId }).from(projects)) {
      await enqueueClusterChange(tx, { tenantId: p.tenantId, projectId: p.id, reason: "benchmark re-apply", at: new Date() });
    }
  });
  const versionsBefore = api.objects().map((o) => o.metadata.resourceVersion).join();
  const secondFrom = api.requests.length;
  const secondConnectionsBefore = api.connections;
  const second = await run("re-apply, unchanged");
  const secondRequests = api.requests.slice(secondFrom);
  const secondConnections = api.connections - secondConnectionsBefore;
  const unchanged = api.objects().map((o) => o.metadata.resourceVersion).join() === versionsBefore;

  // The reference: the worker's own PATCHes, replayed raw. First onto an empty stand-in (creates, as the first apply), then again onto it (no-ops, as the re-apply).
  const firstPatches = firstRequests.filter((q) => q.method === "PATCH");
  const rawApi = await startStandInApiServer();
  const rawFirst = await replayPatches(rawApi.url, firstPatches, CONCURRENCY);
  const rawSecond = await replayPatches(rawApi.url, secondRequests.filter((q) => q.method === "PATCH"), CONCURRENCY);
  await rawApi.close();

  console.log(`reconcile benchmark: ${PROJECTS} projects in ${tenantCount} tenants, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown CPU"}), Node ${process.version}`);
  console.log(`database: ${handle.target.kind === "postgres" ? "PostgreSQL" : "PGlite (in memory)"}; stand-in API server over HTTP; worker concurrency ${CONCURRENCY}`);
  const objectCount = api.objects().length;
  console.log(`objects on the cluster: ${objectCount}`);
  for (const [r, requests, connections] of [
    [first, firstRequests, firstConnections],
    [second, secondRequests, secondConnections],
  ] as const) {
    const applied = requests.filter((q) => q.method === "PATCH").length;
    const raw = r === first ? rawFirst : rawSecond;
    const rawRate = raw.patches / raw.seconds;
    console.log(
      `${r.label}: ${r.processed} changes in ${fmt(r.seconds, 2)} s = ${fmt(r.processed / r.seconds)} changes/s, ${fmt(applied / r.seconds)} objects applied/s; ` +
        `${requests.length} requests (${describeRequests(requests)}) = ${fmt(requests.length / applied, 2)} per object applied; ${connections} TCP connections opened`,
    );
    console.log(
      `  reference, the same ${raw.patches} PATCHes raw (fetch, keep-alive, concurrency ${CONCURRENCY}): ${fmt(raw.seconds, 2)} s = ${fmt(rawRate)} objects/s, p50 ${fmt(raw.p50)} ms; ` +
        `the worker reaches ${fmt(applied / r.seconds / rawRate, 2)}x raw (target >= 0.5x)`,
    );
    console.log(
      `  this process's CPU per object applied (stand-in included${handle.target.kind === "pglite" ? ", PGlite included" : ", the PostgreSQL server not"}): ` +
        `worker ${fmt(r.cpuMs / applied, 2)} ms, raw ${fmt(raw.cpuMs / raw.patches, 2)} ms`,
    );
  }
  console.log(
    `apply latency per change (first apply): p50 ${fmt(percentile(latencies, 50))} ms, p95 ${fmt(percentile(latencies, 95))} ms, p99 ${fmt(percentile(latencies, 99))} ms, max ${fmt(latencies.at(-1) ?? 0)} ms`,
  );
  console.log(`change statuses after the first apply: ${statuses.map((s) => `${s.status} ${s.n}`).join(", ")}`);
  console.log(`re-apply left every object's resourceVersion unchanged: ${unchanged ? "yes" : "NO"}`);

  await api.close();
  await handle.close();
}

/**
 * Sends recorded requests again as they were and times them (every answer must be a success).
 * As the worker does, the objects of one namespace go in their recorded order (the Namespace
 * before what it holds) and `concurrency` namespaces at a time.
 */
async function replayPatches(baseUrl: string, requests: readonly RecordedRequest[], concurrency: number): Promise<{ patches: number; seconds: number; p50: number; cpuMs: number }> {
  const groups = new Map<string, RecordedRequest[]>();
  for (const q of requests) {
    const key = /\/namespaces\/([^/]+)/.exec(q.path)?.[1] ?? "(cluster)";
    groups.set(key, [...(groups.get(key) ?? []), q]);
  }
  const queue = [...groups.values()];
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const lane = async () => {
    while (next < queue.length) {
      for (const q of queue[next++]!) {
        const url = new URL(q.path, baseUrl);
        for (const [k, v] of Object.entries(q.query)) url.searchParams.set(k, v);
        const t = performance.now();
        const response = await fetch(url, { method: q.method, headers: { "Content-Type": q.contentType ?? "application/apply-patch+yaml", Accept: "application/json" }, body: q.body });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`raw ${q.method} ${q.path}: ${response.status}`);
        latencies.push(performance.now() - t);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  latencies.sort((a, b) => a - b);
  return { patches: requests.length, seconds: (performance.now() - started) / 1000, p50: latencies.length ? percentile(latencies, 50) : 0, cpuMs: cpuMsSince(cpu) };
}

/**
 * This process's CPU time (user and system, all threads) since `from`, in ms: the stand-in, the
 * client and, on PGlite, the database. Steadier than wall time on a machine loaded by other work.
 */
function cpuMsSince(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
}

/** "PATCH 880, LIST 60, discovery 6, DELETE 0". */
function describeRequests(requests: readonly RecordedRequest[]): string {
  const counts = new Map<string, number>();
  for (const q of requests) {
    const segments = q.path.split("/").filter(Boolean);
    const discovery = q.method === "GET" && (segments.length <= 2 || (segments[0] === "apis" && segments.length === 3));
    const what = discovery ? "discovery" : q.method === "GET" && !q.path.match(/\/namespaces\/[^/]+\/[^/]+\/[^/]+$/) && q.query.labelSelector !== undefined ? "LIST" : q.method;
    counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} ${n}`).join(", ");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
