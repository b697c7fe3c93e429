import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { leaderLeases } from "@/db/schema";
import { parseConfig } from "@/lib/config";
import { PERIODIC_LEADERSHIP, startWorkerLoop } from "./worker-loop";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { eq } from "drizzle-orm";
import { holdLeadership, LEADER_LEASE_MS, LEADER_RENEW_MS, leadershipHolder, releaseLeadership } from "./leadership";

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;
beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
});
afterAll(() => handle.close());

const T0 = new Date("2026-12-02T12:00:00Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

describe(`leadership of the periodic loops (${databaseLabel()})`, () => {
  it("has one holder at a time: the first takes it, others are refused while it renews", async () => {
    expect(await holdLeadership(db, "job-a", "replica-1", T0)).toBe(true);
    expect(await holdLeadership(db, "job-a", "replica-2", at(1000))).toBe(false);
    expect(await holdLeadership(db, "job-a", "replica-1", at(LEADER_LEASE_MS - 1000))).toBe(true);
    // Renewed: still refused past the first lease.
    expect(await holdLeadership(db, "job-a", "replica-2", at(LEADER_LEASE_MS + 1))).toBe(false);
    // Another job is led independently.
    expect(await holdLeadership(db, "job-b", "replica-2", at(1000))).toBe(true);
  });

  it("passes to another replica once the holder stops renewing (died), or at once when it gives up", async () => {
    expect(await holdLeadership(db, "job-c", "replica-1", T0)).toBe(true);
    expect(await holdLeadership(db, "job-c", "replica-2", at(LEADER_LEASE_MS + 1))).toBe(true);
    expect(await holdLeadership(db, "job-c", "replica-1", at(LEADER_LEASE_MS + 2))).toBe(false);
    await releaseLeadership(db, "job-c", "replica-1"); // not the holder: changes nothing
    expect(await holdLeadership(db, "job-c", "replica-1", at(LEADER_LEASE_MS + 3))).toBe(false);
    await releaseLeadership(db, "job-c", "replica-2");
    expect(await holdLeadership(db, "job-c", "replica-1", at(LEADER_LEASE_MS + 4))).toBe(true);
  });

  it("concurrent claims from many replicas elect exactly one", async () => {
    const won = await Promise.all(Array.from({ length: 8 }, (_, i) => holdLeadership(db, "job-d", `replica-${i}`, T0)));
    expect(won.filter(Boolean)).toHaveLength(1);
  });

  it("a replica asks for the lease only every LEADER_RENEW_MS, and believes it leads only while the lease it won runs", async () => {
    const leaseUntil = async () => (await db.select().from(leaderLeases).where(eq(leaderLeases.name, "job-e")))[0]?.leaseUntil.getTime();
    const one = leadershipHolder(db, "job-e", "replica-1");
    expect(await one.leads(T0)).toBe(true);
    expect(await leaseUntil()).toBe(at(LEADER_LEASE_MS).getTime());
    // Passes in between are answered from memory: no write.
    expect(await one.leads(at(LEADER_RENEW_MS - 1))).toBe(true);
    expect(await leaseUntil()).toBe(at(LEADER_LEASE_MS).getTime());
    // Renewed with two thirds of the lease to run.
    expect(await one.leads(at(LEADER_RENEW_MS))).toBe(true);
    expect(await leaseUntil()).toBe(at(LEADER_RENEW_MS + LEADER_LEASE_MS).getTime());
    // Another replica asks as often and is refused while the leader renews.
    const two = leadershipHolder(db, "job-e", "replica-2");
    expect(await two.leads(at(LEADER_RENEW_MS + 1))).toBe(false);
    // The leader dies (asks no more): the other takes over at its first ask after the lease ends.
    expect(await two.leads(at(LEADER_RENEW_MS + LEADER_LEASE_MS + 1))).toBe(true);
    // A leader that could not renew (it asked rarely here) stops believing it leads when its lease ends.
    const rare = leadershipHolder(db, "job-f", "replica-1", { renewMs: 60_000 });
    expect(await rare.leads(T0)).toBe(true);
    expect(await rare.leads(at(LEADER_LEASE_MS - 1))).toBe(true);
    expect(await rare.leads(at(LEADER_LEASE_MS))).toBe(false);
    // Stopping gives the lease up at once.
    await two.release();
    expect(await leaseUntil()).toBeUndefined();
  });

  it("two reconcile loops on one database: one leads the periodic loops, the other takes over when it stops", async () => {
    const settings = parseConfig({}).cluster;
    const loop = (id: string) => startWorkerLoop({ db, settings, client: null, clock: () => new Date(), workerId: id, pollMs: 20, leadershipRenewMs: 50, log: () => {} });
    const holders = async () => (await db.select().from(leaderLeases)).filter((r) => r.name === PERIODIC_LEADERSHIP).map((r) => r.holder);
    const first = loop("replica-1");
    await waitFor(async () => (await holders()).length === 1);
    const second = loop("replica-2");
    await new Promise((r) => setTimeout(r, 200));
    expect(await holders()).toEqual(["replica-1"]);
    await first.stop();
    await waitFor(async () => (await holders())[0] === "replica-2");
    await second.stop();
    expect(await holders()).toEqual([]);
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}
