import "server-only";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import { projects, tenantQuotaEnvelopes, tenants } from "@/db/schema";
import type { CohortMember } from "./cohort";
import { grantInForce, linesAt } from "./effective";
import { lendLimitsOf } from "./grant-store";
import { divideEnvelope, type EnvelopeLine, type EnvelopeRow, type ProjectHolding } from "./envelope";
import { compareLines, sumLines, type BaseQuota } from "./lines";
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
  const out: Record<string, string> = {};
  for (const p of await loadPools(db)) if (p.gpuModel && p.gpuResource && !out[p.gpuModel]) out[p.gpuModel] = p.gpuResource;
  return out;
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
export async function cohortMembersOf(db: Database, tenantId: string, base: BaseQuota, at: Date): Promise<CohortMember[]> {
  const rows = await db
    .select({ id: projects.id, slug: projects.slug, name: projects.name, weight: projects.fairShareWeight })
    .from(projects)
    .where(and(eq(projects.tenantId, tenantId), isNull(projects.archivedAt)))
    .orderBy(asc(projects.slug));
  const ids = rows.map((r) => r.id);
  const [grants, limits] = await Promise.all([grantsOfProjects(db, ids), lendLimitsOf(db, ids)]);
  return rows.map((r) => ({ slug: r.slug, name: r.name, weight: Number(r.weight), lines: linesAt(base, grants.get(r.id) ?? [], at, limits.get(r.id)) }));
}

/**
 * What all tenants are guaranteed of one GPU line, counting each tenant's
 * envelope where it has one for the line, else what its open projects hold
 * from grants: the sum that must fit in the pools at their autoscaler
 * minimum. `override` replaces one tenant's envelope (the value being set).
 */
export async function guaranteedAcrossTenants(db: Database, line: { flavor: string; resource: string }, at: Date, override: { tenantId: string; guarantee: number }): Promise<number> {
  const envelopes = await db
    .select({ tenantId: tenantQuotaEnvelopes.tenantId, guarantee: tenantQuotaEnvelopes.guarantee })
    .from(tenantQuotaEnvelopes)
    .where(and(eq(tenantQuotaEnvelopes.flavor, line.flavor), eq(tenantQuotaEnvelopes.resource, line.resource)));
  const withEnvelope = new Map(envelopes.map((e) => [e.tenantId, Number(e.guarantee)]));
  withEnvelope.set(override.tenantId, override.guarantee);
  const rows = await db
    .select({ id: projects.id, tenantId: projects.tenantId })
    .from(projects)
    .innerJoin(tenants, eq(tenants.id, projects.tenantId))
    .where(and(isNull(projects.archivedAt), eq(tenants.status, "active")));
  const others = rows.filter((r) => !withEnvelope.has(r.tenantId));
  const grants = await grantsOfProjects(
    db,
    others.map((r) => r.id),
  );
  let held = 0;
  for (const r of others) {
    const lines = sumLines((grants.get(r.id) ?? []).filter((g) => grantInForce(g, at)).flatMap((g) => g.lines));
    held += Math.max(0, lines.find((l) => l.flavor === line.flavor && l.resource === line.resource)?.guarantee ?? 0);
  }
  return [...withEnvelope.values()].reduce((s, n) => s + n, held);
}
