import { sql } from "drizzle-orm";
import { type AnyPgColumn, bigint, boolean, check, doublePrecision, index, integer, jsonb, numeric, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { clusterChanges } from "./cluster";
import { principals } from "./identity";
import { projects, tenants } from "./tenancy";

/**
 * A pool of identical nodes. GPU pools name the GPU model people ask for
 * ("H100", or a MIG profile such as "A100 1g.10gb") and the extended resource
 * the device plugin advertises ("nvidia.com/gpu", "nvidia.com/mig-1g.10gb").
 * gpusPerNode counts that resource per node (MIG instances for MIG pools).
 */
export const nodePools = pgTable(
  "node_pools",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    gpuModel: text("gpu_model"),
    gpuResource: text("gpu_resource"),
    gpusPerNode: integer("gpus_per_node").notNull().default(0),
    /** The nodes present: what capacity, approvals and idle cost count. */
    nodeCount: integer("node_count").notNull(),
    /** Autoscaling bounds: the queue says when a request needs the pool to grow towards maxNodes; capacity never counts them. */
    minNodes: integer("min_nodes"),
    maxNodes: integer("max_nodes"),
    cpuPerNode: doublePrecision("cpu_per_node").notNull(),
    memoryBytesPerNode: bigint("memory_bytes_per_node", { mode: "number" }).notNull(),
    dedicatedTenantId: uuid("dedicated_tenant_id").references(() => tenants.id),
    /** Labels every node of the pool carries (e.g. nvidia.com/gpu.product): the pool's Kueue ResourceFlavor selects them. */
    nodeLabels: jsonb("node_labels").$type<Record<string, string>>().notNull().default({}),
    /** Taints of the pool's nodes; the flavour tolerates them, so admitted workloads land there. */
    nodeTaints: jsonb("node_taints").$type<{ key: string; value?: string; effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute" }[]>().notNull().default([]),
    /** How the pool's GPUs are shared: whole GPUs, MIG slices (gpuResource names the profile), or time-sliced replicas. */
    gpuSharing: text("gpu_sharing").$type<"exclusive" | "mig" | "time_sliced">().notNull().default("exclusive"),
    /** Time-slicing replicas per physical GPU (1 unless time-sliced): the device plugin advertises gpusPerNode x this. */
    gpuSlices: integer("gpu_slices").notNull().default(1),
    /** The workload tiers the platform lets onto this pool (e.g. serving only on MIG slices); null: every tier. */
    tiers: jsonb("tiers").$type<string[]>(),
    /**
     * Every GPU extended resource the pool's nodes advertise, with how many a
     * node offers (a MIG mixed-strategy node offers several profiles): the
     * hardware view. gpuResource and gpuProfiles are requestable; every
     * namespace's ResourceQuota names the others too (hard 0 unless held), so
     * none is consumed uncapped. Empty for pools added by hand.
     */
    offeredGpuResources: jsonb("offered_gpu_resources").$type<{ resource: string; perNode: number }[]>().notNull().default([]),
    /**
     * The pool's further requestable GPU profiles (a MIG mixed-strategy node
     * offers several): each a model name of its own (its flavour and rate card
     * key), its MIG resource and the instances a node offers. The pool's
     * gpuModel / gpuResource / gpusPerNode stay its first profile, so pools of
     * one profile are unchanged (lib/quota/pool-profiles.ts reads both).
     */
    gpuProfiles: jsonb("gpu_profiles").$type<{ model: string; resource: string; perNode: number }[]>().notNull().default([]),
    version: integer("version").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("node_pools_name_unique").on(t.name),
    check("node_pools_gpu_pair", sql`(${t.gpuModel} is null) = (${t.gpuResource} is null)`),
    check("node_pools_counts", sql`${t.nodeCount} >= 0 and ${t.gpusPerNode} >= 0 and ${t.cpuPerNode} >= 0 and ${t.memoryBytesPerNode} >= 0`),
    check("node_pools_gpu_sharing", sql`${t.gpuSharing} in ('exclusive', 'mig', 'time_sliced') and ${t.gpuSlices} >= 1 and (${t.gpuSharing} = 'time_sliced' or ${t.gpuSlices} = 1)`),
    // Further profiles are MIG instances beside a first one: a pool without a GPU model, or of whole or time-sliced GPUs, has none.
    check("node_pools_gpu_profiles", sql`jsonb_typeof(${t.gpuProfiles}) = 'array' and (jsonb_array_length(${t.gpuProfiles}) = 0 or (${t.gpuModel} is not null and ${t.gpuSharing} = 'mig'))`),
  ],
);

/**
 * What each pool held, over time: one row per span in which its capacity
 * facts (nodes, GPUs, CPU and memory per node, GPU model and profiles) stood still, from
 * valid_from to valid_to (null: still so). Written in the transaction of every
 * change of a pool (lib/quota/pool-sizes.ts), kept when the pool is deleted
 * (its last span is closed then), so idle and capacity cost are priced on
 * what existed each hour, not on today's pools. No foreign key to the pool:
 * the history outlives it.
 */
export const nodePoolSizes = pgTable(
  "node_pool_sizes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    poolId: uuid("pool_id").notNull(),
    /** The pool's name then, so a deleted pool's history still reads. */
    poolName: text("pool_name").notNull(),
    gpuModel: text("gpu_model"),
    gpusPerNode: integer("gpus_per_node").notNull(),
    /** The pool's further requestable profiles then (model and instances per node), each priced on its own. */
    gpuProfiles: jsonb("gpu_profiles").$type<{ model: string; perNode: number }[]>().notNull().default([]),
    nodeCount: integer("node_count").notNull(),
    cpuPerNode: doublePrecision("cpu_per_node").notNull(),
    memoryBytesPerNode: bigint("memory_bytes_per_node", { mode: "number" }).notNull(),
    validFrom: timestamp("valid_from", { withTimezone: true }).notNull(),
    validTo: timestamp("valid_to", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("node_pool_sizes_open_unique").on(t.poolId).where(sql`${t.validTo} is null`),
    index("node_pool_sizes_pool_from_idx").on(t.poolId, t.validFrom),
    check("node_pool_sizes_span", sql`${t.validTo} is null or ${t.validTo} > ${t.validFrom}`),
    check("node_pool_sizes_counts", sql`${t.nodeCount} >= 0 and ${t.gpusPerNode} >= 0 and ${t.cpuPerNode} >= 0 and ${t.memoryBytesPerNode} >= 0`),
  ],
);

/**
 * The rate card: a price per unit for a resource from an instant on. History
 * is kept (rows are never updated): the price in force at time t is the row
 * with the latest effective_from <= t. Resource keys: "gpu:<model>", "cpu",
 * "memory", "storage", "inference", or any custom meter key the usage push
 * API accepts (with its unit).
 */
export const rates = pgTable(
  "rates",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    resource: text("resource").notNull(),
    /** Exact decimal: money is never a float in storage. */
    unitPrice: numeric("unit_price", { precision: 18, scale: 6 }).notNull(),
    effectiveFrom: timestamp("effective_from", { withTimezone: true }).notNull(),
    /** A custom meter's unit as people read it ("widget", "1,000 tokens"); null for the built-in resources, whose units are fixed. */
    unit: text("unit"),
    createdBy: uuid("created_by").references(() => principals.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("rates_resource_from_unique").on(t.resource, t.effectiveFrom), check("rates_price_nonnegative", sql`${t.unitPrice} >= 0`)],
);

export const quotaRequestStatus = pgEnum("quota_request_status", [
  "pending",
  "approved",
  "auto_approved",
  "rejected",
  "cancelled",
  "expired",
  "applied",
  "apply_failed",
]);

/** What a data scientist asks for on one project: amounts added to its quota, permanently or until endsAt. */
export const quotaRequests = pgTable(
  "quota_requests",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id),
    requestedBy: uuid("requested_by").references(() => principals.id, { onDelete: "set null" }),
    gpuModel: text("gpu_model"),
    gpuCount: integer("gpu_count").notNull().default(0),
    cpuCores: doublePrecision("cpu_cores").notNull().default(0),
    memoryBytes: bigint("memory_bytes", { mode: "number" }).notNull().default(0),
    storageBytes: bigint("storage_bytes", { mode: "number" }).notNull().default(0),
    /** Null: permanent. */
    endsAt: timestamp("ends_at", { withTimezone: true }),
    justification: text("justification").notNull(),
    status: quotaRequestStatus("status").notNull().default("pending"),
    /** Estimated monthly cost at the rate card when asked (for sorting and the second-approval rule). */
    monthlyCost: numeric("monthly_cost", { precision: 18, scale: 2 }).notNull().default("0"),
    /** Set when a first platform admin approved a request that needs a second one. */
    firstApprovedBy: uuid("first_approved_by").references(() => principals.id, { onDelete: "set null" }),
    firstApprovedAt: timestamp("first_approved_at", { withTimezone: true }),
    decidedBy: uuid("decided_by").references(() => principals.id, { onDelete: "set null" }),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    /** The reason of a rejection (shown to the requester), or a note on an approval with changes. */
    decisionNote: text("decision_note"),
    /**
     * What was granted, when it differs from what was asked (approve with changes). `gpus` holds every GPU model
     * granted; gpuCount and gpuBurst are of the one model the row's gpu_model names, for the previous release (and
     * all an approval written before several models could be asked holds: lib/quota/request-amounts.ts).
     */
    granted: jsonb("granted").$type<{ gpus?: { model: string; count: number; burst: number }[]; gpuCount: number; gpuBurst?: number; cpuCores: number; cpuBurst?: number; memoryBytes: number; memoryBurstBytes?: number; storageBytes: number; endsAt: string | null }>(),
    clusterChangeId: bigint("cluster_change_id", { mode: "number" }).references(() => clusterChanges.id),
    version: integer("version").notNull().default(1),
    /** Which edit of its content the request shows: 1 as asked, +1 for each edit by the requester (earlier ones in quota_request_revisions). */
    revision: integer("revision").notNull().default(1),
    /**
     * Set on a request to keep a time-bound grant longer: the grant it extends
     * (its amounts are the grant's, endsAt the new end). Approval moves that
     * grant's end; no grant of its own is written.
     */
    extendsGrantId: uuid("extends_grant_id").references((): AnyPgColumn => quotaGrants.id),
    /** The extended grant's end when the extension was asked: what the approval moves from. */
    extendsFrom: timestamp("extends_from", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The approval queue and GET /quota-requests page by (created_at, id) within a status (keyset pagination).
    index("quota_requests_status_idx").on(t.status, t.createdAt, t.id),
    // At most one extension of a grant waits at a time.
    uniqueIndex("quota_requests_pending_extension_unique").on(t.extendsGrantId).where(sql`${t.status} = 'pending' and ${t.extendsGrantId} is not null`),
    check("quota_requests_extension", sql`(${t.extendsGrantId} is null) = (${t.extendsFrom} is null)`),
    index("quota_requests_project_idx").on(t.projectId, t.createdAt),
    check("quota_requests_amounts", sql`${t.gpuCount} >= 0 and ${t.cpuCores} >= 0 and ${t.memoryBytes} >= 0 and ${t.storageBytes} >= 0`),
    check("quota_requests_gpu_model", sql`(${t.gpuCount} = 0) or (${t.gpuModel} is not null)`),
  ],
);

/** The timeline of a request: created, auto-approved, first approval, decided, applied, expired… */
export const quotaRequestEvents = pgTable(
  "quota_request_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    requestId: uuid("request_id")
      .notNull()
      .references(() => quotaRequests.id),
    at: timestamp("at", { withTimezone: true }).notNull(),
    actorPrincipalId: uuid("actor_principal_id").references(() => principals.id, { onDelete: "set null" }),
    /** Who, as shown at the time ("system:auto-approval" for rules). */
    actorLabel: text("actor_label").notNull(),
    kind: text("kind").notNull(),
    detail: jsonb("detail").$type<Record<string, unknown>>(),
  },
  (t) => [index("quota_request_events_request_idx").on(t.requestId, t.id)],
);

/**
 * Quota a project holds on top of the platform's starting quota, from an
 * approved request. The effective quota at time t is the starting quota plus
 * every grant with startsAt <= t < endsAt.
 */
export const quotaGrants = pgTable(
  "quota_grants",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id),
    requestId: uuid("request_id").references(() => quotaRequests.id),
    gpuModel: text("gpu_model"),
    gpuResource: text("gpu_resource"),
    gpuCount: integer("gpu_count").notNull().default(0),
    cpuCores: doublePrecision("cpu_cores").notNull().default(0),
    memoryBytes: bigint("memory_bytes", { mode: "number" }).notNull().default(0),
    storageBytes: bigint("storage_bytes", { mode: "number" }).notNull().default(0),
    startsAt: timestamp("starts_at", { withTimezone: true }).notNull(),
    endsAt: timestamp("ends_at", { withTimezone: true }),
    /** Set when the tenant admins were warned that this grant ends soon (warned once). */
    expiryWarnedAt: timestamp("expiry_warned_at", { withTimezone: true }),
    /** Where the grant came from: an approved request, a tenant onboarding, a tenant admin's move inside the envelope, or demo data. */
    source: text("source").$type<"request" | "onboarding" | "move" | "demo">().notNull().default("request"),
    /** The two grants of one move inside a tenant's envelope share this id (one takes from a project, one gives to another). */
    transferId: uuid("transfer_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("quota_grants_project_idx").on(t.projectId),
    index("quota_grants_ends_idx").on(t.endsAt).where(sql`${t.endsAt} is not null`),
    index("quota_grants_transfer_idx").on(t.transferId).where(sql`${t.transferId} is not null`),
  ],
);

/**
 * The quota model: a grant (or a request) is a set of lines, one per
 * (flavour, resource). A flavour is what a pool offers: "default" for CPU,
 * memory and storage, else the GPU model as the node pools name it (a whole
 * GPU such as "H100", a MIG profile "A100 1g.10gb", a time-sliced "L4 shared").
 * Resources are "cpu" (cores), "memory" and "storage" (bytes), or the GPU's
 * extended resource name (devices). guarantee is the nominal quota the project
 * can always get; burst how much it may borrow beyond it (preemptible work
 * only). Amounts add up over the grants in force; a move inside a tenant's
 * envelope is a pair of grants, one with a negative guarantee. How much of a
 * guarantee others may borrow is the project's setting, not a grant's
 * (project_quota_settings): it does not add up.
 */
export const quotaGrantLines = pgTable(
  "quota_grant_lines",
  {
    grantId: uuid("grant_id")
      .notNull()
      .references(() => quotaGrants.id),
    flavor: text("flavor").notNull(),
    resource: text("resource").notNull(),
    guarantee: numeric("guarantee").notNull().default("0"),
    burst: numeric("burst").notNull().default("0"),
  },
  (t) => [primaryKey({ columns: [t.grantId, t.flavor, t.resource] }), check("quota_grant_lines_amounts", sql`${t.burst} >= 0`)],
);

/**
 * How much of a project's guarantee, per line, other projects of its cohort
 * may borrow while it is unused (Kueue's lendingLimit); no row: all of it.
 * Set by the tenant's admins.
 */
export const projectQuotaSettings = pgTable(
  "project_quota_settings",
  {
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id),
    flavor: text("flavor").notNull(),
    resource: text("resource").notNull(),
    lendLimit: numeric("lend_limit").notNull(),
    updatedBy: uuid("updated_by").references(() => principals.id, { onDelete: "set null" }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.flavor, t.resource] }), check("project_quota_settings_lend_limit", sql`${t.lendLimit} >= 0`)],
);

/** What a request asks for, line by line (see quotaGrantLines); approving with changes writes the grant's own lines. */
export const quotaRequestLines = pgTable(
  "quota_request_lines",
  {
    requestId: uuid("request_id")
      .notNull()
      .references(() => quotaRequests.id),
    flavor: text("flavor").notNull(),
    resource: text("resource").notNull(),
    guarantee: numeric("guarantee").notNull().default("0"),
    burst: numeric("burst").notNull().default("0"),
  },
  (t) => [primaryKey({ columns: [t.requestId, t.flavor, t.resource] }), check("quota_request_lines_amounts", sql`${t.guarantee} >= 0 and ${t.burst} >= 0`)],
);

/**
 * A tenant's envelope per (flavour, resource): what the platform approved for
 * the whole tenant. Its admins divide it among their projects and move quota
 * between them without a ticket; only a change of the envelope, or a project
 * guarantee beyond it, goes to the platform. No row: no envelope for that line
 * (every project request goes to the platform, as before envelopes).
 */
export const tenantQuotaEnvelopes = pgTable(
  "tenant_quota_envelopes",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id),
    flavor: text("flavor").notNull(),
    resource: text("resource").notNull(),
    guarantee: numeric("guarantee").notNull().default("0"),
    burst: numeric("burst").notNull().default("0"),
    version: integer("version").notNull().default(1),
    updatedBy: uuid("updated_by").references(() => principals.id, { onDelete: "set null" }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.flavor, t.resource] }), check("tenant_quota_envelopes_amounts", sql`${t.guarantee} >= 0 and ${t.burst} >= 0`)],
);

export const tenantRequestStatus = pgEnum("tenant_request_status", ["pending", "approved", "rejected", "cancelled"]);

/** Onboarding by request: anyone signed in asks for a tenant; its approval creates everything. */
export const tenantRequests = pgTable(
  "tenant_requests",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    requestedBy: uuid("requested_by").references(() => principals.id, { onDelete: "set null" }),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    costCentre: text("cost_centre").notNull().default(""),
    isolationTier: text("isolation_tier").notNull().default("shared"),
    firstAdmins: jsonb("first_admins").$type<string[]>().notNull(),
    projectName: text("project_name").notNull(),
    projectSlug: text("project_slug").notNull(),
    /**
     * The first project's quota on top of the starting quota. `gpus` holds every GPU model (guarantees only);
     * gpuModel and gpuCount one of them for the previous release, and all a request written before it holds
     * (lib/quota/request-amounts.ts tenantQuotaOf).
     */
    quota: jsonb("quota").$type<{ gpus?: { model: string; count: number; burst: number }[]; gpuModel: string | null; gpuCount: number; cpuCores: number; memoryBytes: number; storageBytes: number }>().notNull(),
    justification: text("justification").notNull(),
    status: tenantRequestStatus("status").notNull().default("pending"),
    decidedBy: uuid("decided_by").references(() => principals.id, { onDelete: "set null" }),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    decisionNote: text("decision_note"),
    tenantId: uuid("tenant_id").references(() => tenants.id),
    version: integer("version").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("tenant_requests_status_idx").on(t.status, t.createdAt)],
);

/** In-app notices: decisions, expiries, warnings. */
export const notifications = pgTable(
  "notifications",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    principalId: uuid("principal_id")
      .notNull()
      .references(() => principals.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    title: text("title").notNull(),
    body: text("body").notNull().default(""),
    link: text("link"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    readAt: timestamp("read_at", { withTimezone: true }),
  },
  (t) => [index("notifications_principal_idx").on(t.principalId, t.createdAt)],
);

/** Outgoing webhooks (Slack-compatible JSON, HMAC-signed) on request events. */
export const webhooks = pgTable("webhooks", {
  id: uuid("id").primaryKey().defaultRandom(),
  url: text("url").notNull(),
  /** HMAC-SHA256 key; shown once when created. */
  secret: text("secret").notNull(),
  events: jsonb("events").$type<string[]>().notNull(),
  active: boolean("active").notNull().default(true),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    webhookId: uuid("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
  },
  (t) => [index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt)],
);

/**
 * One row: the generation of what the platform's quota basis is computed from
 * (lib/quota/platform-quota.ts): quota grants and their lines, lend limits,
 * projects, tenants and envelopes. Statement triggers on those tables move it
 * in the transaction of the change (migration 0024), so a process that cached
 * the basis at one generation knows, by reading this row, whether it still holds.
 */
export const quotaBasisVersions = pgTable(
  "quota_basis_versions",
  {
    id: integer("id").primaryKey().default(1),
    generation: bigint("generation", { mode: "number" }).notNull().default(0),
  },
  (t) => [check("quota_basis_versions_one_row", sql`${t.id} = 1`)],
);
