import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installDatabase, type Database } from "@/db/client";
import { instanceSettings, memberships, nodePools, nodePoolSizes, projectGrants, quotaGrantLines, quotaGrants } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { currentContext } from "@/lib/auth/current-actor";
import { config } from "@/lib/config";
import { FOCUS_COLUMN_NAMES } from "@/lib/metering/focus";
import { IDLE_COST_KEY, storedChanges } from "@/lib/metering/idle-mode";
import { recordPoolSize } from "@/lib/quota/pool-sizes";
import { accepts, undocumentedKeys, type JsonSchema } from "@/test/openapi-samples";
import { buildOpenApiDocument } from "./openapi";
import { API_ROUTES } from "./registry";
import { MAX_SAMPLES_PER_BATCH } from "@/lib/metering/inputs";
import { recomputeDailyRollup } from "@/lib/metering/rollup";
import { toMinor } from "@/lib/money";
import { revokeToken, setServiceAccountDisabled } from "@/lib/tenancy/commands/service-accounts";
import { mintTokenAsOperator } from "@/lib/tenancy/operator";
import { BAD_TOKEN_KINDS, badTokenPool, callApi, keyPaths, operatorAccount, resolveRoute, responses, routeModule, type ApiResponse } from "@/test/api";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { contextOf, rowsOf, type PersonaKey } from "@/test/fixtures";
import { addGrant, DAY, fingerprint, HOUR, projectIdOf, tenantIdsBySlug, WRITABLE_TABLES } from "@/test/tenancy";
import { GET as adminExport } from "@/app/(portal)/admin/spend/export/route";
import { GET as projectExport } from "@/app/(portal)/tenants/[tenant]/projects/[project]/spend/export/route";
import { GET as tenantExport } from "@/app/(portal)/tenants/[tenant]/spend/export/route";
import { GET as tenantSpendData } from "@/app/(portal)/tenants/[tenant]/spend/data/route";
import { AppError } from "@/lib/errors";
import { spendJson } from "@/lib/server/spend-json";
import * as meteringRoutes from "./routes/metering";

/**
 * The usage push API and the spend and FOCUS endpoints in-process, through
 * the handlers of app/api/v1/** on this file's database, and the portal's
 * FOCUS CSV downloads: the authorization matrix of every new route against
 * every kind of caller; a retried batch that changes nothing and a corrected
 * figure that replaces the old one; one bad sample refusing the batch with
 * its index and field named and nothing written; a meter pushing for a
 * project it does not meter; spend figures equal to the known answer of the
 * samples pushed; FOCUS exports with the exact header and no duplicate rows
 * on a re-run; and the incrementally kept rollup equal to a recomputation.
 */

// The portal downloads read the signed-in person through currentContext; here it answers with the persona under test.
vi.mock("@/lib/auth/current-actor", () => ({ currentContext: vi.fn(), currentActor: vi.fn() }));

/** The API decides with the wall clock, so the samples are placed relative to it. */
const STARTED = Date.now();
const SEEDED_AT = new Date(STARTED - HOUR);
/** A whole UTC day three days ago: the known-answer samples fall on it. */
const BASE = Math.floor(STARTED / DAY) * DAY - 3 * DAY;
const BASE_DAY = new Date(BASE).toISOString().slice(0, 10);
const at = (hours: number) => new Date(BASE + hours * HOUR).toISOString();
const DAY_WINDOW = `range=custom&from=${BASE_DAY}&to=${BASE_DAY}`;

const DT = "/api/v1/tenants/vision-lab/projects/detector-training";
const SEG = "/api/v1/tenants/vision-lab/projects/segmentation-research";
/** What these endpoints may write; api_tokens is left out because authenticating refreshes last_used_at. */
const TABLES = WRITABLE_TABLES.filter((t) => t !== "api_tokens");

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;
let segmentationId: string;

const PERSONAS = [
  "platform",
  "tenantAdmin",
  "otherTenantAdmin",
  "member",
  "memberWithoutGrant",
  "tenantViewer",
  "collaborator",
  "expiredCollaborator",
  "meter",
  "expiredMeter",
] as const;
type Persona = (typeof PERSONAS)[number];
const token = {} as Record<Persona | "segmentationMeter", string>;

/** Who sees detector-training's spend (project.spend.view). */
const SEES_PROJECT_SPEND = new Set<Persona>(["platform", "tenantAdmin", "member", "tenantViewer", "collaborator"]);
/** Who sees Vision Lab's spend (tenant.spend.view): its admins and viewers, not every member. */
const SEES_TENANT_SPEND = new Set<Persona>(["platform", "tenantAdmin", "tenantViewer"]);

const badTokens = badTokenPool();
const badToken = badTokens.take;
const account = (tenant: string | null, name: string, projectRoles: { project: string; role: "member" | "viewer" }[] = []) => operatorAccount(db, SEEDED_AT, tenant, name, projectRoles);

/** A service account of the tenant holding the meter role on one project (the portal grants it the same way). */
async function meterOn(tenant: string, project: string, name: string, expiresAt: Date | null = null) {
  const created = await account(tenant, name);
  await db.insert(projectGrants).values({ projectId: await projectIdOf(db, tenant, project), principalId: created.principalId, role: "meter", expiresAt, createdAt: SEEDED_AT });
  return created;
}

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  installDatabase(handle);
  await seedDemoData(db, SEEDED_AT);
  const tenantId = await tenantIdsBySlug(db);
  const detector = await projectIdOf(db, "vision-lab", "detector-training");
  segmentationId = await projectIdOf(db, "vision-lab", "segmentation-research");
  const member = async (tenant: string, principalId: string, role: "tenant_admin" | "member" | "viewer") =>
    db.insert(memberships).values({ tenantId: tenantId[tenant]!, principalId, role, createdAt: SEEDED_AT });

  token.platform = (await account(null, "meter-platform-bot")).token;
  const admin = await account("vision-lab", "meter-admin-bot");
  await member("vision-lab", admin.principalId, "tenant_admin");
  token.tenantAdmin = admin.token;
  const otherAdmin = await account("language-models", "meter-other-admin-bot");
  await member("language-models", otherAdmin.principalId, "tenant_admin");
  token.otherTenantAdmin = otherAdmin.token;
  const withGrant = await account("vision-lab", "meter-member-bot", [{ project: "detector-training", role: "member" }]);
  await member("vision-lab", withGrant.principalId, "member");
  token.member = withGrant.token;
  const withoutGrant = await account("vision-lab", "meter-member-no-grant-bot");
  await member("vision-lab", withoutGrant.principalId, "member");
  token.memberWithoutGrant = withoutGrant.token;
  const viewer = await account("vision-lab", "meter-tenant-viewer-bot");
  await member("vision-lab", viewer.principalId, "viewer");
  token.tenantViewer = viewer.token;
  const collaborator = await account("robotics", "meter-collab-bot");
  await addGrant(db, { projectId: detector, principalId: collaborator.principalId, role: "member", expiresAt: new Date(STARTED + 30 * DAY), grantedBy: null, createdAt: SEEDED_AT });
  token.collaborator = collaborator.token;
  const expired = await account("robotics", "meter-expired-collab-bot");
  await addGrant(db, { projectId: detector, principalId: expired.principalId, role: "member", expiresAt: new Date(STARTED - 60_000), grantedBy: null, createdAt: SEEDED_AT });
  token.expiredCollaborator = expired.token;
  token.meter = (await meterOn("vision-lab", "detector-training", "detector-meter")).token;
  token.expiredMeter = (await meterOn("vision-lab", "detector-training", "detector-expired-meter", new Date(STARTED - 60_000))).token;
  token.segmentationMeter = (await meterOn("vision-lab", "segmentation-research", "segmentation-meter")).token;

  // Enough unusable tokens of each kind for one use per route; each kind's account meters detector-training.
  const alex = await contextOf(db, "vision-admin", new Date());
  await meterOn("vision-lab", "detector-training", "meter-revoked-bot");
  await meterOn("vision-lab", "detector-training", "meter-expired-bot");
  await meterOn("vision-lab", "detector-training", "meter-disabled-bot");
  for (let i = 0; i < 16; i++) {
    const revoked = await mintTokenAsOperator(db, "vision-lab", "meter-revoked-bot", null, SEEDED_AT);
    await executeCommand(revokeToken, alex, { tenant: "vision-lab", serviceAccount: "meter-revoked-bot", prefix: revoked.prefix });
    badTokens.revoked.push(revoked.token);
    badTokens.expired.push((await mintTokenAsOperator(db, "vision-lab", "meter-expired-bot", new Date(STARTED - 60_000), new Date(STARTED - DAY))).token);
    badTokens.disabled.push((await mintTokenAsOperator(db, "vision-lab", "meter-disabled-bot", null, SEEDED_AT)).token);
  }
  await executeCommand(setServiceAccountDisabled, alex, { tenant: "vision-lab", serviceAccount: "meter-disabled-bot", disabled: true });
});
afterAll(async () => {
  (globalThis as { allotDb?: unknown }).allotDb = undefined;
  await handle?.close();
});

const get = (path: string, tokenValue: string | null) => callApi("GET", path, { token: tokenValue });
const push = (tokenValue: string | null, samples: unknown[]) => callApi("POST", "/api/v1/usage", { token: tokenValue, body: { samples } });
const jsonOf = <T = Record<string, unknown>>(response: ApiResponse) => response.json as T;

function expectStatus(response: ApiResponse, status: number) {
  expect(response.status, `${response.method} ${response.path}: ${response.text.slice(0, 500)}`).toBe(status);
}

function expectError(response: ApiResponse, status: number, code: string) {
  expectStatus(response, status);
  const body = jsonOf<{ error: { code: string; message: string; fields?: Record<string, string[]> } }>(response);
  expect(body.error).toMatchObject({ code, message: expect.any(String) as unknown });
  expect(Object.keys(body.error).filter((k) => !["code", "message", "fields"].includes(k))).toEqual([]);
  return body.error;
}

type Sample = { tenant: string; project: string; resource: string; hour: string; quantity?: number; requested?: number; used?: number; gpuUtilization?: number | null };
const sample = (project: string, resource: string, hour: string, fields: Partial<Sample> = {}): Sample => ({ tenant: "vision-lab", project, resource, hour, ...fields });

/** CSV lines of a response, without the trailing empty line. */
const csvLines = (response: ApiResponse | string) => (typeof response === "string" ? response : response.text).trimEnd().split("\r\n");

// ---------------------------------------------------------------- the authorization matrix

type Row = {
  route: string;
  expected: (p: Persona) => number;
  call: (tokenValue: string | null) => Promise<ApiResponse>;
  check?: (response: ApiResponse) => Promise<void> | void;
};

/** Ten hours ago on a custom meter of detector-training: outside every window the known-answer tests read. */
const MATRIX_SAMPLE = sample("detector-training", "matrix.meter", new Date(Math.floor(STARTED / HOUR) * HOUR - 10 * DAY).toISOString(), { quantity: 1 });
const readOr404 = (readers: Set<Persona>) => (p: Persona) => (readers.has(p) ? 200 : 404);
const isCsv = (response: ApiResponse) => {
  expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  expect(csvLines(response)[0]).toBe(FOCUS_COLUMN_NAMES.join(","));
};

const ROWS: Row[] = [
  {
    route: "POST /api/v1/usage",
    expected: (p) => (p === "meter" ? 200 : 404),
    call: (t) => push(t, [MATRIX_SAMPLE]),
    check: (r) => expect(r.json).toEqual({ stored: 1 }),
  },
  {
    route: "GET /api/v1/tenants/{tenant}/projects/{project}/spend",
    expected: readOr404(SEES_PROJECT_SPEND),
    call: (t) => get(`${DT}/spend`, t),
    check: (r) => expect(r.json).toMatchObject({ scope: { kind: "project", tenant: { slug: "vision-lab" }, project: { slug: "detector-training" } }, currency: config().currency }),
  },
  { route: "GET /api/v1/tenants/{tenant}/projects/{project}/spend?format=csv", expected: readOr404(SEES_PROJECT_SPEND), call: (t) => get(`${DT}/spend?format=csv`, t), check: isCsv },
  {
    route: "GET /api/v1/tenants/{tenant}/projects/{project}/spend/focus",
    expected: readOr404(SEES_PROJECT_SPEND),
    call: (t) => get(`${DT}/spend/focus`, t),
    check: (r) => expect(r.json).toMatchObject({ currency: config().currency, window: { range: "30d", granularity: "day" } }),
  },
  { route: "GET /api/v1/tenants/{tenant}/projects/{project}/spend/focus?format=csv", expected: readOr404(SEES_PROJECT_SPEND), call: (t) => get(`${DT}/spend/focus?format=csv`, t), check: isCsv },
  {
    route: "GET /api/v1/tenants/{tenant}/spend",
    expected: readOr404(SEES_TENANT_SPEND),
    call: (t) => get("/api/v1/tenants/vision-lab/spend", t),
    check: (r) => expect(r.json).toMatchObject({ scope: { kind: "tenant", tenant: { slug: "vision-lab", name: "Vision Lab" } }, byProject: expect.any(Array) as unknown }),
  },
  { route: "GET /api/v1/tenants/{tenant}/spend?format=csv", expected: readOr404(SEES_TENANT_SPEND), call: (t) => get("/api/v1/tenants/vision-lab/spend?format=csv", t), check: isCsv },
  {
    route: "GET /api/v1/tenants/{tenant}/spend/focus",
    expected: readOr404(SEES_TENANT_SPEND),
    call: (t) => get("/api/v1/tenants/vision-lab/spend/focus", t),
    check: (r) => expect(r.json).toMatchObject({ rows: expect.any(Array) as unknown }),
  },
  {
    route: "GET /api/v1/spend",
    expected: (p) => (p === "platform" ? 200 : 404),
    call: (t) => get("/api/v1/spend?range=7d", t),
    check: (r) => expect(r.json).toMatchObject({ scope: { kind: "platform" }, byTenant: expect.any(Array) as unknown, cluster: { capacityCost: expect.any(Number) as unknown } }),
  },
  { route: "GET /api/v1/spend?format=csv", expected: (p) => (p === "platform" ? 200 : 404), call: (t) => get("/api/v1/spend?format=csv", t), check: isCsv },
  {
    route: "GET /api/v1/spend/focus",
    expected: (p) => (p === "platform" ? 200 : 404),
    call: (t) => get("/api/v1/spend/focus?granularity=month", t),
    check: (r) => expect(r.json).toMatchObject({ window: { granularity: "month" } }),
  },
];

describe(`authorization matrix of the usage and spend routes (${databaseLabel()})`, () => {
  it("covers every route of the metering module", () => {
    const routes = (Object.values(meteringRoutes) as { spec?: { method: string; path: string } }[]).filter((r) => r.spec).map((r) => `${r.spec!.method} ${r.spec!.path}`);
    expect([...new Set(ROWS.map((r) => r.route.replace(/\?format=csv$/, "")))].sort()).toEqual(routes.sort());
  });

  const cases = ROWS.flatMap((row) => PERSONAS.map((persona) => [row.route, persona, row.expected(persona), row] as const));
  it.each(cases)("%s as %s answers %i", async (_route, persona, status, row) => {
    const before = await fingerprint(db, TABLES);
    const response = await row.call(token[persona]);
    if (status >= 400) {
      expectError(response, status, "not_found");
      expect(await fingerprint(db, TABLES), "a refusal writes nothing").toEqual(before);
    } else {
      expectStatus(response, status);
      await row.check?.(response);
    }
  });

  const unauthenticated = ROWS.flatMap((row) => BAD_TOKEN_KINDS.map((kind) => [row.route, kind, row] as const));
  it.each(unauthenticated)("%s with a %s token answers 401 and writes nothing", async (_route, kind, row) => {
    const before = await fingerprint(db, TABLES);
    expectError(await row.call(badToken(kind)), 401, "unauthenticated");
    expect(await fingerprint(db, TABLES)).toEqual(before);
  });

  it("serves every new route through its own route file", async () => {
    for (const route of Object.values(meteringRoutes) as { spec?: { method: string; path: string }; handle?: unknown }[]) {
      if (!route.spec) continue;
      const exported = (await routeModule(resolveRoute(route.spec.path.replace(/\{(\w+)\}/g, "x")).file))[route.spec.method];
      expect(exported, `${route.spec.method} ${route.spec.path}`).toBe(route.handle);
    }
  });
});

// ---------------------------------------------------------------- pushing

/** The known-answer batch for segmentation-research on BASE_DAY. */
const BATCH: Sample[] = [
  sample("segmentation-research", "gpu:L4", at(10), { quantity: 4, gpuUtilization: 0.25 }),
  sample("segmentation-research", "gpu:L4", at(11), { quantity: 2, gpuUtilization: 0.5 }),
  // cpu and memory: quantity = max(requested, used) when it is left out, as given when it is not.
  sample("segmentation-research", "cpu", at(10), { requested: 8, used: 3.5 }),
  sample("segmentation-research", "cpu", at(11), { requested: 2, used: 6 }),
  sample("segmentation-research", "memory", at(10), { quantity: 32, requested: 16, used: 20 }),
  sample("segmentation-research", "storage", at(10), { quantity: 730 }),
  sample("segmentation-research", "inference", at(10), { quantity: 5000 }),
  sample("segmentation-research", "tokens", at(10), { quantity: 10 }),
];
/** 10:00's L4 figure, corrected: 3 GPU-hours, no utilisation measured. */
const CORRECTION: Sample[] = [sample("segmentation-research", "gpu:L4", at(10), { quantity: 3, gpuUtilization: null })];

type DailyRow = { resource: string; day: string; quantity: string; cost: string; unpriced_quantity: string; gpu_measured_hours: string; gpu_busy_hours: string };
const daily = (projectId: string) =>
  rowsOf<DailyRow>(
    db,
    sql`select resource, day::text as day, quantity::text, cost::text, unpriced_quantity::text, gpu_measured_hours::text, gpu_busy_hours::text from usage_daily where project_id = ${projectId} order by day, resource`,
  );
const rounded = (rows: DailyRow[]) =>
  rows.map((r) => ({
    resource: r.resource,
    day: r.day,
    quantity: Number(r.quantity),
    cost: Number(Number(r.cost).toFixed(6)),
    unpriced: Number(r.unpriced_quantity),
    measured: Number(r.gpu_measured_hours),
    busy: Number(Number(r.gpu_busy_hours).toFixed(6)),
  }));
const hourly = (projectId: string) =>
  rowsOf<{ resource: string; hour: string; source: string; quantity: number; requested: number | null; used: number | null; gpu_utilization: number | null }>(
    db,
    sql`select resource, to_char(hour at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI') as hour, source, quantity, requested, used, gpu_utilization from usage_hourly where project_id = ${projectId} order by resource, hour, source`,
  );

describe(`pushing usage (${databaseLabel()})`, () => {
  it("stores a batch under the meter's own source, quantity = max(requested, used) for cpu and memory when left out", async () => {
    const response = await push(token.segmentationMeter, BATCH);
    expectStatus(response, 200);
    expect(response.json).toEqual({ stored: BATCH.length });
    const stored = await hourly(segmentationId);
    expect(new Set(stored.map((r) => r.source)).size).toBe(1);
    expect(stored[0]!.source).toMatch(/^push:[0-9a-f-]{36}$/);
    const day = BASE_DAY;
    expect(stored.map((r) => [r.resource, r.hour.slice(11), Number(r.quantity), r.requested === null ? null : Number(r.requested), r.used === null ? null : Number(r.used)])).toEqual([
      ["cpu", "10:00", 8, 8, 3.5],
      ["cpu", "11:00", 6, 2, 6],
      ["gpu:L4", "10:00", 4, null, null],
      ["gpu:L4", "11:00", 2, null, null],
      ["inference", "10:00", 5000, null, null],
      ["memory", "10:00", 32, 16, 20],
      ["storage", "10:00", 730, null, null],
      ["tokens", "10:00", 10, null, null],
    ]);
    expect(stored.every((r) => r.hour.startsWith(day))).toBe(true);
  });

  it("changes nothing when the same batch is pushed again (a retry), and replaces a figure that is corrected", async () => {
    const before = await daily(segmentationId);
    const beforeHourly = await hourly(segmentationId);
    expectStatus(await push(token.segmentationMeter, BATCH), 200);
    expect(await daily(segmentationId)).toEqual(before);
    expect(await hourly(segmentationId)).toEqual(beforeHourly);

    expectStatus(await push(token.segmentationMeter, CORRECTION), 200);
    const gpu = rounded(await daily(segmentationId)).find((r) => r.resource === "gpu:L4")!;
    // 3 (corrected) + 2 GPU-hours at 0.80; only 11:00 carries a utilisation now.
    expect(gpu).toMatchObject({ quantity: 5, cost: 4, measured: 2, busy: 1 });
    expect((await hourly(segmentationId)).filter((r) => r.resource === "gpu:L4").map((r) => Number(r.quantity))).toEqual([3, 2]);
  });

  it("keeps the daily rollup equal to a recomputation from the hourly table", async () => {
    const incremental = rounded(await daily(segmentationId));
    await recomputeDailyRollup(db, { projectId: segmentationId });
    expect(rounded(await daily(segmentationId))).toEqual(incremental);
    const detector = await projectIdOf(db, "vision-lab", "detector-training");
    const detectorIncremental = rounded(await daily(detector));
    await recomputeDailyRollup(db, { projectId: detector });
    expect(rounded(await daily(detector))).toEqual(detectorIncremental);
  });

  it("adds another meter's figure for the same hour instead of replacing it", async () => {
    const other = await meterOn("vision-lab", "segmentation-research", "segmentation-second-meter");
    const hour = new Date(BASE - 5 * DAY).toISOString();
    expectStatus(await push(token.segmentationMeter, [sample("segmentation-research", "sensor.events", hour, { quantity: 3 })]), 200);
    expectStatus(await push(other.token, [sample("segmentation-research", "sensor.events", hour, { quantity: 4 })]), 200);
    const row = rounded(await daily(segmentationId)).find((r) => r.resource === "sensor.events")!;
    expect(row.quantity).toBe(7);
  });

  it("accepts a batch naming several projects when the meter meters all of them, and the hour in progress", async () => {
    const both = await meterOn("vision-lab", "detector-training", "two-project-meter");
    await db.insert(projectGrants).values({ projectId: segmentationId, principalId: both.principalId, role: "meter", createdAt: SEEDED_AT });
    const thisHour = new Date(Math.floor(Date.now() / HOUR) * HOUR).toISOString();
    const response = await push(both.token, [
      sample("detector-training", "batch.check", thisHour, { quantity: 1 }),
      sample("segmentation-research", "batch.check", thisHour, { quantity: 2 }),
      // An hour with an offset: 13:00+02:00 two days before BASE_DAY is 11:00Z.
      sample("segmentation-research", "batch.check", new Date(BASE - 2 * DAY + 13 * HOUR).toISOString().replace(".000Z", "+02:00"), { quantity: 1 }),
    ]);
    expectStatus(response, 200);
    expect(response.json).toEqual({ stored: 3 });
    const [row] = await rowsOf<{ n: number | string }>(db, sql`select count(*)::int as n from usage_hourly where resource = 'batch.check' and hour = ${new Date(BASE - 2 * DAY + 11 * HOUR).toISOString()}::timestamptz`);
    expect(Number(row!.n)).toBe(1);
  });
});

describe(`a bad batch is refused whole (${databaseLabel()})`, () => {
  const valid = (i: number) => sample("detector-training", "cpu", at(i), { requested: 1, used: 2 });
  /** Three valid samples, then the one under test at index 3. */
  const batchWith = (bad: Record<string, unknown>) => [valid(0), valid(1), valid(2), bad];
  const now = () => Math.floor(Date.now() / HOUR) * HOUR;

  it.each([
    ["an hour not on the hour", { ...valid(3), hour: at(3).replace(":00:00", ":30:00") }, "samples.3.hour", /on the hour/],
    ["an hour in the future", { ...valid(3), hour: new Date(now() + 2 * HOUR).toISOString() }, "samples.3.hour", /future/],
    ["an hour older than 400 days", { ...valid(3), hour: new Date(now() - 401 * DAY).toISOString() }, "samples.3.hour", /400 days/],
    ["an hour without a time zone", { ...valid(3), hour: at(3).replace(".000Z", "") }, "samples.3.hour", /time zone/],
    ["a day that does not exist", { ...valid(3), hour: "2026-02-30T10:00:00Z" }, "samples.3.hour", /ISO 8601/],
    ["a date that is not an instant", { ...valid(3), hour: "yesterday" }, "samples.3.hour", /ISO 8601/],
    ["the same project, resource and hour as sample 0", { ...valid(0) }, "samples.3.hour", /repeats sample 0/],
    ["a negative quantity", sample("detector-training", "gpu:H100", at(3), { quantity: -1 }), "samples.3.quantity", /^Enter 0 or more\.$/],
    ["an absurd quantity", sample("detector-training", "gpu:H100", at(3), { quantity: 1e13 }), "samples.3.quantity", /below/],
    ["a quantity that is text", { ...sample("detector-training", "gpu:H100", at(3)), quantity: "4" }, "samples.3.quantity", /number/],
    ["no quantity on a GPU sample", sample("detector-training", "gpu:H100", at(3)), "samples.3.quantity", /^Fill in this field\.$/],
    ["no quantity, requested or used on a cpu sample", sample("detector-training", "cpu", at(3)), "samples.3.quantity", /requested/],
    ["a utilisation on a cpu sample", { ...valid(3), gpuUtilization: 0.5 }, "samples.3.gpuUtilization", /GPU/],
    ["a utilisation above 1", sample("detector-training", "gpu:H100", at(3), { quantity: 1, gpuUtilization: 1.5 }), "samples.3.gpuUtilization", /^Enter a number from 0 to 1\.$/],
    ["a resource key that is not one", sample("detector-training", "GPU H100!", at(3), { quantity: 1 }), "samples.3.resource", /gpu:<model>/],
    ["a tenant that is not a slug", { ...valid(3), tenant: "Vision Lab" }, "samples.3.tenant", /slug/],
    ["a missing project", { tenant: "vision-lab", resource: "cpu", hour: at(3), used: 1 }, "samples.3.project", /^Fill in this field\.$/],
    ["a field that does not exist", { ...valid(3), gpu_utilization: 0.5 }, "samples.3.gpu_utilization", /not a sample field/],
  ] as const)("refuses %s with 400 naming %s, and writes nothing", async (_label, bad, field, message) => {
    const before = await fingerprint(db, TABLES);
    const error = expectError(await push(token.meter, batchWith(bad)), 400, "validation");
    expect(Object.keys(error.fields!)).toEqual([field]);
    expect(error.fields![field]!.join(" ")).toMatch(message);
    expect(await fingerprint(db, TABLES)).toEqual(before);
  });

  it("refuses an empty batch, a batch over the limit, a body without samples and a body that is not JSON", async () => {
    const before = await fingerprint(db, TABLES);
    expect(Object.keys(expectError(await push(token.meter, []), 400, "validation").fields!)).toEqual(["samples"]);
    const tooMany = Array.from({ length: MAX_SAMPLES_PER_BATCH + 1 }, (_, i) => sample("detector-training", "cpu", new Date(BASE - (i + 1) * HOUR).toISOString(), { quantity: 1 }));
    expect(expectError(await push(token.meter, tooMany), 400, "validation").fields).toEqual({ samples: [expect.stringMatching(/at most 10,000/) as unknown] });
    expect(Object.keys(expectError(await callApi("POST", "/api/v1/usage", { token: token.meter, body: { sample: [] } }), 400, "validation").fields!).sort()).toEqual(["_form", "samples"]);
    expectError(await callApi("POST", "/api/v1/usage", { token: token.meter, rawBody: "{samples" }), 400, "validation");
    expectError(await callApi("POST", "/api/v1/usage", { token: token.meter, rawBody: JSON.stringify({ samples: [valid(0)] }), contentType: "text/plain" }), 400, "validation");
    expect(await fingerprint(db, TABLES)).toEqual(before);
  });

  it("refuses a meter of detector-training pushing for segmentation-research with a 404 naming the sample, and writes nothing", async () => {
    const before = await fingerprint(db, TABLES);
    const error = expectError(await push(token.meter, [valid(0), valid(1), sample("segmentation-research", "cpu", at(2), { used: 1 }), valid(3)]), 404, "not_found");
    expect(error.message).toMatch(/^Sample 2: /);
    expect(error.fields).toEqual({ "samples.2.project": [expect.stringMatching(/Name a project you may push usage for/) as unknown] });
    expect(await fingerprint(db, TABLES)).toEqual(before);
  });

  it("answers a project that does not exist exactly like one the caller does not meter", async () => {
    const before = await fingerprint(db, TABLES);
    const unknown = expectError(await push(token.meter, [valid(0), sample("no-such-project", "cpu", at(2), { used: 1 })]), 404, "not_found");
    const foreign = expectError(await push(token.meter, [valid(0), sample("segmentation-research", "cpu", at(2), { used: 1 })]), 404, "not_found");
    const otherTenant = expectError(await push(token.meter, [valid(0), { ...sample("chat-eval", "cpu", at(2), { used: 1 }), tenant: "language-models" }]), 404, "not_found");
    expect(unknown.fields).toEqual({ "samples.1.project": foreign.fields!["samples.1.project"] });
    expect(otherTenant.fields).toEqual(unknown.fields);
    expect(unknown.message.replace("no-such-project", "X")).toBe(foreign.message.replace("segmentation-research", "X"));
    expect(await fingerprint(db, TABLES)).toEqual(before);
  });

  it("refuses pushes from an expired meter grant, a platform admin and a tenant admin (neither holds the meter role)", async () => {
    const before = await fingerprint(db, TABLES);
    for (const t of [token.expiredMeter, token.platform, token.tenantAdmin]) expectError(await push(t, [valid(0)]), 404, "not_found");
    expect(await fingerprint(db, TABLES)).toEqual(before);
  });

  it.each(["revoked", "expired", "disabled"] as const)("refuses a %s token with 401 and writes nothing", async (kind) => {
    const before = await fingerprint(db, TABLES);
    expectError(await push(badToken(kind), [valid(0)]), 401, "unauthenticated");
    expect(await fingerprint(db, TABLES)).toEqual(before);
  });
});

// ---------------------------------------------------------------- spend and FOCUS: the known answer

/**
 * segmentation-research on BASE_DAY after BATCH and CORRECTION, at the seeded
 * rate card. Each day's line is rounded to the cent once (lib/money.ts): CPU
 * 14 × 0.031 = 0.434 → 0.43, memory 32 × 0.004 = 0.128 → 0.13, and the total
 * is the sum of the rounded lines.
 */
const KNOWN = {
  "gpu:L4": { quantity: 5, cost: 4, unpricedQuantity: 0, gpuUtilization: 0.5 },
  cpu: { quantity: 14, cost: 0.43, unpricedQuantity: 0, gpuUtilization: null },
  memory: { quantity: 32, cost: 0.13, unpricedQuantity: 0, gpuUtilization: null },
  inference: { quantity: 5000, cost: 0.1, unpricedQuantity: 0, gpuUtilization: null },
  storage: { quantity: 730, cost: 0.08, unpricedQuantity: 0, gpuUtilization: null },
  tokens: { quantity: 10, cost: 0, unpricedQuantity: 10, gpuUtilization: null },
} as const;
const KNOWN_TOTAL = 4.74;
/** Hour lines round each hour: CPU's 8 × 0.031 = 0.248 → 0.25 and 6 × 0.031 = 0.186 → 0.19 make 0.44, a cent more than the day's 0.43. */
const KNOWN_HOURLY_TOTAL = 4.75;
/** Sums of report amounts as the rule adds them: in cents. */
const cents = (values: number[]) => values.reduce((s, v) => s + toMinor(v, 2), 0);

type SpendJson = {
  totalCost: number;
  window: { from: string; to: string; lastDay: string; granularity: string; range: string };
  series: { period: string; resource: string; quantity: number; cost: number | null; unpricedQuantity: number; pricing: string }[];
  byResource: { resource: string; quantity: number; cost: number | null; unpricedQuantity: number; gpuUtilization: number | null; pricing: string }[];
  unpricedResources: string[];
  demo: boolean;
  budget?: { monthlyAmount: number | null };
  byProject?: { slug: string; tenantSlug: string; cost: number; gpuCost: number; gpuIdleCost: number; gpuUtilization: number | null }[];
  byTenant?: { slug: string; cost: number }[];
  cluster?: { capacityCost: number; allocatedCost: number; idleCost: number; otherCost: number; totalCost: number };
};
type FocusJson = { currency: string; rows: Record<string, unknown>[] };

describe(`spend over REST equals the known answer of the samples pushed (${databaseLabel()})`, () => {
  it("gives the project's totals, cost drivers and daily series", async () => {
    const response = await get(`${SEG}/spend?${DAY_WINDOW}`, token.tenantAdmin);
    expectStatus(response, 200);
    const body = jsonOf<SpendJson>(response);
    expect(body.window).toEqual({ from: `${BASE_DAY}T00:00:00.000Z`, to: new Date(BASE + DAY).toISOString(), lastDay: BASE_DAY, range: "custom", granularity: "day" });
    expect(body.totalCost).toBe(KNOWN_TOTAL);
    expect(cents(body.byResource.map((r) => r.cost ?? 0))).toBe(toMinor(body.totalCost, 2));
    expect(cents(body.series.map((r) => r.cost ?? 0))).toBe(toMinor(body.totalCost, 2));
    expect(body.byResource.map((r) => r.resource)).toEqual(["gpu:L4", "cpu", "memory", "inference", "storage", "tokens"]);
    for (const r of body.byResource) {
      const known = KNOWN[r.resource as keyof typeof KNOWN];
      expect(r.quantity, r.resource).toBeCloseTo(known.quantity, 9);
      // An unpriced meter's cost is null, never zero.
      expect(r.cost, r.resource).toBe(r.resource === "tokens" ? null : known.cost);
      expect(r.pricing, r.resource).toBe(r.resource === "tokens" ? "unpriced" : "priced");
      expect(r.unpricedQuantity, r.resource).toBe(known.unpricedQuantity);
      expect(r.gpuUtilization, r.resource).toBe(known.gpuUtilization);
    }
    expect(body.unpricedResources).toEqual(["tokens"]);
    expect(body.demo).toBe(false);
    expect(body.series.map((p) => [p.period, p.resource])).toEqual(Object.keys(KNOWN).sort().map((resource) => [BASE_DAY, resource]));
    expect(body.budget).toMatchObject({ monthlyAmount: null });
  });

  it("compares with the period of the same length just before: the next day's previous period is this day, to the cent", async () => {
    const nextDay = new Date(BASE + DAY).toISOString().slice(0, 10);
    const next = jsonOf<SpendJson & { previous: { from: string; to: string; totalCost: number; byResource: { resource: string; cost: number }[] } }>(
      await get(`${SEG}/spend?range=custom&from=${nextDay}&to=${nextDay}`, token.tenantAdmin),
    );
    expect(next.totalCost).toBe(0);
    expect(next.previous.from).toBe(`${BASE_DAY}T00:00:00.000Z`);
    expect(next.previous.to).toBe(`${nextDay}T00:00:00.000Z`);
    expect(next.previous.totalCost).toBe(KNOWN_TOTAL);
    const day = jsonOf<SpendJson>(await get(`${SEG}/spend?${DAY_WINDOW}`, token.tenantAdmin));
    expect(next.previous.byResource.map((r) => [r.resource, r.cost])).toEqual(day.byResource.map((r) => [r.resource, r.cost ?? 0]));
    expect(cents(next.previous.byResource.map((r) => r.cost))).toBe(toMinor(KNOWN_TOTAL, 2));
  });

  it("gives hourly series priced hour by hour", async () => {
    const body = jsonOf<SpendJson>(await get(`${SEG}/spend?${DAY_WINDOW}&granularity=hour`, token.tenantAdmin));
    const l4 = body.series.filter((p) => p.resource === "gpu:L4").map((p) => [p.period, p.quantity, p.cost]);
    expect(l4).toEqual([
      [at(10), 3, 2.4],
      [at(11), 2, 1.6],
    ]);
    const cpu = body.series.filter((p) => p.resource === "cpu").map((p) => [p.period, p.quantity]);
    expect(cpu).toEqual([
      [at(10), 8],
      [at(11), 6],
    ]);
  });

  it("gives the tenant's and the platform's spend with the project in them", async () => {
    const tenant = jsonOf<SpendJson>(await get(`/api/v1/tenants/vision-lab/spend?${DAY_WINDOW}`, token.tenantViewer));
    expect(tenant.totalCost).toBe(KNOWN_TOTAL);
    expect(tenant.byProject!.map((p) => [p.tenantSlug, p.slug, p.cost, p.gpuCost])).toEqual([["vision-lab", "segmentation-research", KNOWN_TOTAL, 4]]);
    // 11:00's 2 L4 GPU-hours were half busy: 0.80 of their 1.60 was idle.
    expect(tenant.byProject![0]!.gpuIdleCost).toBe(0.8);

    const platform = jsonOf<SpendJson>(await get(`/api/v1/spend?${DAY_WINDOW}`, token.platform));
    expect(platform.totalCost).toBe(KNOWN_TOTAL);
    expect(platform.byTenant).toEqual([{ slug: "vision-lab", name: "Vision Lab", cost: KNOWN_TOTAL }]);
    const cluster = platform.cluster!;
    expect(cluster.allocatedCost).toBe(4 + 0.43 + 0.13);
    expect(cluster.otherCost).toBe(0.18);
    // The page's equations, exact in cents.
    expect(toMinor(cluster.idleCost, 2)).toBe(toMinor(cluster.capacityCost, 2) - toMinor(cluster.allocatedCost, 2));
    expect(toMinor(cluster.totalCost, 2)).toBe(toMinor(platform.totalCost, 2) + toMinor(cluster.idleCost, 2));
    expect(cents([cluster.allocatedCost, cluster.otherCost])).toBe(toMinor(platform.totalCost, 2));
  });

  it("refuses a window it cannot read with 400 naming the parameter", async () => {
    expect(Object.keys(expectError(await get(`${SEG}/spend?range=year`, token.tenantAdmin), 400, "validation").fields!)).toEqual(["range"]);
    expect(Object.keys(expectError(await get(`${SEG}/spend?range=custom&from=${BASE_DAY}`, token.tenantAdmin), 400, "validation").fields!)).toEqual(["to"]);
    expect(Object.keys(expectError(await get(`${SEG}/spend/focus?range=90d&granularity=hour`, token.tenantAdmin), 400, "validation").fields!)).toEqual(["granularity"]);
    expectError(await get("/api/v1/tenants/vision-lab/projects/no-such-project/spend", token.platform), 404, "not_found");
    expectError(await get("/api/v1/tenants/no-such-tenant/spend/focus", token.platform), 404, "not_found");
  });
});

describe(`FOCUS exports (${databaseLabel()})`, () => {
  it("give one row per day, project and resource whose costs add up to the spend", async () => {
    const body = jsonOf<FocusJson>(await get(`${SEG}/spend/focus?${DAY_WINDOW}`, token.tenantAdmin));
    expect(body.currency).toBe(config().currency);
    expect(body.rows.map((r) => r.ResourceType)).toEqual(["CPU", "GPU", "Inference", "Memory", "Storage", "tokens"]);
    expect(cents(body.rows.map((r) => (r.BilledCost as number | null) ?? 0))).toBe(toMinor(KNOWN_TOTAL, 2));
    const gpu = body.rows.find((r) => r.ResourceType === "GPU")!;
    expect(gpu).toMatchObject({
      BillingAccountName: "Vision Lab",
      ChargePeriodStart: `${BASE_DAY}T00:00:00Z`,
      ChargePeriodEnd: new Date(BASE + DAY).toISOString().replace(".000Z", "Z"),
      ChargeCategory: "Usage",
      BilledCost: 4,
      EffectiveCost: 4,
      ListCost: 4,
      BillingCurrency: config().currency,
      ConsumedQuantity: 5,
      ConsumedUnit: "GPU-Hours",
      PricingQuantity: 5,
      PricingUnit: "GPU-Hours",
      ServiceCategory: "Compute",
      ServiceName: "Allot",
      SubAccountId: segmentationId,
      SubAccountName: "Segmentation research",
      Tags: { tenant: "vision-lab", project: "segmentation-research", costCentre: "CC-4100" },
      x_Tenant: "vision-lab",
      x_GpuModel: "L4",
    });
    expect(body.rows.find((r) => r.ResourceType === "Storage")).toMatchObject({ ConsumedQuantity: 730, ConsumedUnit: "GiB-Hours", PricingQuantity: 1, PricingUnit: "GiB-Months", ServiceCategory: "Storage" });
    expect(body.rows.find((r) => r.ResourceType === "Inference")).toMatchObject({ PricingQuantity: 5, PricingUnit: "1000 Requests", ServiceCategory: "AI and Machine Learning" });
    expect(body.rows.find((r) => r.ResourceType === "tokens")).toMatchObject({ BilledCost: null, ServiceCategory: "Other", x_UnpricedQuantity: 10 });
  });

  it("give hour rows from the hourly table and month rows clipped to the window", async () => {
    const hours = jsonOf<FocusJson>(await get(`${SEG}/spend/focus?${DAY_WINDOW}&granularity=hour`, token.tenantAdmin)).rows;
    expect(hours.map((r) => `${r.ChargePeriodStart as string} ${r.ResourceType as string}`)).toEqual([
      ...["CPU", "GPU", "Inference", "Memory", "Storage", "tokens"].map((t) => `${at(10).replace(".000Z", "Z")} ${t}`),
      ...["CPU", "GPU"].map((t) => `${at(11).replace(".000Z", "Z")} ${t}`),
    ]);
    expect(hours.find((r) => r.ResourceType === "GPU")).toMatchObject({ ChargePeriodEnd: at(11).replace(".000Z", "Z"), BilledCost: 2.4, ConsumedQuantity: 3 });
    expect(cents(hours.map((r) => (r.BilledCost as number | null) ?? 0))).toBe(toMinor(KNOWN_HOURLY_TOTAL, 2));
    const months = jsonOf<FocusJson>(await get(`${SEG}/spend/focus?${DAY_WINDOW}&granularity=month`, token.tenantAdmin)).rows;
    expect(months).toHaveLength(6);
    expect(months.every((r) => r.ChargePeriodStart === `${BASE_DAY}T00:00:00Z` && r.ChargePeriodEnd === new Date(BASE + DAY).toISOString().replace(".000Z", "Z"))).toBe(true);
  });

  it("as CSV: the exact FOCUS header, a file named after scope and window, no duplicate rows, and the same file on a re-run", async () => {
    const first = await get(`${SEG}/spend?${DAY_WINDOW}&format=csv`, token.tenantAdmin);
    expectStatus(first, 200);
    expect(first.headers.get("content-disposition")).toBe(`attachment; filename="allot-focus-vision-lab-segmentation-research-${BASE_DAY}-to-${BASE_DAY}-day.csv"`);
    const lines = csvLines(first);
    expect(lines[0]).toBe(
      "BillingAccountId,BillingAccountName,BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ChargeClass,ChargeDescription,BilledCost,EffectiveCost,ListCost,ContractedCost,BillingCurrency,PricingQuantity,PricingUnit,ConsumedQuantity,ConsumedUnit,ServiceCategory,ServiceName,ProviderName,PublisherName,InvoiceIssuerName,SubAccountId,SubAccountName,ResourceType,Tags,x_Tenant,x_Project,x_GpuModel,x_UnpricedQuantity,x_IdleCost",
    );
    expect(lines).toHaveLength(7);
    expect(new Set(lines).size).toBe(lines.length);
    // The same figures as the FOCUS JSON, in the same order.
    const focusCsv = await get(`${SEG}/spend/focus?${DAY_WINDOW}&format=csv`, token.tenantAdmin);
    expect(focusCsv.text).toBe(first.text);

    // The batch again (a retry) and the export again: the same file.
    expectStatus(await push(token.segmentationMeter, [...BATCH.slice(1), ...CORRECTION]), 200);
    expect((await get(`${SEG}/spend?${DAY_WINDOW}&format=csv`, token.tenantAdmin)).text).toBe(first.text);

    const tenant = await get(`/api/v1/tenants/vision-lab/spend?${DAY_WINDOW}&format=csv&granularity=hour`, token.tenantAdmin);
    expect(tenant.headers.get("content-disposition")).toBe(`attachment; filename="allot-focus-vision-lab-${BASE_DAY}-to-${BASE_DAY}-hour.csv"`);
    const tenantLines = csvLines(tenant);
    expect(tenantLines).toHaveLength(9);
    const keys = tenantLines.slice(1).map((l) => l.split(",").slice(4, 5).concat(l.split(",").slice(23, 24), l.split(",").slice(25, 26)).join(" "));
    expect(new Set(keys).size).toBe(keys.length);
    const platform = await get(`/api/v1/spend?${DAY_WINDOW}&format=csv&granularity=month`, token.platform);
    expect(platform.headers.get("content-disposition")).toBe(`attachment; filename="allot-focus-platform-${BASE_DAY}-to-${BASE_DAY}-month.csv"`);
    // The six use rows of the month, then the platform's idle left apart (the rule is apart): a FOCUS Adjustment with no quantity.
    const platformLines = csvLines(platform);
    expect(platformLines).toHaveLength(8);
    expect(platformLines[7]).toMatch(/^platform,Platform \(idle capacity\),.*,Adjustment,,"Idle capacity of the node pools, shown apart.*,Idle capacity,\{\},,,,,apart$/);
  });
});

// ---------------------------------------------------------------- the portal's CSV downloads

describe(`portal FOCUS downloads (${databaseLabel()})`, () => {
  const signedInAs = async (key: PersonaKey | null) => {
    const ctx: CommandContext | null = key ? await contextOf(db, key, new Date()) : null;
    vi.mocked(currentContext).mockResolvedValue(ctx);
  };
  const request = (path: string) => new Request(`http://localhost${path}?${DAY_WINDOW}`);
  const downloads = {
    project: () => projectExport(request("/tenants/vision-lab/projects/segmentation-research/spend/export"), { params: Promise.resolve({ tenant: "vision-lab", project: "segmentation-research" }) }),
    detector: () => projectExport(request("/tenants/vision-lab/projects/detector-training/spend/export"), { params: Promise.resolve({ tenant: "vision-lab", project: "detector-training" }) }),
    tenant: () => tenantExport(request("/tenants/vision-lab/spend/export"), { params: Promise.resolve({ tenant: "vision-lab" }) }),
    languageTenant: () => tenantExport(request("/tenants/language-models/spend/export"), { params: Promise.resolve({ tenant: "language-models" }) }),
    admin: () => adminExport(request("/admin/spend/export")),
  };
  type Download = keyof typeof downloads;
  const EXPECTED: Record<PersonaKey | "signed out", Record<Download, number>> = {
    "platform-admin": { project: 200, detector: 200, tenant: 200, languageTenant: 200, admin: 200 },
    "vision-admin": { project: 200, detector: 200, tenant: 200, languageTenant: 404, admin: 404 },
    "language-admin": { project: 404, detector: 404, tenant: 404, languageTenant: 200, admin: 404 },
    // A member sees the projects it works in, not the tenant's spend.
    "data-scientist": { project: 404, detector: 200, tenant: 404, languageTenant: 404, admin: 404 },
    viewer: { project: 404, detector: 404, tenant: 404, languageTenant: 200, admin: 404 },
    collaborator: { project: 404, detector: 404, tenant: 404, languageTenant: 404, admin: 404 },
    "signed out": { project: 401, detector: 401, tenant: 401, languageTenant: 401, admin: 401 },
  };
  const cases = (Object.entries(EXPECTED) as [PersonaKey | "signed out", Record<Download, number>][]).flatMap(([persona, byDownload]) =>
    (Object.entries(byDownload) as [Download, number][]).map(([download, status]) => [download, persona, status] as const),
  );

  it.each(cases)("the %s download as %s answers %i", async (download, persona, status) => {
    await signedInAs(persona === "signed out" ? null : persona);
    const response = await downloads[download]();
    expect(response.status).toBe(status);
    const text = await response.text();
    if (status === 200) {
      expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(csvLines(text)[0]).toBe(FOCUS_COLUMN_NAMES.join(","));
    } else {
      expect(text).not.toContain("BilledCost");
    }
  });

  it("names the file after scope and window and gives the same rows as the API", async () => {
    await signedInAs("vision-admin");
    const response = await downloads.project();
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="allot-focus-vision-lab-segmentation-research-${BASE_DAY}-to-${BASE_DAY}-day.csv"`);
    expect(await response.text()).toBe((await get(`${SEG}/spend?${DAY_WINDOW}&format=csv`, token.tenantAdmin)).text);
    await signedInAs("platform-admin");
    expect((await downloads.admin()).headers.get("content-disposition")).toBe(`attachment; filename="allot-focus-platform-${BASE_DAY}-to-${BASE_DAY}-day.csv"`);
  });

  it("answers a window it cannot read with 400", async () => {
    await signedInAs("vision-admin");
    const response = await tenantExport(new Request("http://localhost/tenants/vision-lab/spend/export?granularity=week"), { params: Promise.resolve({ tenant: "vision-lab" }) });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/granularity/);
  });
});

describe(`portal spend data routes answer in the API's error envelope (${databaseLabel()})`, () => {
  const data = (tenant: string, query = "range=7d") => tenantSpendData(new Request(`http://localhost/tenants/${tenant}/spend/data?${query}`), { params: Promise.resolve({ tenant }) });
  const envelope = async (response: Response) => ({ status: response.status, body: (await response.json()) as unknown });

  it("answers signed out 401, a bad window 400 naming the field, out of reach 404, and a report 200", async () => {
    vi.mocked(currentContext).mockResolvedValue(null);
    expect(await envelope(await data("vision-lab"))).toEqual({ status: 401, body: { error: { code: "unauthenticated", message: expect.any(String) as unknown } } });
    vi.mocked(currentContext).mockResolvedValue(await contextOf(db, "vision-admin", new Date()));
    expect(await envelope(await data("vision-lab", "granularity=week"))).toEqual({
      status: 400,
      body: { error: { code: "validation", message: expect.any(String) as unknown, fields: { granularity: [expect.any(String)] } } },
    });
    expect(await envelope(await data("language-models"))).toEqual({ status: 404, body: { error: { code: "not_found", message: expect.any(String) as unknown } } });
    expect((await data("vision-lab")).status).toBe(200);
  });

  it("maps every refusal as the API does (a conflict is 409), and anything unexpected to 500 with a reference only", async () => {
    const ctx = await contextOf(db, "vision-admin", new Date());
    vi.mocked(currentContext).mockResolvedValue(ctx);
    const request = new Request("http://localhost/tenants/vision-lab/spend/data?range=7d");
    for (const [code, status] of [["conflict", 409], ["forbidden", 403], ["validation", 400], ["not_found", 404]] as const) {
      const response = await spendJson(request, () => Promise.reject(new AppError(code, "refused")));
      expect(await envelope(response)).toEqual({ status, body: { error: { code, message: "refused" } } });
    }
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const broken = await envelope(await spendJson(request, () => Promise.reject(new Error("relation does not exist"))));
    spy.mockRestore();
    expect(broken).toEqual({ status: 500, body: { error: { code: "internal", message: expect.stringMatching(/^Something went wrong\. Reference [0-9a-f]+\.$/) as unknown, ref: expect.any(String) as unknown } } });
  });
});

// ---------------------------------------------------------------- throughput and leaks

describe(`push throughput (${databaseLabel()})`, () => {
  it("stores full batches end to end through the route, and the rollup still equals a recomputation", async () => {
    const detector = await projectIdOf(db, "vision-lab", "detector-training");
    const resources = ["bench.a", "bench.b", "bench.c", "bench.d", "bench.e"];
    const hoursPerBatch = MAX_SAMPLES_PER_BATCH / resources.length;
    const batches = 3;
    const start = BASE - 20 * DAY;
    let stored = 0;
    const t0 = performance.now();
    for (let b = 0; b < batches; b++) {
      const samples = Array.from({ length: MAX_SAMPLES_PER_BATCH }, (_, i) =>
        sample("detector-training", resources[i % resources.length]!, new Date(start - (b * hoursPerBatch + Math.floor(i / resources.length)) * HOUR).toISOString(), { quantity: (i % 7) + 1 }),
      );
      const response = await push(token.meter, samples);
      expectStatus(response, 200);
      stored += jsonOf<{ stored: number }>(response).stored;
    }
    const seconds = (performance.now() - t0) / 1000;
    console.log(`[metering-api] pushed ${stored} samples in ${batches} batches in ${seconds.toFixed(2)} s: ${Math.round(stored / seconds)} samples/s (${databaseLabel()})`);
    expect(stored).toBe(batches * MAX_SAMPLES_PER_BATCH);
    const [count] = await rowsOf<{ n: number | string }>(db, sql`select count(*)::int as n from usage_hourly where project_id = ${detector} and resource like 'bench.%'`);
    expect(Number(count!.n)).toBe(stored);
    const incremental = rounded(await daily(detector));
    await recomputeDailyRollup(db, { projectId: detector });
    expect(rounded(await daily(detector))).toEqual(incremental);
  }, 120_000);
});

// ---------------------------------------------------------------- answers as the OpenAPI document describes them

const DOCUMENT = buildOpenApiDocument(API_ROUTES, "http://localhost:3000");
/** The documented 200 JSON schema of the operation a request path falls under. */
function documentedAnswer(method: string, path: string): JsonSchema | undefined {
  const bare = path.split("?")[0]!;
  for (const [template, operations] of Object.entries(DOCUMENT.paths)) {
    if (!new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`).test(bare)) continue;
    const op = (operations as Record<string, { responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }> }>)[method.toLowerCase()];
    return op?.responses["200"]?.content?.["application/json"]?.schema;
  }
  return undefined;
}
/** The answer is accepted by its documented schema and carries no field the document leaves out. */
function expectDocumented(response: ApiResponse) {
  const schema = documentedAnswer(response.method, response.path);
  expect(schema, `${response.method} ${response.path} is documented`).toBeDefined();
  expect(accepts(schema!, response.json), `${response.method} ${response.path} matches its schema`).toBe(true);
  expect(undocumentedKeys(schema!, response.json), `${response.method} ${response.path}`).toEqual([]);
}

type IdleJson = Omit<SpendJson, "byTenant" | "byProject"> & {
  idleCost: { mode: string; rule: string; chargedBack: number; apart?: number };
  byTenant?: { slug: string; cost: number; idleChargedBack?: number }[];
  byProject?: { slug: string; cost: number; idleChargedBack?: number }[];
};

describe(`idle cost over REST, as the OpenAPI document describes it (${databaseLabel()})`, () => {
  it("answers the rule and the idle charged back per tenant and project, and the FOCUS rows add up to the cluster cost", async () => {
    // A 16-core pool since the day before BASE, 8 of its cores guaranteed to segmentation-research, and the rule chargeback.
    const since = new Date(BASE - DAY);
    const [pool] = await db.insert(nodePools).values({ name: "idle-test", nodeCount: 1, cpuPerNode: 16, memoryBytesPerNode: 64 * 2 ** 30, createdAt: since }).returning();
    await recordPoolSize(db, pool!, since);
    const [grant] = await db.insert(quotaGrants).values({ projectId: segmentationId, startsAt: since, source: "demo" }).returning();
    await db.insert(quotaGrantLines).values({ grantId: grant!.id, flavor: "default", resource: "cpu", guarantee: "8" });
    try {
      const apart = await get(`/api/v1/spend?${DAY_WINDOW}`, token.platform);
      expectDocumented(apart);
      const before = jsonOf<IdleJson>(apart);
      expect(before.idleCost).toMatchObject({ mode: "apart", chargedBack: 0, apart: before.cluster!.idleCost });
      expect(before.idleCost.rule).toMatch(/shown apart/);

      await db.insert(instanceSettings).values({ key: IDLE_COST_KEY, value: storedChanges([{ mode: "chargeback", effectiveFrom: new Date("2020-01-01T00:00:00Z") }]) });
      const platformResponse = await get(`/api/v1/spend?${DAY_WINDOW}`, token.platform);
      expectDocumented(platformResponse);
      const platform = jsonOf<IdleJson>(platformResponse);
      const k = platform.cluster!;
      expect(platform.idleCost.mode).toBe("chargeback");
      // 16 cores for the day at the CPU rate, less what was used: idle, all of it charged to the one project holding a guarantee.
      expect(platform.idleCost.chargedBack).toBeGreaterThan(0);
      expect(cents([platform.idleCost.chargedBack, platform.idleCost.apart!])).toBe(toMinor(k.idleCost, 2));
      expect(cents([platform.totalCost, platform.idleCost.chargedBack, platform.idleCost.apart!])).toBe(toMinor(k.totalCost, 2));
      expect(platform.byTenant).toEqual([{ slug: "vision-lab", name: "Vision Lab", cost: KNOWN_TOTAL, idleChargedBack: platform.idleCost.chargedBack }]);
      expect(platform.byProject!.find((p) => p.slug === "segmentation-research")!.idleChargedBack).toBe(platform.idleCost.chargedBack);

      const tenantResponse = await get(`/api/v1/tenants/vision-lab/spend?${DAY_WINDOW}`, token.tenantViewer);
      expectDocumented(tenantResponse);
      const tenant = jsonOf<IdleJson>(tenantResponse);
      expect(tenant.idleCost).toEqual({ mode: "chargeback", rule: platform.idleCost.rule, chargedBack: platform.idleCost.chargedBack });
      expect(tenant.byProject!.map((p) => [p.slug, p.idleChargedBack])).toEqual([["segmentation-research", platform.idleCost.chargedBack]]);

      const projectResponse = await get(`${SEG}/spend?${DAY_WINDOW}`, token.tenantAdmin);
      expectDocumented(projectResponse);
      expect(jsonOf<IdleJson>(projectResponse).idleCost.chargedBack).toBe(platform.idleCost.chargedBack);

      const focusResponse = await get(`/api/v1/spend/focus?${DAY_WINDOW}`, token.platform);
      expectDocumented(focusResponse);
      const rows = jsonOf<FocusJson>(focusResponse).rows as { BilledCost: number | null; ChargeCategory: string; x_IdleCost: string | null; x_Project: string | null }[];
      const idle = rows.filter((r) => r.x_IdleCost !== null);
      expect(idle.map((r) => [r.ChargeCategory, r.x_IdleCost, r.x_Project])).toEqual([
        ["Adjustment", "chargeback", "segmentation-research"],
        ...(platform.idleCost.apart ? [["Adjustment", "apart", null]] : []),
      ]);
      expect(cents(rows.map((r) => r.BilledCost ?? 0))).toBe(toMinor(k.totalCost, 2));
      const projectFocus = await get(`${SEG}/spend/focus?${DAY_WINDOW}`, token.tenantAdmin);
      expectDocumented(projectFocus);
      expect(cents((jsonOf<FocusJson>(projectFocus).rows as { BilledCost: number | null }[]).map((r) => r.BilledCost ?? 0))).toBe(
        toMinor(KNOWN_TOTAL, 2) + toMinor(platform.idleCost.chargedBack, 2),
      );
    } finally {
      await db.delete(instanceSettings).where(eq(instanceSettings.key, IDLE_COST_KEY));
      await db.delete(quotaGrantLines).where(eq(quotaGrantLines.grantId, grant!.id));
      await db.delete(quotaGrants).where(eq(quotaGrants.id, grant!.id));
      await db.delete(nodePoolSizes).where(eq(nodePoolSizes.poolId, pool!.id));
      await db.delete(nodePools).where(eq(nodePools.id, pool!.id));
    }
  });
});

describe(`no response leaks internals (${databaseLabel()})`, () => {
  it("answers every successful JSON request of this file as the OpenAPI document describes it, no field left out of it", () => {
    const answered = responses.filter((r) => r.status === 200 && r.json !== undefined && r.path.startsWith("/api/v1/"));
    expect(answered.length).toBeGreaterThan(30);
    for (const response of answered) expectDocumented(response);
  });

  it("shows no internal ids, hashes or sources in any JSON response of this file", () => {
    expect(responses.length).toBeGreaterThan(150);
    const internal = /(^|\.)(tenantId|projectId|principalId|source|hash|tokenHash)$/;
    for (const response of responses) {
      expect(keyPaths(response.json).filter((k) => internal.test(k)), `${response.method} ${response.path}`).toEqual([]);
      if (response.status >= 500) throw new Error(`${response.method} ${response.path} answered ${response.status}: ${response.text}`);
    }
  });

  it("leaves the grants as they were (pushing never changes access)", async () => {
    const meters = await db.select().from(projectGrants).where(and(eq(projectGrants.role, "meter"), eq(projectGrants.projectId, segmentationId)));
    expect(meters.length).toBeGreaterThanOrEqual(2);
  });
});
