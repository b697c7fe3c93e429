import type { CommandContext } from "@/lib/auth/context";
import { config } from "@/lib/config";
import type { ClusterClient } from "@/lib/cluster/kube-client";
import { kueueChoiceFor } from "@/lib/cluster/kueue-discovery";
import { QueueStatusError, queueStatusError, readQueueStatus, type ClusterQueueStatus, type QueueStatusProblem, type QueueStatusRead } from "@/lib/cluster/queue-status";
import { BURST_LOCAL_QUEUE, burstQueueName, GUARANTEED_LOCAL_QUEUE, guaranteedQueueName, resourceFlavorName, TIER_PRIORITIES } from "@/lib/cluster/render-tenant";
import { clusterRuntime, type ClusterRuntime } from "@/lib/cluster/runtime";
import type { QuotaLine } from "./lines";
import { projectQuota } from "./queries";

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
  reason: string | null;
  /** Kueue counts from 0; shown from 1. null when the visibility API gave none. */
  positionInQueue: number | null;
  positionInClusterQueue: number | null;
  /** It had run and was evicted or preempted. */
  evicted: boolean;
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
export function shareLinesOf(tenantSlug: string, namespace: string, lines: readonly QuotaLine[], tenantQueues: readonly ClusterQueueStatus[]): ShareLine[] {
  const ownNames = new Set([guaranteedQueueName({ namespace }), burstQueueName({ namespace })]);
  const own = tenantQueues.filter((q) => ownNames.has(q.name));
  const guaranteedQueue = own.filter((q) => q.name === guaranteedQueueName({ namespace }));
  const others = tenantQueues.filter((q) => !ownNames.has(q.name));
  return lines
    .filter((l) => l.guarantee !== 0 || l.burst !== 0)
    .map((l) => {
      const flavorName = resourceFlavorName({ slug: tenantSlug }, l.flavor);
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

/** The project's workloads that wait (pending, or holding quota while admission checks run), first in line first. Pure. */
export function pendingWorkloadsOf(tenantSlug: string, read: Pick<QueueStatusRead, "workloads" | "positions">): PendingWorkload[] {
  const positions = new Map(read.positions.map((p) => [`${p.namespace}/${p.name}`, p]));
  return read.workloads
    .filter((w) => w.state === "pending" || w.state === "reserved")
    .map((w) => {
      const p = positions.get(`${w.namespace}/${w.name}`);
      return {
        name: w.name,
        tier: tierOf(tenantSlug, w.priorityClassName),
        queue: w.queueName,
        reason: w.reason,
        positionInQueue: p ? p.positionInLocalQueue + 1 : null,
        positionInClusterQueue: p ? p.positionInClusterQueue + 1 : null,
        evicted: w.evicted,
      };
    })
    .sort((a, b) => (a.positionInQueue ?? Infinity) - (b.positionInQueue ?? Infinity) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export type ShareNow =
  /** No cluster connected: the plan only. */
  | { mode: "record-only"; lines: ShareLine[] }
  /** Kueue is not managed by the portal (ALLOT_KUEUE off): nothing is borrowed or lent through it. */
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

/** The Kueue version to read: what the cluster serves (discovery, cached), else the setting. */
async function kueueVersionFor(client: ClusterClient, now: Date) {
  const render = config().cluster.render;
  return (await kueueChoiceFor(client, render, now.getTime()))?.apiVersion ?? render.kueue.apiVersion;
}

/**
 * A project's share now, for anyone who may view its quota (project.quota.view,
 * decided in projectQuota). Never throws for the cluster's sake: an
 * unreadable cluster is a mode the page shows.
 */
export async function projectShareNow(ctx: CommandContext, tenantSlug: string, projectSlug: string, runtime: ClusterRuntime = clusterRuntime(config().cluster)): Promise<ShareNow> {
  const quota = await projectQuota(ctx, tenantSlug, projectSlug);
  const settings = config().cluster;
  if (!runtime.client) return { mode: "record-only", lines: planOnly(quota.lines) };
  if (!settings.render.kueue.enabled) return { mode: "no-kueue", lines: planOnly(quota.lines) };
  const namespace = quota.namespace;
  try {
    const read = await readQueueStatus(runtime.client, {
      kueueVersion: await kueueVersionFor(runtime.client, ctx.now),
      clusterQueueSelector: tenantSelector(tenantSlug),
      project: { namespace, localQueues: [GUARANTEED_LOCAL_QUEUE, BURST_LOCAL_QUEUE] },
    });
    return {
      mode: "live",
      lines: shareLinesOf(tenantSlug, namespace, quota.lines, read.clusterQueues),
      pending: pendingWorkloadsOf(tenantSlug, read),
      positionsNote: read.positionsNote,
      readAt: new Date(),
      server: runtime.client.server,
    };
  } catch (err) {
    const e = err instanceof QueueStatusError ? err : queueStatusError(err, "Kueue's queues", runtime.client.server);
    return { mode: "unavailable", lines: planOnly(quota.lines), problem: e.problem, message: e.message };
  }
}
