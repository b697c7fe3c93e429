import "server-only";
import { asc, eq } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import type { Database } from "@/db/client";
import { projects, quotaBasisVersions, tenantQuotaEnvelopes, tenants } from "@/db/schema";
import type { ClusterSettings } from "@/lib/config";
import type { RateRow } from "./cost";
import type { GrantSpan } from "./effective";
import { cohortMembersOfRows, lineHoldingsOf, type CohortQueueMember } from "./envelope-store";
import { allLendLimits } from "./grant-store";
import type { QuotaPolicy } from "./policy";
import type { TenantHoldings } from "./sharing-arithmetic";
import { allGrantSpans, allocationOf, knownGpuResources, loadPools, loadQuotaPolicy, loadRates, type ClusterAllocation } from "./store";

/**
 * What every assessment of a quota request at one instant rests on, for the
 * whole platform: pools, prices, policy, every project's grants and lend
 * limits, the cluster's allocation, every tenant's holdings per line, and each
 * tenant's Kueue cohort. Read once (a handful of whole-table reads, no list of
 * ten thousand ids) and shared by every entry of a page of the approval queue,
 * by the request's own page and by the API, so the figures they show for one
 * request are the same figures.
 */
export interface PlatformQuota {
  at: Date;
  pools: Awaited<ReturnType<typeof loadPools>>;
  rateRows: RateRow[];
  policy: QuotaPolicy;
  gpuResources: Awaited<ReturnType<typeof knownGpuResources>>;
  allocation: ClusterAllocation;
  holdings: TenantHoldings[];
  /** Every project's grants, at all times (a project without any is absent). */
  grants: ReadonlyMap<string, GrantSpan[]>;
  /** Every project, archived ones too: its tenant and slug. */
  projects: ReadonlyMap<string, { tenantId: string; slug: string }>;
  /** A tenant's cohort members as its ClusterQueues are rendered (cohortMembersOf), computed on first use. */
  cohortOf(tenantId: string): CohortQueueMember[];
}

/** What is computed from the six tables the generation covers (the rest is read fresh every time: pools, prices, policy). */
type Derived = Pick<PlatformQuota, "allocation" | "holdings" | "grants" | "projects" | "cohortOf">;

interface Cached {
  generation: number;
  settings: ClusterSettings;
  /** Valid for instants from `from` up to, not including, `until`: the next start or end of any grant after `from`. */
  from: number;
  until: number;
  derived: Derived;
}

/**
 * The derived part of the last basis each database handle computed, with the
 * generation it was read at. Another request reads the generation row (one
 * indexed row) and reuses the computation while the generation is the same and
 * its instant is before the next grant boundary: every figure is then what a
 * fresh read would give, since what it is computed from has not changed and no
 * grant has started or ended. The generation is read before the tables, so a
 * change committed in between makes the cache newer than its generation, never
 * older. The generation moves at commit, so a transaction's own writes do not
 * move it for the transaction itself: inside a transaction nothing is cached.
 * Consumers never mutate a basis (a test compares a used one with fresh reads).
 */
const cache = new WeakMap<Database, Cached>();

async function generationOf(db: Database): Promise<number | null> {
  const [row] = await db.select({ generation: quotaBasisVersions.generation }).from(quotaBasisVersions).where(eq(quotaBasisVersions.id, 1));
  return row ? row.generation : null;
}

export async function loadPlatformQuota(db: Database, settings: ClusterSettings, at: Date): Promise<PlatformQuota> {
  const [generation, pools, rateRows, policy, gpuResources] = await Promise.all([generationOf(db), loadPools(db), loadRates(db), loadQuotaPolicy(db), knownGpuResources(db)]);
  // Inside a transaction the generation moves only at commit (deferred triggers): its own writes would not show. Never cached there.
  const cacheable = generation !== null && !(db instanceof PgTransaction);
  const hit = cacheable ? cache.get(db) : undefined;
  const t = at.getTime();
  let derived: Derived;
  if (hit && hit.generation === generation && hit.settings === settings && t >= hit.from && t < hit.until) {
    derived = hit.derived;
  } else {
    const read = await deriveBasis(db, settings, at);
    derived = read.derived;
    if (cacheable) cache.set(db, { generation, settings, from: t, until: read.until, derived });
  }
  return { at, pools, rateRows, policy, gpuResources, ...derived };
}

async function deriveBasis(db: Database, settings: ClusterSettings, at: Date): Promise<{ derived: Derived; until: number }> {
  const [tenantRows, projectRows, envelopes, grants, limits] = await Promise.all([
    db.select({ id: tenants.id, slug: tenants.slug, name: tenants.name, status: tenants.status }).from(tenants).orderBy(asc(tenants.slug)),
    db
      .select({ id: projects.id, tenantId: projects.tenantId, slug: projects.slug, name: projects.name, namespace: projects.namespace, weight: projects.fairShareWeight, archivedAt: projects.archivedAt })
      .from(projects)
      .orderBy(asc(projects.slug)),
    db.select().from(tenantQuotaEnvelopes),
    allGrantSpans(db),
    allLendLimits(db),
  ]);
  const activeSlug = new Map(tenantRows.filter((t) => t.status === "active").map((t) => [t.id, t.slug]));
  const notArchived = projectRows.filter((p) => p.archivedAt === null);
  // Open: not archived, in an active tenant (what clusterAllocation and cohortMembersByTenant count).
  const open = notArchived.filter((p) => activeSlug.has(p.tenantId));
  const allocation = allocationOf(
    open.map((p) => ({ id: p.id, tenantSlug: activeSlug.get(p.tenantId)! })),
    grants,
    settings,
    at,
  );
  const holdings = lineHoldingsOf(tenantRows, envelopes, notArchived, grants, limits, at);
  const openByTenant = new Map<string, typeof open>();
  for (const p of open) {
    const list = openByTenant.get(p.tenantId);
    if (list) list.push(p);
    else openByTenant.set(p.tenantId, [p]);
  }
  const cohorts = new Map<string, CohortQueueMember[]>();
  // The next instant at which a grant starts or ends: the derived figures hold until then.
  const t = at.getTime();
  let until = Infinity;
  for (const spans of grants.values())
    for (const g of spans)
      for (const b of [g.startsAt.getTime(), g.endsAt?.getTime() ?? Infinity]) if (b > t && b < until) until = b;
  const derived: Derived = {
    allocation,
    holdings,
    grants,
    projects: new Map(projectRows.map((p) => [p.id, { tenantId: p.tenantId, slug: p.slug }])),
    cohortOf(tenantId) {
      let members = cohorts.get(tenantId);
      if (!members) {
        members = cohortMembersOfRows(openByTenant.get(tenantId) ?? [], settings.defaultProjectQuota, grants, limits, at).get(tenantId) ?? [];
        cohorts.set(tenantId, members);
      }
      return members;
    },
  };
  return { derived, until };
}
