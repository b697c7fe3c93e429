/**
 * Scale data: a platform of 10,000 projects in 200 tenants, built on the
 * PostgreSQL database that DATABASE_URL names, with COPY (never row by row),
 * and kept there for every later run: a marker row in instance_settings
 * records the version and the shape, and a database holding that marker is
 * used as it is.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lane_x npm run bench:scale-data
 *   … npm run bench:scale-data -- --reset      # drop whatever the database holds and build again
 *   … npm run bench:scale-data -- --projects 1000 --tenants 20 --audit 100000   # a smaller platform
 *
 * From code (another benchmark): `await ensureScaleData(url)` returns the
 * shape (counts, the year, the platform admin's email) after building it or
 * finding it built. See README "Operations at scale" for the row counts.
 *
 * What it holds (defaults):
 * - 200 tenants × 50 projects, 10 users per tenant (one tenant admin, seven
 *   members, two viewers), two member grants per project, one quota grant
 *   (with its lines) per project, four node pools and a rate card repriced
 *   mid-year.
 * - 500 pending quota requests (and 2,000 decided ones) from the last 30 days.
 * - 1,000,000 audit events over the year, hash-chained with the portal's own
 *   hashAuditEvent (lib/audit/chain), so `verifyAuditChain` accepts them.
 * - Usage: a year of daily rollups (usage_daily, what the spend pages and API
 *   read) for every project, and a year of hourly rows (usage_hourly, what the
 *   FOCUS export, borrowing and hourly series read) for the first 100
 *   projects, whose daily rows are rolled up from those hours by
 *   recomputeDailyRollup. A year of hours for all 10,000 projects would be
 *   ~300 million rows, more than this machine holds usefully.
 */
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { sql as dsql } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase } from "@/db/client";
import { runMigrations } from "@/db/migrate";
import { nodePools } from "@/db/schema";
import { GENESIS_HASH, hashAuditEvent, type AuditContent } from "@/lib/audit/chain";
import { ensureUsagePartitions } from "@/lib/metering/partitions";
import { recomputeDailyRollup } from "@/lib/metering/rollup";
import { pricingDivisor, resourceKind } from "@/lib/metering/units";
import { decimalText, divideRounded } from "@/lib/money";
import { recordPoolSize } from "@/lib/quota/pool-sizes";
import { namespaceFor } from "@/lib/tenancy/slugs";
import { assertLocalDatabase } from "@/test/database";

/** Bump when the generated shape changes: a database with another version is built again (with reset). */
export const SCALE_DATA_VERSION = 1;
const MARKER_KEY = "scale_data";
export const SCALE_ADMIN_EMAIL = "scale-admin@allot.bench";

export interface ScaleShape {
  tenants: number;
  projectsPerTenant: number;
  usersPerTenant: number;
  pendingRequests: number;
  decidedRequests: number;
  auditEvents: number;
  days: number;
  hourlyProjects: number;
}

export const DEFAULT_SCALE: ScaleShape = {
  tenants: 200,
  projectsPerTenant: 50,
  usersPerTenant: 10,
  pendingRequests: 500,
  decidedRequests: 2000,
  auditEvents: 1_000_000,
  days: 365,
  hourlyProjects: 100,
};

export interface ScaleData {
  version: number;
  shape: ScaleShape;
  /** The first day of the generated year (UTC midnight) and the day after its last. */
  from: string;
  to: string;
  rows: Record<string, number>;
  adminEmail: string;
  builtSeconds: number;
}

type Log = (line: string) => void;
const defaultLog: Log = (line) => console.log(`[scale-data] ${line}`);

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const GiB = 2 ** 30;
const GPU_MODELS = ["H100", "A100 1g.10gb", "L4"] as const;
const RATE_CARD: readonly (readonly [string, string])[] = [
  ["gpu:H100", "4.60"],
  ["gpu:A100 1g.10gb", "0.55"],
  ["gpu:L4", "0.80"],
  ["cpu", "0.034"],
  ["memory", "0.004"],
  ["storage", "0.08"],
];
const REPRICED: readonly (readonly [string, string])[] = [
  ["gpu:H100", "4.10"],
  ["cpu", "0.031"],
];

/**
 * Build the scale data on `url` unless it is already there (same version and
 * shape), and return what it holds. `reset` drops the database's schemas
 * first; without it a database holding anything else is refused.
 */
export async function ensureScaleData(url: string, options: { shape?: Partial<ScaleShape>; reset?: boolean; log?: Log } = {}): Promise<ScaleData> {
  assertLocalDatabase(url);
  const shape = { ...DEFAULT_SCALE, ...options.shape };
  const log = options.log ?? defaultLog;
  const client = postgres(url, { max: 4, onnotice: () => {} });
  try {
    const existing = await readMarker(client);
    if (existing && existing.version === SCALE_DATA_VERSION && sameShape(existing.shape, shape) && !options.reset) {
      log(`already built (version ${existing.version}, ${existing.from} to ${existing.to}): reusing it, with today's migrations`);
      const handle = openDatabase({ kind: "postgres", url });
      await runMigrations(handle, { kind: "postgres", url }).finally(() => handle.close());
      return existing;
    }
    const empty = await isEmpty(client);
    if (!empty && !options.reset) {
      throw new Error(
        existing
          ? `the database holds scale data of another version or shape (${JSON.stringify(existing.shape)}); pass --reset (reset: true) to build it again`
          : "the database holds other data; pass --reset (reset: true) to drop it and build the scale data",
      );
    }
    if (!empty) {
      log("reset: dropping the schemas public and drizzle");
      await client`drop schema if exists public cascade`;
      await client`drop schema if exists drizzle cascade`;
      await client`create schema public`;
    }
    return await build(url, client, shape, log);
  } finally {
    await client.end({ timeout: 5 });
  }
}

const sameShape = (a: ScaleShape, b: ScaleShape) => (Object.keys(DEFAULT_SCALE) as (keyof ScaleShape)[]).every((k) => a[k] === b[k]);

async function readMarker(client: postgres.Sql): Promise<ScaleData | null> {
  try {
    const rows = await client<{ value: ScaleData }[]>`select value from instance_settings where key = ${MARKER_KEY}`;
    return rows[0]?.value ?? null;
  } catch {
    return null; // not migrated yet
  }
}

const countRows = async (client: postgres.Sql, table: string) => (await client<{ n: number }[]>`select count(*)::int as n from ${client(table)}`)[0]!.n;

async function isEmpty(client: postgres.Sql): Promise<boolean> {
  const [row] = await client<{ n: number }[]>`select count(*)::int as n from pg_tables where schemaname = 'public'`;
  if (row!.n === 0) return true;
  const [t] = await client<{ n: number }[]>`select (select count(*) from tenants)::int + (select count(*) from audit_events)::int as n`.catch(() => [{ n: 1 }]);
  return t!.n === 0;
}

// ---------------------------------------------------------------------------
// COPY: rows as tab-separated text, streamed with back-pressure.

function field(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  const text = value instanceof Date ? value.toISOString() : typeof value === "string" ? value : JSON.stringify(value);
  return text.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");
}

/** COPY `rows` into `table` (columns named in `columns`); returns the number of rows. */
export async function copyRows(client: postgres.Sql, table: string, columns: readonly string[], rows: Iterable<readonly unknown[]>): Promise<number> {
  let count = 0;
  function* lines() {
    let chunk = "";
    for (const row of rows) {
      chunk += `${row.map(field).join("\t")}\n`;
      count += 1;
      if (chunk.length > 1 << 16) {
        yield chunk;
        chunk = "";
      }
    }
    if (chunk) yield chunk;
  }
  const writable = await client`copy ${client(table)} (${client(columns as string[])}) from stdin`.writable();
  await pipeline(Readable.from(lines()), writable);
  return count;
}

// ---------------------------------------------------------------------------
// Generation

interface Tenant {
  id: string;
  slug: string;
  users: { id: string; email: string; name: string }[];
}
interface Project {
  id: string;
  tenant: Tenant;
  slug: string;
  n: number;
  gpuModel: string | null;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const pad = (n: number, width: number) => String(n).padStart(width, "0");

async function build(url: string, client: postgres.Sql, shape: ScaleShape, log: Log): Promise<ScaleData> {
  const started = performance.now();
  const seconds = (t: number) => ((performance.now() - t) / 1000).toFixed(1);
  const handle = openDatabase({ kind: "postgres", url });
  try {
    await runMigrations(handle, { kind: "postgres", url });
    const today = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
    const from = new Date(today.getTime() - shape.days * DAY_MS);
    const priceChange = new Date(from.getTime() + Math.floor(shape.days / 2) * DAY_MS);
    const rows: Record<string, number> = {};
    const step = async (name: string, work: () => Promise<number>) => {
      const t = performance.now();
      rows[name] = (rows[name] ?? 0) + (await work());
      log(`${name}: ${rows[name].toLocaleString("en-US")} rows (${seconds(t)} s)`);
    };

    // Tenants, people, projects.
    const tenantList: Tenant[] = Array.from({ length: shape.tenants }, (_, t) => ({
      id: randomUUID(),
      slug: `scale-t${pad(t, 3)}`,
      users: Array.from({ length: shape.usersPerTenant }, (_, u) => ({ id: randomUUID(), email: `u${pad(u, 2)}.t${pad(t, 3)}@scale.bench`, name: `User ${u} of tenant ${t}` })),
    }));
    const admin = { id: randomUUID(), email: SCALE_ADMIN_EMAIL, name: "Scale admin" };
    const projectList: Project[] = tenantList.flatMap((tenant, t) =>
      Array.from({ length: shape.projectsPerTenant }, (_, p) => {
        const n = t * shape.projectsPerTenant + p;
        return { id: randomUUID(), tenant, slug: `p-${pad(p, 3)}`, n, gpuModel: n % 5 < 2 ? GPU_MODELS[n % 3]! : null };
      }),
    );
    const created = from.toISOString();
    await step("tenants", () => copyRows(client, "tenants", ["id", "slug", "name", "cost_centre", "created_at"], tenantList.map((t, i) => [t.id, t.slug, `Scale tenant ${i}`, `CC-${10_000 + i}`, created])));
    const people = [admin, ...tenantList.flatMap((t) => t.users)];
    await step("principals", () => copyRows(client, "principals", ["id", "kind", "display_name", "created_at"], people.map((u) => [u.id, "user", u.name, created])));
    await step("users", () => copyRows(client, "users", ["principal_id", "email"], people.map((u) => [u.id, u.email])));
    await step("platform_admins", () => copyRows(client, "platform_admins", ["principal_id", "source", "granted_at"], [[admin.id, "seed", created]]));
    const roleOf = (u: number) => (u === 0 ? "tenant_admin" : u >= shape.usersPerTenant - 2 ? "viewer" : "member");
    await step("memberships", () =>
      copyRows(client, "memberships", ["id", "tenant_id", "principal_id", "role", "created_at"], tenantList.flatMap((t) => t.users.map((u, i) => [randomUUID(), t.id, u.id, roleOf(i), created]))),
    );
    await step("projects", () =>
      copyRows(client, "projects", ["id", "tenant_id", "slug", "name", "namespace", "created_at"], projectList.map((p) => [p.id, p.tenant.id, p.slug, `Scale project ${p.n}`, namespaceFor(p.tenant.slug, p.slug), created])),
    );
    const members = (p: Project) => [p.tenant.users[1 + (p.n % (shape.usersPerTenant - 3))]!, p.tenant.users[2 + (p.n % (shape.usersPerTenant - 3))]!];
    await step("project_grants", () =>
      copyRows(client, "project_grants", ["id", "project_id", "principal_id", "role", "granted_by", "created_at"], projectList.flatMap((p) => members(p).map((u) => [randomUUID(), p.id, u.id, "member", p.tenant.users[0]!.id, created]))),
    );

    // Node pools (through drizzle: a handful of rows, and their size history) and the rate card.
    const scale = Math.max(1, Math.round(projectList.length / 100));
    const pools = await handle.db
      .insert(nodePools)
      .values([
        { name: "h100-pool", gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 2 * scale, cpuPerNode: 208, memoryBytesPerNode: 1843 * GiB, createdAt: from },
        { name: "a100-mig", gpuModel: "A100 1g.10gb", gpuResource: "nvidia.com/mig-1g.10gb", gpusPerNode: 56, nodeCount: Math.ceil(scale / 2), cpuPerNode: 96, memoryBytesPerNode: 1152 * GiB, createdAt: from },
        { name: "l4-inference", gpuModel: "L4", gpuResource: "nvidia.com/gpu", gpusPerNode: 4, nodeCount: 3 * scale, cpuPerNode: 48, memoryBytesPerNode: 192 * GiB, createdAt: from },
        { name: "cpu-general", gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 8 * scale, cpuPerNode: 64, memoryBytesPerNode: 256 * GiB, createdAt: from },
      ])
      .returning();
    for (const pool of pools) await recordPoolSize(handle.db, pool, from);
    const gpuResourceOf = (model: string) => pools.find((p) => p.gpuModel === model)!.gpuResource!;
    await step("rates", () =>
      copyRows(client, "rates", ["id", "resource", "unit_price", "effective_from"], [
        ...RATE_CARD.map(([r, price]) => [randomUUID(), r, price, from]),
        ...REPRICED.map(([r, price]) => [randomUUID(), r, price, priceChange]),
      ]),
    );

    // Quota: one grant per project, its lines the truth and its columns beside them (grant-store's shape).
    const grantIds = projectList.map(() => randomUUID());
    const quotaOf = (p: Project) => ({ cpu: 8 + (p.n % 8) * 4, memory: (32 + (p.n % 8) * 16) * GiB, storage: (100 + (p.n % 10) * 50) * GiB, gpus: p.gpuModel ? 1 + (p.n % 4) : 0 });
    await step("quota_grants", () =>
      copyRows(
        client,
        "quota_grants",
        ["id", "project_id", "gpu_model", "gpu_resource", "gpu_count", "cpu_cores", "memory_bytes", "storage_bytes", "starts_at", "source", "created_at"],
        projectList.map((p, i) => {
          const q = quotaOf(p);
          return [grantIds[i], p.id, p.gpuModel, p.gpuModel ? gpuResourceOf(p.gpuModel) : null, q.gpus, q.cpu, q.memory, q.storage, created, "onboarding", created];
        }),
      ),
    );
    // Their lines come from the columns at commit (the quota_lines_from_columns trigger), exactly as grant-store writes them.
    rows.quota_grant_lines = await countRows(client, "quota_grant_lines");

    // Quota requests: the pending ones over the last 30 days, decided ones before.
    const requests = Array.from({ length: shape.pendingRequests + shape.decidedRequests }, (_, i) => {
      const p = projectList[(i * 7919) % projectList.length]!;
      const pending = i < shape.pendingRequests;
      const at = pending ? new Date(today.getTime() - Math.random() * 30 * DAY_MS) : new Date(from.getTime() + Math.random() * (shape.days - 30) * DAY_MS);
      const gpus = p.gpuModel && i % 3 !== 0 ? 1 + (i % 8) : 0;
      const cpu = 4 * (1 + (i % 6));
      return { id: randomUUID(), p, pending, at, gpus, cpu, memory: cpu * 4 * GiB, storage: (i % 4) * 100 * GiB, cost: (gpus * 3000 + cpu * 25 + (i % 97)).toFixed(2), i };
    });
    const decided = ["approved", "rejected", "applied", "cancelled"] as const;
    await step("quota_requests", () =>
      copyRows(
        client,
        "quota_requests",
        ["id", "tenant_id", "project_id", "requested_by", "gpu_model", "gpu_count", "cpu_cores", "memory_bytes", "storage_bytes", "justification", "status", "monthly_cost", "decided_by", "decided_at", "created_at"],
        requests.map((r) => [
          r.id,
          r.p.tenant.id,
          r.p.id,
          members(r.p)[0]!.id,
          r.gpus ? r.p.gpuModel : null,
          r.gpus,
          r.cpu,
          r.memory,
          r.storage,
          `Request ${r.i}: ${r.gpus ? `${r.gpus} more ${r.p.gpuModel} for fine-tuning runs` : "more CPU for feature pipelines"} this quarter.`,
          r.pending ? "pending" : decided[r.i % decided.length],
          r.cost,
          r.pending ? null : admin.id,
          r.pending ? null : new Date(r.at.getTime() + HOUR_MS),
          r.at,
        ]),
      ),
    );
    rows.quota_request_lines = await countRows(client, "quota_request_lines");

    await step("audit_events", () => copyRows(client, "audit_events", AUDIT_COLUMNS, auditEvents(shape.auditEvents, from, today, tenantList, projectList, admin)));
    // COPY into a partitioned parent routes each row to its month's partition, which must exist first (no DEFAULT partition).
    await ensureUsagePartitions(handle.db, from, today);
    await step("usage_daily", () => copyRows(client, "usage_daily", DAILY_COLUMNS, dailyUsage(projectList.slice(shape.hourlyProjects), from, shape.days, priceChange)));
    await step("usage_hourly", () => copyRows(client, "usage_hourly", HOURLY_COLUMNS, hourlyUsage(projectList.slice(0, shape.hourlyProjects), from, shape.days)));
    const t = performance.now();
    for (const p of projectList.slice(0, shape.hourlyProjects)) await recomputeDailyRollup(handle.db, { projectId: p.id });
    rows.usage_daily! += shape.hourlyProjects === 0 ? 0 : (await client<{ n: number }[]>`select count(*)::int as n from usage_daily where project_id in ${client(projectList.slice(0, shape.hourlyProjects).map((p) => p.id))}`)[0]!.n;
    log(`daily rollup of the hourly projects (recomputeDailyRollup): ${seconds(t)} s`);

    const v = performance.now();
    await client`vacuum (analyze)`;
    log(`vacuum analyze: ${seconds(v)} s`);
    const data: ScaleData = {
      version: SCALE_DATA_VERSION,
      shape,
      from: from.toISOString().slice(0, 10),
      to: today.toISOString().slice(0, 10),
      rows,
      adminEmail: SCALE_ADMIN_EMAIL,
      builtSeconds: Math.round((performance.now() - started) / 1000),
    };
    await handle.db.execute(dsql`insert into instance_settings (key, value, updated_at) values (${MARKER_KEY}, ${JSON.stringify(data)}::jsonb, now())`);
    log(`built in ${data.builtSeconds} s`);
    return data;
  } finally {
    await handle.close();
  }
}

const AUDIT_COLUMNS = ["seq", "at", "actor_principal_id", "actor_label", "tenant_id", "action", "target_type", "target_id", "before", "after", "prev_hash", "hash"];

const TENANT_ACTIONS = [
  { action: "quota_request.created", type: "quota_request", after: (i: number) => ({ gpuCount: i % 8, cpuCores: 4 * (1 + (i % 6)) }) },
  { action: "quota.decide", type: "quota_request", after: (i: number) => ({ status: i % 4 === 0 ? "rejected" : "approved" }) },
  { action: "membership.role_changed", type: "membership", after: () => ({ role: "member" }), before: () => ({ role: "viewer" }) },
  { action: "project.created", type: "project", after: (i: number) => ({ slug: `p-${i % 1000}` }) },
  { action: "project_budget.set", type: "project", after: (i: number) => ({ monthlyAmount: String(1000 + (i % 50) * 100) }) },
  { action: "service_account.created", type: "service_account", after: (i: number) => ({ name: `ci-${i % 100}` }) },
  { action: "invitation.created", type: "invitation", after: () => ({ role: "viewer" }) },
  { action: "project_grant.revoked", type: "project_grant", before: () => ({ role: "member" }) },
];
const PLATFORM_ACTIONS = [
  { action: "session.started", type: "session", after: () => ({ method: "oidc" }) },
  { action: "node_pool.updated", type: "node_pool", before: () => ({ nodeCount: 4 }), after: () => ({ nodeCount: 5 }) },
  { action: "rate.added", type: "rate", after: () => ({ resource: "gpu:H100", unitPrice: "4.10" }) },
];

/**
 * `count` events spread evenly over the year, chained with the portal's own
 * hash: 90 % in a tenant by one of its people, 10 % platform-wide.
 */
function* auditEvents(count: number, from: Date, to: Date, tenantList: readonly Tenant[], projectList: readonly Project[], admin: { id: string; email: string }): Generator<unknown[]> {
  let prevHash = GENESIS_HASH;
  const span = to.getTime() - from.getTime();
  for (let seq = 1; seq <= count; seq++) {
    const at = new Date(from.getTime() + Math.floor(((seq - 1) / count) * span));
    const platform = seq % 10 === 0;
    const t = Math.floor(Math.random() * tenantList.length);
    const tenant = platform ? null : tenantList[t]!;
    const actor = tenant ? pick(tenant.users) : admin;
    const kind = platform ? pick(PLATFORM_ACTIONS) : pick(TENANT_ACTIONS);
    const perTenant = projectList.length / tenantList.length;
    const project = tenant ? projectList[t * perTenant + (seq % perTenant)] : null;
    const content: AuditContent = {
      seq,
      at,
      actorPrincipalId: actor.id,
      actorLabel: actor.email,
      tenantId: tenant?.id ?? null,
      action: kind.action,
      targetType: kind.type,
      targetId: kind.type === "project" && project ? project.id : kind.type === "session" ? randomUUID().slice(0, 8) : randomUUID(),
      before: "before" in kind && kind.before ? kind.before() : null,
      after: "after" in kind && kind.after ? kind.after(seq) : null,
    };
    const hash = hashAuditEvent(prevHash, content);
    yield [seq, at, content.actorPrincipalId, content.actorLabel, content.tenantId, content.action, content.targetType, content.targetId, content.before, content.after, prevHash, hash];
    prevHash = hash;
  }
}

const DAILY_COLUMNS = ["project_id", "tenant_id", "resource", "day", "quantity", "cost", "unpriced_quantity", "gpu_measured_hours", "gpu_busy_hours", "has_demo"];
const HOURLY_COLUMNS = ["project_id", "tenant_id", "resource", "hour", "source", "quantity", "requested", "used", "gpu_utilization", "ingested_at"];

/** A project's resources with their hourly level on day d: GPUs on and off over weeks, a slow storage growth. */
function levels(p: Project, d: number): { resource: string; hourly: number; utilization: number | null }[] {
  const out: { resource: string; hourly: number; utilization: number | null }[] = [
    { resource: "cpu", hourly: 4 + (p.n % 29), utilization: null },
    { resource: "memory", hourly: 16 + 4 * (p.n % 29), utilization: null },
    { resource: "storage", hourly: 200 + (p.n % 50) * 10 + Math.floor(d / 7), utilization: null },
  ];
  if (p.gpuModel) out.push({ resource: `gpu:${p.gpuModel}`, hourly: Math.sin(d / 9 + p.n) > -0.3 ? 1 + (p.n % 4) : 0, utilization: (30 + ((d * 7 + p.n) % 60)) / 100 });
  return out;
}

/** Unit price in millionths in force on a day (the card changes at a day's start). */
function priceMicros(resource: string, day: Date, priceChange: Date): bigint {
  const card = day >= priceChange ? (REPRICED.find(([r]) => r === resource) ?? RATE_CARD.find(([r]) => r === resource)) : RATE_CARD.find(([r]) => r === resource);
  const [whole, frac = ""] = card![1].split(".");
  return BigInt(whole!) * 1_000_000n + BigInt(frac.padEnd(6, "0"));
}

/** Daily rows priced as the rollup prices them: quantity × the day's rate ÷ the pricing divisor, at 9 decimals. */
function* dailyUsage(projectList: readonly Project[], from: Date, days: number, priceChange: Date): Generator<unknown[]> {
  for (const p of projectList) {
    for (let d = 0; d < days; d++) {
      const day = new Date(from.getTime() + d * DAY_MS);
      const dayText = day.toISOString().slice(0, 10);
      for (const l of levels(p, d)) {
        const quantity = l.hourly * 24;
        const divisor = BigInt(pricingDivisor(resourceKind(l.resource)));
        const cost = divideRounded(BigInt(quantity) * priceMicros(l.resource, day, priceChange) * 1000n, divisor);
        const gpu = l.utilization !== null;
        const busy = gpu ? (quantity * Math.round(l.utilization! * 100)) / 100 : 0;
        yield [p.id, p.tenant.id, l.resource, dayText, quantity, decimalText(Number(cost), 9), 0, gpu ? quantity : 0, busy.toFixed(2), false];
      }
    }
  }
}

/** Hourly rows for the projects that keep their hours: the day's level with a daily wave on CPU and memory use. */
function* hourlyUsage(projectList: readonly Project[], from: Date, days: number): Generator<unknown[]> {
  const ingested = new Date().toISOString();
  for (const p of projectList) {
    for (let h = 0; h < days * 24; h++) {
      const hour = new Date(from.getTime() + h * HOUR_MS).toISOString();
      const wave = 0.5 + 0.5 * Math.sin((h * Math.PI) / 12 + p.n);
      for (const l of levels(p, Math.floor(h / 24))) {
        if (l.resource === "cpu" || l.resource === "memory") {
          const used = Number((l.hourly * (0.3 + 0.9 * wave)).toFixed(3));
          yield [p.id, p.tenant.id, l.resource, hour, "scale", Math.max(l.hourly, used), l.hourly, used, null, ingested];
        } else {
          yield [p.id, p.tenant.id, l.resource, hour, "scale", l.hourly, null, null, l.utilization, ingested];
        }
      }
    }
  }
}

async function main() {
  const { values: args } = parseArgs({
    options: {
      reset: { type: "boolean", default: false },
      verify: { type: "boolean", default: false },
      tenants: { type: "string" },
      projects: { type: "string", default: undefined },
      audit: { type: "string" },
      pending: { type: "string" },
      days: { type: "string" },
      "hourly-projects": { type: "string" },
    },
  });
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("Set DATABASE_URL to a local PostgreSQL database: the scale data is built there.");
  const tenants = Number(args.tenants ?? DEFAULT_SCALE.tenants);
  const shape: Partial<ScaleShape> = {
    tenants,
    ...(args.projects ? { projectsPerTenant: Math.max(1, Math.round(Number(args.projects) / tenants)) } : {}),
    ...(args.audit ? { auditEvents: Number(args.audit) } : {}),
    ...(args.pending ? { pendingRequests: Number(args.pending) } : {}),
    ...(args.days ? { days: Number(args.days) } : {}),
    ...(args["hourly-projects"] ? { hourlyProjects: Number(args["hourly-projects"]) } : {}),
  };
  const data = await ensureScaleData(url, { shape, reset: args.reset });
  console.log(JSON.stringify(data, null, 2));
  if (args.verify) {
    // The portal's own verification, as the audit page's "Verify chain" runs it.
    const { verifyAuditChain } = await import("@/lib/audit/verify");
    const handle = openDatabase({ kind: "postgres", url });
    const started = performance.now();
    const result = await verifyAuditChain(handle.db);
    console.log(`[scale-data] verifyAuditChain: ${JSON.stringify(result)} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await handle.close();
    if (!result.intact) process.exit(1);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
