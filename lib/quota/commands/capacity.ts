import "server-only";
import { and, eq, ne, or } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { instanceSettings, nodePools, rates, tenants } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import type { PoolFlavor } from "@/lib/cluster/desired-state";
import { enqueuePlatformFlavorsChange, enqueueTenantChange, enqueueTenantQueuesChanges } from "@/lib/cluster/outbox";
import { lockRatesForChange } from "@/lib/metering/ingest";
import { recomputeDailyRollup } from "@/lib/metering/rollup";
import { bumpSpendVersion } from "@/lib/metering/spend-generations";
import { RESOURCE_KEY_PATTERN, resourceKind } from "@/lib/metering/units";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { decimalNumber, quantity, wholeNumber } from "@/lib/input/numbers";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { instantInput } from "@/lib/input/instants";
import { uuidInput } from "@/lib/tenancy/inputs";
import { GiB } from "../amounts";
import type { QuotaPolicy } from "../policy";
import { quotaPolicySchema } from "../policy-schema";
import { loadPoolFlavors } from "../pool-flavors";
import { MAX_GPU_SLICES, sharingFor, type GpuSharing } from "../pool-hardware";
import { gpuProfilesInput, gpuSharingInput, nodeLabelsInput, nodeTaintsInput, tiersInput } from "../pool-hardware-inputs";
import { profileClash, requestableProfilesOf, type GpuProfile } from "../pool-profiles";
import { endPoolSize, recordPoolSize } from "../pool-sizes";
import { lockGuaranteeSum, tenantLineHoldings } from "../envelope-store";
import { isGpuExtendedResource } from "../import-pools";
import { poolMinimumProblem } from "../sharing-arithmetic";
import { knownGpuResources, loadPools, loadQuotaPolicy, QUOTA_POLICY_KEY } from "../store";
import { FILL_IN, MORE_THAN_ZERO, NOT_NEGATIVE, atMostChars, atMostItems } from "@/lib/input/messages";

/**
 * Platform admins describe what the cluster can hold and what it costs: node
 * pools (each change of a pool's size kept in its size history, lib/quota/pool-sizes.ts),
 * the rate card (history kept: a new price is a new row) and the rules
 * for quota requests. Every command here needs "capacity.manage", writes in
 * one transaction and audits in it.
 */

const onCapacity = () => Promise.resolve({ action: "capacity.manage" as const, resource: { kind: "platform" as const } });

type PoolRow = typeof nodePools.$inferSelect;

// ---------------------------------------------------------------- inputs

/** A pool name as clouds and node labels spell them (a label value). */
export const POOL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const poolName = z
  .string({ message: FILL_IN })
  .trim()
  .min(1, FILL_IN)
  .max(63, atMostChars(63))
  .regex(POOL_NAME, "Use letters, digits, '-', '_' or '.', starting and ending with a letter or digit.");

/** An extended resource name: a DNS domain outside kubernetes.io, a slash, a name ("nvidia.com/gpu", "nvidia.com/mig-1g.10gb"). */
export const EXTENDED_RESOURCE = /^(?=.{1,253}\/)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+\/[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const isExtendedResource = (v: string) => EXTENDED_RESOURCE.test(v) && !/(^|\.)kubernetes\.io\//.test(v);

const MAX_GPUS_PER_NODE = 1024;
const PRICE_TOO_LARGE = "Enter a smaller price: this is larger than any price.";
/** A count as a JSON number (an import proposal is JSON, never typed). */
const wholeNumberJson = ({ min = 0, max }: { min?: number; max: number }) => {
  const message = `Enter a whole number from ${min} to ${max}.`;
  return z.number({ message }).int(message).min(min, message).max(max, message);
};
/** Time-sliced replicas are advertised as GPUs × slices. */
const MAX_GPUS_PER_NODE_OFFERED = MAX_GPUS_PER_NODE * MAX_GPU_SLICES;

/** The GPU resources a pool's nodes advertise, as an import proposal lists them: each a GPU extended resource, once. */
const offeredGpuResourcesInput = z
  .array(
    z.object({
      resource: z.string().refine(isGpuExtendedResource, "Enter a GPU resource the NVIDIA device plugin advertises (nvidia.com/gpu, nvidia.com/gpu.shared or nvidia.com/mig-<profile>)."),
      perNode: wholeNumberJson({ min: 1, max: MAX_GPUS_PER_NODE_OFFERED }),
    }),
    { message: "Enter a list of GPU resources." },
  )
  .max(32, atMostItems(32, "GPU resources"))
  .default([])
  .refine((list) => new Set(list.map((o) => o.resource)).size === list.length, "Name each GPU resource once.");

/** Empty text is "none". */
const optionalText = (max: number, pattern: RegExp, message: string) =>
  z
    .union([z.string(), z.null()])
    .optional()
    .transform((v) => (v == null ? null : v.trim() || null))
    .refine((v) => v === null || v.length <= max, atMostChars(max))
    .refine((v) => v === null || pattern.test(v), message);

const gpuModelInput = optionalText(60, /^[A-Za-z0-9][A-Za-z0-9 ._()+-]*$/, "Enter a model name such as H100 or A100 1g.10gb (letters, digits, spaces, '.', '-', '_', '+', brackets).");
const gpuResourceInput = z
  .union([z.string(), z.null()])
  .optional()
  .transform((v) => (v == null ? null : v.trim() || null))
  .refine((v) => v === null || isExtendedResource(v), "Enter an extended resource name such as nvidia.com/gpu or nvidia.com/mig-1g.10gb.");

/** A positive amount per node: a plain decimal in `unit` (cores, GiB), or a Kubernetes quantity ("7910m", "1.8Ti"). */
function perNodeAmount(label: string, unit: number, max: number, example: string, round: (v: number) => number) {
  return quantity(label, { unit, max, example, tooLarge: "Enter a smaller amount: this is more than any node has.", positive: true }).transform((value, ctx) => {
    const rounded = round(value);
    if (rounded <= 0) {
      ctx.addIssue({ code: "custom", message: MORE_THAN_ZERO });
      return z.NEVER;
    }
    return rounded;
  });
}

const MAX_NODES = 100_000;
const cpuPerNodeInput = perNodeAmount("CPU cores per node", 1, 100_000, "a number of cores such as 64 or 7910m", (v) => Math.round(v * 1000) / 1000);
const memoryPerNodeInput = perNodeAmount("Memory per node (GiB)", GiB, 2 ** 50, "a number of GiB such as 256, or a quantity such as 1.8Ti", (v) => Math.round(v));

/** Time-slicing replicas per physical GPU; empty: 1 (not time-sliced). */
const gpuSlicesInput = wholeNumber("GPU slices (time-slicing replicas per GPU)", { min: 1, max: MAX_GPU_SLICES, empty: 1 });

const dedicatedTenantInput = z
  .union([z.string(), z.null()])
  .optional()
  .transform((v) => (v == null ? null : v.trim() || null));

/** The facts of a pool, as the new-pool and edit forms send them (and the API). */
const poolFields = z.object({
  name: poolName,
  gpuModel: gpuModelInput,
  gpuResource: gpuResourceInput,
  gpusPerNode: wholeNumber("GPUs per node", { max: MAX_GPUS_PER_NODE, empty: 0 }),
  nodeCount: wholeNumber("Nodes", { max: MAX_NODES }),
  minNodes: wholeNumber("Minimum nodes (autoscaling)", { max: MAX_NODES, empty: null }),
  maxNodes: wholeNumber("Maximum nodes (autoscaling)", { max: MAX_NODES, empty: null }),
  cpuPerNode: cpuPerNodeInput,
  /** GiB, or a quantity. */
  memoryPerNode: memoryPerNodeInput,
  /** A tenant slug; empty: shared by everyone. */
  dedicatedTenant: dedicatedTenantInput,
  nodeLabels: nodeLabelsInput,
  nodeTaints: nodeTaintsInput,
  gpuSharing: gpuSharingInput,
  gpuSlices: gpuSlicesInput,
  gpuProfiles: gpuProfilesInput,
  tiers: tiersInput,
});

interface PoolShape {
  gpuModel: string | null;
  gpuResource: string | null;
  gpusPerNode: number | null;
  nodeCount: number | null;
  minNodes: number | null;
  maxNodes: number | null;
  /** null: as the resource says. */
  gpuSharing: GpuSharing | null;
  gpuSlices: number | null;
  /** Further requestable MIG profiles beside the first (gpuModel). */
  gpuProfiles: readonly GpuProfile[];
}

const MIG_RESOURCE = /^nvidia\.com\/mig-/;

/** Rules across fields, each reported on the field to fix. */
function poolProblems(v: PoolShape, ctx: z.RefinementCtx, prefix: (string | number)[] = []) {
  const issue = (field: string, message: string) => ctx.addIssue({ code: "custom", path: [...prefix, field], message });
  if (v.gpuModel && !v.gpuResource) issue("gpuResource", "Enter the GPU resource for the GPU model: the extended resource the device plugin advertises, e.g. nvidia.com/gpu.");
  if (v.gpuResource && !v.gpuModel) issue("gpuModel", "Enter the GPU model for the GPU resource: the name people ask for, e.g. H100.");
  if (v.gpuModel && v.gpuResource && v.gpusPerNode === 0) issue("gpusPerNode", "Enter 1 or more for a GPU pool.");
  if (!v.gpuModel && !v.gpuResource && (v.gpusPerNode ?? 0) > 0) issue("gpuModel", "Enter the GPU model the nodes have.");
  const sharing = sharingFor(v.gpuSharing, v.gpuResource);
  if (sharing !== "exclusive" && !v.gpuModel && !v.gpuResource) issue("gpuSharing", "Choose exclusive for a pool without GPUs.");
  else if (v.gpuResource && MIG_RESOURCE.test(v.gpuResource) && sharing !== "mig") issue("gpuSharing", `Choose mig: ${v.gpuResource} is a MIG profile.`);
  else if (v.gpuResource === "nvidia.com/gpu.shared" && sharing !== "time_sliced") issue("gpuSharing", "Choose time_sliced: nvidia.com/gpu.shared is what the device plugin calls time-sliced GPUs.");
  if (v.gpuSlices !== null && v.gpuSlices !== 1 && sharing !== "time_sliced") issue("gpuSlices", "Enter 1 unless the GPUs are time-sliced.");
  if (v.gpuProfiles.length > 0) {
    if (!v.gpuModel || !v.gpuResource) issue("gpuProfiles", "Enter the pool's GPU model and resource first: further profiles are requestable beside it.");
    else if (sharing !== "mig") issue("gpuProfiles", "Leave further profiles empty unless the GPUs are MIG-partitioned (sharing mig): whole and time-sliced GPUs offer one resource.");
    else {
      const same = v.gpuProfiles.find((x) => x.resource === v.gpuResource);
      if (same) issue("gpuProfiles", `Remove ${same.resource} from the further profiles: it is the pool's GPU resource (${v.gpuModel}).`);
      const named = v.gpuProfiles.find((x) => x.model === v.gpuModel);
      if (named) issue("gpuProfiles", `Give the profile ${named.resource} a model name of its own: ${v.gpuModel} is the pool's GPU model.`);
    }
  }
  if (v.minNodes !== null && v.maxNodes !== null && v.minNodes > v.maxNodes) issue("maxNodes", "Enter at least the minimum nodes.");
  else if (v.nodeCount !== null) {
    if (v.maxNodes !== null && v.nodeCount > v.maxNodes) issue("nodeCount", `Enter at most the maximum nodes (${v.maxNodes}).`);
    if (v.minNodes !== null && v.nodeCount < v.minNodes) issue("nodeCount", `Enter at least the minimum nodes (${v.minNodes}).`);
  }
}

export const nodePoolInput = poolFields.superRefine((v, ctx) => poolProblems(v, ctx));

const versionInput = wholeNumber("Version", { min: 1 });

async function dedicatedTenantId(db: Database, slug: string | null): Promise<string | null> {
  if (slug === null) return null;
  const [tenant] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, slug));
  if (!tenant) throw new AppError("validation", undefined, { dedicatedTenant: ["Enter the slug of an existing tenant."] });
  return tenant.id;
}

/**
 * One GPU model is one extended resource everywhere: a request for "H100"
 * must turn into the same ResourceQuota key whichever pool serves it.
 */
async function assertModelConsistent(db: Database, input: { name: string; gpuModel: string | null; gpuResource: string | null; gpuSharing: GpuSharing | null; gpuSlices: number; gpusPerNode: number; gpuProfiles: readonly GpuProfile[] }) {
  const model = input.gpuModel;
  if (!model) return;
  await assertProfilesConsistent(db, input);
  const pool = { ...input, gpuModel: model, gpuSharing: sharingFor(input.gpuSharing, input.gpuResource) };
  const [other] = await db
    .select({ name: nodePools.name, gpuResource: nodePools.gpuResource })
    .from(nodePools)
    .where(and(eq(nodePools.gpuModel, pool.gpuModel), ne(nodePools.name, pool.name), ne(nodePools.gpuResource, pool.gpuResource!)))
    .limit(1);
  if (other) {
    throw new AppError("validation", undefined, {
      gpuResource: [`Enter ${other.gpuResource}: pool ${other.name} already serves ${pool.gpuModel} as ${other.gpuResource} (use another model name for a different resource).`],
    });
  }
  // One model is one unit on the rate card: a slice of "L4 shared x4" is the same in every pool.
  const [unlike] = await db
    .select({ name: nodePools.name, gpuSharing: nodePools.gpuSharing, gpuSlices: nodePools.gpuSlices })
    .from(nodePools)
    .where(and(eq(nodePools.gpuModel, pool.gpuModel), ne(nodePools.name, pool.name), or(ne(nodePools.gpuSharing, pool.gpuSharing), ne(nodePools.gpuSlices, pool.gpuSlices))))
    .limit(1);
  if (unlike) {
    const field = unlike.gpuSharing === pool.gpuSharing ? "gpuSlices" : "gpuSharing";
    throw new AppError("validation", undefined, {
      [field]: [`Enter ${field === "gpuSlices" ? unlike.gpuSlices : unlike.gpuSharing}: pool ${unlike.name} already serves ${pool.gpuModel} so (use another model name, e.g. “${pool.gpuModel} x${pool.gpuSlices}”).`],
    });
  }
}

/** Every requestable profile (the first and the further ones) against every other pool's: one model, one resource and one way of sharing. */
async function assertProfilesConsistent(db: Database, input: { name: string; gpuModel: string | null; gpuResource: string | null; gpuSharing: GpuSharing | null; gpusPerNode: number; gpuProfiles: readonly GpuProfile[] }, skip: ReadonlySet<string> = new Set(), field = (f: string) => f) {
  const pool = { name: input.name, profiles: requestableProfilesOf({ ...input, gpuSharing: sharingFor(input.gpuSharing, input.gpuResource) }) };
  const others = (await loadPools(db)).filter((p) => !skip.has(p.name)).map((p) => ({ name: p.name, profiles: requestableProfilesOf(p) }));
  const clash = profileClash(pool, others);
  if (clash) throw new AppError("validation", undefined, { [field(clash.field)]: [clash.message] });
}

/** What the audit log keeps of a pool. */
const poolFacts = (p: PoolRow) => ({
  name: p.name,
  gpuModel: p.gpuModel,
  gpuResource: p.gpuResource,
  gpusPerNode: p.gpusPerNode,
  nodeCount: p.nodeCount,
  minNodes: p.minNodes,
  maxNodes: p.maxNodes,
  cpuPerNode: p.cpuPerNode,
  memoryBytesPerNode: p.memoryBytesPerNode,
  dedicatedTenantId: p.dedicatedTenantId,
  nodeLabels: p.nodeLabels,
  nodeTaints: p.nodeTaints,
  gpuSharing: p.gpuSharing,
  gpuSlices: p.gpuSlices,
  offeredGpuResources: p.offeredGpuResources,
  gpuProfiles: p.gpuProfiles,
  tiers: p.tiers,
});

const nameTaken = () => new AppError("conflict", "Another node pool already has this name.", { name: ["Choose another name: another pool has this one."] });

async function assertNameFree(db: Database, name: string, exceptId?: string) {
  const [other] = await db
    .select({ id: nodePools.id })
    .from(nodePools)
    .where(exceptId ? and(eq(nodePools.name, name), ne(nodePools.id, exceptId)) : eq(nodePools.name, name));
  if (other) throw nameTaken();
}

/** A unique violation surfaces when a concurrent writer took the name between our check and our insert. */
async function unlessNameRace<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken();
    throw error;
  }
}

/**
 * Every namespace's ResourceQuota names each GPU resource the pools' nodes
 * advertise (hard 0 where the project holds none), so when a pool change
 * alters that set, every project is re-rendered, archived ones too (theirs caps
 * everything at 0). Call with the set read before the change, in its transaction.
 */
async function followGpuResources(tx: Database, before: readonly string[], at: Date, reason: string) {
  const after = await knownGpuResources(tx);
  if (after.join("\n") === before.join("\n")) return;
  for (const t of await tx.select({ id: tenants.id }).from(tenants)) await enqueueTenantChange(tx, { tenantId: t.id, reason, at }, { includeArchived: true });
}

/**
 * The platform's Kueue ResourceFlavors are rendered from the pools' flavours
 * (labels, taints, models, sharing, tiers): when a pool change alters them,
 * the platform change is queued in its transaction. When a flavour goes away
 * or its tiers change, every tenant's queues follow too (they stop naming it,
 * or open or close a burst queue on it); the worker deletes the flavour only
 * once no queue names it. Call with the flavours read before the change.
 */
async function followPoolFlavors(tx: Database, before: readonly PoolFlavor[], at: Date, reason: string) {
  const after = await loadPoolFlavors(tx);
  if (JSON.stringify(after) === JSON.stringify(before)) return;
  await enqueuePlatformFlavorsChange(tx, { reason, at });
  const offered = (flavors: readonly PoolFlavor[]) => flavors.map((f) => `${f.key}\u0000${(f.tiers ?? ["*"]).join()}`).join("\n");
  if (offered(after) !== offered(before)) await enqueueTenantQueuesChanges(tx, { reason, at });
}

// ---------------------------------------------------------------- node pools

/** The stored columns of a pool from the create and edit form (a pool without a GPU model has no GPUs). */
function poolColumns(input: z.output<typeof poolFields>, dedicatedTenantId: string | null) {
  return {
    name: input.name,
    gpuModel: input.gpuModel,
    gpuResource: input.gpuResource,
    gpusPerNode: input.gpuModel ? input.gpusPerNode : 0,
    nodeCount: input.nodeCount,
    minNodes: input.minNodes,
    maxNodes: input.maxNodes,
    cpuPerNode: input.cpuPerNode,
    memoryBytesPerNode: input.memoryPerNode,
    dedicatedTenantId,
    nodeLabels: input.nodeLabels,
    nodeTaints: input.nodeTaints,
    gpuSharing: input.gpuModel ? sharingFor(input.gpuSharing, input.gpuResource) : ("exclusive" as const),
    gpuSlices: input.gpuModel && sharingFor(input.gpuSharing, input.gpuResource) === "time_sliced" ? input.gpuSlices : 1,
    gpuProfiles: input.gpuModel ? input.gpuProfiles : [],
    tiers: input.tiers,
  };
}

export const createNodePool = defineCommand({
  name: "createNodePool",
  input: nodePoolInput,
  target: onCapacity,
  run: (ctx, input) =>
    unlessNameRace(() =>
      ctx.db.transaction(async (tx) => {
        await assertNameFree(tx, input.name);
        await assertModelConsistent(tx, input);
        const dedicated = await dedicatedTenantId(tx, input.dedicatedTenant);
        const resourcesBefore = await knownGpuResources(tx);
        const flavorsBefore = await loadPoolFlavors(tx);
        const [pool] = await tx
          .insert(nodePools)
          .values({ ...poolColumns(input, dedicated), createdAt: ctx.now })
          .returning();
        await recordPoolSize(tx, pool!, ctx.now);
        await followGpuResources(tx, resourcesBefore, ctx.now, `node pool ${pool!.name} created`);
        await followPoolFlavors(tx, flavorsBefore, ctx.now, `node pool ${pool!.name} created`);
        await recordAudit(tx, {
          actor: auditActorOf(ctx.actor),
          at: ctx.now,
          tenantId: dedicated,
          action: "node_pool.created",
          target: { type: "node_pool", id: pool!.id },
          after: poolFacts(pool!),
        });
        return pool!;
      }),
    ),
});

/** Change a pool (all its facts at once, as the edit form sends them); `version` is the one read with the form. */
export const updateNodePool = defineCommand({
  name: "updateNodePool",
  input: poolFields.extend({ id: uuidInput, version: versionInput }).superRefine((v, ctx) => poolProblems(v, ctx)),
  target: onCapacity,
  run: (ctx, input) =>
    unlessNameRace(() =>
      ctx.db.transaction(async (tx) => {
        // The minimum check below reads every tenant's guarantees: edits, approvals and envelope changes take turns on it (the lock comes first, as there).
        await lockGuaranteeSum(tx);
        const [before] = await tx.select().from(nodePools).where(eq(nodePools.id, input.id)).for("update");
        if (!before) throw new AppError("not_found", "No such node pool.");
        if (before.version !== input.version) throw new AppError("conflict", "Someone changed this node pool meanwhile. Reload and try again.");
        await assertNameFree(tx, input.name, input.id);
        await assertModelConsistent(tx, input);
        const dedicated = await dedicatedTenantId(tx, input.dedicatedTenant);
        const poolsBefore = await loadPools(tx);
        const resourcesBefore = await knownGpuResources(tx);
        const flavorsBefore = await loadPoolFlavors(tx);
        const [after] = await tx
          .update(nodePools)
          .set({ ...poolColumns(input, dedicated), version: before.version + 1 })
          .where(and(eq(nodePools.id, input.id), eq(nodePools.version, input.version)))
          .returning();
        if (!after) throw new AppError("conflict", "Someone changed this node pool meanwhile. Reload and try again.");
        await assertGuaranteesFitMinimum(tx, poolsBefore, after, ctx.now);
        await recordPoolSize(tx, after, ctx.now);
        await followGpuResources(tx, resourcesBefore, ctx.now, `node pool ${after.name} changed`);
        await followPoolFlavors(tx, flavorsBefore, ctx.now, `node pool ${after.name} changed`);
        await recordAudit(tx, {
          actor: auditActorOf(ctx.actor),
          at: ctx.now,
          tenantId: dedicated ?? before.dedicatedTenantId,
          action: "node_pool.updated",
          target: { type: "node_pool", id: after.id },
          before: poolFacts(before),
          after: poolFacts(after),
        });
        return after;
      }),
    ),
});

/**
 * Guarantees across all tenants stay within what the pools hold at their
 * autoscaler minimum, as approvals and envelopes keep them: an edit that
 * shrinks a GPU line's minimum below them is refused on the field that
 * shrank it. Pools without GPUs before and after cannot.
 */
async function assertGuaranteesFitMinimum(tx: Database, poolsBefore: (typeof nodePools.$inferSelect)[], after: typeof nodePools.$inferSelect, at: Date) {
  const before = poolsBefore.find((p) => p.id === after.id)!;
  if (!before.gpuModel && !after.gpuModel) return;
  const [policy, holdings] = await Promise.all([loadQuotaPolicy(tx), tenantLineHoldings(tx, at)]);
  const problem = poolMinimumProblem(
    poolsBefore,
    poolsBefore.map((p) => (p.id === after.id ? after : p)),
    policy.overcommit,
    holdings,
  );
  if (!problem) return;
  const changed =
    (["minNodes", "nodeCount", "gpusPerNode", "gpuModel", "gpuSlices"] as const).find((f) => before[f] !== after[f]) ??
    (JSON.stringify(before.gpuProfiles) !== JSON.stringify(after.gpuProfiles) ? "gpuProfiles" : "minNodes");
  throw new AppError("validation", undefined, { [changed]: [`This ${problem}.`] });
}

/**
 * Remove a pool from the portal's picture of the cluster (the nodes are not
 * touched). Refused while guarantees depend on it: when the pools left would
 * hold fewer of a GPU line at their autoscaler minimum than the tenants are
 * guaranteed, the message names the pool, the line and who holds the
 * guarantees (under the same lock as approvals and envelopes, so a guarantee
 * approved meanwhile is counted). Otherwise grants for its GPU model stay;
 * requests for the model are refused while no pool offers it. With
 * `version`, only the version that was shown is deleted.
 */
export const deleteNodePool = defineCommand({
  name: "deleteNodePool",
  input: z.object({ id: uuidInput, version: wholeNumber("Version", { min: 1, empty: undefined }) }),
  target: onCapacity,
  async run(ctx, input) {
    return ctx.db.transaction(async (tx) => {
      // Approvals, envelope changes and pool edits take turns on the sum of guarantees; the lock comes first, as there.
      await lockGuaranteeSum(tx);
      const [before] = await tx.select().from(nodePools).where(eq(nodePools.id, input.id)).for("update");
      if (!before) throw new AppError("not_found", "No such node pool.");
      if (input.version !== undefined && before.version !== input.version) throw new AppError("conflict", "Someone changed this node pool meanwhile. Reload and try again.");
      if (before.gpuModel) {
        const [pools, policy, holdings] = await Promise.all([loadPools(tx), loadQuotaPolicy(tx), tenantLineHoldings(tx, ctx.now)]);
        const problem = poolMinimumProblem(
          pools,
          pools.filter((p) => p.id !== before.id),
          policy.overcommit,
          holdings,
          "lower those guarantees (envelopes and grants) first, or give another pool the capacity",
        );
        if (problem) throw new AppError("conflict", `Node pool ${before.name} cannot be deleted: deleting it ${problem}.`);
      }
      const resourcesBefore = await knownGpuResources(tx);
      const flavorsBefore = await loadPoolFlavors(tx);
      await tx.delete(nodePools).where(eq(nodePools.id, input.id));
      await endPoolSize(tx, before.id, ctx.now);
      await followGpuResources(tx, resourcesBefore, ctx.now, `node pool ${before.name} deleted`);
      await followPoolFlavors(tx, flavorsBefore, ctx.now, `node pool ${before.name} deleted`);
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId: before.dedicatedTenantId,
        action: "node_pool.deleted",
        target: { type: "node_pool", id: before.id },
        before: poolFacts(before),
      });
      return { id: before.id, name: before.name };
    });
  },
});

// ---------------------------------------------------------------- import

/** One pool to import, as proposed from the cluster's nodes (lib/quota/import-pools.ts) and confirmed by an admin. */
export const importPoolInput = z
  .object({
    name: poolName,
    gpuModel: gpuModelInput,
    gpuResource: gpuResourceInput,
    gpusPerNode: wholeNumberJson({ max: MAX_GPUS_PER_NODE }),
    nodeCount: wholeNumberJson({ max: MAX_NODES }),
    minNodes: z.number().int().min(0).max(MAX_NODES).nullable().default(null),
    maxNodes: z.number().int().min(0).max(MAX_NODES).nullable().default(null),
    cpuPerNode: z.number({ message: "Enter a number of cores." }).positive(MORE_THAN_ZERO).max(100_000),
    memoryBytesPerNode: z.number({ message: "Enter a whole number of bytes." }).int("Enter a whole number of bytes.").positive(MORE_THAN_ZERO).max(2 ** 50),
    nodeLabels: nodeLabelsInput,
    nodeTaints: nodeTaintsInput,
    gpuSharing: gpuSharingInput,
    gpuSlices: wholeNumberJson({ min: 1, max: MAX_GPU_SLICES }).default(1),
    tiers: tiersInput,
    /** Every GPU resource the nodes advertise; absent: none recorded. */
    offeredGpuResources: offeredGpuResourcesInput,
    /** Further requestable MIG profiles (each of the offered resources); absent: none. */
    gpuProfiles: gpuProfilesInput,
    /** The stored pool's version the proposal was compared with; null: the pool is new. */
    version: z.number().int().min(1).nullable(),
  })
  .superRefine((v, ctx) => {
    poolProblems(v, ctx);
    if (v.gpuResource && v.offeredGpuResources.length > 0 && !v.offeredGpuResources.some((o) => o.resource === v.gpuResource))
      ctx.addIssue({ code: "custom", path: ["offeredGpuResources"], message: `Include the pool's GPU resource ${v.gpuResource}.` });
    const unoffered = v.offeredGpuResources.length > 0 ? v.gpuProfiles.find((x) => !v.offeredGpuResources.some((o) => o.resource === x.resource)) : undefined;
    if (unoffered) ctx.addIssue({ code: "custom", path: ["gpuProfiles"], message: `Make only resources the nodes offer requestable: ${unoffered.resource} (${unoffered.model}) is not among them.` });
  });

const importInput = z.object({
  /** The proposal: JSON text from the confirmation form, or an array from the API. */
  pools: z.preprocess(
    (v) => {
      if (typeof v !== "string") return v;
      try {
        return JSON.parse(v) as unknown;
      } catch {
        return v;
      }
    },
    z.array(importPoolInput, { message: "Enter a list of pools." }).min(1, "Choose at least one pool to import.").max(500, atMostItems(500, "pools")),
  ),
});

/**
 * Create or update pools by name from a proposal the admin confirmed. Each
 * pool must still be as it was when the proposal was made (its version), so
 * a pool edited meanwhile is not overwritten. Pools not in the proposal are
 * left alone; the dedicated tenant is kept.
 */
export const importNodePools = defineCommand({
  name: "importNodePools",
  input: importInput,
  target: onCapacity,
  run: (ctx, input) =>
    unlessNameRace(() =>
      ctx.db.transaction(async (tx) => {
        const names = input.pools.map((p) => p.name);
        const duplicate = names.find((n, i) => names.indexOf(n) !== i);
        if (duplicate) throw new AppError("validation", undefined, { pools: [`Name ${duplicate} once only.`] });
        const created: string[] = [];
        const updated: string[] = [];
        const resourcesBefore = await knownGpuResources(tx);
        const flavorsBefore = await loadPoolFlavors(tx);
        for (const [i, p] of input.pools.entries()) {
          await assertModelConsistentAmong(tx, p, input.pools, i);
          const [before] = await tx.select().from(nodePools).where(eq(nodePools.name, p.name)).for("update");
          if ((before?.version ?? null) !== p.version) {
            const what = !before ? "was deleted" : p.version === null ? "was created" : "was changed";
            throw new AppError("conflict", `Node pool ${p.name} ${what} since the proposal was made. Look at the cluster again and import anew.`);
          }
          const facts = {
            name: p.name,
            gpuModel: p.gpuModel,
            gpuResource: p.gpuResource,
            gpusPerNode: p.gpuModel ? p.gpusPerNode : 0,
            nodeCount: p.nodeCount,
            minNodes: p.minNodes,
            maxNodes: p.maxNodes,
            cpuPerNode: p.cpuPerNode,
            memoryBytesPerNode: p.memoryBytesPerNode,
            nodeLabels: p.nodeLabels,
            nodeTaints: p.nodeTaints,
            gpuSharing: p.gpuModel ? sharingFor(p.gpuSharing, p.gpuResource) : ("exclusive" as const),
            gpuSlices: p.gpuModel && sharingFor(p.gpuSharing, p.gpuResource) === "time_sliced" ? p.gpuSlices : 1,
            offeredGpuResources: p.offeredGpuResources,
            gpuProfiles: p.gpuModel && sharingFor(p.gpuSharing, p.gpuResource) === "mig" ? p.gpuProfiles : [],
            tiers: p.tiers,
          };
          const [after] = before
            ? await tx
                .update(nodePools)
                .set({ ...facts, version: before.version + 1 })
                .where(eq(nodePools.id, before.id))
                .returning()
            : await tx
                .insert(nodePools)
                .values({ ...facts, createdAt: ctx.now })
                .returning();
          await recordPoolSize(tx, after!, ctx.now);
          (before ? updated : created).push(p.name);
          await recordAudit(tx, {
            actor: auditActorOf(ctx.actor),
            at: ctx.now,
            tenantId: after!.dedicatedTenantId,
            action: "node_pool.imported",
            target: { type: "node_pool", id: after!.id },
            before: before ? poolFacts(before) : undefined,
            after: poolFacts(after!),
          });
        }
        await followGpuResources(tx, resourcesBefore, ctx.now, "node pools imported");
        await followPoolFlavors(tx, flavorsBefore, ctx.now, "node pools imported");
        return { created, updated };
      }),
    ),
});

/** Within one import, and against pools the import does not touch, one model is one resource. */
async function assertModelConsistentAmong(tx: Database, pool: z.output<typeof importPoolInput>, all: z.output<typeof importPoolInput>[], index: number) {
  if (!pool.gpuModel) return;
  // Further profiles against the other pools of this import, then against stored pools it does not touch.
  const offers = (p: z.output<typeof importPoolInput>) => ({ name: p.name, profiles: requestableProfilesOf({ ...p, gpuSharing: sharingFor(p.gpuSharing, p.gpuResource) }) });
  const among = profileClash(offers(pool), all.map(offers));
  if (among) throw new AppError("validation", undefined, { [`pools.${index}.${among.field}`]: [among.message] });
  await assertProfilesConsistent(tx, pool, new Set(all.map((p) => p.name)), (f) => `pools.${index}.${f}`);
  const clash = all.find((o) => o.gpuModel === pool.gpuModel && o.gpuResource !== pool.gpuResource);
  if (clash) {
    throw new AppError("validation", undefined, {
      [`pools.${index}.gpuResource`]: [`Use the same GPU resource for every pool of ${pool.gpuModel}: ${clash.name} has ${clash.gpuResource}, ${pool.name} has ${pool.gpuResource}.`],
    });
  }
  const importing = new Set(all.map((p) => p.name));
  const stored = await tx
    .select({ name: nodePools.name, gpuResource: nodePools.gpuResource })
    .from(nodePools)
    .where(and(eq(nodePools.gpuModel, pool.gpuModel), ne(nodePools.gpuResource, pool.gpuResource!)));
  const other = stored.find((s) => !importing.has(s.name));
  if (other) {
    throw new AppError("validation", undefined, {
      [`pools.${index}.gpuResource`]: [`Enter ${other.gpuResource}: pool ${other.name} already serves ${pool.gpuModel} as ${other.gpuResource}.`],
    });
  }
  const sharing = (p: z.output<typeof importPoolInput>) => `${sharingFor(p.gpuSharing, p.gpuResource)} ×${p.gpuSlices}`;
  const unlike = all.find((o) => o.gpuModel === pool.gpuModel && sharing(o) !== sharing(pool));
  if (unlike) {
    throw new AppError("validation", undefined, {
      [`pools.${index}.gpuSlices`]: [`Share the GPUs the same way in every pool of ${pool.gpuModel}: ${unlike.name} shares its GPUs ${sharing(unlike)}, ${pool.name} ${sharing(pool)}.`],
    });
  }
  const storedUnlike = await tx
    .select({ name: nodePools.name, gpuSharing: nodePools.gpuSharing, gpuSlices: nodePools.gpuSlices })
    .from(nodePools)
    .where(and(eq(nodePools.gpuModel, pool.gpuModel), or(ne(nodePools.gpuSharing, sharingFor(pool.gpuSharing, pool.gpuResource)), ne(nodePools.gpuSlices, pool.gpuSlices))));
  const otherUnlike = storedUnlike.find((s) => !importing.has(s.name));
  if (otherUnlike) {
    throw new AppError("validation", undefined, {
      [`pools.${index}.gpuSlices`]: [`Match pool ${otherUnlike.name}, which serves ${pool.gpuModel} as ${otherUnlike.gpuSharing} ×${otherUnlike.gpuSlices}.`],
    });
  }
}

// ---------------------------------------------------------------- rate card

/**
 * "gpu:<model>", "cpu", "memory", "storage", "inference", or a custom meter
 * key: every resource the usage push API accepts (RESOURCE_KEY_PATTERN) can
 * be priced, so no pushed usage is left without a way to cost it.
 */
export const rateResourceInput = z
  .string({ message: FILL_IN })
  .trim()
  .min(1, FILL_IN)
  .refine(
    (v) => ["cpu", "memory", "storage", "inference"].includes(v) || /^gpu:[A-Za-z0-9][A-Za-z0-9 ._()+-]{0,59}$/.test(v) || RESOURCE_KEY_PATTERN.test(v),
    "Enter cpu, memory, storage, inference, gpu:<model> (e.g. gpu:H100) or a custom meter key (lower case letters, digits and . _ -, e.g. acc.widgets).",
  );

/** A custom meter's unit: what one of its pushed quantities counts ("widget", "1,000 tokens"). */
const rateUnitInput = z
  .string()
  .trim()
  .max(40, atMostChars(40))
  .regex(/^[\p{L}\p{N} ,.()/_-]*$/u, "Use letters, digits, spaces and , . ( ) / _ - only.")
  .optional()
  .transform((v) => (v === undefined || v === "" ? null : v));

/** A price as exact decimal text: never through a float on its way to the numeric column. */
/** A price as text: up to 12 digits, at most 6 decimals (the numeric column's scale). */
const PRICE_TEXT = /^(\d{1,12})(?:\.(\d{1,6}))?$/;

export const unitPriceInput = z
  // The text form's grammar is checked below with its own messages; it is stated here too, so the OpenAPI document carries it.
  .union([z.string().meta({ pattern: PRICE_TEXT.source }), z.number().min(0, NOT_NEGATIVE).max(999_999_999_999, PRICE_TOO_LARGE)])
  .transform((raw, ctx) => {
    // Plain decimal text only, as everywhere a person types a number (lib/input/numbers.ts): no spaces, sign or exponent.
    const text = String(raw);
    if (text === "") {
      ctx.addIssue({ code: "custom", message: FILL_IN });
      return z.NEVER;
    }
    if (/^-/.test(text)) {
      ctx.addIssue({ code: "custom", message: NOT_NEGATIVE });
      return z.NEVER;
    }
    const match = PRICE_TEXT.exec(text);
    if (!match) {
      ctx.addIssue({
        code: "custom",
        message: /^\d+\.\d{7,}$/.test(text) ? "Enter a price with at most 6 decimals." : /^\d{13,}/.test(text) ? PRICE_TOO_LARGE : "Enter a price such as 4.10 (digits, at most 6 decimals).",
      });
      return z.NEVER;
    }
    return `${BigInt(match[1]!).toString()}.${(match[2] ?? "").padEnd(6, "0")}`;
  });

/** When a price starts; empty (absent, null, "") is now. */
const effectiveFromInput = z
  .preprocess((v) => (v === null || (typeof v === "string" && v.trim() === "") ? undefined : v), instantInput("Enter a date such as 2026-07-01, or a date and time.").optional())
  .transform((v): Date | null => v ?? null);

/**
 * A new price for a resource from an instant on (default: now). Earlier
 * prices stay: the price in force at any hour is the newest row that started
 * at or before it.
 */
export const addRate = defineCommand({
  name: "addRate",
  input: z
    .object({ resource: rateResourceInput, unitPrice: unitPriceInput, effectiveFrom: effectiveFromInput, unit: rateUnitInput })
    .superRefine((v, c) => {
      const custom = resourceKind(v.resource) === "custom";
      if (custom && v.unit === null) c.addIssue({ code: "custom", path: ["unit"], message: "Enter the unit of a custom meter: what one pushed unit counts, e.g. widget." });
      if (!custom && v.unit !== null) c.addIssue({ code: "custom", path: ["unit"], message: `Leave the unit out: ${v.resource} has a fixed unit.` });
    }),
  target: onCapacity,
  async run(ctx, input) {
    const effectiveFrom = input.effectiveFrom ?? ctx.now;
    const duplicate = () =>
      new AppError("validation", undefined, {
        effectiveFrom: [`Choose another instant: ${input.resource} already has a price from ${effectiveFrom.toISOString()}, and a price cannot be changed.`],
      });
    try {
      return await ctx.db.transaction(async (tx) => {
        const [existing] = await tx
          .select({ id: rates.id })
          .from(rates)
          .where(and(eq(rates.resource, input.resource), eq(rates.effectiveFrom, effectiveFrom)));
        if (existing) throw duplicate();
        // A meter counts one thing: every price of it is per the same unit.
        if (input.unit !== null) {
          const [earlier] = await tx.select({ unit: rates.unit }).from(rates).where(and(eq(rates.resource, input.resource), ne(rates.unit, input.unit))).limit(1);
          if (earlier) throw new AppError("validation", undefined, { unit: [`Enter ${earlier.unit ?? "the unit of its earlier prices"}, the unit ${input.resource} is already priced in.`] });
        }
        // Ingest prices usage as it arrives; this waits for batches in flight and holds new ones off until the days are repriced.
        await lockRatesForChange(tx);
        const [row] = await tx
          .insert(rates)
          .values({ resource: input.resource, unitPrice: input.unitPrice, unit: input.unit, effectiveFrom, createdBy: ctx.actor.principalId, createdAt: ctx.now })
          .returning();
        await recordAudit(tx, {
          actor: auditActorOf(ctx.actor),
          at: ctx.now,
          tenantId: null,
          action: "rate.added",
          target: { type: "rate", id: row!.id },
          after: { resource: row!.resource, unitPrice: row!.unitPrice, unit: row!.unit, effectiveFrom: row!.effectiveFrom },
        });
        // A price from a past instant changes what every hour since cost: reprice those days.
        if (effectiveFrom.getTime() <= ctx.now.getTime()) await recomputeDailyRollup(tx, { resource: row!.resource, fromDay: effectiveFrom.toISOString().slice(0, 10) });
        // Cached spend figures priced by the old rate card are outdated from this commit on.
        await bumpSpendVersion(tx, "rates");
        return row!;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate();
      throw error;
    }
  },
});

// ---------------------------------------------------------------- approval rules

/** A number field of the policy form; empty is null where `optional` (a rule that is off). */
function policyNumber(label: string, options: { min: number; max?: number; integer?: boolean; optional?: boolean }) {
  const range = { min: options.min, max: options.max };
  if (options.integer) return options.optional ? wholeNumber(label, { ...range, empty: null }) : wholeNumber(label, range);
  return options.optional ? decimalNumber(label, { ...range, empty: null }) : decimalNumber(label, range);
}

const onOff = z
  .union([z.boolean(), z.enum(["on", "off", "true", "false"]), z.literal("")])
  .optional()
  .transform((v) => v === true || v === "on" || v === "true");

const ratio = (label: string) => policyNumber(label, { min: 0.1, max: 20 });
const cumulativeFactor = policyNumber("Cumulative cap", { min: 1, max: 100, optional: true });
const money = { min: 0, max: 1e12 };

/** The policy form's fields, flat (the API sends the same names). */
export const quotaPolicyInput = z
  .object({
    overcommitCpu: ratio("CPU overcommit ratio"),
    overcommitMemory: ratio("Memory overcommit ratio"),
    overcommitGpu: ratio("GPU overcommit ratio"),
    autoApproveEnabled: onOff,
    autoApproveMaxCpuCores: policyNumber("At most CPU cores", { min: 0, max: 100_000 }),
    autoApproveMaxMemoryGiB: policyNumber("At most memory (GiB)", { min: 0, max: 2 ** 20 }),
    autoApproveMaxStorageGiB: policyNumber("At most storage (GiB)", { min: 0, max: 2 ** 23 }),
    autoApproveUnderMonthlyCost: policyNumber("Or monthly estimate under", { ...money, optional: true }),
    /**
     * N: automatically approved grants in force stay within N × the limits above. Empty: no cumulative cap.
     * Absent (a form or client that does not know the field): the stored value is kept.
     */
    autoApproveCumulativeFactor: z
      .union([z.string(), z.number(), z.null()])
      .optional()
      .transform((raw, ctx): number | null | undefined => {
        if (raw === undefined) return undefined;
        const r = cumulativeFactor.safeParse(raw);
        if (r.success) return r.data;
        for (const issue of r.error.issues) ctx.addIssue({ code: "custom", message: issue.message });
        return z.NEVER;
      }),
    secondApprovalAboveMonthlyCost: policyNumber("Second approval above", { ...money, optional: true }),
    expiryWarningHours: policyNumber("Warn before a grant ends (hours)", { min: 0, max: 720, integer: true }),
  })
  // The fields above check what quotaPolicySchema checks, with messages per form field; parsing again keeps the two honest.
  .transform((v): { policy: QuotaPolicy; keepCumulativeFactor: boolean } => ({
    policy: quotaPolicySchema.parse({
      overcommit: { cpu: v.overcommitCpu, memory: v.overcommitMemory, gpu: v.overcommitGpu },
      autoApprove: {
        enabled: v.autoApproveEnabled,
        maxCpuCores: v.autoApproveMaxCpuCores,
        maxMemoryGiB: v.autoApproveMaxMemoryGiB,
        maxStorageGiB: v.autoApproveMaxStorageGiB,
        underMonthlyCost: v.autoApproveUnderMonthlyCost,
        // Absent: replaced by the stored value in setQuotaPolicy.
        cumulativeFactor: v.autoApproveCumulativeFactor ?? null,
      },
      secondApprovalAboveMonthlyCost: v.secondApprovalAboveMonthlyCost,
      expiryWarningHours: v.expiryWarningHours,
    }),
    keepCumulativeFactor: v.autoApproveCumulativeFactor === undefined,
  }));

/** Replace the platform's rules for quota requests (overcommit, automatic approval and its cumulative cap, second approval, expiry warnings). */
export const setQuotaPolicy = defineCommand({
  name: "setQuotaPolicy",
  input: quotaPolicyInput,
  target: onCapacity,
  async run(ctx, input) {
    return ctx.db.transaction(async (tx) => {
      // Serialise writers of the policy, so the "before" in the audit log is what each one replaced.
      await tx.select({ key: instanceSettings.key }).from(instanceSettings).where(eq(instanceSettings.key, QUOTA_POLICY_KEY)).for("update");
      const before = await loadQuotaPolicy(tx);
      const policy: QuotaPolicy = input.keepCumulativeFactor ? { ...input.policy, autoApprove: { ...input.policy.autoApprove, cumulativeFactor: before.autoApprove.cumulativeFactor } } : input.policy;
      await tx
        .insert(instanceSettings)
        .values({ key: QUOTA_POLICY_KEY, value: policy, updatedAt: ctx.now })
        .onConflictDoUpdate({ target: instanceSettings.key, set: { value: policy, updatedAt: ctx.now } });
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId: null,
        action: "quota_policy.changed",
        target: { type: "instance_setting", id: QUOTA_POLICY_KEY },
        before,
        after: policy,
      });
      return policy;
    });
  },
});
