import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { installDatabase, type Database } from "@/db/client";
import { apiTokens, memberships } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import { executeCommand } from "@/lib/auth/command";
import { apiTokenPrefix } from "@/lib/auth/api-token";
import { revokeToken } from "@/lib/tenancy/commands/service-accounts";
import { callApi, operatorAccount } from "@/test/api";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { recordStatements } from "@/test/sql-statements";
import { HOUR, tenantIdsBySlug } from "@/test/tenancy";

/**
 * The fixed cost of an authenticated REST read: authentication reads the
 * token, its service account and the account's bindings in one statement
 * (beside the client address's failure count) and writes last_used_at at
 * most once a minute; nothing about the caller is cached between requests,
 * so a revoked token or a removed role counts on the very next request.
 */

const DT_SPEND = "/api/v1/tenants/vision-lab/projects/detector-training/spend";
/** Statements authentication may cost a read: the address's failure count and the token with its actor. */
const AUTH_STATEMENTS = 2;
/** Statements a project spend read may cost in all (authentication, the scope, the report). */
const PROJECT_SPEND_STATEMENTS = 11;

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;
let tenantId: Record<string, string>;
let seededAt: Date;
const clockFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "allot-clock-")), "clock.json");
const setClockOffset = (offsetMs: number) => fs.writeFileSync(clockFile, JSON.stringify({ offsetMs }));

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  installDatabase(handle);
  seededAt = new Date(Date.now() - HOUR);
  await seedDemoData(db, seededAt);
  tenantId = await tenantIdsBySlug(db);
});
afterEach(() => {
  delete process.env.ALLOT_TEST_CLOCK_FILE;
});
afterAll(async () => {
  (globalThis as { allotDb?: unknown }).allotDb = undefined;
  await handle?.close();
});

const memberAccount = (name: string) => operatorAccount(db, seededAt, "vision-lab", name, [{ project: "detector-training", role: "member" }]);
const isWrite = (text: string) => /^\s*(insert|update|delete)\b/i.test(text);

async function lastUsedAt(token: string): Promise<Date | null> {
  const [row] = await db.select({ lastUsedAt: apiTokens.lastUsedAt }).from(apiTokens).where(eq(apiTokens.prefix, apiTokenPrefix(token)!));
  return row!.lastUsedAt;
}

describe(`the fixed cost of an API read (${databaseLabel()})`, () => {
  it("authenticates in one wave of at most two statements and writes nothing on a read within the minute", async () => {
    const { token } = await memberAccount("fixed-me-bot");
    expect((await callApi("GET", "/api/v1/me", { token })).status).toBe(200); // the first use writes last_used_at
    const { result, statements } = await recordStatements(() => callApi("GET", "/api/v1/me", { token }));
    expect(result.status).toBe(200);
    expect(statements.length).toBeLessThanOrEqual(AUTH_STATEMENTS);
    expect(new Set(statements.map((s) => s.wave)).size).toBe(1);
    expect(statements.filter((s) => isWrite(s.text))).toEqual([]);
  });

  it(`answers a project's spend in at most ${PROJECT_SPEND_STATEMENTS} statements, none a write`, async () => {
    const { token } = await memberAccount("fixed-spend-bot");
    expect((await callApi("GET", DT_SPEND, { token })).status).toBe(200);
    const { result, statements } = await recordStatements(() => callApi("GET", DT_SPEND, { token }));
    expect(result.status).toBe(200);
    expect(statements.length).toBeLessThanOrEqual(PROJECT_SPEND_STATEMENTS);
    expect(statements.filter((s) => isWrite(s.text))).toEqual([]);
  });

  it("refuses a revoked token on the very next request", async () => {
    const { token } = await memberAccount("fixed-revoked-bot");
    expect((await callApi("GET", DT_SPEND, { token })).status).toBe(200);
    expect((await callApi("GET", DT_SPEND, { token })).status).toBe(200);
    const alex = await contextOf(db, "vision-admin", new Date());
    await executeCommand(revokeToken, alex, { tenant: "vision-lab", serviceAccount: "fixed-revoked-bot", prefix: apiTokenPrefix(token)! });
    const refused = await callApi("GET", DT_SPEND, { token });
    expect(refused.status).toBe(401);
    expect(refused.text).toContain("revoked");
  });

  it("drops a removed role on the very next request", async () => {
    const { token, principalId } = await operatorAccount(db, seededAt, "vision-lab", "fixed-viewer-bot");
    await db.insert(memberships).values({ tenantId: tenantId["vision-lab"]!, principalId, role: "tenant_admin", createdAt: seededAt });
    expect((await callApi("GET", "/api/v1/tenants/vision-lab/spend", { token })).status).toBe(200);
    await db.delete(memberships).where(and(eq(memberships.principalId, principalId), eq(memberships.tenantId, tenantId["vision-lab"]!)));
    expect((await callApi("GET", "/api/v1/tenants/vision-lab/spend", { token })).status).toBe(404);
  });

  it("moves last_used_at at most once a minute, and still moves it (test clock)", async () => {
    const { token } = await memberAccount("fixed-clock-bot");
    process.env.ALLOT_TEST_CLOCK_FILE = clockFile;
    setClockOffset(0);
    expect((await callApi("GET", "/api/v1/me", { token })).status).toBe(200);
    const first = await lastUsedAt(token);
    expect(first).not.toBeNull();

    setClockOffset(59_000);
    expect((await callApi("GET", "/api/v1/me", { token })).status).toBe(200);
    expect(await lastUsedAt(token)).toEqual(first);

    setClockOffset(61_000);
    expect((await callApi("GET", "/api/v1/me", { token })).status).toBe(200);
    const second = await lastUsedAt(token);
    expect(second!.getTime() - first!.getTime()).toBeGreaterThanOrEqual(60_000);

    setClockOffset(90_000);
    expect((await callApi("GET", "/api/v1/me", { token })).status).toBe(200);
    expect(await lastUsedAt(token)).toEqual(second);

    setClockOffset(125_000);
    expect((await callApi("GET", "/api/v1/me", { token })).status).toBe(200);
    expect((await lastUsedAt(token))!.getTime()).toBeGreaterThan(second!.getTime());
  });
});
