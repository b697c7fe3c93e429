import { desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterChangeAttempts, clusterChanges } from "@/db/schema";
import { databaseLabel } from "@/test/database";
import { seededDatabase, tenantIdsBySlug } from "@/test/tenancy";
import { clusterChangesPage, type ChangeStatus } from "./queries";

/**
 * The platform cluster page's changes, page by page (keyset on the change id):
 * walking the `older` links shows every change once, newest first, with its
 * own attempts, and the status filter holds on every page.
 */
const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const seeded = seededDatabase(SEEDED_AT);
let db: Database;
const STATUSES: ChangeStatus[] = ["applied", "failed", "recorded", "superseded"];

async function walk(filter: { status?: ChangeStatus; limit: number }): Promise<{ ids: number[]; pages: number; attemptsSeen: Map<number, number[]> }> {
  const ids: number[] = [];
  const attemptsSeen = new Map<number, number[]>();
  let before: number | undefined;
  let pages = 0;
  for (;;) {
    const page = await clusterChangesPage(db, { ...filter, before });
    pages += 1;
    expect(page.changes.length).toBeLessThanOrEqual(filter.limit);
    for (const c of page.changes) {
      ids.push(c.id);
      attemptsSeen.set(
        c.id,
        c.attemptLog.map((a) => a.changeId),
      );
    }
    if (page.older === null) break;
    expect(page.changes).toHaveLength(filter.limit);
    expect(page.older).toBe(page.changes.at(-1)!.id);
    before = page.older;
    if (pages > 100) throw new Error("paging does not end");
  }
  return { ids, pages, attemptsSeen };
}

beforeAll(async () => {
  db = seeded.db;
  const tenantId = (await tenantIdsBySlug(db))["vision-lab"]!;
  // 40 finished changes of one tenant in four statuses, each with one attempt, beside whatever the seed queued.
  const rows = await db
    .insert(clusterChanges)
    .values(Array.from({ length: 40 }, (_, i) => ({ tenantId, targetKey: `tenant:${tenantId}`, reasons: [`paging test ${i}`], status: STATUSES[i % STATUSES.length]!, finishedAt: SEEDED_AT })))
    .returning({ id: clusterChanges.id });
  await db.insert(clusterChangeAttempts).values(rows.map((r) => ({ changeId: r.id, attempt: 1, worker: "test", startedAt: SEEDED_AT, finishedAt: SEEDED_AT, outcome: "applied" })));
});

describe(`cluster changes, page by page (${databaseLabel()})`, () => {
  it("shows every change once, newest first, across pages, with no older page after the last", async () => {
    const all = (await db.select({ id: clusterChanges.id }).from(clusterChanges).orderBy(desc(clusterChanges.id))).map((r) => r.id);
    expect(all.length).toBeGreaterThan(40);
    const { ids, pages, attemptsSeen } = await walk({ limit: 7 });
    expect(ids).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 7));
    // Each change carries its own attempts only.
    for (const [id, owners] of attemptsSeen) expect(owners.every((o) => o === id)).toBe(true);
  });

  it("keeps the status filter on every page", async () => {
    for (const status of ["failed", "applied"] as const) {
      const expected = (await db.select({ id: clusterChanges.id }).from(clusterChanges).where(eq(clusterChanges.status, status)).orderBy(desc(clusterChanges.id))).map((r) => r.id);
      expect(expected.length).toBeGreaterThanOrEqual(10);
      const { ids } = await walk({ status, limit: 3 });
      expect(ids).toEqual(expected);
    }
  });

  it("gives an empty last page, not an error, for a cursor older than every change", async () => {
    expect(await clusterChangesPage(db, { before: 1 })).toEqual({ changes: [], older: null });
  });

  it("has no older page when a page holds exactly the rest", async () => {
    const count = (await db.select({ id: clusterChanges.id }).from(clusterChanges)).length;
    const page = await clusterChangesPage(db, { limit: count });
    expect(page.changes).toHaveLength(count);
    expect(page.older).toBeNull();
  });
});
