import { eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterChanges } from "@/db/schema";
import { parseConfig } from "@/lib/config";
import { databaseLabel } from "@/test/database";
import { projectIdOf, seededDatabase } from "@/test/tenancy";
import { enqueueClusterChange } from "./outbox";
import { claimDueChanges, DEFAULT_LEASE_MS, processChange, reconcileDue, releaseClaims, renewClaims, type ReconcilerOptions } from "./worker";

/**
 * Claims are short leases kept alive by the worker that holds them: a dead
 * replica's changes are taken over within a lease, and a stopping replica hands
 * back what it has not started at once instead of leaving it to lapse.
 */
const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const settings = parseConfig({}).cluster;
const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let clockAt = NOW;

beforeAll(async () => {
  db = seeded.db;
  // The seed's own changes are out of the way: each test queues its own.
  await reconcileDue(worker("seed"));
});

const worker = (id: string, extra: Partial<ReconcilerOptions> = {}): ReconcilerOptions => ({ db, settings, client: null, clock: () => clockAt, workerId: id, ...extra });

async function queueChanges(count: number): Promise<number[]> {
  const projects = [
    await projectIdOf(db, "vision-lab", "detector-training"),
    await projectIdOf(db, "vision-lab", "segmentation-research"),
    await projectIdOf(db, "language-models", "pretraining"),
    await projectIdOf(db, "language-models", "chat-eval"),
  ];
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const projectId = projects[i % projects.length]!;
    const tenantId = seeded.tenantId[i % projects.length < 2 ? "vision-lab" : "language-models"]!;
    ids.push(await enqueueClusterChange(db, { tenantId, projectId, reason: `lease test ${i}`, at: clockAt }));
  }
  return ids;
}

const rowsOf = (ids: number[]) => db.select().from(clusterChanges).where(inArray(clusterChanges.id, ids));

describe(`claim leases (${databaseLabel()})`, () => {
  it("a claim lasts a short lease by default, so a dead worker's change is taken over within it", async () => {
    expect(DEFAULT_LEASE_MS).toBeLessThanOrEqual(60_000);
    await queueChanges(1);
    const [claimed] = await claimDueChanges(worker("dies"));
    expect(claimed!.claimedUntil!.getTime() - NOW.getTime()).toBe(DEFAULT_LEASE_MS);
    clockAt = new Date(NOW.getTime() + DEFAULT_LEASE_MS + 1);
    try {
      expect(await reconcileDue(worker("survivor"))).toBe(1);
    } finally {
      clockAt = NOW;
    }
    const [done] = await db.select().from(clusterChanges).where(eq(clusterChanges.id, claimed!.id));
    expect(done).toMatchObject({ status: "recorded", claimedBy: null });
  });

  it("a heartbeat renews only the claims this worker still holds", async () => {
    await queueChanges(1);
    const [mine] = await claimDueChanges(worker("alive"));
    clockAt = new Date(NOW.getTime() + 20_000);
    try {
      await renewClaims(worker("alive"), [mine!.id]);
      await renewClaims(worker("impostor"), [mine!.id]);
      const [row] = await rowsOf([mine!.id]);
      expect(row).toMatchObject({ claimedBy: "alive", claimedUntil: new Date(NOW.getTime() + 20_000 + DEFAULT_LEASE_MS) });
      // Renewed past the original lease: nobody else takes it at that instant.
      clockAt = new Date(NOW.getTime() + DEFAULT_LEASE_MS + 1);
      expect(await claimDueChanges(worker("other"))).toEqual([]);
      expect(await processChange(worker("alive"), mine!)).toEqual({ status: "recorded" });
    } finally {
      clockAt = NOW;
    }
  });

  it("released claims are due at once for another worker, with the unused attempt given back", async () => {
    const ids = await queueChanges(2);
    const claimed = await claimDueChanges(worker("stopping"));
    expect(claimed.map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(await releaseClaims(worker("someone-else"), ids)).toBe(0);
    expect(await releaseClaims(worker("stopping"), ids)).toBe(2);
    expect((await rowsOf(ids)).map((r) => ({ status: r.status, claimedBy: r.claimedBy, attempts: r.attempts }))).toEqual([
      { status: "pending", claimedBy: null, attempts: 0 },
      { status: "pending", claimedBy: null, attempts: 0 },
    ]);
    expect(await reconcileDue(worker("next"))).toBe(2);
  });

  it("a worker stopped mid-batch finishes the change in flight and hands back the rest at once", async () => {
    const ids = await queueChanges(3);
    const stop = new AbortController();
    let clockCalls = 0;
    // The first clock read is the claim; the second is inside the first change: stop there.
    const clock = () => {
      clockCalls += 1;
      if (clockCalls === 2) stop.abort();
      return clockAt;
    };
    const processed = await reconcileDue(worker("rolling", { clock, signal: stop.signal, concurrency: 1, batchSize: 3 }));
    expect(processed).toBe(1);
    const rows = await rowsOf(ids);
    expect(rows.filter((r) => r.status === "recorded")).toHaveLength(1);
    expect(rows.filter((r) => r.status === "pending" && r.claimedBy === null)).toHaveLength(2);
    // Another replica takes them over immediately, not after a lease.
    expect(await reconcileDue(worker("other"))).toBe(2);
  });

  it("a stopped worker claims nothing", async () => {
    await queueChanges(1);
    const stop = new AbortController();
    stop.abort();
    expect(await reconcileDue(worker("stopped", { signal: stop.signal }))).toBe(0);
    expect(await reconcileDue(worker("other"))).toBe(1);
  });

  it("a batch comes back in the order its changes were queued, however the rows lie on disk", async () => {
    const ids = await queueChanges(4);
    // Rewriting the first two moves their row versions behind the others: UPDATE … RETURNING then gives them last.
    await db.update(clusterChanges).set({ updatedAt: NOW }).where(inArray(clusterChanges.id, ids.slice(0, 2)));
    const claimed = await claimDueChanges(worker("in-order"));
    expect(claimed.map((c) => c.id)).toEqual(ids);
    await releaseClaims(worker("in-order"), claimed.map((c) => c.id));
    await reconcileDue(worker("in-order"));
  });
});
