import "server-only";
import { asc } from "drizzle-orm";
import { tenantQuotaEnvelopes, tenants } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { kueueChoiceFor } from "@/lib/cluster/kueue-discovery";
import { QueueStatusError, queueStatusError, readQueueStatus, type ClusterQueueStatus, type CohortStatus, type QueueStatusProblem, type QueueStatusQuery, type QueueStatusRead } from "@/lib/cluster/queue-status";
import { dedicatedNodePool } from "@/lib/cluster/desired-from-db";
import { BURST_LOCAL_QUEUE, burstQueueName, GUARANTEED_LOCAL_QUEUE, guaranteedQueueName, resourceFlavorName, tenantCohortName, TIER_PRIORITIES, type FlavorScope } from "@/lib/cluster/render-tenant";
import { clusterRuntime, type ClusterRuntime } from "@/lib/cluster/runtime";
import { AppError } from "@/lib/errors";
import { tenantBySlug } from "@/lib/tenancy/lookup";
import type { EnvelopeLine } from "./envelope";
import { cohortMembersByTenant, cohortMembersOf, type CohortQueueMember } from "./envelope-store";
import { compareLines, DEFAULT_FLAVOR, type QuotaLine } from "./lines";
import { projectQuota } from "./queries";
import { explainWaitReason, type WaitReasonWords } from "./wait-reason";

/**
 * "Share now": per flavour and resource, a project's plan (guaranteed, burst
 * limit) beside what Kueue says it holds at this moment (in use, borrowed,
 * lent), and its pending workloads with why they wait and where they stand.
 *
 * In use and borrowed are exact: the quota reserved by the project's two
 * ClusterQueues and what of it is above their nominal quota. Lent is an
 * estimate: Kueue reports what each queue borrows, not from whom, so a
 * project is counted as lending the smaller of its unused lendable guarantee
 * and what the tenant's other queues borrow. The page says so.
 *
 * The same figures, per project and summed, make a tenant's cohort now
 * (tenantShareNow, its page) and every tenant's (platformShareNow, the
 * capacity page), so a project's row there equals its own page.
 */

export interface ShareLine {
  flavor: string;
  resource: string;
  guaranteed: number;
  burst: number;
  lendLimit: number | null;
  inUse: number;
  borrowed: number;
  /** An estimate (see above). */
  lent: number;
}

export interface PendingWorkload {
  name: string;
  /** serving, training, preemptible, or the priority class named when it is not one of the tenant's tiers; null without one. */
  tier: string | null;
  /** The LocalQueue: default (the guarantee) or preemptible (burst). */
  queue: string | null;
  /** Kueue's own message. */
  reason: string | null;
  /** The same in plain words (lib/quota/wait-reason.ts); null without a message. */
  explanation: WaitReasonWords | null;
  /** Kueue counts from 0; shown from 1. null when the visibility API gave none. */
  positionInQueue: number | null;
  positionInClusterQueue: number | null;
  /** It had run and was evicted or preempted. */
  evicted: boolean;
}

/** Whose ResourceFlavors a tenant's queues name: the platform's, or a dedicated tenant's own pool's (render-tenant.ts resourceFlavorName). */
export function flavorScopeOf(tenant: { slug: string; isolationTier: "shared" | "dedicated" }): FlavorScope | null {
  return tenant.isolationTier === "dedicated" ? { isolationTier: "dedicated", nodePool: dedicatedNodePool(config().cluster, tenant.slug) } : null;
}

/** A flavour's reserved quota in a set of queues: total and borrowed, summed. */
function reservedIn(queues: readonly ClusterQueueStatus[], flavorName: string, resource: string): { total: number; borrowed: number } {
  let total = 0;
  let borrowed = 0;
  for (const q of queues) {
    for (const u of q.reserved) {
      if (u.flavor === flavorName && u.resource === resource) {
        total += u.total;
        borrowed += u.borrowed;
      }
    }
  }
  return { total, borrowed };
}

const tidy = (n: number) => Math.round(n * 1000) / 1000;

/**
 * The live figures of a project's lines from its tenant's ClusterQueues. Pure.
 * `tenantQueues` are every ClusterQueue of the tenant (the project's own among them).
 */
export function shareLinesOf(flavors: FlavorScope | null, namespace: string, lines: readonly QuotaLine[], tenantQueues: readonly ClusterQueueStatus[]): ShareLine[] {
  const ownNames = new Set([guaranteedQueueName({ namespace }), burstQueueName({ namespace })]);
  const own = tenantQueues.filter((q) => ownNames.has(q.name));
  const guaranteedQueue = own.filter((q) => q.name === guaranteedQueueName({ namespace }));
  const others = tenantQueues.filter((q) => !ownNames.has(q.name));
  return lines
    .filter((l) => l.guarantee !== 0 || l.burst !== 0)
    .map((l) => {
      const flavorName = resourceFlavorName(flavors, l.flavor);
      const mine = reservedIn(own, flavorName, l.resource);
      const inGuarantee = reservedIn(guaranteedQueue, flavorName, l.resource).total;
      const lendable = Math.max(0, Math.min(l.guarantee - inGuarantee, l.lendLimit ?? l.guarantee));
      const othersBorrow = reservedIn(others, flavorName, l.resource).borrowed;
      return {
        flavor: l.flavor,
        resource: l.resource,
        guaranteed: l.guarantee,
        burst: l.burst,
        lendLimit: l.lendLimit,
        inUse: tidy(mine.total),
        borrowed: tidy(mine.borrowed),
        lent: tidy(Math.min(lendable, othersBorrow)),
      };
    });
}

/** The tier a priority class stands for: `<tenant>-<tier>`. */
export function tierOf(tenantSlug: string, priorityClassName: string | null): string | null {
  if (!priorityClassName) return null;
  const tier = priorityClassName.startsWith(`${tenantSlug}-`) ? priorityClassName.slice(tenantSlug.length + 1) : null;
  return tier && tier in TIER_PRIORITIES ? tier : priorityClassName;
}

/**
 * The project's workloads that wait (pending, or holding quota while admission
 * checks run), first in line first. `flavors` are the quota lines' flavour
 * keys, so Kueue's messages name "A100 1g.10gb" rather than "a100-1g-10gb". Pure.
 */
export function pendingWorkloadsOf(tenantSlug: string, read: Pick<QueueStatusRead, "workloads" | "positions">, flavors: readonly string[] = [], scope: FlavorScope | null = null): PendingWorkload[] {
  const positions = new Map(read.positions.map((p) => [`${p.namespace}/${p.name}`, p]));
  const labels = new Map(flavors.map((key) => [resourceFlavorName(scope, key), key === DEFAULT_FLAVOR ? "any node" : key]));
  const flavorLabel = (name: string) => labels.get(name) ?? name;
  return read.workloads
    .filter((w) => w.state === "pending" || w.state === "reserved")
    .map((w) => {
      const p = positions.get(`${w.namespace}/${w.name}`);
      return {
        name: w.name,
        tier: tierOf(tenantSlug, w.priorityClassName),
        queue: w.queueName,
        reason: w.reason,
        explanation: explainWaitReason(w.reason, { flavorLabel }),
        positionInQueue: p ? p.positionInLocalQueue + 1 : null,
        positionInClusterQueue: p ? p.positionInClusterQueue + 1 : null,
        evicted: w.evicted,
      };
    })
    .sort((a, b) => (a.positionInQueue ?? Infinity) - (b.positionInQueue ?? Infinity) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** How the live figures were read, or why there are none. */
export type LiveMode =
  /** No cluster connected: the plan only. */
  | { mode: "record-only" }
  /** Kueue is not managed by the portal (ALLOT_KUEUE off): nothing is borrowed or lent through it. */
  | { mode: "no-kueue" }
  | { mode: "unavailable"; problem: QueueStatusProblem; message: string }
  | { mode: "live"; readAt: Date; server: string };

export type ShareNow =
  | { mode: "record-only"; lines: ShareLine[] }
  | { mode: "no-kueue"; lines: ShareLine[] }
  | { mode: "unavailable"; lines: ShareLine[]; problem: QueueStatusProblem; message: string }
  | { mode: "live"; lines: ShareLine[]; pending: PendingWorkload[]; positionsNote: string | null; readAt: Date; server: string };

const planOnly = (lines: readonly QuotaLine[]): ShareLine[] =>
  lines.filter((l) => l.guarantee !== 0 || l.burst !== 0).map((l) => ({ flavor: l.flavor, resource: l.resource, guaranteed: l.guarantee, burst: l.burst, lendLimit: l.lendLimit, inUse: 0, borrowed: 0, lent: 0 }));

/** The label selector of a tenant's objects (lib/cluster/meta.ts ownerLabels). */
export function tenantSelector(tenantSlug: string): string {
  const render = config().cluster.render;
  return `app.kubernetes.io/managed-by=${render.managedBy},${render.labelPrefix}/tenant=${tenantSlug}`;
}

/** The label selector of every object the portal manages, for the platform's view of all cohorts. */
export function managedSelector(): string {
  return `app.kubernetes.io/managed-by=${config().cluster.render.managedBy}`;
}

/**
 * One read of Kueue's status for a page or an API answer, or the mode that
 * says why there is none. Never throws for the cluster's sake. Cohort
 * objects are asked for only where the cluster serves them.
 */
async function readLive(runtime: ClusterRuntime, now: Date, query: Omit<QueueStatusQuery, "kueueVersion" | "cohortSelector">, cohortSelector?: string): Promise<{ live: LiveMode; read: QueueStatusRead | null }> {
  const settings = config().cluster;
  if (!runtime.client) return { live: { mode: "record-only" }, read: null };
  if (!settings.render.kueue.enabled) return { live: { mode: "no-kueue" }, read: null };
  try {
    const choice = await kueueChoiceFor(runtime.client, settings.render, now.getTime());
    const kueueVersion = choice?.apiVersion ?? settings.render.kueue.apiVersion;
    const cohortObjects = choice?.cohortObjects ?? settings.render.kueue.cohortObjects !== false;
    const read = await readQueueStatus(runtime.client, { ...query, kueueVersion, ...(cohortSelector !== undefined && cohortObjects ? { cohortSelector } : {}) });
    return { live: { mode: "live", readAt: new Date(), server: runtime.client.server }, read };
  } catch (err) {
    const e = err instanceof QueueStatusError ? err : queueStatusError(err, "Kueue's queues", runtime.client.server);
    return { live: { mode: "unavailable", problem: e.problem, message: e.message }, read: null };
  }
}

/**
 * A project's share now, for anyone who may view its quota (project.quota.view,
 * decided in projectQuota). Never throws for the cluster's sake: an
 * unreadable cluster is a mode the page shows.
 */
export async function projectShareNow(ctx: CommandContext, tenantSlug: string, projectSlug: string, runtime: ClusterRuntime = clusterRuntime(config().cluster)): Promise<ShareNow> {
  const quota = await projectQuota(ctx, tenantSlug, projectSlug);
  const namespace = quota.namespace;
  const scope = flavorScopeOf(await tenantBySlug(ctx.db, tenantSlug));
  const { live, read } = await readLive(runtime, ctx.now, { clusterQueueSelector: tenantSelector(tenantSlug), project: { namespace, localQueues: [GUARANTEED_LOCAL_QUEUE, BURST_LOCAL_QUEUE] } });
  if (live.mode !== "live" || !read) return { ...live, lines: planOnly(quota.lines) } as ShareNow;
  return {
    ...live,
    lines: shareLinesOf(scope, namespace, quota.lines, read.clusterQueues),
    pending: pendingWorkloadsOf(
      tenantSlug,
      read,
      quota.lines.map((l) => l.flavor),
      scope,
    ),
    positionsNote: read.positionsNote,
  };
}

// ---------------------------------------------------------------- a tenant's cohort

/** One line of a cohort: its projects' figures summed (storage is not Kueue's, so it is left out). */
export interface CohortLineNow {
  flavor: string;
  resource: string;
  guaranteed: number;
  burst: number;
  /** What the projects let others borrow of their guarantees: each one's lend limit, or all of it. */
  lendable: number;
  inUse: number;
  borrowed: number;
  /** The sum of the projects' estimates. */
  lent: number;
}

export interface CohortShare {
  tenantSlug: string;
  /** The tenant's Cohort object, where Kueue serves them and the cluster has it. */
  cohort: { name: string; weightedShare: number | null } | null;
  projects: { slug: string; name: string; namespace: string; lines: ShareLine[] }[];
  /** Per line, the sum over the projects: the cohort's figures. */
  totals: CohortLineNow[];
}

/** A set of projects' lines summed per flavour and resource, ordered as lines are. Pure. */
export function cohortTotalsOf(projects: readonly { lines: readonly ShareLine[] }[]): CohortLineNow[] {
  const byLine = new Map<string, CohortLineNow>();
  for (const l of projects.flatMap((p) => p.lines)) {
    const key = `${l.flavor}\u0000${l.resource}`;
    const t = byLine.get(key) ?? { flavor: l.flavor, resource: l.resource, guaranteed: 0, burst: 0, lendable: 0, inUse: 0, borrowed: 0, lent: 0 };
    const guaranteed = Math.max(0, l.guaranteed);
    byLine.set(key, {
      ...t,
      guaranteed: tidy(t.guaranteed + guaranteed),
      burst: tidy(t.burst + l.burst),
      lendable: tidy(t.lendable + Math.min(l.lendLimit ?? guaranteed, guaranteed)),
      inUse: tidy(t.inUse + l.inUse),
      borrowed: tidy(t.borrowed + l.borrowed),
      lent: tidy(t.lent + l.lent),
    });
  }
  return [...byLine.values()].sort(compareLines);
}

/**
 * A tenant's cohort now: each open project's lines as its own page shows
 * them (shareLinesOf over the tenant's ClusterQueues), and their sums.
 * `queues` null: no live read, the plan only. Pure.
 */
export function cohortShareOf(
  tenantSlug: string,
  members: readonly CohortQueueMember[],
  queues: readonly ClusterQueueStatus[] | null,
  cohort: CohortStatus | null,
  scope: FlavorScope | null = null,
): CohortShare {
  const projects = members
    .map((m) => ({
      slug: m.slug,
      name: m.name,
      namespace: m.namespace,
      lines: (queues ? shareLinesOf(scope, m.namespace, m.lines, queues) : planOnly(m.lines)).filter((l) => l.resource !== "storage"),
    }))
    .filter((p) => p.lines.length > 0);
  return { tenantSlug, cohort: cohort ? { name: cohort.name, weightedShare: cohort.weightedShare } : null, projects, totals: cohortTotalsOf(projects) };
}

export type TenantShareNow = LiveMode & { share: CohortShare };

/**
 * A tenant's cohort now, for those who may view the tenant's quota
 * (tenant.quota.view): one read of the tenant's ClusterQueues (and its
 * Cohort), not one per project. Throws not_found when out of reach.
 */
export async function tenantShareNow(ctx: CommandContext, tenantSlug: string, runtime: ClusterRuntime = clusterRuntime(config().cluster)): Promise<TenantShareNow> {
  const tenant = await tenantBySlug(ctx.db, tenantSlug);
  if (!can(ctx.actor, "tenant.quota.view", { kind: "tenant", tenantId: tenant.id }, ctx.now)) throw new AppError("not_found");
  const members = await cohortMembersOf(ctx.db, tenant.id, config().cluster.defaultProjectQuota, ctx.now);
  const selector = tenantSelector(tenant.slug);
  const { live, read } = await readLive(runtime, ctx.now, { clusterQueueSelector: selector }, selector);
  const cohort = read?.cohorts.find((c) => c.name === tenantCohortName(tenant)) ?? null;
  return { ...live, share: cohortShareOf(tenant.slug, members, read?.clusterQueues ?? null, cohort, flavorScopeOf(tenant)) };
}

// ---------------------------------------------------------------- every tenant's cohort

export interface PlatformCohort extends CohortShare {
  tenantName: string;
  active: boolean;
  /** The envelope the platform approved, per line, where it set one. */
  envelope: EnvelopeLine[];
}

export type PlatformShareNow = LiveMode & { cohorts: PlatformCohort[] };

/**
 * Every tenant's cohort now, for platform admins (platform.cohorts.view):
 * one read of all the portal's ClusterQueues and Cohorts, grouped by their
 * tenant label; each tenant's figures computed as its own page computes
 * them. Tenants with no quota to share are left out. Throws forbidden.
 */
export async function platformShareNow(ctx: CommandContext, runtime: ClusterRuntime = clusterRuntime(config().cluster)): Promise<PlatformShareNow> {
  if (!can(ctx.actor, "platform.cohorts.view", { kind: "platform" }, ctx.now)) throw new AppError("forbidden");
  const settings = config().cluster;
  const [tenantRows, envelopes, members, { live, read }] = await Promise.all([
    ctx.db.select({ id: tenants.id, slug: tenants.slug, name: tenants.name, status: tenants.status, isolationTier: tenants.isolationTier }).from(tenants).orderBy(asc(tenants.slug)),
    ctx.db.select().from(tenantQuotaEnvelopes),
    cohortMembersByTenant(ctx.db, settings.defaultProjectQuota, ctx.now),
    readLive(runtime, ctx.now, { clusterQueueSelector: managedSelector() }, managedSelector()),
  ]);
  const tenantLabel = `${settings.render.labelPrefix}/tenant`;
  return {
    ...live,
    cohorts: tenantRows.flatMap((t) => {
      const queues = read ? read.clusterQueues.filter((q) => q.labels[tenantLabel] === t.slug) : null;
      const cohort = read?.cohorts.find((c) => c.labels[tenantLabel] === t.slug && c.name === tenantCohortName(t)) ?? null;
      const share = cohortShareOf(t.slug, members.get(t.id) ?? [], queues, cohort, flavorScopeOf(t));
      const envelope = envelopes
        .filter((e) => e.tenantId === t.id)
        .map((e) => ({ flavor: e.flavor, resource: e.resource, guarantee: Number(e.guarantee), burst: Number(e.burst) }))
        .sort(compareLines);
      return share.projects.length === 0 && envelope.length === 0 ? [] : [{ ...share, tenantName: t.name, active: t.status === "active", envelope }];
    }),
  };
}
