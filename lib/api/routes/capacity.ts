import "server-only";
import { and, eq, gt, lte } from "drizzle-orm";
import { z } from "zod";
import { wholeNumber } from "@/lib/input/numbers";
import { nodePools, rates, tenants } from "@/db/schema";
import { executeCommand, fieldErrorsOf } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { GiB } from "@/lib/quota/amounts";
import { versionInput } from "@/lib/tenancy/inputs";
import { addRate, createNodePool, deleteNodePool, nodePoolInput, updateNodePool } from "@/lib/quota/commands/capacity";
import { maxNodesOf } from "@/lib/quota/capacity";
import { physicalGpusPerNode, schedulableGpusPerNode } from "@/lib/quota/pool-hardware";
import { capacityOverview, poolTotalsAt, rateUnit } from "@/lib/quota/capacity-queries";
import { apiRoute } from "../route";
import { nodePoolOut, okOut, rateCardLineOut, rateOut, resourceCapacityOut } from "../schemas";
import { parseInput } from "@/lib/input/messages";

/**
 * What the cluster can hold and what it costs: node pools and the rate card.
 * Every signed-in principal reads them (capacity.view); platform admins change
 * them (capacity.manage, checked by the commands).
 */

const TAG = "Capacity and prices";
type PoolRow = typeof nodePools.$inferSelect;
const poolParams = z.object({ pool: z.string().max(63) });

/** A pool as the API shows it: the dedicated tenant is named only to those who can see that tenant. */
function poolOut(ctx: CommandContext, row: PoolRow, dedicatedSlug: string | null) {
  const visible = row.dedicatedTenantId !== null && can(ctx.actor, "tenant.view", { kind: "tenant", tenantId: row.dedicatedTenantId }, ctx.now);
  return {
    ...row,
    dedicated: row.dedicatedTenantId !== null,
    dedicatedTenant: visible ? dedicatedSlug : null,
    capacityNodes: row.nodeCount,
    totals: poolTotalsAt(row, row.nodeCount),
    atMax: { nodes: maxNodesOf(row), totals: poolTotalsAt(row, maxNodesOf(row)) },
    schedulableGpusPerNode: schedulableGpusPerNode(row),
    physicalGpusPerNode: physicalGpusPerNode(row),
  };
}

async function tenantSlugOf(ctx: CommandContext, tenantId: string | null): Promise<string | null> {
  if (!tenantId) return null;
  const [row] = await ctx.db.select({ slug: tenants.slug }).from(tenants).where(eq(tenants.id, tenantId));
  return row?.slug ?? null;
}

async function overviewOrNotFound(ctx: CommandContext) {
  const overview = await capacityOverview(ctx, config().cluster);
  if (!overview) throw new AppError("not_found");
  return overview;
}

/** Pools are addressed by name (unique), like tenants by slug. */
async function poolByName(ctx: CommandContext, name: string): Promise<PoolRow> {
  const [row] = await ctx.db.select().from(nodePools).where(eq(nodePools.name, name));
  if (!row) throw new AppError("not_found", "No such node pool.");
  return row;
}

export const listNodePools = apiRoute({
  method: "GET",
  path: "/api/v1/node-pools",
  summary: "Node pools, and what the cluster can hold per resource against what is allocated (any signed-in principal)",
  tag: TAG,
  params: z.object({}),
  response: z.object({ pools: z.array(nodePoolOut), capacity: z.array(resourceCapacityOut) }),
  async handler(ctx) {
    const overview = await overviewOrNotFound(ctx);
    return { pools: overview.pools.map((p) => poolOut(ctx, p, p.dedicatedTenant?.slug ?? null)), capacity: overview.resources };
  },
});

export const createNodePoolRoute = apiRoute({
  method: "POST",
  path: "/api/v1/node-pools",
  summary: "Describe a node pool (platform admins); CPU and memory per node take plain numbers (cores, GiB) or Kubernetes quantities",
  tag: TAG,
  params: z.object({}),
  body: createNodePool.input,
  response: nodePoolOut,
  status: 201,
  async handler(ctx, { body }) {
    const row = await executeCommand(createNodePool, ctx, body);
    return poolOut(ctx, row, await tenantSlugOf(ctx, row.dedicatedTenantId));
  },
});

/**
 * PATCH body: any of the pool's facts, and the version that was read, with the
 * command's own field schemas. It is checked as sent (below) before the stored
 * facts fill the gaps, so what is documented is what is validated.
 */
const poolPatch = z
  .object(nodePoolInput.shape)
  .partial()
  .extend({ version: versionInput.describe("The pool's version, as read (optimistic locking)") });

export const updateNodePoolRoute = apiRoute({
  method: "PATCH",
  path: "/api/v1/node-pools/{pool}",
  summary:
    "Change a node pool (platform admins): send the facts to change and the version you read; null clears minNodes, maxNodes, dedicatedTenant, nodeLabels, nodeTaints, gpuProfiles or tiers (every tier); gpuSharing other than time_sliced sets gpuSlices to 1 unless sent",
  tag: TAG,
  params: poolParams,
  body: poolPatch,
  response: nodePoolOut,
  async handler(ctx, { params, body }) {
    const patch = parseInput(poolPatch, body);
    if (!patch.success) throw new AppError("validation", undefined, fieldErrorsOf(patch.error));
    const current = await poolByName(ctx, params.pool);
    // The command takes all facts at once: what the body leaves out stays as stored.
    const stored = {
      name: current.name,
      gpuModel: current.gpuModel,
      gpuResource: current.gpuResource,
      gpusPerNode: current.gpusPerNode,
      nodeCount: current.nodeCount,
      minNodes: current.minNodes,
      maxNodes: current.maxNodes,
      cpuPerNode: current.cpuPerNode,
      // Plain numbers are GiB; bytes / 2^30 is exact in binary floating point.
      memoryPerNode: current.memoryBytesPerNode / GiB,
      dedicatedTenant: await tenantSlugOf(ctx, current.dedicatedTenantId),
      nodeLabels: current.nodeLabels,
      nodeTaints: current.nodeTaints,
      // Exclusive, or a new resource without a sharing: as the resource says (mig for a MIG profile).
      gpuSharing: current.gpuSharing === "exclusive" || body.gpuResource !== undefined ? null : current.gpuSharing,
      // Slices belong to time-slicing: a body that stops it without naming slices goes back to 1.
      gpuSlices: body.gpuSharing !== undefined && body.gpuSharing !== "time_sliced" ? 1 : current.gpuSlices,
      // Further profiles stay as stored unless sent (null or [] clears them).
      gpuProfiles: current.gpuProfiles,
      tiers: current.tiers,
    };
    const row = await executeCommand(updateNodePool, ctx, { ...stored, ...body, id: current.id });
    return poolOut(ctx, row, await tenantSlugOf(ctx, row.dedicatedTenantId));
  },
});

export const deleteNodePoolRoute = apiRoute({
  method: "DELETE",
  path: "/api/v1/node-pools/{pool}",
  summary: "Remove a node pool from the portal's picture of the cluster (platform admins; the nodes are not touched); ?version= deletes only that version",
  tag: TAG,
  params: poolParams,
  query: z.object({ version: wholeNumber("version", { min: 1, empty: undefined }) }),
  response: okOut,
  async handler(ctx, { params, query }) {
    const current = await poolByName(ctx, params.pool);
    await executeCommand(deleteNodePool, ctx, { id: current.id, ...(query.version === undefined ? {} : { version: query.version }) });
    return { ok: true };
  },
});

export const listRates = apiRoute({
  method: "GET",
  path: "/api/v1/rates",
  summary: "The rate card: the price in force for each resource, the next one scheduled, and every price ever set (any signed-in principal)",
  tag: TAG,
  params: z.object({}),
  response: z.object({
    currency: z.string().describe("ISO 4217 code of every price"),
    rateCard: z.array(rateCardLineOut),
    history: z.array(rateOut).describe("Newest effective-from first"),
  }),
  async handler(ctx) {
    const overview = await overviewOrNotFound(ctx);
    return {
      currency: config().currency,
      rateCard: overview.rateCard,
      history: overview.rateHistory.map((r) => ({ ...r, unit: r.unit ?? rateUnit(r.resource) })),
    };
  },
});

export const addRateRoute = apiRoute({
  method: "POST",
  path: "/api/v1/rates",
  summary: "Set a price for a resource from an instant on (platform admins; default now). Earlier prices stay in the history",
  tag: TAG,
  params: z.object({}),
  body: addRate.input,
  response: rateOut.extend({ currency: z.string() }),
  status: 201,
  async handler(ctx, { body }) {
    const row = await executeCommand(addRate, ctx, body);
    const now = ctx.now;
    let state: "current" | "scheduled" | "past" = "scheduled";
    if (row.effectiveFrom.getTime() <= now.getTime()) {
      // A back-dated price is already replaced when a later one (up to now) exists.
      const [later] = await ctx.db
        .select({ id: rates.id })
        .from(rates)
        .where(and(eq(rates.resource, row.resource), gt(rates.effectiveFrom, row.effectiveFrom), lte(rates.effectiveFrom, now)))
        .limit(1);
      state = later ? "past" : "current";
    }
    return { ...row, unit: row.unit ?? rateUnit(row.resource), state, currency: config().currency };
  },
});
