import { z } from "zod";

/**
 * Shapes of API responses. Handlers may return richer rows; these schemas
 * decide what leaves the server (unknown keys are dropped) and document it.
 */
const isoDateTime = z.string().describe("ISO 8601 date-time, UTC");
const nullableDate = isoDateTime.nullable();

export const tenantOut = z.object({
  slug: z.string(),
  name: z.string(),
  isolationTier: z.enum(["shared", "dedicated"]),
  costCentre: z.string(),
  status: z.enum(["active", "disabled"]),
  createdAt: isoDateTime,
});

export const projectOut = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  namespace: z.string(),
  archivedAt: nullableDate,
  version: z.number().int(),
  createdAt: isoDateTime,
});

export const roleList = z.array(z.string()).describe("Roles the caller holds here, strongest first");

export const accessEntryOut = z.object({
  principalId: z.string(),
  displayName: z.string(),
  email: z.string().nullable(),
  kind: z.enum(["user", "service_account"]),
  role: z.string(),
  via: z.enum(["tenant membership", "project grant", "group"]),
  group: z.string().nullable().describe("The identity provider group the access comes through (via group); null for direct access"),
  collaborator: z.boolean(),
  expiresAt: nullableDate,
  grantedBy: z.string().nullable(),
});

export const memberOut = z.object({
  principalId: z.string(),
  displayName: z.string(),
  email: z.string().nullable(),
  kind: z.enum(["user", "service_account"]),
  role: z.enum(["tenant_admin", "member", "viewer"]),
  version: z.number().int().describe("Quote it when changing the role (optimistic locking)"),
  since: isoDateTime,
  disabled: z.boolean(),
});

export const invitationOut = z.object({
  invitationId: z.string(),
  email: z.string(),
  role: z.string(),
  path: z.string().describe("Path of the single-use acceptance link, relative to the portal"),
  expiresAt: isoDateTime,
  mailed: z.boolean(),
  grantExpiresAt: nullableDate.optional(),
});

export const collaboratorOut = z.object({
  grantId: z.string(),
  version: z.number().int(),
  principalId: z.string(),
  displayName: z.string(),
  email: z.string().nullable(),
  projectSlug: z.string(),
  projectName: z.string(),
  role: z.enum(["member", "viewer"]),
  expiresAt: nullableDate,
  expired: z.boolean(),
  sponsor: z.string().nullable(),
});

export const grantOut = z.object({
  id: z.string(),
  principalId: z.string(),
  role: z.enum(["member", "viewer", "meter"]),
  expiresAt: nullableDate,
  version: z.number().int(),
});

export const tokenOut = z.object({
  prefix: z.string(),
  createdAt: isoDateTime,
  expiresAt: nullableDate,
  lastUsedAt: nullableDate,
  revokedAt: nullableDate,
  state: z.enum(["active", "expired", "revoked"]),
});

export const trustOut = z.object({
  name: z.string(),
  issuer: z.string(),
  audience: z.string(),
  subjectPattern: z.string().describe("The sub claim required: exact, or a glob where * matches any run of characters"),
  claimConditions: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe("Other claims and the values they must equal"),
  createdAt: isoDateTime,
  createdBy: z.string().nullable(),
  expiresAt: nullableDate,
  lastUsedAt: nullableDate,
  revokedAt: nullableDate,
  state: z.enum(["active", "expired", "revoked"]),
  liveTokens: z.number().int().describe("Tokens exchanged under this trust that are still live"),
});

export const serviceAccountOut = z.object({
  principalId: z.string(),
  name: z.string(),
  description: z.string(),
  createdBy: z.string().nullable(),
  createdAt: isoDateTime,
  disabled: z.boolean(),
  projectRoles: z.array(z.object({ grantId: z.string(), projectSlug: z.string(), projectName: z.string(), role: z.enum(["member", "viewer", "meter"]), expiresAt: nullableDate })),
  tokens: z.array(tokenOut).describe("Present for tenant admins; never includes the secret. Tokens exchanged under a trust are counted on the trust instead"),
  trusts: z.array(trustOut).describe("External OIDC issuers this account trusts (keyless automation); present for tenant admins"),
});

export const newTokenOut = z.object({
  token: z.string().describe("The bearer token. Shown only in this response; store it now."),
  prefix: z.string(),
  createdAt: isoDateTime,
  expiresAt: nullableDate,
  previous: z.object({ prefix: z.string(), validUntil: isoDateTime }).optional(),
});

export const auditEventOut = z.object({
  seq: z.number().int(),
  at: isoDateTime,
  actorPrincipalId: z.string().nullable(),
  actorLabel: z.string(),
  tenantSlug: z.string().nullable(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  hash: z.string(),
});

export const okOut = z.object({ ok: z.literal(true) });

// ---------------------------------------------------------------- capacity, rates and quota requests

const moneyOut = z.number().describe("Amount in `currency`: a whole number of the currency's minor unit (cents), rounded half away from zero per line; totals are sums of rounded lines");
const currencyOut = z.string().describe("ISO 4217 code of every price and cost (ALLOT_CURRENCY)");

const poolTotalsOut = z.object({
  gpus: z.number().int().describe("Schedulable units of the GPU model: slices for a time-sliced pool (physical GPUs × gpuSlices), MIG instances for a MIG pool"),
  physicalGpus: z.number().int().nullable().describe("Physical GPUs; null for a MIG pool whose nodes carry no nvidia.com/gpu.count label"),
  cpuCores: z.number(),
  memoryBytes: z.number(),
  profiles: z.array(z.object({ model: z.string(), gpus: z.number().int() })).describe("A mixed MIG pool's further requestable profiles: the MIG instances of each model the pool holds (empty for a pool of one profile)"),
});

export const nodePoolOut = z.object({
  id: z.string(),
  name: z.string(),
  gpuModel: z.string().nullable().describe("The model people ask for (H100, or a MIG profile such as A100 1g.10gb); null for CPU pools"),
  gpuResource: z.string().nullable().describe("Extended resource the device plugin advertises (nvidia.com/gpu, nvidia.com/mig-1g.10gb)"),
  gpusPerNode: z.number().int().describe("Physical GPUs per node; MIG instances for a MIG pool"),
  gpuSharing: z.enum(["exclusive", "mig", "time_sliced"]).describe("exclusive: whole GPUs; mig: MIG instances of the profile; time_sliced: each GPU offered as gpuSlices replicas"),
  gpuSlices: z.number().int().describe("Time-slicing replicas per physical GPU (1 unless time_sliced)"),
  schedulableGpusPerNode: z.number().int().describe("What a node offers of the GPU model: gpusPerNode × gpuSlices when time-sliced, else gpusPerNode; what capacity, quota and the rate card count"),
  physicalGpusPerNode: z.number().int().nullable().describe("Physical GPUs per node; for a MIG pool from its nvidia.com/gpu.count label, null without it"),
  nodeLabels: z.record(z.string(), z.string()).describe("Labels every node of the pool carries"),
  nodeTaints: z.array(z.object({ key: z.string(), value: z.string().optional(), effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]) })).describe("Taints of the pool's nodes"),
  tiers: z.array(z.string()).nullable().describe("Workload tiers allowed on the pool (serving, training, preemptible); null: every tier"),
  offeredGpuResources: z
    .array(z.object({ resource: z.string(), perNode: z.number().int() }))
    .describe(
      "Every GPU extended resource the pool's nodes advertise, as imported from the cluster (a MIG mixed-strategy node offers several profiles); gpuResource and gpuProfiles are requestable, every namespace's ResourceQuota caps the others at 0. Empty for a pool added by hand",
    ),
  gpuProfiles: z
    .array(z.object({ model: z.string(), resource: z.string(), perNode: z.number().int() }))
    .describe(
      "A MIG mixed-strategy pool's further requestable profiles beside gpuModel: each a GPU model of its own (its Kueue flavour, quota line and gpu:<model> rate), its MIG resource and the instances a node offers (the pool holds perNode × capacityNodes). Empty for a pool of one profile",
    ),
  nodeCount: z.number().int(),
  minNodes: z.number().int().nullable(),
  maxNodes: z.number().int().nullable(),
  cpuPerNode: z.number().describe("Cores"),
  memoryBytesPerNode: z.number().int(),
  dedicated: z.boolean().describe("Reserved for one tenant"),
  dedicatedTenant: z.string().nullable().describe("Slug of that tenant, when the caller can see it"),
  capacityNodes: z.number().int().describe("Nodes counted for capacity, approvals, overcommit and idle cost: the nodes present (nodeCount), never the autoscaler maximum"),
  totals: poolTotalsOut.describe("What the pool holds at capacityNodes, before overcommit"),
  atMax: z
    .object({ nodes: z.number().int().describe("maxNodes, or nodeCount when the pool does not autoscale above it"), totals: poolTotalsOut })
    .describe("What the pool would hold once the autoscaler has grown it to its maximum; requests that need it are flagged in the approval queue"),
  version: z.number().int().describe("Quote it when changing the pool (optimistic locking)"),
  createdAt: isoDateTime,
});

export const resourceCapacityOut = z.object({
  key: z.string().describe('"cpu", "memory" or "gpu:<model>"'),
  label: z.string(),
  unit: z.string(),
  physical: z.number().describe("Capacity before overcommit (cores, bytes, GPUs)"),
  overcommit: z.number(),
  capacity: z.number().describe("physical × overcommit on the nodes present: what quota may add up to, and what approvals are checked against"),
  capacityAtMax: z.number().describe("The same with every pool at its autoscaler maximum"),
  allocated: z.number(),
  utilisation: z.number().nullable(),
  over: z.boolean(),
});

const ratePrice = z.object({
  id: z.string(),
  unitPrice: z.string().describe('Exact decimal text per unit, e.g. "4.100000"'),
  effectiveFrom: isoDateTime,
});

export const rateOut = ratePrice.extend({
  resource: z.string().describe('"gpu:<model>", "cpu", "memory", "storage", "inference", or a custom meter key (e.g. acc.widgets)'),
  unit: z.string().describe('"GPU-hour", "core-hour", "GiB-hour", "GiB-month", "1,000 requests", or the custom meter\'s own unit'),
  state: z.enum(["current", "scheduled", "past"]),
  createdAt: isoDateTime,
});

export const rateCardLineOut = z.object({
  resource: z.string(),
  label: z.string(),
  unit: z.string(),
  current: ratePrice.nullable().describe("The price in force now"),
  next: ratePrice.nullable().describe("A price already set to start later"),
  missing: z.boolean().describe("No price in force: cost estimates leave this resource out"),
});

export const quotaRequestStatusOut = z.enum(["pending", "approved", "auto_approved", "rejected", "cancelled", "expired", "applied", "apply_failed"], {
  message: "Choose one of: pending, approved, auto_approved, rejected, cancelled, expired, applied, apply_failed.",
});

export const gpuAmountOut = z.object({
  model: z.string().describe("The GPU model as the node pools name it (H100, or a MIG profile such as A100 1g.10gb)"),
  count: z.number().int().describe("Guaranteed GPUs of the model"),
  burst: z.number().int().describe("GPUs of the model the project may borrow beyond its guarantee for preemptible work (Kueue); 0: none"),
});

/**
 * The single-model fields of earlier releases, derived from `gpus` so that a
 * client written for one model still reads something true: the model when
 * exactly one is named (else null), and the GPUs of every model together.
 */
function withSingleModelFields(v: unknown): unknown {
  if (typeof v !== "object" || v === null || !Array.isArray((v as { gpus?: unknown }).gpus)) return v;
  const gpus = (v as { gpus: { model: string; count: number; burst: number }[] }).gpus;
  const burst = gpus.reduce((n, g) => n + g.burst, 0);
  return { ...v, gpuModel: gpus.length === 1 ? gpus[0]!.model : null, gpuCount: gpus.reduce((n, g) => n + g.count, 0), ...(burst > 0 ? { gpuBurst: burst } : {}) };
}

const quotaAmountsObject = z.object({
  gpus: z.array(gpuAmountOut).describe("The GPUs, one entry per GPU model, sorted by model"),
  gpuModel: z.string().nullable().describe("Deprecated, read gpus: the GPU model when exactly one is named, else null"),
  gpuCount: z.number().int().describe("Deprecated, read gpus: guaranteed GPUs of every model together"),
  gpuBurst: z.number().int().optional().describe("Deprecated, read gpus: burst GPUs of every model together; absent: none"),
  cpuCores: z.number(),
  cpuBurst: z.number().optional().describe("Cores the project may borrow beyond its CPU guarantee for preemptible work (Kueue); absent: none"),
  memoryBytes: z.number().int(),
  memoryBurstBytes: z.number().int().optional().describe("Bytes of memory it may borrow beyond its memory guarantee likewise; absent: none"),
  storageBytes: z.number().int(),
});

export const quotaAmountsOut = z.preprocess(withSingleModelFields, quotaAmountsObject);

export const costEstimateOut = z.object({
  monthly: moneyOut,
  currency: currencyOut,
  lines: z.array(z.object({ resource: z.string(), quantity: z.number(), unit: z.string(), unitPrice: z.number(), monthly: moneyOut })),
  unpriced: z.array(z.string()).describe("Resources asked for that have no price: left out of the estimate"),
});

export const effectiveQuotaOut = z.object({
  cpuCores: z.number(),
  memoryBytes: z.number().int(),
  storageBytes: z.number().int(),
  pvcCount: z.number().int(),
  gpus: z.record(z.string(), z.number().int()).describe("Guaranteed GPUs per extended resource name, as the ResourceQuota counts them"),
  burst: z
    .object({ cpuCores: z.number(), memoryBytes: z.number().int(), gpus: z.record(z.string(), z.number().int()) })
    .optional()
    .describe("What may be borrowed beyond the guarantees; the ResourceQuota caps guarantee plus burst"),
  flavors: z
    .array(z.object({ flavor: z.string(), resource: z.string(), guarantee: z.number(), burst: z.number(), lendLimit: z.number().nullable() }))
    .optional()
    .describe("The same quota per node-pool flavour and resource, as Kueue's ClusterQueues get it"),
});

export const quotaRequestOut = z.object({
  id: z.string(),
  tenantSlug: z.string(),
  projectSlug: z.string(),
  projectName: z.string(),
  requester: z.string().nullable().describe("Display name of who asked"),
  requestedBy: z.string().nullable().describe("Principal id of who asked"),
  amounts: quotaAmountsOut.describe("What is asked, added to the project's quota"),
  endsAt: nullableDate.describe("Null: permanent"),
  justification: z.string(),
  status: quotaRequestStatusOut,
  monthlyCost: moneyOut.describe("Estimate when asked, at the rate card"),
  currency: currencyOut,
  awaitingSecondApproval: z.boolean(),
  decisionNote: z.string().nullable().describe("The reason of a rejection, or the note of an approval"),
  createdAt: isoDateTime,
  decidedAt: nullableDate,
  version: z.number().int().describe("Quote it when approving, rejecting or editing (optimistic concurrency); an edit moves it on, so an approval of what the approver saw before the edit is a 409"),
  revision: z.number().int().describe("Which edit of its content the request shows: 1 as asked, +1 for each edit by the requester"),
  extension: z
    .object({ grantId: z.string(), from: isoDateTime.describe("The grant's end when the extension was asked") })
    .nullable()
    .describe("Set when the request asks to keep a time-bound grant longer: approval moves that grant's end from `from` to `endsAt`; its amounts are the grant's"),
});

export const quotaRequestEventOut = z.object({
  at: isoDateTime,
  actor: z.string().describe("Who, as shown at the time (system:auto-approval for rules)"),
  kind: z.string(),
  detail: z.record(z.string(), z.unknown()).nullable(),
});

export const capacityLineOut = z.object({
  resource: z.string(),
  label: z.string(),
  capacity: z.number().describe("What the nodes present hold, overcommit included: what the request is checked against"),
  capacityAtMax: z.number().describe("What the pools would hold at their autoscaler maximum"),
  before: z.number(),
  after: z.number(),
  exceeds: z.boolean().describe("after > capacity: it does not fit on the nodes present"),
  fit: z
    .discriminatedUnion("kind", [
      z.object({ kind: z.literal("fits") }),
      z.object({
        kind: z.literal("grows"),
        pools: z.array(z.object({ pool: z.string(), nodes: z.number().int(), to: z.number().int(), max: z.number().int() })).describe("The pools the autoscaler must grow, from nodes to `to` (within max)"),
      }),
      z.object({ kind: z.literal("does_not_fit"), autoscales: z.boolean() }),
    ])
    .describe("fits on the nodes present; fits only when the autoscaler grows the pools listed; or does not fit even at the autoscaler maximum"),
  note: z.string().nullable().describe('The queue\'s words for it, e.g. "fits when the pool h100-pool grows to 5 nodes (max 6)"; null when it fits now'),
});

const cohortFiguresOut = z.object({
  guarantee: z.number().describe("What the tenant's projects are guaranteed together"),
  burst: z.number().describe("Their burst limits together"),
  lendable: z.number().describe("What they let others borrow of their guarantees"),
  members: z.array(z.object({ slug: z.string(), name: z.string(), guarantee: z.number(), burst: z.number(), weight: z.number(), fairShare: z.number().describe("weight over the cohort's weights: its share of borrowed capacity when scarce") })),
});

const requestAmountsAndEnd = { amounts: quotaAmountsOut, endsAt: nullableDate.describe("Null: permanent"), justification: z.string(), monthlyCost: moneyOut.describe("Estimate when that revision was written") };

export const quotaRequestRevisionOut = z.object({
  revision: z.number().int(),
  ...requestAmountsAndEnd,
  writtenAt: isoDateTime,
  changes: z
    .array(z.object({ field: z.string(), label: z.string(), before: z.string(), after: z.string() }))
    .describe("What this revision changed from the one before, formatted as the portal shows it (empty for the first)"),
});

export const quotaRequestCommentOut = z.object({
  id: z.string(),
  author: z.string().describe("Display name of the author when written"),
  byRequester: z.boolean(),
  revision: z.number().int().describe("The request's revision the comment was written against"),
  body: z.string(),
  createdAt: isoDateTime,
});

const earlierRequestOut = z.object({
  id: z.string(),
  projectSlug: z.string(),
  projectName: z.string(),
  requester: z.string().nullable(),
  amounts: quotaAmountsOut,
  endsAt: nullableDate,
  status: quotaRequestStatusOut,
  decisionNote: z.string().nullable(),
  createdAt: isoDateTime,
  decidedAt: nullableDate,
});

export const quotaRequestDetailOut = quotaRequestOut.extend({
  revisions: z.array(quotaRequestRevisionOut).describe("Every revision, oldest first; the last is what the request says now"),
  comments: z.array(quotaRequestCommentOut).nullable().describe("The conversation, oldest first; null for callers who are not its requester, a tenant admin or a platform admin"),
  canEdit: z.boolean(),
  canComment: z.boolean(),
  history: z
    .object({
      tenantRequests: z.array(earlierRequestOut).describe("The tenant's other requests, newest first (at most 10)"),
      projectGrants: z.array(z.object({ id: z.string(), amounts: quotaAmountsOut, source: z.string(), startsAt: isoDateTime, endsAt: nullableDate })).describe("The project's grants, newest first (at most 10)"),
    })
    .nullable()
    .describe("What the tenant asked for and the project was granted before, for platform admins on pending requests"),
  granted: z
    .object({
      gpus: z.array(gpuAmountOut).optional().describe("Every GPU model granted; absent on an approval recorded before requests named several models (gpuCount and gpuBurst are then of the one model asked for)"),
      gpuCount: z.number().int().describe("GPUs of the one model the request's row names (the largest guarantee): read gpus"),
      gpuBurst: z.number().int().optional(),
      cpuCores: z.number(),
      cpuBurst: z.number().optional(),
      memoryBytes: z.number().int(),
      memoryBurstBytes: z.number().int().optional(),
      storageBytes: z.number().int(),
      endsAt: nullableDate,
    })
    .nullable()
    .describe("What was granted, when an approval changed what was asked"),
  timeline: z.array(quotaRequestEventOut),
  canCancel: z.boolean(),
  canDecide: z.boolean(),
  decision: z
    .object({
      conflict: z.string().nullable().describe("Why the caller may not decide it (separation of duties)"),
      secondApprovalRequired: z.boolean(),
      estimate: costEstimateOut,
      quotaNow: effectiveQuotaOut,
      quotaAfter: effectiveQuotaOut,
      capacity: z.array(capacityLineOut).describe("Allocated / capacity of the affected resources, before and after (with overcommit)"),
      tenantShares: z.array(z.object({ tenant: z.string(), shares: z.record(z.string(), z.number().nullable()) })),
      cohort: z
        .array(z.object({ line: z.object({ flavor: z.string(), resource: z.string() }), before: cohortFiguresOut, after: cohortFiguresOut }))
        .describe("The tenant's cohort on each line the request touches, before and after approval"),
      diff: z.string().describe("Unified diff of the rendered cluster objects the approval changes"),
      extension: z
        .object({
          monthly: moneyOut.describe("The grant's amounts a month at the rate card now"),
          addedCost: moneyOut.nullable().describe("The added period (the grant's end when asked to the new end) at that rate"),
          addedHours: z.number().nullable(),
          grantEndsAt: nullableDate.describe("The grant's end now"),
        })
        .nullable()
        .describe("For an extension: what it costs (quota now does not change, so quotaNow equals quotaAfter)"),
    })
    .nullable()
    .describe("The full picture, for platform admins on pending requests"),
});

export const quotaGrantOut = z.object({
  id: z.string(),
  requestId: z.string().nullable(),
  amounts: quotaAmountsOut,
  startsAt: isoDateTime,
  endsAt: nullableDate,
  inForce: z.boolean(),
});

// ---------------------------------------------------------------- usage push, spend and FOCUS exports

export const pushUsageOut = z.object({ stored: z.number().int().describe("Samples stored (each replaces this account's earlier figure for its project, resource and hour)") });

const spendSlugName = z.object({ slug: z.string(), name: z.string() });

export const spendWindowOut = z.object({
  from: isoDateTime.describe("Inclusive start (a UTC midnight)"),
  to: isoDateTime.describe("Exclusive end (a UTC midnight)"),
  lastDay: z.string().describe("The last day included (YYYY-MM-DD)"),
  range: z.enum(["7d", "30d", "90d", "month", "custom"]),
  granularity: z.enum(["hour", "day", "month"]),
});

export const spendPointOut = z.object({
  period: z.string().describe("Start of the period: an ISO instant for hours, YYYY-MM-DD for days and months (the 1st)"),
  resource: z.string(),
  quantity: z.number().describe("Consumed units: GPU-hours, core-hours, GiB-hours, requests"),
  cost: moneyOut.nullable().describe("Quantity × the rate in force at each hour; null when none of the quantity had a price (`pricing` is unpriced)"),
  unpricedQuantity: z.number().describe("Quantity with no price on the rate card: its cost is missing from `cost`"),
  pricing: z.enum(["priced", "partly", "unpriced"]).describe("unpriced: no price for any of the quantity (cost null, never zero); partly: cost covers the priced part only"),
});

export const resourceTotalOut = spendPointOut.omit({ period: true }).extend({
  gpuUtilization: z.number().nullable().describe("GPU resources: the busy share of the allocated GPU-hours where measured; null when not measured"),
  borrowed: z
    .object({ quantity: z.number().describe("GPU-hours used beyond the project's guarantee"), cost: z.number().describe("Their cost; cost less this is use within the guarantee") })
    .optional()
    .describe("GPU resources: the part used beyond the guarantee, borrowed from the cohort"),
});

export const budgetStatusOut = z.object({
  monthlyAmount: z.number().nullable().describe("The monthly budget (for a tenant: the sum of its projects' budgets); null when none is set"),
  month: z.object({
    monthStart: z.string().describe("YYYY-MM-DD"),
    monthToDate: z.number(),
    forecast: z.number().describe("Month to date plus the last seven days' daily rate over the rest of the month"),
    dailyRate: z.number(),
    daysInMonth: z.number().int(),
  }),
  usedShare: z.number().nullable().describe("monthToDate ÷ budget"),
  forecastShare: z.number().nullable().describe("forecast ÷ budget"),
});

export const projectSpendOut = z.object({
  tenantSlug: z.string(),
  slug: z.string(),
  name: z.string(),
  cost: z.number(),
  gpuCost: z.number(),
  gpuIdleCost: z.number().describe("What the measured idle share of the allocated GPUs cost"),
  gpuUtilization: z.number().nullable(),
  idleChargedBack: z
    .number()
    .optional()
    .describe("Present where idle is charged back in the window (or the rule is chargeback): the idle capacity cost charged to the project. Not in `cost`, which is use"),
});

export const tenantSpendOut = z.object({
  slug: z.string(),
  name: z.string(),
  cost: z.number(),
  idleChargedBack: z.number().optional().describe("Present where idle is charged back: the idle capacity cost charged to the tenant (the sum of its projects'). Not in `cost`"),
});

export const idleCostOut = z.object({
  mode: z.enum(["apart", "chargeback"]).describe("The rule in force at the end of the window: idle shown apart, or charged back to tenants in proportion to their guarantees"),
  rule: z.string().describe("The rule in a sentence, naming the days of each rule where it changed inside the window"),
  chargedBack: z.number().describe("The idle capacity cost charged back to this scope over the window (the platform: to all tenants). Not in totalCost, which is use"),
  apart: z
    .number()
    .optional()
    .describe("The platform only: the idle left apart, charged to no one. totalCost + chargedBack + apart = cluster.totalCost, to the cent"),
});

export const clusterCostOut = z.object({
  capacityCost: z.number().describe("The node pools' capacity at the rate card over the window, each hour at the pools' size then (their size history), over the hours that have ended"),
  allocatedCost: z.number().describe("What projects used of it: GPU, CPU, memory"),
  idleCost: z.number().describe("capacityCost − allocatedCost; negative when use exceeded capacity (overcommit)"),
  otherCost: z.number().describe("Storage, inference and custom meters"),
  totalCost: z.number().describe("capacityCost + otherCost = the sum over projects + idle"),
  idleShare: z.number().nullable().describe("idleCost ÷ totalCost, from the rounded figures; null without a positive cluster cost"),
});

/** The money rule every spend figure follows (lib/money.ts), stated once in the document. */
const MONEY_RULE =
  "Every amount is rounded once to the currency's minor unit (half away from zero) per charge line: a project's use of a resource on a UTC day (in hourly series and hourly exports, in an hour). Every total is the exact sum of its rounded lines, so byResource, byProject, byTenant and the day and month series each add up to totalCost to the cent, and the FOCUS rows of the same window and granularity add up to it too.";

export const spendReportOut = z.object({
  scope: z.object({ kind: z.enum(["project", "tenant", "platform"]), tenant: spendSlugName.optional(), project: spendSlugName.optional() }),
  currency: currencyOut,
  window: spendWindowOut,
  totalCost: z.number().describe(`The window's spend. ${MONEY_RULE}`),
  series: z.array(spendPointOut).describe("Cost and quantity per period and resource"),
  byResource: z.array(resourceTotalOut).describe("Totals per resource over the window, most expensive first"),
  unpricedResources: z.array(z.string()).describe("Resources used in the window with no price: their cost is missing"),
  demo: z.boolean().describe("Some figures come from generated demo data"),
  previous: z
    .object({
      from: isoDateTime,
      to: isoDateTime.describe("Exclusive: the window's start"),
      totalCost: z.number().describe("The previous period's spend, by the same money rule"),
      byResource: z.array(z.object({ resource: z.string(), cost: z.number() })),
    })
    .describe("The period of the same length just before the window, for comparison"),
  budget: budgetStatusOut.optional().describe("Projects and tenants: this month against budget"),
  byProject: z.array(projectSpendOut).optional().describe("Tenants and the platform: spend per project, most expensive first"),
  byTenant: z.array(tenantSpendOut).optional().describe("The platform: spend per tenant"),
  cluster: clusterCostOut.optional().describe("The platform: capacity, allocated and idle cost"),
  idleCost: idleCostOut.describe("How idle capacity cost is treated over the window, and what of it this scope was charged"),
  retention: z
    .object({
      retainedFrom: z.string().describe("The first day (YYYY-MM-DD) whose usage is kept; usage before it was dropped by retention"),
      months: z.number().int().describe("ALLOT_USAGE_RETENTION_MONTHS: whole months kept before the current one"),
      window: z.boolean().describe("The window starts before retainedFrom: its figures before that day are gone, not zero"),
      previous: z.boolean().describe("The previous period starts before retainedFrom: the comparison is with figures partly gone"),
    })
    .optional()
    .describe("Present only when the window or its previous period reaches back past what usage retention keeps"),
});

export const focusRowOut = z.object({
  BillingAccountId: z.string().describe('The tenant\'s id: the tenant is what its cost centre is charged for; "platform" on the line of idle capacity left apart'),
  BillingAccountName: z.string(),
  BillingPeriodStart: isoDateTime,
  BillingPeriodEnd: isoDateTime,
  ChargePeriodStart: isoDateTime.describe("Inclusive"),
  ChargePeriodEnd: isoDateTime.describe("Exclusive"),
  ChargeCategory: z
    .enum(["Usage", "Adjustment"])
    .describe("Usage: metered use of a resource. Adjustment: idle capacity (no quantity was consumed, so FOCUS's Usage does not fit), charged back to a project or left apart on the platform's line; x_IdleCost says which"),
  ChargeClass: z.null().describe("No row corrects a previously invoiced billing period"),
  ChargeDescription: z.string(),
  BilledCost: z.number().nullable().describe("Null when none of the row's quantity had a price (unpriced: the cost is unknown, not zero)"),
  EffectiveCost: z.number().nullable(),
  ListCost: z.number().nullable(),
  ContractedCost: z.number().nullable(),
  BillingCurrency: z.string(),
  PricingQuantity: z.number().nullable().describe("ConsumedQuantity ÷ the pricing unit (730 hours for GiB-months, 1,000 for requests); null on idle lines"),
  PricingUnit: z.string().nullable(),
  ConsumedQuantity: z.number().nullable().describe("Null on idle lines (nothing was consumed)"),
  ConsumedUnit: z.string().nullable(),
  ServiceCategory: z.enum(["Compute", "Storage", "AI and Machine Learning", "Other"]),
  ServiceName: z.string(),
  ProviderName: z.string(),
  PublisherName: z.string(),
  InvoiceIssuerName: z.string(),
  SubAccountId: z.string().nullable().describe("The project's id; null on the platform's idle line"),
  SubAccountName: z.string().nullable(),
  ResourceType: z.string().describe("GPU, CPU, Memory, Storage, Inference, the custom meter's key, or Idle capacity"),
  Tags: z.record(z.string(), z.string()).describe('{"tenant": slug, "project": slug, "costCentre": …} (as a JSON text in the CSV); {} on the platform\'s idle line'),
  x_Tenant: z.string().nullable(),
  x_Project: z.string().nullable(),
  x_GpuModel: z.string().nullable(),
  x_UnpricedQuantity: z.number().nullable().describe("Consumed quantity with no price: its cost is missing from BilledCost; null on idle lines"),
  x_IdleCost: z
    .enum(["apart", "chargeback"])
    .nullable()
    .describe("Null on use. On idle lines: chargeback (the project's share of the day's idle, by the value of its guarantees) or apart (the idle charged to no one, on the platform's line)"),
});

export const focusExportOut = z.object({
  currency: currencyOut,
  window: spendWindowOut,
  rows: z
    .array(focusRowOut)
    .describe(
      "One row per charge period, project and resource, then the idle lines (per UTC day, or month at month granularity): a project's or tenant's idle charged back, and on the platform's export the idle left apart too, so the platform's rows add up to the cluster cost. Ordered by period, tenant and project, a project's idle after its use, the platform's last",
    ),
});

export const groupMappingOut = z.object({
  id: z.string(),
  groupName: z.string().describe("The IdP group, as its name arrives in the OIDC groups claim or from SCIM"),
  project: z.object({ slug: z.string(), name: z.string() }).nullable().describe("The project the role is on; null for the whole tenant"),
  role: z.enum(["tenant_admin", "member", "viewer"]),
  createdBy: z.string().nullable(),
  createdAt: isoDateTime,
  people: z.number().int().describe("People who hold the role through this group now"),
});

export const extensionRequestOut = z.object({
  id: z.string(),
  projectSlug: z.string(),
  projectName: z.string(),
  requesterName: z.string(),
  requesterEmail: z.string().nullable(),
  sponsor: z.string().nullable(),
  currentExpiresAt: nullableDate.describe("When the access ends now"),
  requestedUntil: isoDateTime,
  reason: z.string(),
  createdAt: isoDateTime,
});
