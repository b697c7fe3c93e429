import "server-only";
import { z } from "zod";
import { keyOfLine } from "@/lib/quota/envelope";
import { tenantEnvelopeView } from "@/lib/quota/envelope-queries";
import { projectShareNow, tenantShareNow, type LiveMode, type ShareLine } from "@/lib/quota/share-now";
import { projectParams, tenantParams } from "../params";
import { apiRoute } from "../route";

/**
 * Seeing one's share over REST: a project's plan beside what Kueue holds for
 * it now, and a tenant's envelope with its cohort now (each project and the
 * sums). The same figures as the pages (lib/quota/share-now.ts). Live figures
 * are null when there are none: no cluster connected (record-only), Kueue not
 * managed by the portal, or a cluster that could not be read (`message` says
 * why). Amounts in each line's unit: devices, cores, bytes.
 */
const TAG = "Quota envelopes";

const modeOut = z.object({
  mode: z.enum(["live", "record-only", "no-kueue", "unavailable"]).describe("live: read from the cluster now; record-only: no cluster connected, the plan only; no-kueue: Kueue is not managed by the portal; unavailable: the cluster could not be read"),
  message: z.string().nullable().describe("Why the cluster could not be read, and what to do (mode unavailable)"),
  readAt: z.string().datetime().nullable().describe("When the cluster was read (mode live)"),
});

const live = z.number().nullable();
const lineOut = z.object({
  quota: z.string().describe('The line: "cpu", "memory", "storage" or "gpu:<model>"'),
  flavor: z.string(),
  resource: z.string(),
  guaranteed: z.number(),
  burst: z.number().describe("What may be borrowed beyond the guarantee"),
  lendLimit: z.number().nullable().describe("How much of the guarantee others may borrow; null: all of it while unused"),
  inUse: live.describe("Quota Kueue has reserved for the workloads now; null without live figures (and for storage, which Kueue does not hold)"),
  borrowed: live.describe("The part of inUse above the guarantee"),
  lent: live.describe("An estimate: the smaller of the unused lendable guarantee and what the tenant's other projects borrow"),
});

function modeOf(m: LiveMode) {
  return { mode: m.mode, message: m.mode === "unavailable" ? m.message : null, readAt: m.mode === "live" ? m.readAt.toISOString() : null };
}

function lineOf(l: Omit<ShareLine, "lendLimit"> & { lendLimit?: number | null }, isLive: boolean) {
  const shown = isLive && l.resource !== "storage";
  return {
    quota: l.resource === "storage" ? "storage" : keyOfLine(l),
    flavor: l.flavor,
    resource: l.resource,
    guaranteed: l.guaranteed,
    burst: l.burst,
    lendLimit: l.lendLimit ?? null,
    inUse: shown ? l.inUse : null,
    borrowed: shown ? l.borrowed : null,
    lent: shown ? l.lent : null,
  };
}

export const getProjectShare = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/projects/{project}/quota-share",
  summary: "The project's share now: per line its guarantee, burst and lend limit beside what Kueue holds for it (in use, borrowed, lent), and its waiting workloads",
  tag: TAG,
  params: projectParams,
  response: modeOut.extend({
    lines: z.array(lineOut),
    pending: z
      .array(
        z.object({
          name: z.string(),
          tier: z.string().nullable(),
          queue: z.string().nullable(),
          reason: z.string().nullable().describe("Why it waits, as Kueue says"),
          positionInQueue: z.number().int().nullable().describe("From 1; null when Kueue's visibility API gave none"),
          positionInClusterQueue: z.number().int().nullable(),
          evicted: z.boolean(),
        }),
      )
      .describe("Empty without live figures"),
    positionsNote: z.string().nullable(),
  }),
  async handler(ctx, { params }) {
    const share = await projectShareNow(ctx, params.tenant, params.project);
    const isLive = share.mode === "live";
    return {
      ...modeOf(share),
      lines: share.lines.map((l) => lineOf(l, isLive)),
      pending: isLive ? share.pending : [],
      positionsNote: isLive ? share.positionsNote : null,
    };
  },
});

const totalOut = lineOut.omit({ lendLimit: true }).extend({ lendable: z.number().describe("What the projects let others borrow of their guarantees, summed") });

export const getTenantShare = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/quota-share",
  summary: "The tenant's envelope and its cohort now: each project's use, borrowing and lending per line, and the cohort's sums, from one read of the tenant's Kueue queues",
  tag: TAG,
  params: tenantParams,
  response: modeOut.extend({
    envelope: z.array(z.object({ quota: z.string(), guarantee: z.number(), burst: z.number(), allocated: z.number(), unallocated: z.number() })).describe("What the platform approved for the tenant, and how much of it the projects hold by grants"),
    projects: z.array(z.object({ project: z.string(), lines: z.array(lineOut) })).describe("Open projects holding CPU, memory or GPU quota (starting quota included), as each project's own share shows them"),
    totals: z.array(totalOut).describe("Per line, the sum over the projects"),
    cohort: z.object({ name: z.string(), weightedShare: z.number().nullable().describe("Kueue's fair-sharing weighted share of the tenant's Cohort") }).nullable(),
  }),
  async handler(ctx, { params }) {
    // The envelope view decides access (tenant.quota.view) first; tenantShareNow decides it again.
    const view = await tenantEnvelopeView(ctx, params.tenant);
    const now = await tenantShareNow(ctx, params.tenant);
    const isLive = now.mode === "live";
    return {
      ...modeOf(now),
      envelope: view.rows.map((r) => ({ quota: r.key, guarantee: r.line.guarantee, burst: r.line.burst, allocated: r.allocated, unallocated: r.unallocated })),
      projects: now.share.projects.map((p) => ({ project: p.slug, lines: p.lines.map((l) => lineOf(l, isLive)) })),
      totals: now.share.totals.map((t) => {
        const { lendLimit: _, ...rest } = lineOf(t, isLive);
        return { ...rest, lendable: t.lendable };
      }),
      cohort: now.share.cohort,
    };
  },
});
