import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, count, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterChangeAttempts, clusterChanges, leaderLeases, projects } from "@/db/schema";
import { newApiToken } from "@/lib/auth/api-token";
import { executeCommand } from "@/lib/auth/command";
import { kubeConfigFor } from "@/lib/cluster/kube-client";
import { FAILURE_LIMITS } from "@/lib/api/rate-limit";
import { PERIODIC_LEADERSHIP } from "@/lib/jobs/worker-loop";
import { createProject } from "@/lib/tenancy/commands/create-project";
import { createServiceAccountAsOperator, mintTokenAsOperator } from "@/lib/tenancy/operator";
import { emptyTestDatabase } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { freePort } from "@/test/ports";

/**
 * Several replicas on one PostgreSQL, as a Deployment of two runs them: two
 * portal processes (`next start` of the production build, each with its
 * in-process worker), one database, the stand-in API server. Run by `npm test`
 * after the production build when DATABASE_URL names a PostgreSQL.
 *
 * Leases are short here (ALLOT_CLUSTER_LEASE_SECONDS, ALLOT_LEADER_LEASE_SECONDS)
 * so takeovers are seen in seconds; the drift check runs every minute, the
 * shortest interval there is, so "once per interval" is seen within the run.
 */
const CLAIM_LEASE_S = 6;
const LEADER_LEASE_S = 6;
const CHANGES = 200;
const NEXT_BIN = path.join(process.cwd(), "node_modules", "next", "dist", "bin", "next");

interface Replica {
  name: string;
  port: number;
  metricsPort: number;
  process: ChildProcess;
  /** As the worker names itself in claims and attempts (lib/jobs/worker-loop.ts workerIdentity). */
  workerId: string;
  output: string[];
  exited: Promise<number | null>;
}

let db: Database;
let closeDb: () => Promise<void>;
let api: StandInApiServer;
let kubeconfig: string;
const replicas: Replica[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string | (() => string), probe: () => Promise<T | null | undefined | false>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`);
    await sleep(everyMs);
  }
}

async function startReplica(name: string): Promise<Replica> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port)], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_URL: process.env.DATABASE_URL,
      ALLOT_DATA_DIR: "",
      AUTH_SECRET: "allot-replica-test-secret-0123456789-abcdefghij",
      AUTH_URL: `http://127.0.0.1:${port}`,
      ALLOT_DEMO: "1",
      KUBECONFIG: kubeconfig,
      ALLOT_CLUSTER_MODE: "auto",
      ALLOT_CLUSTER_LEASE_SECONDS: String(CLAIM_LEASE_S),
      ALLOT_LEADER_LEASE_SECONDS: String(LEADER_LEASE_S),
      ALLOT_DRIFT_INTERVAL_MINUTES: "1",
      ALLOT_SHUTDOWN_DRAIN_SECONDS: "1",
      METRICS_PORT: String(metricsPort),
      // The test reads the replicas' JSON lines (test runs otherwise log warnings only).
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      // As npm start and the image's entry set it: the portal's own SIGTERM handling (lib/server/shutdown.ts), not Next's exit 143.
      NEXT_MANUAL_SIG_HANDLE: "true",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout.on("data", (d: Buffer) => output.push(d.toString()));
  child.stderr.on("data", (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const replica: Replica = { name, port, metricsPort, process: child, workerId: `server@${os.hostname()}:${child.pid}`, output, exited };
  replicas.push(replica);
  await until(
    `${name} to be ready (output so far: ${output.join("").slice(-2000)})`,
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${output.join("").slice(-4000)}`);
      return (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok).catch(() => false)) && fs.existsSync(kubeconfig);
    },
    120_000,
    250,
  );
  return replica;
}

/** The JSON lines a replica has logged (what it prints otherwise, Next's own banner, is skipped). */
const logLines = (r: Replica) =>
  r.output
    .join("")
    .split("\n")
    .flatMap((l) => {
      if (!l.startsWith("{")) return [];
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return []; // the last line, still being written
      }
    });

const leaderHolder = async () => (await db.select({ holder: leaderLeases.holder, leaseUntil: leaderLeases.leaseUntil }).from(leaderLeases).where(eq(leaderLeases.name, PERIODIC_LEADERSHIP)))[0];
const leaderGauge = async (r: Replica) => {
  const text = await fetch(`http://127.0.0.1:${r.metricsPort}/metrics`).then((res) => res.text());
  const value = /^allot_leader\{loop="periodic"\} (\d+)$/m.exec(text)?.[1];
  return value === undefined ? null : Number(value);
};
const statusCounts = async (ids: number[]) =>
  Object.fromEntries((await db.select({ status: clusterChanges.status, n: count() }).from(clusterChanges).where(inArray(clusterChanges.id, ids)).groupBy(clusterChanges.status)).map((r) => [r.status, r.n]));

/** Make `n` projects in one tenant (each enqueues its cluster change); returns their change ids. */
async function newProjects(stem: string, n: number): Promise<number[]> {
  const admin = await contextOf(db, "platform-admin", new Date());
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const project = await executeCommand(createProject, admin, { tenant: "vision-lab", name: `${stem} ${i}`, slug: `${stem}-${i}`, description: "" });
    ids.push(project.id);
  }
  const changes = await db.select({ id: clusterChanges.id }).from(clusterChanges).where(inArray(clusterChanges.projectId, ids));
  return changes.map((c) => c.id);
}

beforeAll(async () => {
  if (!process.env.DATABASE_URL) throw new Error("The replica test needs DATABASE_URL naming a PostgreSQL (npm test runs it only then).");
  const handle = await emptyTestDatabase();
  db = handle.db;
  closeDb = handle.close;
  api = await startStandInApiServer();
  kubeconfig = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "allot-replicas-")), "kubeconfig");
  fs.writeFileSync(kubeconfig, kubeConfigFor(api.url).exportConfig());
  // One after the other, as a rollout starts them: the first migrates and seeds, the second finds it done.
  await startReplica("a");
  await startReplica("b");
}, 300_000);

afterAll(async () => {
  for (const r of replicas) if (r.process.exitCode === null) r.process.kill("SIGKILL");
  await Promise.all(replicas.map((r) => r.exited));
  await api?.close();
  await closeDb?.();
});

describe("two portal replicas on one PostgreSQL", () => {
  let a: Replica;
  let b: Replica;
  let survivor: Replica;

  it("both serve; exactly one leads the periodic jobs, in the database and in allot_leader", async () => {
    [a, b] = [replicas[0]!, replicas[1]!];
    const holder = await until("a periodic leader", async () => (await leaderHolder())?.holder, 20_000);
    expect([a.workerId, b.workerId]).toContain(holder);
    const gauges = await until("both replicas to report allot_leader", async () => {
      const g = [await leaderGauge(a), await leaderGauge(b)];
      return g.every((v) => v !== null) && g[0]! + g[1]! === 1 ? g : null;
    }, 20_000);
    expect(gauges).toEqual(holder === a.workerId ? [1, 0] : [0, 1]);
  });

  it(`applies ${CHANGES} changes exactly once, and finishes them when the leader is killed (SIGKILL) mid-batch`, async () => {
    // The seed's changes first, so what follows counts only the new ones.
    await until("the seed's changes to settle", async () => (await db.select({ n: count() }).from(clusterChanges).where(inArray(clusterChanges.status, ["pending", "applying"])))[0]!.n === 0, 60_000);
    const leaderId = (await leaderHolder())!.holder;
    const victim = leaderId === a.workerId ? a : b;
    survivor = victim === a ? b : a;

    // Each change's Namespace PATCH answered 150 ms late: two workers then apply
    // slower than the test makes projects, so a backlog builds and "mid-batch"
    // is a state that lasts seconds, not a race the workers can win on a fast machine.
    api.faults.push({ match: { method: "PATCH", kind: "Namespace" }, delayMs: 150, times: CHANGES });
    const ids = await newProjects("replica", CHANGES);
    expect(ids).toHaveLength(CHANGES);
    // Mid-batch: the victim has applied some and still holds claims, and work is left.
    let midBatch: Record<string, number> = {};
    await until(
      () => `the leader to be mid-batch (last seen: ${JSON.stringify(midBatch)})`,
      async () => {
        const [{ applied }] = (await db.select({ applied: count() }).from(clusterChangeAttempts).where(and(eq(clusterChangeAttempts.worker, victim.workerId), eq(clusterChangeAttempts.outcome, "applied")))) as [{ applied: number }];
        const [{ held }] = (await db.select({ held: count() }).from(clusterChanges).where(and(eq(clusterChanges.status, "applying"), eq(clusterChanges.claimedBy, victim.workerId)))) as [{ held: number }];
        const s = await statusCounts(ids);
        midBatch = { applied, held, ...s };
        return applied >= 5 && held > 0 && (s.pending ?? 0) + (s.applying ?? 0) >= 40;
      },
      60_000,
      20,
    );
    const heldAtKill = (await db.select({ id: clusterChanges.id }).from(clusterChanges).where(and(eq(clusterChanges.status, "applying"), eq(clusterChanges.claimedBy, victim.workerId)))).map((c) => c.id);
    const killedAt = Date.now();
    victim.process.kill("SIGKILL");
    await victim.exited;

    await until("every change applied", async () => (await statusCounts(ids)).applied === CHANGES, 120_000, 200);
    // What is left of the delays must not slow the tests after this one.
    api.faults.clear();
    const finishedAfter = Date.now() - killedAt;
    // Exactly once: one successful attempt per change, whoever made it.
    const successes = await db
      .select({ changeId: clusterChangeAttempts.changeId, n: count() })
      .from(clusterChangeAttempts)
      .where(and(inArray(clusterChangeAttempts.changeId, ids), eq(clusterChangeAttempts.outcome, "applied")))
      .groupBy(clusterChangeAttempts.changeId);
    expect(successes).toHaveLength(CHANGES);
    expect(successes.filter((s) => s.n !== 1)).toEqual([]);
    // What the dead replica held and had not finished before it died was taken over by the survivor once its claim lapsed.
    expect(heldAtKill.length).toBeGreaterThan(0);
    const appliedBy = await db
      .select({ changeId: clusterChangeAttempts.changeId, worker: clusterChangeAttempts.worker })
      .from(clusterChangeAttempts)
      .where(and(inArray(clusterChangeAttempts.changeId, heldAtKill), eq(clusterChangeAttempts.outcome, "applied")));
    expect(appliedBy.filter((x) => x.worker !== survivor.workerId && x.worker !== victim.workerId)).toEqual([]);
    const takenOver = appliedBy.filter((x) => x.worker === survivor.workerId);
    expect(takenOver.length).toBeGreaterThan(0);
    // The survivor's log says so, one JSON line per change naming it.
    const survivorApplied = new Set(logLines(survivor).filter((l) => l.msg === "change applied").map((l) => l.changeId));
    expect(takenOver.filter((x) => !survivorApplied.has(x.changeId))).toEqual([]);
    // Every project's namespace exists on the cluster.
    const made = await db.select({ namespace: projects.namespace }).from(projects).where(sql`${projects.slug} like 'replica-%'`);
    expect(made.filter((p) => !api.get("v1", "Namespace", undefined, p.namespace))).toEqual([]);
    console.log(`replicas: ${CHANGES} changes applied once each; ${takenOver.length} of the ${heldAtKill.length} held by the killed leader taken over by the survivor; all done ${(finishedAfter / 1000).toFixed(1)} s after the kill (claim lease ${CLAIM_LEASE_S} s)`);

    // The survivor took over the periodic jobs within a leader lease and a renewal.
    const holder = await until("the survivor to lead", async () => ((await leaderHolder())?.holder === survivor.workerId ? true : null), (LEADER_LEASE_S + 10) * 1000);
    expect(holder).toBe(true);
    expect(await leaderGauge(survivor)).toBe(1);
  }, 300_000);

  it("counts failed authentications across replicas: the prefix limit holds over both together", async () => {
    const other = await startReplica("c");
    const { token } = newApiToken(); // well formed, never issued
    const call = (r: Replica, i: number) =>
      fetch(`http://127.0.0.1:${r.port}/api/v1/tenants`, { headers: { authorization: `Bearer ${token}`, "x-real-ip": `198.51.100.${i}` } }).then((res) => res.status);
    const statuses: number[] = [];
    for (let i = 0; i < FAILURE_LIMITS.perPrefix; i++) statuses.push(await call(i % 2 === 0 ? survivor : other, i + 1));
    // Each replica saw only half the limit, yet both now refuse the prefix.
    expect(statuses).toEqual(Array(FAILURE_LIMITS.perPrefix).fill(401));
    expect([await call(survivor, 100), await call(other, 101)]).toEqual([429, 429]);
  }, 180_000);

  it("runs the periodic drift check once per interval across the replicas, not in each", async () => {
    // Drift reads each applied object with a GET of its own; the apply path never GETs one object.
    const objectGets = () => api.requests.filter((r) => r.method === "GET" && /\/namespaces\/[^/]+$/.test(r.path) && !r.path.includes("/namespaces/default") && !r.path.includes("kube-system"));
    // The leader's first check comes an interval after it took over; wait until it has read every project's namespace.
    await until("a drift check over every namespace", () => Promise.resolve(new Set(objectGets().map((r) => r.path)).size > CHANGES), 150_000, 1000);
    const byObject = new Map<string, number[]>();
    for (const r of objectGets()) byObject.set(r.path, [...(byObject.get(r.path) ?? []), r.at]);
    const readTwiceInAnInterval = [...byObject].filter(([, at]) => at.some((t, i) => i > 0 && t - at[i - 1]! < 50_000));
    expect(byObject.size).toBeGreaterThan(CHANGES);
    expect(readTwiceInAnInterval).toEqual([]);
  }, 240_000);

  it("gives every request an id, echoed and on each line logged while serving it", async () => {
    await createServiceAccountAsOperator(db, { tenant: null, name: "replica-log-bot", description: "", projectRoles: [] }, new Date());
    const { token } = await mintTokenAsOperator(db, null, "replica-log-bot", null, new Date());
    const response = await fetch(`http://127.0.0.1:${survivor.port}/api/v1/tenants/vision-lab/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "x-request-id": "replica-test.req-1" },
      body: JSON.stringify({ name: "Logged project", slug: "logged-project", description: "" }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-request-id")).toBe("replica-test.req-1");
    const ofRequest = await until("the request's access line", () => {
      const lines = logLines(survivor).filter((l) => l.requestId === "replica-test.req-1");
      return Promise.resolve(lines.some((l) => l.msg === "request") ? lines : null);
    }, 10_000);
    const access = ofRequest.find((l) => l.msg === "request")!;
    expect(access).toMatchObject({ level: "info", method: "POST", path: "/api/v1/tenants/vision-lab/projects", status: 201, traceId: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown });
    // The command ran in Next's route code, in the same request and trace.
    expect(ofRequest.find((l) => l.msg === "command createProject")).toMatchObject({ outcome: "ok", principalKind: "service_account", traceId: access.traceId });

    // A hostile id is replaced: the caller is told the one used, and the forged text is logged nowhere.
    const forged = await fetch(`http://127.0.0.1:${survivor.port}/api/v1/tenants`, { headers: { authorization: `Bearer ${token}`, "x-request-id": 'x"} {"level":"fatal' } });
    const used = forged.headers.get("x-request-id")!;
    expect(used).toMatch(/^[0-9a-f-]{36}$/);
    await until("the replaced id's access line", () => Promise.resolve(logLines(survivor).some((l) => l.msg === "request" && l.requestId === used && l.status === 200)), 10_000);
    expect(survivor.output.join("")).not.toContain('x"} {"level":"fatal');
  });

  it("a replica stopped with SIGTERM hands back its claims and its leadership at once", async () => {
    const leader = survivor;
    const ids = await newProjects("handback", 60);
    await until(
      "the leader to hold claims",
      async () => (await db.select({ n: count() }).from(clusterChanges).where(and(eq(clusterChanges.status, "applying"), eq(clusterChanges.claimedBy, leader.workerId))))[0]!.n > 0,
      60_000,
      20,
    );
    leader.process.kill("SIGTERM");
    expect(await leader.exited).toBe(0);
    const stoppedAt = new Date();
    // Nothing claimed by it is left holding a lease, and the leadership row is gone or already someone else's.
    const stillClaimed = await db
      .select({ id: clusterChanges.id, until: clusterChanges.claimedUntil })
      .from(clusterChanges)
      .where(and(eq(clusterChanges.claimedBy, leader.workerId), eq(clusterChanges.status, "applying"), isNotNull(clusterChanges.claimedUntil)));
    expect(stillClaimed.filter((c) => c.until! > stoppedAt)).toEqual([]);
    expect((await leaderHolder())?.holder).not.toBe(leader.workerId);
    // The other replica finishes them sooner than a claim lease would allow if they had been left to lapse.
    const handedBackAt = Date.now();
    await until("the rest applied by the other replica", async () => (await statusCounts(ids)).applied === ids.length, 120_000, 200);
    expect(replicas.at(-1)!.process.exitCode).toBeNull();
    console.log(`replicas: SIGTERM handed back its claims; the other replica finished ${ids.length} changes ${((Date.now() - handedBackAt) / 1000).toFixed(1)} s later`);
  }, 240_000);
});
