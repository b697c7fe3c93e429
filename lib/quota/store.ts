import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { instanceSettings, nodePools, projects, quotaGrants, quotaRequestEvents, rates, tenants } from "@/db/schema";
import type { ClusterSettings } from "@/lib/config";
import type { Allocation } from "./capacity";
import type { RateRow } from "./cost";
import { effectiveQuotaAt, gpusByModelAt, type GrantSpan } from "./effective";
import { rowsOf } from "@/db/rows";
import { linesOfGrants } from "./grant-store";
import { compareLines, gpuAmountsOfLines, type QuotaLine } from "./lines";
import { gpuResourcesOf } from "./pool-flavors";
import { DEFAULT_QUOTA_POLICY, type QuotaPolicy } from "./policy";
import { quotaPolicySchema } from "./policy-schema";

export const QUOTA_POLICY_KEY = "quota_policy";

export async function loadQuotaPolicy(db: Database): Promise<QuotaPolicy> {
  const [row] = await db.select().from(instanceSettings).where(eq(instanceSettings.key, QUOTA_POLICY_KEY));
  const parsed = row ? quotaPolicySchema.safeParse(row.value) : null;
  return parsed?.success ? parsed.data : DEFAULT_QUOTA_POLICY;
}

export async function loadPools(db: Database): Promise<(typeof nodePools.$inferSelect)[]> {
  return db.select().from(nodePools).orderBy(asc(nodePools.name));
}

export async function loadRates(db: Database): Promise<RateRow[]> {
  const rows = await db.select().from(rates).orderBy(asc(rates.resource), asc(rates.effectiveFrom));
  return rows.map((r) => ({ resource: r.resource, unitPrice: Number(r.unitPrice), effectiveFrom: r.effectiveFrom }));
}

/** GPU resources a ResourceQuota must always name (at 0 when not granted): the node pools' and the default device plugin's. */
export async function knownGpuResources(db: Database): Promise<string[]> {
  return gpuResourcesOf(await db.select({ gpuResource: nodePools.gpuResource, gpuProfiles: nodePools.gpuProfiles, offeredGpuResources: nodePools.offeredGpuResources }).from(nodePools));
}

type GrantRow = typeof quotaGrants.$inferSelect;
export const spanOf = (g: GrantRow, lines: QuotaLine[]): GrantSpan => ({
  gpus: gpuAmountsOfLines(lines),
  cpuCores: g.cpuCores,
  memoryBytes: g.memoryBytes,
  storageBytes: g.storageBytes,
  startsAt: g.startsAt,
  endsAt: g.endsAt,
  lines,
});

/** Grant rows with their lines, grouped by project. */
async function spansOf(db: Database, rows: GrantRow[], projectIds: readonly string[]): Promise<Map<string, GrantSpan[]>> {
  const out = new Map<string, GrantSpan[]>(projectIds.map((id) => [id, []]));
  const lines = await linesOfGrants(
    db,
    rows.map((r) => r.id),
  );
  for (const r of rows) out.get(r.projectId)!.push(spanOf(r, lines.get(r.id) ?? []));
  return out;
}

/**
 * Every quota grant of every project, keyed by project (all times): the
 * platform-wide read, without a list of ids. Plain SQL rows, not drizzle's
 * mapped ones: ten thousand grants and their lines are read on every page of
 * the approval queue, and mapping every column of every row cost more than the
 * reads (the values are the same: numbers, instants).
 */
export async function allGrantSpans(db: Database): Promise<Map<string, GrantSpan[]>> {
  type Row = { id: string; project_id: string; cpu_cores: number | string; memory_bytes: number | string; storage_bytes: number | string; starts_at: Date | string; ends_at: Date | string | null };
  type LineRow = { grant_id: string; flavor: string; resource: string; guarantee: string | number; burst: string | number };
  const [rows, lineRows] = await Promise.all([
    rowsOf<Row>(db, sql`select id, project_id, cpu_cores, memory_bytes, storage_bytes, starts_at, ends_at from quota_grants`),
    rowsOf<LineRow>(db, sql`select grant_id, flavor, resource, guarantee, burst from quota_grant_lines`),
  ]);
  const lines = new Map<string, QuotaLine[]>();
  for (const r of lineRows) {
    const line: QuotaLine = { flavor: r.flavor, resource: r.resource, guarantee: Number(r.guarantee), burst: Number(r.burst), lendLimit: null };
    const list = lines.get(r.grant_id);
    if (list) list.push(line);
    else lines.set(r.grant_id, [line]);
  }
  for (const list of lines.values()) list.sort(compareLines);
  const instant = (v: Date | string) => (v instanceof Date ? v : new Date(v));
  const out = new Map<string, GrantSpan[]>();
  for (const r of rows) {
    const span: GrantSpan = {
      gpus: gpuAmountsOfLines(lines.get(r.id) ?? []),
      cpuCores: Number(r.cpu_cores),
      memoryBytes: Number(r.memory_bytes),
      storageBytes: Number(r.storage_bytes),
      startsAt: instant(r.starts_at),
      endsAt: r.ends_at === null ? null : instant(r.ends_at),
      lines: lines.get(r.id) ?? [],
    };
    const spans = out.get(r.project_id);
    if (spans) spans.push(span);
    else out.set(r.project_id, [span]);
  }
  return out;
}

/** Every quota grant of the given projects (all times: the caller picks the instant). */
export async function grantsOfProjects(db: Database, projectIds: readonly string[]): Promise<Map<string, GrantSpan[]>> {
  if (projectIds.length === 0) return new Map();
  const rows = await db.select().from(quotaGrants).where(inArray(quotaGrants.projectId, [...projectIds]));
  return spansOf(db, rows, projectIds);
}

/**
 * The grants of the given projects that a rule approved, not a person (their
 * request's timeline holds the "auto_approved" event), at all times: the
 * caller picks the instant. What the cumulative cap of automatic approval
 * counts.
 */
export async function autoApprovedGrantsOf(db: Database, projectIds: readonly string[]): Promise<Map<string, GrantSpan[]>> {
  if (projectIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(quotaGrants)
    .where(
      and(
        inArray(quotaGrants.projectId, [...projectIds]),
        sql`exists (select 1 from ${quotaRequestEvents} where ${quotaRequestEvents.requestId} = ${quotaGrants.requestId} and ${quotaRequestEvents.kind} = 'auto_approved')`,
      ),
    );
  return spansOf(db, rows, projectIds);
}

/**
 * What every open project of every active tenant holds at `at` (starting
 * quota plus grants in force), in total and per tenant: the "allocated" side
 * of capacity.
 */
export async function clusterAllocation(db: Database, settings: ClusterSettings, at: Date): Promise<ClusterAllocation> {
  const rows = await db
    .select({ id: projects.id, tenantSlug: tenants.slug })
    .from(projects)
    .innerJoin(tenants, eq(tenants.id, projects.tenantId))
    .where(and(isNull(projects.archivedAt), eq(tenants.status, "active")));
  const grants = await grantsOfProjects(
    db,
    rows.map((r) => r.id),
  );
  return allocationOf(rows, grants, settings, at);
}

export type ClusterAllocation = { total: Allocation; byTenant: Map<string, Allocation>; byProject: Map<string, Allocation> };

/** clusterAllocation's arithmetic on rows already read: the open projects of active tenants and their grants. */
export function allocationOf(rows: readonly { id: string; tenantSlug: string }[], grants: ReadonlyMap<string, GrantSpan[]>, settings: ClusterSettings, at: Date): ClusterAllocation {
  const total: Allocation = { cpuCores: 0, memoryBytes: 0, gpusByModel: {} };
  const byTenant = new Map<string, Allocation>();
  const byProject = new Map<string, Allocation>();
  for (const r of rows) {
    const spans = grants.get(r.id) ?? [];
    const q = effectiveQuotaAt(settings.defaultProjectQuota, spans, at);
    const a: Allocation = { cpuCores: q.cpuCores, memoryBytes: q.memoryBytes, gpusByModel: gpusByModelAt(spans, at) };
    byProject.set(r.id, a);
    const t = byTenant.get(r.tenantSlug) ?? { cpuCores: 0, memoryBytes: 0, gpusByModel: {} };
    for (const target of [t, total]) {
      target.cpuCores += a.cpuCores;
      target.memoryBytes += a.memoryBytes;
      for (const [m, n] of Object.entries(a.gpusByModel)) target.gpusByModel[m] = (target.gpusByModel[m] ?? 0) + n;
    }
    byTenant.set(r.tenantSlug, t);
  }
  return { total, byTenant, byProject };
}
