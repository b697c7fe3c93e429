import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { quotaRequests } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { decodeCursor } from "@/lib/input/cursor";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { HOUR, projectIdOf, seededDatabase } from "@/test/tenancy";
import { config } from "@/lib/config";
import { cohortMembersByTenant, tenantLineHoldings } from "./envelope-store";
import { insertGrant } from "./grant-store";
import { loadPlatformQuota } from "./platform-quota";
import { largeRequestThreshold } from "./policy";
import { clusterAllocation, grantsOfProjects } from "./store";
import { approvalQueuePage, requestDetail, type QueueEntry, type QueueFilter } from "./queries";

/**
 * The approval queue a page at a time (keyset on created_at and id): walking
 * the pages by their `next` cursors shows every pending request exactly once,
 * oldest first, ties on the same instant included; filters run in SQL with the
 * meaning they have on an entry; the last page has no `next`; and an entry's
 * figures are the ones the request's own page shows.
 */
const NOW = new Date("2026-05-06T12:00:00Z");
const seeded = seededDatabase(new Date("2026-04-01T00:00:00Z"));
let admin: CommandContext;

/** The same instant, to the microsecond, for a dozen requests: the cursor's id breaks the tie. */
const TIE = "2026-05-02T09:30:00.123456Z";

beforeAll(async () => {
  const db = seeded.db;
  admin = await contextOf(db, "platform-admin", NOW);
  const requester = (await contextOf(db, "data-scientist", NOW)).actor.principalId;
  const places = [
    ["vision-lab", "detector-training"],
    ["vision-lab", "segmentation-research"],
    ["language-models", "chat-eval"],
  ] as const;
  const rows = [];
  for (let i = 0; i < 31; i++) {
    const [tenant, project] = places[i % places.length]!;
    const gpu = i % 3 === 0;
    rows.push({
      tenantId: seeded.tenantId[tenant]!,
      projectId: await projectIdOf(db, tenant, project),
      requestedBy: requester,
      gpuModel: gpu ? "H100" : null,
      gpuCount: gpu ? 1 + (i % 4) : 0,
      cpuCores: 2 + i,
      memoryBytes: (4 + i) * 2 ** 30,
      justification: `Paging test request ${i}`,
      monthlyCost: String(1000 * i),
      createdAt: i < 12 ? new Date(TIE) : new Date(Date.parse("2026-05-03T00:00:00Z") + i * 60_000),
    });
  }
  await db.insert(quotaRequests).values(rows);
  // Exact microseconds for the tie (a JavaScript Date holds milliseconds only).
  await db.execute(sql`update quota_requests set created_at = ${TIE}::timestamptz where justification like 'Paging test request %' and created_at = ${new Date(TIE).toISOString()}::timestamptz`);
});

/** Every pending request, oldest first by (created_at, id), as the database orders them. */
async function pendingIds(where = sql`true`): Promise<string[]> {
  const rows = await rowsOf<{ id: string }>(
    seeded.db,
    sql`select r.id from quota_requests r join tenants t on t.id = r.tenant_id where r.status = 'pending' and ${where} order by r.created_at, r.id`,
  );
  return rows.map((r) => r.id);
}

/** Walk the queue through its `next` cursors; fail on a page that repeats or skips. */
async function walk(filter: QueueFilter, limit: number): Promise<{ ids: string[]; pages: QueueEntry[][] }> {
  const pages: QueueEntry[][] = [];
  let after: string | undefined;
  for (let i = 0; i < 200; i++) {
    const page = (await approvalQueuePage(admin, filter, { limit, after: after ? decodeCursor(after)! : undefined }))!;
    pages.push(page.entries);
    if (!page.next) break;
    expect(page.entries).toHaveLength(limit);
    after = page.next;
  }
  return { ids: pages.flat().map((e) => e.id), pages };
}

describe(`the approval queue, a page at a time (${databaseLabel()})`, () => {
  it("shows every pending request exactly once across the pages, oldest first, ties on one instant included; the last page has no next", async () => {
    const expected = await pendingIds();
    expect(expected.length).toBeGreaterThanOrEqual(31);
    const [tie] = await rowsOf<{ n: number }>(seeded.db, sql`select count(*)::int as n from quota_requests where created_at = ${TIE}::timestamptz`);
    expect(tie!.n).toBe(12);
    for (const limit of [5, 7, 12]) {
      const { ids, pages } = await walk({}, limit);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expected);
      expect(pages.at(-1)!.length).toBeLessThanOrEqual(limit);
    }
    // A page exactly full at the end: no next, and no empty page after it.
    const { pages } = await walk({}, expected.length);
    expect(pages).toHaveLength(1);
  });

  it("filters in SQL with the meaning they have on an entry: tenant, GPU model, size", async () => {
    const visionId = seeded.tenantId["vision-lab"]!;
    expect((await walk({ tenant: "vision-lab" }, 4)).ids).toEqual(await pendingIds(sql`t.slug = 'vision-lab'`));
    expect((await walk({ size: "gpu" }, 4)).ids).toEqual(await pendingIds(sql`r.gpu_count > 0`));
    expect((await walk({ size: "small" }, 4)).ids).toEqual(await pendingIds(sql`r.gpu_count = 0`));
    // The GPU model as the entry reads it (requestAmountsOf), compared with the unfiltered queue.
    const whole = (await walk({}, 50)).pages.flat();
    expect((await walk({ gpuModel: "H100" }, 4)).ids).toEqual(whole.filter((e) => e.amounts.gpus.some((g) => g.model === "H100")).map((e) => e.id));
    expect((await walk({ tenant: "vision-lab", size: "gpu" }, 3)).ids).toEqual(whole.filter((e) => e.tenantId === visionId && e.amounts.gpus.some((g) => g.count > 0)).map((e) => e.id));
    const large = (await walk({ size: "large" }, 4)).pages.flat();
    expect(large.length).toBeGreaterThan(0);
    const threshold = largeRequestThreshold(large[0]!.assessment.policy);
    expect(large.map((e) => e.id)).toEqual(whole.filter((e) => e.monthlyCost > threshold).map((e) => e.id));
    expect((await walk({ tenant: "no-such-tenant" }, 4)).ids).toEqual([]);
  });

  it("gives each entry the figures of the request's own page (one basis for the page, the same loader)", async () => {
    const { pages } = await walk({}, 9);
    const sample = [pages[0]![0]!, pages[0]!.at(-1)!, pages[1]![3]!, pages.at(-1)!.at(-1)!];
    for (const entry of sample) {
      const detail = (await requestDetail(admin, entry.id))!;
      const picture = detail.picture!;
      expect(picture.assessment).toEqual(entry.assessment);
      expect(picture.diff).toBe(entry.diff);
      expect(picture.extensionPicture).toEqual(entry.extensionPicture);
      expect(picture.usage).toEqual(entry.usage);
      expect(picture.conflict).toBe(entry.conflict);
    }
  });

  it("reads, platform-wide and at once, what the per-list loaders read: grants, allocation, holdings, cohorts", async () => {
    const db = seeded.db;
    const settings = config().cluster;
    const platform = await loadPlatformQuota(db, settings, NOW);
    const projectIds = (await rowsOf<{ id: string }>(db, sql`select id from projects`)).map((r) => r.id);
    const perList = await grantsOfProjects(db, projectIds);
    for (const id of projectIds) expect(platform.grants.get(id) ?? [], id).toEqual(perList.get(id));
    expect(platform.allocation).toEqual(await clusterAllocation(db, settings, NOW));
    expect(platform.holdings).toEqual(await tenantLineHoldings(db, NOW));
    const cohorts = await cohortMembersByTenant(db, settings.defaultProjectQuota, NOW);
    for (const tenantId of Object.values(seeded.tenantId)) expect(platform.cohortOf(tenantId), tenantId).toEqual(cohorts.get(tenantId) ?? []);
  });

  it("is for deciders only", async () => {
    expect(await approvalQueuePage(await contextOf(seeded.db, "data-scientist", NOW))).toBeNull();
  });

  // Last: it adds a grant to the seeded data.
  it("reuses the platform basis while its generation holds and no grant starts or ends, and reads it again otherwise", async () => {
    const db = seeded.db;
    const settings = config().cluster;
    const first = await loadPlatformQuota(db, settings, NOW);
    expect((await loadPlatformQuota(db, settings, new Date(NOW.getTime() + 1000))).allocation).toBe(first.allocation);
    // A grant of 8 cores from an hour ago to an hour from now: its insert moves the generation.
    const projectId = await projectIdOf(db, "vision-lab", "detector-training");
    await db.transaction((tx) =>
      insertGrant(tx, { projectId, lines: [{ flavor: "default", resource: "cpu", guarantee: 8, burst: 0, lendLimit: null }], startsAt: new Date(NOW.getTime() - HOUR), endsAt: new Date(NOW.getTime() + HOUR), createdAt: NOW }),
    );
    const changed = await loadPlatformQuota(db, settings, NOW);
    expect(changed.allocation).not.toBe(first.allocation);
    expect(changed.allocation).toEqual(await clusterAllocation(db, settings, NOW));
    expect(changed.holdings).toEqual(await tenantLineHoldings(db, NOW));
    // Inside a transaction (the generation moves at its commit) its own writes show at once.
    await db.transaction(async (tx) => {
      const inside = await loadPlatformQuota(tx, settings, NOW);
      await insertGrant(tx, { projectId, lines: [{ flavor: "default", resource: "cpu", guarantee: 2, burst: 0, lendLimit: null }], startsAt: new Date(NOW.getTime() - HOUR), endsAt: null, createdAt: NOW });
      const again = await loadPlatformQuota(tx, settings, NOW);
      expect(again.allocation.total.cpuCores).toBe(inside.allocation.total.cpuCores + 2);
      tx.rollback();
    }).catch((error: unknown) => {
      if (!(error instanceof Error && /rollback/i.test(error.message))) throw error;
    });
    expect((await loadPlatformQuota(db, settings, NOW)).allocation).toEqual(changed.allocation);
    // Past the grant's new end: the figures of that instant, not the cached ones.
    const later = new Date(NOW.getTime() + 2 * HOUR);
    const after = await loadPlatformQuota(db, settings, later);
    expect(after.allocation).toEqual(await clusterAllocation(db, settings, later));
    expect(after.allocation).not.toEqual(changed.allocation);
    expect(after.holdings).toEqual(await tenantLineHoldings(db, later));
  });
});

