import "server-only";
import { and, asc, desc, eq, gt, inArray, or, sql, type SQL } from "drizzle-orm";
import { principals, projects, quotaGrants, quotaRequestEvents, quotaRequestLines, quotaRequests, tenantRequests as tenantRequestsTable, tenants } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can, decisionConflict } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { projectBySlugs, tenantBySlug } from "@/lib/tenancy/lookup";
import { AppError } from "@/lib/errors";
import { encodeCursor, exactMicros, pastCursor, type TimeIdCursor } from "@/lib/input/cursor";
import { projectUsageSummaries, type ProjectUsageSummary } from "@/lib/metering/project-summaries";
import type { QuotaAmounts } from "./amounts";
import { assessRequest, UnknownGpuModelError, type Assessment } from "./assess";
import { loadPlatformQuota, type PlatformQuota } from "./platform-quota";
import { costOverPeriod, monthlyCost, ratesInForce } from "./cost";
import { quotaChangeDiff } from "./diff";
import { effectiveQuotaAt, gpusByModelAt, grantInForce, linesAt } from "./effective";
import { largeRequestThreshold } from "./policy";
import { lendLimitsOf, linesOfGrants, linesOfRequests } from "./grant-store";
import type { QuotaLine } from "./lines";
import { gpuResourcesByModel } from "./pool-profiles";
import { requestAmountsOf, tenantQuotaOf } from "./request-amounts";
import { requestConversation, requestHistory, type RequestConversation, type RequestHistory } from "./request-conversation";
import { grantsOfProjects } from "./store";

export type QuotaRequestStatus = (typeof quotaRequests.$inferSelect)["status"];
export const REQUEST_STATUSES: readonly QuotaRequestStatus[] = ["pending", "approved", "auto_approved", "rejected", "cancelled", "expired", "applied", "apply_failed"];

export interface RequestListItem {
  id: string;
  tenantId: string;
  projectId: string;
  tenantSlug: string;
  projectSlug: string;
  projectName: string;
  requester: string | null;
  requestedBy: string | null;
  amounts: QuotaAmounts;
  endsAt: Date | null;
  justification: string;
  status: QuotaRequestStatus;
  monthlyCost: number;
  awaitingSecondApproval: boolean;
  decisionNote: string | null;
  createdAt: Date;
  decidedAt: Date | null;
  version: number;
  /** 1 as asked, +1 for each edit by the requester. */
  revision: number;
  /** A request to keep a time-bound grant longer: the grant, and its end when asked (endsAt is the new end). */
  extension: { grantId: string; from: Date } | null;
}


async function listWhere(ctx: CommandContext, where: SQL | undefined, order: "newest" | "oldest", limit = 200): Promise<RequestListItem[]> {
  return (await listPage(ctx, where, order, limit)).items;
}

/**
 * One page of requests in (created_at, id) order, newest or oldest first,
 * starting after `after`, and the cursor after its last row when more follow
 * (keyset pagination, lib/input/cursor; quota_requests_status_idx serves a status).
 */
async function listPage(ctx: CommandContext, where: SQL | undefined, order: "newest" | "oldest", limit: number, after?: TimeIdCursor): Promise<{ items: RequestListItem[]; next?: string }> {
  const direction = order === "oldest" ? "asc" : "desc";
  const by = direction === "asc" ? asc : desc;
  const rows = await ctx.db
    .select({ r: quotaRequests, tenantSlug: tenants.slug, projectSlug: projects.slug, projectName: projects.name, requester: principals.displayName, at: exactMicros(quotaRequests.createdAt) })
    .from(quotaRequests)
    .innerJoin(projects, eq(projects.id, quotaRequests.projectId))
    .innerJoin(tenants, eq(tenants.id, quotaRequests.tenantId))
    .leftJoin(principals, eq(principals.id, quotaRequests.requestedBy))
    .where(and(where, after ? pastCursor(quotaRequests.createdAt, quotaRequests.id, after, direction) : undefined))
    .orderBy(by(quotaRequests.createdAt), by(quotaRequests.id))
    .limit(limit + 1);
  // One row more than the page says whether another page follows, without counting.
  const more = rows.length > limit;
  if (more) rows.length = limit;
  const lines = await linesOfRequests(
    ctx.db,
    rows.map(({ r }) => r.id),
  );
  const last = rows.at(-1);
  const items = rows.map(({ r, at: _at, ...x }) => ({
    id: r.id,
    tenantId: r.tenantId,
    projectId: r.projectId,
    ...x,
    requestedBy: r.requestedBy,
    amounts: requestAmountsOf(r, lines.get(r.id) ?? []),
    endsAt: r.endsAt,
    justification: r.justification,
    status: r.status,
    monthlyCost: Number(r.monthlyCost),
    awaitingSecondApproval: r.status === "pending" && r.firstApprovedBy !== null,
    decisionNote: r.decisionNote,
    createdAt: r.createdAt,
    decidedAt: r.decidedAt,
    version: r.version,
    revision: r.revision,
    extension: r.extendsGrantId && r.extendsFrom ? { grantId: r.extendsGrantId, from: r.extendsFrom } : null,
  }));
  return more && last ? { items, next: encodeCursor({ micros: last.at, id: last.r.id }) } : { items };
}

/** A project's requests, newest first; null when the project is out of reach. */
export async function projectRequests(ctx: CommandContext, tenantSlug: string, projectSlug: string, status?: QuotaRequestStatus) {
  const { tenant, project } = await projectBySlugs(ctx.db, tenantSlug, projectSlug).catch(() => ({ tenant: null, project: null }));
  if (!tenant || !project || !can(ctx.actor, "project.quota.view", { kind: "project", tenantId: tenant.id, projectId: project.id }, ctx.now)) return null;
  return listWhere(ctx, and(eq(quotaRequests.projectId, project.id), status ? eq(quotaRequests.status, status) : undefined), "newest");
}

/** A tenant's requests across its projects, newest first; null when out of reach. */
export async function tenantRequests(ctx: CommandContext, tenantSlug: string, status?: QuotaRequestStatus) {
  const tenant = await tenantBySlug(ctx.db, tenantSlug).catch(() => null);
  if (!tenant || !can(ctx.actor, "tenant.quota.view", { kind: "tenant", tenantId: tenant.id }, ctx.now)) return null;
  return listWhere(ctx, and(eq(quotaRequests.tenantId, tenant.id), status ? eq(quotaRequests.status, status) : undefined), "newest");
}

/** How many requests GET /quota-requests answers with when no limit is asked. */
export const REQUEST_LIST_LIMIT = 1000;

/**
 * Requests the actor may see across the platform (platform admins: all; others:
 * those of projects they can view), optionally by status, newest first, a page
 * at a time (keyset on created_at and id: `next` is the cursor of the following
 * page, absent on the last). For GET /quota-requests.
 */
export async function visibleRequests(ctx: CommandContext, status?: QuotaRequestStatus, page: { after?: TimeIdCursor; limit?: number } = {}): Promise<{ requests: RequestListItem[]; next?: string }> {
  const byStatus = status ? eq(quotaRequests.status, status) : undefined;
  const limit = page.limit ?? REQUEST_LIST_LIMIT;
  if (ctx.actor.isPlatformAdmin) {
    const { items, next } = await listPage(ctx, byStatus, "newest", limit, page.after);
    return { requests: items, next };
  }
  // Narrow in SQL to the tenants and projects the actor holds a role in, then let the policy decide each row.
  const tenantIds = ctx.actor.memberships.map((m) => m.tenantId);
  const projectIds = ctx.actor.projectGrants.map((g) => g.projectId);
  if (tenantIds.length === 0 && projectIds.length === 0) return { requests: [] };
  const reach = or(tenantIds.length ? inArray(quotaRequests.tenantId, tenantIds) : undefined, projectIds.length ? inArray(quotaRequests.projectId, projectIds) : undefined);
  const { items, next } = await listPage(ctx, and(reach, byStatus), "newest", limit, page.after);
  return { requests: items.filter((r) => can(ctx.actor, "project.quota.view", { kind: "project", tenantId: r.tenantId, projectId: r.projectId }, ctx.now)), next };
}

export interface QueueFilter {
  tenant?: string;
  gpuModel?: string;
  /** "gpu" (any GPUs), "large" (monthly estimate above the second-approval limit, see largeRequestThreshold), "small" (no GPUs). */
  size?: "gpu" | "small" | "large";
}

export interface QueueEntry extends RequestListItem {
  assessment: Assessment;
  diff: string;
  /** Why this admin may not decide it (separation of duties), if so. */
  conflict: string | null;
  /** The project's use and spend (metering), or null when this admin may not see its spend. */
  usage: ProjectUsageSummary | null;
  /** For an extension: the grant as it stands, its monthly rate now and the cost of the added period (the assessment then adds nothing). */
  extensionPicture: ExtensionPicture | null;
}

export interface ExtensionPicture {
  grantId: string;
  grantStartsAt: Date;
  /** The grant's end now (equal to the request's `extension.from` unless it moved since). */
  grantEndsAt: Date | null;
  from: Date;
  to: Date;
  /** The grant's amounts at the rate card now, a month. */
  monthly: number;
  /** The added period (from the old end to the new) at that rate: costOverPeriod. */
  added: { cost: number; hours: number } | null;
}

const NOTHING: QuotaAmounts = { gpus: [], cpuCores: 0, memoryBytes: 0, storageBytes: 0 };

async function extensionPictureOf(ctx: CommandContext, item: RequestListItem, basis: PlatformQuota): Promise<ExtensionPicture | null> {
  if (!item.extension || !item.endsAt) return null;
  const [grant] = await ctx.db.select({ startsAt: quotaGrants.startsAt, endsAt: quotaGrants.endsAt }).from(quotaGrants).where(eq(quotaGrants.id, item.extension.grantId));
  const monthly = monthlyCost(item.amounts, ratesInForce(basis.rateRows, ctx.now)).monthly;
  return {
    grantId: item.extension.grantId,
    grantStartsAt: grant?.startsAt ?? item.createdAt,
    grantEndsAt: grant?.endsAt ?? null,
    from: item.extension.from,
    to: item.endsAt,
    monthly,
    added: costOverPeriod(monthly, item.extension.from, item.endsAt),
  };
}

/** How many entries a page of the approval queue shows. */
export const QUEUE_PAGE_SIZE = 25;

/** The whole approval queue (up to 500), oldest first, each entry with the full picture. Platform admins only (null otherwise). */
export async function approvalQueue(ctx: CommandContext, filter: QueueFilter = {}): Promise<QueueEntry[] | null> {
  return (await approvalQueuePage(ctx, filter, { limit: 500 }))?.entries ?? null;
}

/**
 * One page of the approval queue, oldest first, each entry with the full
 * picture. The filters run in SQL and the page starts after the cursor, so only
 * the entries shown are assessed; the platform's quota basis (pools, prices,
 * policy, every tenant's holdings and the cluster's allocation, loadPlatformQuota)
 * is loaded once for the page, and every entry is assessed against it, as the
 * request's own page assesses it. `next` is the cursor of the following page,
 * absent on the last. Platform admins only (null otherwise).
 */
export async function approvalQueuePage(
  ctx: CommandContext,
  filter: QueueFilter = {},
  page: { after?: TimeIdCursor; limit?: number } = {},
): Promise<{ entries: QueueEntry[]; next?: string } | null> {
  if (!can(ctx.actor, "quota.decide", { kind: "platform" }, ctx.now)) return null;
  const settings = config().cluster;
  const basis = await loadPlatformQuota(ctx.db, settings, ctx.now);
  const { items, next } = await listPage(ctx, and(eq(quotaRequests.status, "pending"), ...queueConditions(filter, basis)), "oldest", page.limit ?? QUEUE_PAGE_SIZE, page.after);
  // Use and spend of every project on the page, in one batch.
  const usage = await usageOf(ctx, items);
  // Each entry's own reads (its tenant's rendered objects for the diff) overlap with the others' rendering.
  const entries = await Promise.all(items.map((item) => withPicture(ctx, item, usage.get(item.projectId) ?? null, settings, basis)));
  return { entries, next };
}

/** The queue's filters as SQL, with the meaning they have on an entry (requestAmountsOf, largeRequestThreshold). */
function queueConditions(filter: QueueFilter, basis: PlatformQuota): (SQL | undefined)[] {
  return [
    filter.tenant ? eq(tenants.slug, filter.tenant) : undefined,
    // A request asks for a GPU model when one of its lines is of that flavour (guarantee or burst): the lines hold every model, the column one.
    filter.gpuModel
      ? sql`exists (select 1 from ${quotaRequestLines} l where l.request_id = ${quotaRequests.id} and l.flavor = ${filter.gpuModel} and l.resource not in ('cpu', 'memory', 'storage'))`
      : undefined,
    // gpu_count is the largest model's guarantee (columnGpuOfLines): above 0 exactly when some model is guaranteed.
    filter.size === "gpu" ? gt(quotaRequests.gpuCount, 0) : undefined,
    filter.size === "small" ? eq(quotaRequests.gpuCount, 0) : undefined,
    filter.size === "large" ? sql`${quotaRequests.monthlyCost} > ${largeRequestThreshold(basis.policy)}` : undefined,
  ];
}

/** The use and spend summaries of the requests' projects whose spend the actor may see. */
async function usageOf(ctx: CommandContext, items: readonly RequestListItem[]): Promise<Map<string, ProjectUsageSummary>> {
  const visible = items.filter((i) => can(ctx.actor, "project.spend.view", { kind: "project", tenantId: i.tenantId, projectId: i.projectId }, ctx.now));
  return projectUsageSummaries(
    ctx.db,
    visible.map((i) => i.projectId),
    ctx.now,
  );
}

/**
 * A pending request with everything its decision rests on. The queue passes the
 * basis it read once for the page; the request's own page reads the same basis
 * (loadPlatformQuota) for its one entry, so both show the same figures.
 */
async function withPicture(ctx: CommandContext, item: RequestListItem, usage: ProjectUsageSummary | null, settings = config().cluster, given?: PlatformQuota): Promise<QueueEntry> {
  const basis = given ?? (await loadPlatformQuota(ctx.db, settings, ctx.now));
  const assess = (amounts: QuotaAmounts) => assessRequest(ctx.db, settings, item.projectId, amounts, ctx.now, basis);
  // An extension adds nothing now (its grant is in force): the picture is the grant, its ends and the added period's cost.
  if (item.extension) {
    const assessment = await assess(NOTHING);
    return {
      ...item,
      assessment,
      diff: "",
      conflict: decisionConflict(ctx.actor, { requestedBy: item.requestedBy, tenantId: item.tenantId }, ctx.now),
      usage,
      extensionPicture: await extensionPictureOf(ctx, item, basis),
    };
  }
  // A GPU model whose pools were removed since the request: show the rest of the picture without that model.
  const assessment = await assess(item.amounts).catch((error: unknown) => {
    if (error instanceof UnknownGpuModelError) return null;
    throw error;
  });
  // The picture without the models no pool offers any more (the pools' models read once, not per model).
  const assessOffered = () => {
    const offered = gpuResourcesByModel(basis.pools);
    return assess({ ...item.amounts, gpus: item.amounts.gpus.filter((g) => offered.has(g.model)) });
  };
  const diff = assessment ? await quotaChangeDiff(ctx.db, settings, item.tenantId, item.projectId, assessment.after.quota, ctx.now) : "";
  return {
    ...item,
    assessment: assessment ?? (await assessOffered()),
    diff,
    conflict: decisionConflict(ctx.actor, { requestedBy: item.requestedBy, tenantId: item.tenantId }, ctx.now),
    usage,
    extensionPicture: null,
  };
}

export interface RequestDetail {
  request: RequestListItem & { granted: (typeof quotaRequests.$inferSelect)["granted"]; firstApprovedBy: string | null; clusterChangeId: number | null };
  events: (typeof quotaRequestEvents.$inferSelect)[];
  canCancel: boolean;
  canDecide: boolean;
  /** The full picture for deciders (pending requests only). */
  picture: QueueEntry | null;
  /** Revisions, and the comments for the request's two sides. */
  conversation: RequestConversation;
  /** The tenant's earlier requests and the project's grants, for deciders (null otherwise). */
  history: RequestHistory | null;
}

/** One request with its timeline; null when out of reach (people who cannot view the project, or a wrong path). */
export async function requestDetail(ctx: CommandContext, id: string, path?: { tenant: string; project: string }): Promise<RequestDetail | null> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return null;
  const [row] = await ctx.db.select().from(quotaRequests).where(eq(quotaRequests.id, id));
  if (!row) return null;
  if (!can(ctx.actor, "project.quota.view", { kind: "project", tenantId: row.tenantId, projectId: row.projectId }, ctx.now)) return null;
  const [item] = await listWhere(ctx, eq(quotaRequests.id, id), "newest", 1);
  if (path && (item!.tenantSlug !== path.tenant || item!.projectSlug !== path.project)) return null;
  const events = await ctx.db.select().from(quotaRequestEvents).where(eq(quotaRequestEvents.requestId, id)).orderBy(asc(quotaRequestEvents.id));
  const canDecide = row.status === "pending" && can(ctx.actor, "quota.decide", { kind: "platform" }, ctx.now);
  const [conversation, history] = await Promise.all([requestConversation(ctx, row), canDecide ? requestHistory(ctx, row) : Promise.resolve(null)]);
  return {
    request: { ...item!, granted: row.granted, firstApprovedBy: row.firstApprovedBy, clusterChangeId: row.clusterChangeId },
    events,
    canCancel: row.status === "pending" && row.requestedBy === ctx.actor.principalId,
    canDecide,
    picture: canDecide ? await withPicture(ctx, item!, (await usageOf(ctx, [item!])).get(item!.projectId) ?? null) : null,
    conversation,
    history,
  };
}

export interface ProjectQuotaView {
  tenantId: string;
  projectId: string;
  /** The project's namespace: its ClusterQueues and LocalQueues are named after it. */
  namespace: string;
  /** The quota in force now: starting quota plus grants in force. */
  effective: ReturnType<typeof effectiveQuotaAt>;
  gpusByModel: Record<string, number>;
  base: { cpuCores: number; memoryBytes: number; storageBytes: number; pvcCount: number };
  /** The quota in force now per flavour and resource: guarantee, burst and what may be lent. */
  lines: QuotaLine[];
  fairShareWeight: number;
  grants: { id: string; requestId: string | null; amounts: QuotaAmounts; lines: QuotaLine[]; source: string; startsAt: Date; endsAt: Date | null; inForce: boolean }[];
}

/** A project's effective quota and the grants it is made of; throws not_found when out of reach. */
export async function projectQuota(ctx: CommandContext, tenantSlug: string, projectSlug: string): Promise<ProjectQuotaView> {
  const { tenant, project } = await projectBySlugs(ctx.db, tenantSlug, projectSlug);
  if (!can(ctx.actor, "project.quota.view", { kind: "project", tenantId: tenant.id, projectId: project.id }, ctx.now)) throw new AppError("not_found");
  const settings = config().cluster;
  const spans = (await grantsOfProjects(ctx.db, [project.id])).get(project.id) ?? [];
  const rows = await ctx.db.select().from(quotaGrants).where(eq(quotaGrants.projectId, project.id)).orderBy(desc(quotaGrants.startsAt));
  const [grantLines, lendLimits] = await Promise.all([
    linesOfGrants(
      ctx.db,
      rows.map((g) => g.id),
    ),
    lendLimitsOf(ctx.db, [project.id]),
  ]);
  const limits = lendLimits.get(project.id) ?? [];
  return {
    tenantId: tenant.id,
    projectId: project.id,
    namespace: project.namespace,
    effective: effectiveQuotaAt(settings.defaultProjectQuota, spans, ctx.now, [], limits),
    gpusByModel: gpusByModelAt(spans, ctx.now),
    base: settings.defaultProjectQuota,
    lines: linesAt(settings.defaultProjectQuota, spans, ctx.now, limits),
    fairShareWeight: Number(project.fairShareWeight),
    grants: rows.map((g) => ({
      id: g.id,
      requestId: g.requestId,
      amounts: requestAmountsOf(g, grantLines.get(g.id) ?? []),
      lines: grantLines.get(g.id) ?? [],
      source: g.source,
      startsAt: g.startsAt,
      endsAt: g.endsAt,
      inForce: grantInForce(g, ctx.now),
    })),
  };
}

/** The number platform admins see in the header: requests waiting for a decision. */
export async function pendingRequestCount(ctx: CommandContext): Promise<number | null> {
  if (!can(ctx.actor, "quota.decide", { kind: "platform" }, ctx.now)) return null;
  const [row] = await ctx.db.select({ n: sql<number>`count(*)::int` }).from(quotaRequests).where(eq(quotaRequests.status, "pending"));
  return Number(row?.n ?? 0);
}

/** A tenant request with its quota read as amounts (tenantQuotaOf). */
export type TenantRequestRow = Omit<typeof tenantRequestsTable.$inferSelect, "quota"> & { quota: QuotaAmounts; requester: string | null };

/** The tenant requests the actor made, newest first. */
export async function myTenantRequests(ctx: CommandContext): Promise<TenantRequestRow[]> {
  const rows = await ctx.db
    .select({ r: tenantRequestsTable, requester: principals.displayName })
    .from(tenantRequestsTable)
    .leftJoin(principals, eq(principals.id, tenantRequestsTable.requestedBy))
    .where(eq(tenantRequestsTable.requestedBy, ctx.actor.principalId))
    .orderBy(desc(tenantRequestsTable.createdAt));
  return rows.map(({ r, requester }) => ({ ...r, quota: tenantQuotaOf(r.quota), requester }));
}

/** Pending tenant requests for the approval queue, oldest first; null for anyone but platform admins. */
export async function pendingTenantRequests(ctx: CommandContext): Promise<TenantRequestRow[] | null> {
  if (!can(ctx.actor, "tenant_request.decide", { kind: "platform" }, ctx.now)) return null;
  const rows = await ctx.db
    .select({ r: tenantRequestsTable, requester: principals.displayName })
    .from(tenantRequestsTable)
    .leftJoin(principals, eq(principals.id, tenantRequestsTable.requestedBy))
    .where(eq(tenantRequestsTable.status, "pending"))
    .orderBy(asc(tenantRequestsTable.createdAt));
  return rows.map(({ r, requester }) => ({ ...r, quota: tenantQuotaOf(r.quota), requester }));
}
