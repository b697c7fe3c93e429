import "server-only";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { projects, tenantQuotaEnvelopes, tenants } from "@/db/schema";
import { cohortFigures, type CohortMember } from "./cohort";
import { grantInForce, linesAt, type GrantSpan } from "./effective";
import { lendLimitsOf } from "./grant-store";
import { divideEnvelope, type EnvelopeLine, type EnvelopeRow, type ProjectHolding } from "./envelope";
import { compareLines, sumLines, type BaseQuota, type LendLimit } from "./lines";
import { guaranteedOn, type TenantHoldings } from "./sharing-arithmetic";
import { gpuResourcesByModel as profileResources } from "./pool-profiles";
import { grantsOfProjects, loadPools } from "./store";

/** A tenant's envelope lines, ordered ("default" flavour first); `lock` takes them FOR UPDATE, so moves and approvals on one tenant take turns. */
export async function envelopeOf(db: Database, tenantId: string, lock = false): Promise<EnvelopeLine[]> {
  const query = db.select().from(tenantQuotaEnvelopes).where(eq(tenantQuotaEnvelopes.tenantId, tenantId)).orderBy(asc(tenantQuotaEnvelopes.flavor), asc(tenantQuotaEnvelopes.resource));
  const rows = lock ? await query.for("update") : await query;
  return rows.map((r) => ({ flavor: r.flavor, resource: r.resource, guarantee: Number(r.guarantee), burst: Number(r.burst) })).sort(compareLines);
}

/** What each open project of a tenant holds from its grants at `at` (the starting quota is outside any envelope). */
export async function holdingsOf(db: Database, tenantId: string, at: Date): Promise<ProjectHolding[]> {
  const rows = await db
    .select({ id: projects.id, slug: projects.slug, name: projects.name })
    .from(projects)
    .where(and(eq(projects.tenantId, tenantId), isNull(projects.archivedAt)))
    .orderBy(asc(projects.slug));
  const grants = await grantsOfProjects(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => {
    const inForce = (grants.get(r.id) ?? []).filter((g) => grantInForce(g, at));
    return {
      projectId: r.id,
      slug: r.slug,
      name: r.name,
      inForce: sumLines(inForce.flatMap((g) => g.lines)),
      permanent: sumLines(inForce.filter((g) => g.endsAt === null).flatMap((g) => g.lines)),
    };
  });
}

/** GPU model -> the extended resource its pools serve: what turns a "gpu:<model>" key into a line. */
export async function gpuResourcesByModel(db: Database): Promise<Record<string, string>> {
  // Each requestable profile of a mixed MIG pool is a model of its own.
  return Object.fromEntries(profileResources(await loadPools(db)));
}

export interface TenantEnvelope {
  rows: EnvelopeRow[];
  holdings: ProjectHolding[];
}

export async function tenantEnvelope(db: Database, tenantId: string, at: Date, lock = false): Promise<TenantEnvelope> {
  const envelope = await envelopeOf(db, tenantId, lock);
  const holdings = await holdingsOf(db, tenantId, at);
  return { rows: divideEnvelope(envelope, holdings), holdings };
}

/** The open projects of a tenant as its Kueue cohort weighs them: weight, and lines in force at `at` (starting quota included) with lend limits. */
export async function cohortMembersOf(db: Database, tenantId: string, base: BaseQuota, at: Date): Promise<CohortQueueMember[]> {
  return (await cohortMembersByTenant(db, base, at, tenantId)).get(tenantId) ?? [];
}

/** A cohort member with the namespace its ClusterQueues are named after. */
export type CohortQueueMember = CohortMember & { namespace: string };

/**
 * The open projects of one tenant, or of every tenant, grouped by tenant id,
 * as their ClusterQueues are rendered: lines in force at `at` with the
 * starting quota and lend limits. One query for all tenants, so the platform
 * page does not ask once per tenant. Archived projects and the projects of a
 * disabled tenant have no ClusterQueue (lib/cluster/desired-from-db.ts
 * closedProject), so they are no members.
 */
export async function cohortMembersByTenant(db: Database, base: BaseQuota, at: Date, tenantId?: string): Promise<Map<string, CohortQueueMember[]>> {
  const open = and(isNull(projects.archivedAt), eq(tenants.status, "active"));
  const rows = await db
    .select({ id: projects.id, tenantId: projects.tenantId, slug: projects.slug, name: projects.name, namespace: projects.namespace, weight: projects.fairShareWeight })
    .from(projects)
    .innerJoin(tenants, eq(tenants.id, projects.tenantId))
    .where(tenantId === undefined ? open : and(eq(projects.tenantId, tenantId), open))
    .orderBy(asc(projects.slug));
  const ids = rows.map((r) => r.id);
  const [grants, limits] = await Promise.all([grantsOfProjects(db, ids), lendLimitsOf(db, ids)]);
  return cohortMembersOfRows(rows, base, grants, limits, at);
}

type CohortProjectRow = { id: string; tenantId: string; slug: string; name: string; namespace: string; weight: string };

/** cohortMembersByTenant's arithmetic on rows already read: open projects of active tenants, by slug, with their grants and lend limits. */
export function cohortMembersOfRows(
  rows: readonly CohortProjectRow[],
  base: BaseQuota,
  grants: ReadonlyMap<string, GrantSpan[]>,
  limits: ReadonlyMap<string, LendLimit[]>,
  at: Date,
): Map<string, CohortQueueMember[]> {
  const byTenant = new Map<string, CohortQueueMember[]>();
  for (const r of rows) pushTo(byTenant, r.tenantId, { slug: r.slug, name: r.name, namespace: r.namespace, weight: Number(r.weight), lines: linesAt(base, grants.get(r.id) ?? [], at, limits.get(r.id)) });
  return byTenant;
}

function pushTo<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Take turns on the sum of guarantees across tenants: an envelope being set
 * and an approval in two different tenants lock different envelope rows, so
 * without this both could pass the capacity check and together exceed it.
 * Held to the end of the caller's transaction; taken before envelope rows.
 */
export async function lockGuaranteeSum(tx: Database): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('allot.quota.guarantee-sum'))`);
}

const NO_STARTING_QUOTA: BaseQuota = { cpuCores: 0, memoryBytes: 0, storageBytes: 0, pvcCount: 0 };

/**
 * What every tenant holds per line at `at`: its envelope where the platform
 * set one, and what its open projects hold from grants in force (the
 * starting quota is outside any envelope) with what they lend. Every
 * tenant is listed, those holding nothing with no lines; a disabled
 * tenant's projects count for nothing, its envelope still does. What the sharing arithmetic and the
 * capacity invariant are computed from.
 */
export async function tenantLineHoldings(db: Database, at: Date): Promise<TenantHoldings[]> {
  const [tenantRows, envelopes, projectRows] = await Promise.all([
    db.select({ id: tenants.id, slug: tenants.slug, name: tenants.name, status: tenants.status }).from(tenants).orderBy(asc(tenants.slug)),
    db.select().from(tenantQuotaEnvelopes),
    db
      .select({ id: projects.id, tenantId: projects.tenantId, slug: projects.slug, name: projects.name, weight: projects.fairShareWeight })
      .from(projects)
      .where(isNull(projects.archivedAt))
      .orderBy(asc(projects.slug)),
  ]);
  const active = new Set(tenantRows.filter((t) => t.status === "active").map((t) => t.id));
  const ids = projectRows.filter((p) => active.has(p.tenantId)).map((p) => p.id);
  const [grants, limits] = await Promise.all([grantsOfProjects(db, ids), lendLimitsOf(db, ids)]);
  return lineHoldingsOf(tenantRows, envelopes, projectRows, grants, limits, at);
}

type TenantRow = { id: string; slug: string; name: string; status: string };
type OpenProjectRow = { id: string; tenantId: string; slug: string; name: string; weight: string };

/**
 * tenantLineHoldings's arithmetic on rows already read: every tenant (by slug),
 * the envelopes, the projects that are not archived (by slug) with their grants
 * and lend limits.
 */
export function lineHoldingsOf(
  tenantRows: readonly TenantRow[],
  envelopes: readonly (typeof tenantQuotaEnvelopes.$inferSelect)[],
  projectRows: readonly OpenProjectRow[],
  grants: ReadonlyMap<string, GrantSpan[]>,
  limits: ReadonlyMap<string, LendLimit[]>,
  at: Date,
): TenantHoldings[] {
  const active = new Set(tenantRows.filter((t) => t.status === "active").map((t) => t.id));
  const projectsOf = new Map<string, OpenProjectRow[]>();
  for (const p of projectRows) if (active.has(p.tenantId)) pushTo(projectsOf, p.tenantId, p);
  const envelopesOf = new Map<string, (typeof tenantQuotaEnvelopes.$inferSelect)[]>();
  for (const e of envelopes) pushTo(envelopesOf, e.tenantId, e);
  return tenantRows.flatMap((t) => {
    const members: CohortMember[] = (projectsOf.get(t.id) ?? []).map((p) => ({ slug: p.slug, name: p.name, weight: Number(p.weight), lines: linesAt(NO_STARTING_QUOTA, grants.get(p.id) ?? [], at, limits.get(p.id)) }));
    const own = envelopesOf.get(t.id) ?? [];
    const keyed = new Map<string, { flavor: string; resource: string }>();
    for (const l of [...own, ...members.flatMap((m) => m.lines.filter((x) => x.resource !== "storage"))]) keyed.set(`${l.flavor}\u0000${l.resource}`, { flavor: l.flavor, resource: l.resource });
    const lines = [...keyed.values()].sort(compareLines).map((line) => {
      const e = own.find((x) => x.flavor === line.flavor && x.resource === line.resource);
      const f = cohortFigures(members, line);
      return { ...line, envelope: e ? { guarantee: Number(e.guarantee), burst: Number(e.burst) } : null, held: f.guarantee, heldBurst: f.burst, lendable: f.lendable };
    });
    // A tenant holding nothing stays listed: an approval's "after" adds its first lines to it.
    return [{ tenantId: t.id, slug: t.slug, name: t.name, active: active.has(t.id), lines }];
  });
}

/**
 * What all tenants are guaranteed of one line (tenantLineFigures: each
 * tenant's envelope where it has one, else what its open projects hold):
 * the sum that must fit in the pools at their autoscaler minimum. `override`
 * replaces one tenant's envelope (the value being set).
 */
export async function guaranteedAcrossTenants(db: Database, line: { flavor: string; resource: string }, at: Date, override: { tenantId: string; guarantee: number }): Promise<number> {
  return guaranteedOn(await tenantLineHoldings(db, at), line, override);
}
