import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { auditEvents, tenants } from "@/db/schema";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { auditLog, countOf, errorText, rejectionOf, rowsOf } from "@/test/fixtures";
import { GENESIS_HASH, hashAuditEvent } from "./chain";
import { recordAudit, type AuditEntry } from "./record";
import { verifyAuditChain } from "./verify";

const T0 = new Date("2026-12-02T10:00:00.000Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
});
afterAll(async () => {
  await handle?.close();
});

function entry(n: number, extra: Partial<AuditEntry> = {}): AuditEntry {
  return {
    actor: { principalId: null, label: "test:audit" },
    at: at(n),
    tenantId: null,
    action: `test.event_${n}`,
    target: { type: "thing", id: `thing-${n}` },
    ...extra,
  };
}

const append = (e: AuditEntry) => db.transaction((tx) => recordAudit(tx, e));

/** Run a statement with the append-only trigger off, as someone with table-owner rights could. */
async function withTriggerDisabled(work: () => Promise<void>) {
  await db.execute(sql`alter table audit_events disable trigger audit_events_append_only`);
  try {
    await work();
  } finally {
    await db.execute(sql`alter table audit_events enable trigger audit_events_append_only`);
  }
}

describe(`audit log (${databaseLabel()})`, () => {
  it("appends a hash chain numbered 1..n, each event linked to the one before", async () => {
    const seqs: number[] = [];
    seqs.push(await append(entry(1, { after: { slug: "vision", nested: { b: 1, a: [1, 2, { z: null, y: "x" }] } } })));
    seqs.push(await append(entry(2, { tenantId: "11111111-1111-4111-8111-111111111111", before: { role: "member" }, after: { role: "viewer" } })));
    seqs.push(await append(entry(3, { actor: { principalId: "22222222-2222-4222-8222-222222222222", label: "alex@vision.example" }, after: { until: at(60) } })));
    seqs.push(await append(entry(4)));
    seqs.push(await append(entry(5, { after: { unicode: "Zoë – 東京", big: 12345678901, ratio: 0.25 } })));
    expect(seqs).toEqual([1, 2, 3, 4, 5]);

    const log = await auditLog(db);
    expect(log.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(log[0]!.prevHash).toBe(GENESIS_HASH);
    for (let i = 1; i < log.length; i++) expect(log[i]!.prevHash).toBe(log[i - 1]!.hash);
    expect(new Set(log.map((e) => e.hash)).size).toBe(5);
    // Dates inside jsonb are stored as their ISO strings, as the hash assumed.
    expect(log[2]!.after).toEqual({ until: at(60).toISOString() });
    expect(log[3]!).toMatchObject({ before: null, after: null, at: at(4) });

    expect(await verifyAuditChain(db)).toEqual({ intact: true, events: 5 });
  });

  it("refuses UPDATE, DELETE and TRUNCATE of stored events", async () => {
    const before = await auditLog(db);
    const update = await rejectionOf(db.update(auditEvents).set({ actorLabel: "someone-else" }).where(eq(auditEvents.seq, 2)));
    expect(errorText(update)).toContain("audit_events is append-only (UPDATE refused)");
    const remove = await rejectionOf(db.delete(auditEvents).where(eq(auditEvents.seq, 2)));
    expect(errorText(remove)).toContain("audit_events is append-only (DELETE refused)");
    const truncate = await rejectionOf(db.execute(sql`truncate audit_events`));
    expect(errorText(truncate)).toContain("audit_events is append-only (TRUNCATE refused)");
    expect(await auditLog(db)).toEqual(before);
  });

  it("detects an event changed behind the trigger's back, at that event", async () => {
    const [original] = await db.select().from(auditEvents).where(eq(auditEvents.seq, 2));
    await withTriggerDisabled(async () => {
      await db.execute(sql`update audit_events set after = jsonb_set(after, '{role}', '"tenant_admin"') where seq = 2`);
    });
    const verdict = await verifyAuditChain(db);
    expect(verdict).toEqual({ intact: false, events: 1, broken: { seq: 2, reason: expect.stringMatching(/changed/) as unknown } });

    await withTriggerDisabled(async () => {
      await db.update(auditEvents).set({ after: original!.after }).where(eq(auditEvents.seq, 2));
    });
    expect(await verifyAuditChain(db)).toEqual({ intact: true, events: 5 });
  });

  it("detects an event changed and re-hashed, at the next event", async () => {
    const [original] = await db.select().from(auditEvents).where(eq(auditEvents.seq, 3));
    const forged = { ...original!, actorLabel: "nobody" };
    await withTriggerDisabled(async () => {
      await db.update(auditEvents).set({ actorLabel: "nobody", hash: hashAuditEvent(forged.prevHash, forged) }).where(eq(auditEvents.seq, 3));
    });
    expect(await verifyAuditChain(db)).toMatchObject({ intact: false, broken: { seq: 4, reason: expect.stringMatching(/previous hash/) as unknown } });

    await withTriggerDisabled(async () => {
      await db.update(auditEvents).set({ actorLabel: original!.actorLabel, hash: original!.hash }).where(eq(auditEvents.seq, 3));
    });
    expect(await verifyAuditChain(db)).toEqual({ intact: true, events: 5 });
  });

  it("detects a deleted event in the middle, at the event after it", async () => {
    const [removed] = await db.select().from(auditEvents).where(eq(auditEvents.seq, 3));
    await withTriggerDisabled(async () => {
      await db.delete(auditEvents).where(eq(auditEvents.seq, 3));
    });
    expect(await verifyAuditChain(db)).toEqual({ intact: false, events: 2, broken: { seq: 4, reason: expect.stringMatching(/missing/) as unknown } });

    // Putting the very same row back restores the chain: the hashes cover content only.
    await db.insert(auditEvents).values(removed!);
    expect(await verifyAuditChain(db)).toEqual({ intact: true, events: 5 });
  });

  it("has the trigger back on after the tampering tests", async () => {
    const update = await rejectionOf(db.update(auditEvents).set({ actorLabel: "x" }).where(eq(auditEvents.seq, 1)));
    expect(errorText(update)).toContain("append-only (UPDATE refused)");
  });

  it("rolls an event back together with the change it records", async () => {
    const eventsBefore = await countOf(db, "audit_events");
    const failure = await rejectionOf(
      db.transaction(async (tx) => {
        const [tenant] = await tx.insert(tenants).values({ slug: "rolled-back", name: "Rolled back" }).returning();
        await recordAudit(tx, entry(6, { action: "tenant.created", target: { type: "tenant", id: tenant!.id } }));
        throw new Error("failed after auditing");
      }),
    );
    expect(errorText(failure)).toContain("failed after auditing");
    expect(await db.select().from(tenants).where(eq(tenants.slug, "rolled-back"))).toEqual([]);
    expect(await countOf(db, "audit_events")).toBe(eventsBefore);

    // The number the rolled-back event had is reused: the chain stays gapless.
    expect(await append(entry(7))).toBe(eventsBefore + 1);
    expect(await verifyAuditChain(db)).toEqual({ intact: true, events: eventsBefore + 1 });
  });

  it("keeps the chain gapless under 20 concurrent writers", async () => {
    const start = await countOf(db, "audit_events");
    const writers = Array.from({ length: 20 }, (_, i) =>
      db.transaction(async (tx) => {
        // Open the transaction on its own connection first, so the writers really overlap.
        const [self] = await rowsOf<{ pid: number }>(tx, sql`select pg_backend_pid() as pid`);
        const seq = await recordAudit(tx, entry(100 + i, { action: "test.concurrent", target: { type: "writer", id: String(i) } }));
        // Hold the chain lock a moment so the others queue behind it.
        await tx.execute(sql`select pg_sleep(0.005)`);
        return { seq, pid: Number(self!.pid) };
      }),
    );
    const results = await Promise.all(writers);

    expect(results.map((r) => r.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => start + 1 + i));
    const log = await auditLog(db);
    expect(log.map((e) => e.seq)).toEqual(Array.from({ length: start + 20 }, (_, i) => i + 1));
    expect(log.filter((e) => e.action === "test.concurrent").map((e) => e.targetId).sort()).toEqual(Array.from({ length: 20 }, (_, i) => String(i)).sort());
    expect(await verifyAuditChain(db)).toEqual({ intact: true, events: start + 20 });

    const sessions = new Set(results.map((r) => r.pid)).size;
    if (handle.kind === "postgres") {
      // Writers ran on several connections at once: the advisory lock, not luck, kept the order.
      expect(sessions).toBeGreaterThan(1);
    } else {
      // PGlite is a single session: its transactions run one after another.
      expect(sessions).toBe(1);
    }
  });
});
