import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installDatabase, type Database } from "@/db/client";
import { seedDemoData } from "@/db/seed";
import { currentContext } from "@/lib/auth/current-actor";
import { initialFormState } from "@/lib/form-state";
import { createQuotaRequestAction } from "@/app/(portal)/tenants/[tenant]/projects/[project]/quota/actions";
import { createNodePoolAction } from "@/app/(portal)/admin/capacity/actions";
import { callApi, operatorAccount } from "@/test/api";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { contextOf, countOf } from "@/test/fixtures";

/**
 * Numbers a person types are plain decimals, through the real doors: a REST
 * body (numbers as strings), a query parameter and the server-action wrapper.
 * Each refusal names the field and writes nothing. (The CLI's --expires-days:
 * cli/allot.int.test.ts.)
 */

vi.mock("@/lib/auth/current-actor", () => ({ currentContext: vi.fn(), currentActor: vi.fn() }));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));
// So no request is approved automatically and woken into a cluster change.
process.env.ALLOT_CLUSTER_MODE = "record-only";

const SEEDED_AT = new Date(Date.now() - 3_600_000);
const REFUSED = ["0x10", "1.5e3", "Infinity", " 4 ", "4abc", "+4"];
const DT = "/api/v1/tenants/vision-lab/projects/detector-training/quota-requests";
const JUSTIFICATION = "Training the next detector on the new camera data.";

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;
let platform = "";
let member = "";

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  installDatabase(handle);
  await seedDemoData(db, SEEDED_AT);
  platform = (await operatorAccount(db, SEEDED_AT, null, "numbers-platform-bot")).token;
  member = (await operatorAccount(db, SEEDED_AT, "vision-lab", "numbers-member-bot", [{ project: "detector-training", role: "member" }])).token;
});
afterAll(async () => {
  (globalThis as { allotDb?: unknown }).allotDb = undefined;
  await handle?.close();
});

describe(`typed numbers through REST (${databaseLabel()})`, () => {
  it.each(REFUSED)("refuses CPU cores %j in a quota request with 400 naming the field, writing nothing", async (cpu) => {
    const before = await countOf(db, "quota_requests");
    const response = await callApi("POST", DT, { token: member, body: { cpuCores: cpu, justification: JUSTIFICATION } });
    expect(response.status, response.text).toBe(400);
    expect(response.json).toMatchObject({ error: { code: "validation", fields: { cpuCores: ["Enter a number of cores such as 4 or 500m."] } } });
    expect(await countOf(db, "quota_requests")).toBe(before);
  });

  it.each(["0x10", "1e3", "Infinity", " 4 ", "4abc", "+4", "", "1.5"])("refuses %j nodes in a new node pool", async (nodes) => {
    const before = await countOf(db, "node_pools");
    const response = await callApi("POST", "/api/v1/node-pools", { token: platform, body: { name: "typed-pool", nodeCount: nodes, cpuPerNode: "64", memoryPerNode: "256" } });
    expect(response.status, response.text).toBe(400);
    expect(response.json).toMatchObject({ error: { code: "validation", fields: { nodeCount: ["Enter a whole number from 0 to 100000."] } } });
    expect(await countOf(db, "node_pools")).toBe(before);
  });

  it("refuses an exponent in a Kubernetes quantity, and accepts the quantity without it", async () => {
    const refused = await callApi("POST", "/api/v1/node-pools", { token: platform, body: { name: "typed-pool", nodeCount: "2", cpuPerNode: "64", memoryPerNode: "1e3Gi" } });
    expect(refused.json).toMatchObject({ error: { code: "validation", fields: { memoryPerNode: ["Enter a number of GiB such as 256, or a quantity such as 1.8Ti."] } } });
    const accepted = await callApi("POST", "/api/v1/node-pools", { token: platform, body: { name: "typed-pool", nodeCount: "2", cpuPerNode: "7910m", memoryPerNode: "1.5Ti" } });
    expect(accepted.status, accepted.text).toBe(201);
    expect(accepted.json).toMatchObject({ nodeCount: 2, cpuPerNode: 7.91, memoryBytesPerNode: 1.5 * 2 ** 40 });
  });

  it.each(["0x10", "1e2", "+5", " 5"])("refuses limit=%j in a query", async (limit) => {
    const response = await callApi("GET", `/api/v1/audit?limit=${encodeURIComponent(limit)}`, { token: platform });
    expect(response.status, response.text).toBe(400);
    expect(response.json).toMatchObject({ error: { code: "validation", fields: { limit: ["Enter a whole number from 1 to 5000."] } } });
  });
});

describe(`typed numbers through a server action (${databaseLabel()})`, () => {
  it.each(REFUSED)("answers GPUs %j beside the field, writing nothing", async (gpus) => {
    vi.mocked(currentContext).mockResolvedValue(await contextOf(db, "data-scientist", new Date()));
    const before = await countOf(db, "quota_requests");
    const form = new FormData();
    for (const [k, v] of Object.entries({ tenant: "vision-lab", project: "detector-training", gpuModel: "H100", gpuCount: gpus, cpuCores: "4", justification: JUSTIFICATION })) form.set(k, v);
    const state = await createQuotaRequestAction(initialFormState, form);
    expect(state).toMatchObject({ status: "error", fieldErrors: { gpuCount: ["Enter a whole number from 0 to 4096."] } });
    expect(await countOf(db, "quota_requests")).toBe(before);
  });

  it("answers 1.5e3 CPU cores per node in the node-pool form beside the field", async () => {
    vi.mocked(currentContext).mockResolvedValue(await contextOf(db, "platform-admin", new Date()));
    const form = new FormData();
    for (const [k, v] of Object.entries({ name: "form-pool", nodeCount: "2", cpuPerNode: "1.5e3", memoryPerNode: "256" })) form.set(k, v);
    const state = await createNodePoolAction(initialFormState, form);
    expect(state).toMatchObject({ status: "error", fieldErrors: { cpuPerNode: ["Enter a number of cores such as 64 or 7910m."] } });
  });
});
