import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { apiTokens, principals, projectGrants, serviceAccounts } from "@/db/schema";
import { hashApiToken } from "@/lib/auth/api-token";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { authenticateToken } from "@/lib/auth/token-auth";
import { databaseLabel } from "@/test/database";
import { appErrorOf, auditLog, contextOf, countOf, type PersonaKey } from "@/test/fixtures";
import {
  DAY,
  fingerprint,
  HOUR,
  projectIdOf,
  seededDatabase,
  unique,
} from "@/test/tenancy";
import { mintTokenAsOperator } from "../operator";
import { tenantServiceAccounts } from "../service-account-queries";
import { grantProjectRole } from "./project-access";
import {
  createServiceAccount,
  deleteServiceAccount,
  mintToken,
  revokeToken,
  rotateToken,
  setServiceAccountDisabled,
  updateServiceAccount,
} from "./service-accounts";

/** Service accounts and their bearer tokens, from minting to rotation, with the instant `now` controlled. */

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const later = (ms: number) => new Date(NOW.getTime() + ms);

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let tenantId: Record<string, string>;

beforeAll(() => {
  ({ db, tenantId } = seeded);
});

const as = (key: PersonaKey, now: Date = NOW): Promise<CommandContext> => contextOf(db, key, now);

async function auditSince(count: number) {
  return (await auditLog(db)).slice(count);
}

/** How a token fares at `now`: "ok" or the refusal reason. */
async function tokenState(token: string, now: Date) {
  const result = await authenticateToken(db, token, now, []);
  return result.ok ? "ok" : result.reason;
}

/** A vision-lab service account with a member role on detector-training, made by Alex. */
async function visionAccount(stem = "bot") {
  const alex = await as("vision-admin");
  const name = unique(stem);
  const account = await executeCommand(createServiceAccount, alex, { tenant: "vision-lab", name, description: "" });
  await executeCommand(grantProjectRole, alex, { tenant: "vision-lab", project: "detector-training", principalId: account.principalId, role: "member" });
  return { ...account, alex };
}

async function tokenRow(prefix: string) {
  const [row] = await db.select().from(apiTokens).where(eq(apiTokens.prefix, prefix));
  return row ?? null;
}

describe(`service accounts (${databaseLabel()})`, () => {
  it("creates one owned by the tenant, audited; a taken name in the same tenant conflicts on name", async () => {
    const alex = await as("vision-admin");
    const events = await countOf(db, "audit_events");

    const account = await executeCommand(createServiceAccount, alex, { tenant: "vision-lab", name: "ci-runner", description: "  Builds images  " });

    expect(account).toMatchObject({ tenantId: tenantId["vision-lab"], name: "ci-runner", description: "Builds images", createdBy: alex.actor.principalId });
    const [principal] = await db.select().from(principals).where(eq(principals.id, account.principalId));
    expect(principal).toMatchObject({ kind: "service_account", displayName: "ci-runner", disabledAt: null, createdAt: NOW });
    expect(await auditSince(events)).toEqual([
      expect.objectContaining({
        action: "service_account.created",
        tenantId: tenantId["vision-lab"],
        targetId: account.principalId,
        after: { name: "ci-runner", description: "Builds images", scope: "tenant" },
      }),
    ]);

    const before = await fingerprint(db);
    const taken = await appErrorOf(executeCommand(createServiceAccount, alex, { tenant: "vision-lab", name: "ci-runner", description: "" }));
    expect(taken.code).toBe("conflict");
    expect(taken.fields).toEqual({ name: ["Choose another name: this one is taken."] });
    expect(await fingerprint(db)).toEqual(before);

    // Names are per tenant.
    const other = await executeCommand(createServiceAccount, await as("language-admin"), { tenant: "language-models", name: "ci-runner", description: "" });
    expect(other.tenantId).toBe(tenantId["language-models"]);

    const invalid = await appErrorOf(executeCommand(createServiceAccount, alex, { tenant: "vision-lab", name: "CI Runner", description: "" }));
    expect(invalid.code).toBe("validation");
    expect(Object.keys(invalid.fields ?? {})).toEqual(["name"]);
  });

  it("updates the description, audited with before and after", async () => {
    const { name, principalId, alex } = await visionAccount();
    const events = await countOf(db, "audit_events");
    const updated = await executeCommand(updateServiceAccount, alex, { tenant: "vision-lab", serviceAccount: name, description: "Nightly evaluation" });
    expect(updated).toMatchObject({ principalId, description: "Nightly evaluation" });
    expect(await auditSince(events)).toEqual([
      expect.objectContaining({ action: "service_account.updated", targetId: principalId, before: { description: "" }, after: { description: "Nightly evaluation" } }),
    ]);
    // Another tenant's account is not found under this tenant's slug.
    const error = await appErrorOf(executeCommand(updateServiceAccount, await as("language-admin"), { tenant: "language-models", serviceAccount: name, description: "x" }));
    expect(error.code).toBe("not_found");
  });

  it("refuses every token of a disabled account with reason disabled; enabling restores them", async () => {
    const { name, principalId, alex } = await visionAccount();
    const { token } = await executeCommand(mintToken, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: 30 });
    expect(await tokenState(token, NOW)).toBe("ok");
    const events = await countOf(db, "audit_events");

    expect(await executeCommand(setServiceAccountDisabled, alex, { tenant: "vision-lab", serviceAccount: name, disabled: "on" })).toEqual({ name, disabled: true });
    expect(await tokenState(token, later(HOUR))).toBe("disabled");
    expect(await executeCommand(setServiceAccountDisabled, alex, { tenant: "vision-lab", serviceAccount: name, disabled: false })).toEqual({ name, disabled: false });
    expect(await tokenState(token, later(2 * HOUR))).toBe("ok");
    expect((await auditSince(events)).map((e) => [e.action, e.targetId])).toEqual([
      ["service_account.disabled", principalId],
      ["service_account.enabled", principalId],
    ]);
  });

  it("deletes the account with its tokens and project roles: the token becomes unknown, the history stays", async () => {
    const { name, principalId, alex } = await visionAccount();
    const { token } = await executeCommand(mintToken, alex, { tenant: "vision-lab", serviceAccount: name, noExpiry: true });
    const events = await countOf(db, "audit_events");

    expect(await executeCommand(deleteServiceAccount, alex, { tenant: "vision-lab", serviceAccount: name })).toEqual({ deleted: true });

    expect(await tokenState(token, later(HOUR))).toBe("unknown");
    expect(await db.select().from(serviceAccounts).where(eq(serviceAccounts.principalId, principalId))).toEqual([]);
    expect(await db.select().from(apiTokens).where(eq(apiTokens.serviceAccountId, principalId))).toEqual([]);
    expect(await db.select().from(projectGrants).where(eq(projectGrants.principalId, principalId))).toEqual([]);
    expect((await auditSince(events)).map((e) => [e.action, e.targetId, e.before])).toEqual([["service_account.deleted", principalId, { name, description: "" }]]);
    expect((await auditLog(db)).filter((e) => e.targetId === principalId).map((e) => e.action)).toContain("service_account.created");
  });
});

describe(`API tokens (${databaseLabel()})`, () => {
  it("needs either a number of days or an explicit noExpiry, never both", async () => {
    const { name, alex } = await visionAccount();
    const base = { tenant: "vision-lab", serviceAccount: name };
    const before = await fingerprint(db);
    const cases: [Record<string, unknown>, string][] = [
      [{}, "expiresInDays"],
      [{ expiresInDays: "" }, "expiresInDays"],
      [{ noExpiry: false }, "expiresInDays"],
      [{ expiresInDays: 30, noExpiry: true }, "noExpiry"],
      [{ expiresInDays: 0 }, "expiresInDays"],
      [{ expiresInDays: 366 }, "expiresInDays"],
      [{ expiresInDays: 1.5 }, "expiresInDays"],
    ];
    for (const [input, field] of cases) {
      const error = await appErrorOf(executeCommand(mintToken, alex, { ...base, ...input }));
      expect(error.code, JSON.stringify(input)).toBe("validation");
      expect(Object.keys(error.fields ?? {}), JSON.stringify(input)).toEqual([field]);
    }
    expect(await fingerprint(db)).toEqual(before);

    expect((await executeCommand(mintToken, alex, { ...base, noExpiry: "on" })).expiresAt).toBeNull();
    expect((await executeCommand(mintToken, alex, { ...base, expiresInDays: "30" })).expiresAt).toEqual(later(30 * DAY));
  });

  it("stores only the token's SHA-256: nothing in the row or the audit log holds the token", async () => {
    const { name, principalId, alex } = await visionAccount();
    const events = await countOf(db, "audit_events");
    const minted = await executeCommand(mintToken, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: 7 });

    expect(minted.token).toMatch(/^allot_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    expect(minted.token.startsWith(`allot_${minted.prefix}_`)).toBe(true);
    const row = await tokenRow(minted.prefix);
    expect(row).toMatchObject({ serviceAccountId: principalId, hash: hashApiToken(minted.token), createdBy: alex.actor.principalId, createdAt: NOW, expiresAt: later(7 * DAY), lastUsedAt: null, revokedAt: null });
    const secret = minted.token.slice(`allot_${minted.prefix}_`.length);
    for (const text of [JSON.stringify(row), JSON.stringify(await auditSince(events))]) {
      expect(text).not.toContain(minted.token);
      expect(text).not.toContain(secret);
    }
    expect((await auditSince(events)).map((e) => [e.action, e.targetId])).toEqual([["api_token.created", minted.prefix]]);
    // The listing shows prefixes and dates only.
    const listed = (await tenantServiceAccounts(alex, "vision-lab")).accounts.find((a) => a.name === name)!;
    expect(listed.tokens).toEqual([{ prefix: minted.prefix, createdAt: NOW, expiresAt: later(7 * DAY), lastUsedAt: null, revokedAt: null, state: "active" }]);
  });

  it("authenticates to the account's actor with its project grants, and nothing for a wrong secret", async () => {
    const { name, principalId, alex } = await visionAccount();
    const { token, prefix } = await executeCommand(mintToken, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: 30 });

    const auth = await authenticateToken(db, token, NOW, []);
    expect(auth).toMatchObject({ ok: true, prefix });
    if (!auth.ok) return;
    const detector = await projectIdOf(db, "vision-lab", "detector-training");
    expect(auth.actor).toEqual({
      principalId,
      kind: "service_account",
      displayName: name,
      email: null,
      isPlatformAdmin: false,
      memberships: [],
      projectGrants: [{ projectId: detector, tenantId: tenantId["vision-lab"], tenantStatus: "active", role: "member", expiresAt: null, via: null }],
    });
    expect(can(auth.actor, "project.view", { kind: "project", tenantId: tenantId["vision-lab"]!, projectId: detector }, NOW)).toBe(true);
    expect(can(auth.actor, "tenant.view", { kind: "tenant", tenantId: tenantId["vision-lab"]! }, NOW)).toBe(false);

    const wrongSecret = `allot_${prefix}_${"A".repeat(43)}`;
    expect(await authenticateToken(db, wrongSecret, NOW, [])).toEqual({ ok: false, reason: "unknown", prefix });
    expect(await authenticateToken(db, "allot_short_secret", NOW, [])).toEqual({ ok: false, reason: "malformed", prefix: null });
  });

  it("refuses a revoked token; revoking twice is not_found", async () => {
    const { name, alex } = await visionAccount();
    const { token, prefix } = await executeCommand(mintToken, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: 30 });
    const events = await countOf(db, "audit_events");
    expect(await executeCommand(revokeToken, alex, { tenant: "vision-lab", serviceAccount: name, prefix })).toEqual({ revoked: true });
    expect(await tokenState(token, NOW)).toBe("revoked");
    expect((await tokenRow(prefix))?.revokedAt).toEqual(NOW);
    expect((await auditSince(events)).map((e) => [e.action, e.targetId])).toEqual([["api_token.revoked", prefix]]);
    expect((await appErrorOf(executeCommand(revokeToken, alex, { tenant: "vision-lab", serviceAccount: name, prefix }))).code).toBe("not_found");
  });

  it("refuses a token from its expiry instant on", async () => {
    const { name, alex } = await visionAccount();
    const { token, expiresAt } = await executeCommand(mintToken, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: 1 });
    expect(expiresAt).toEqual(later(DAY));
    expect(await tokenState(token, new Date(later(DAY).getTime() - 1))).toBe("ok");
    expect(await tokenState(token, later(DAY))).toBe("expired");
    expect(await tokenState(token, later(400 * DAY))).toBe("expired");
  });

  it("rotates with a grace period: the new token works, the old one until now + graceHours only", async () => {
    const { name, alex } = await visionAccount();
    const old = await executeCommand(mintToken, alex, { tenant: "vision-lab", serviceAccount: name, noExpiry: true });
    const events = await countOf(db, "audit_events");

    const rotated = await executeCommand(rotateToken, alex, { tenant: "vision-lab", serviceAccount: name, prefix: old.prefix, graceHours: 2, expiresInDays: 90 });

    expect(rotated).toMatchObject({ expiresAt: later(90 * DAY), previous: { prefix: old.prefix, validUntil: later(2 * HOUR) } });
    expect(rotated.prefix).not.toBe(old.prefix);
    expect(await tokenState(rotated.token, NOW)).toBe("ok");
    expect(await tokenState(old.token, new Date(later(2 * HOUR).getTime() - 1))).toBe("ok");
    expect(await tokenState(old.token, later(2 * HOUR))).toBe("expired");
    expect(await tokenState(rotated.token, later(2 * HOUR))).toBe("ok");
    expect((await auditSince(events)).map((e) => [e.action, e.targetId, e.after])).toEqual([
      ["api_token.rotated", old.prefix, { expiresAt: later(2 * HOUR).toISOString() }],
      ["api_token.created", rotated.prefix, expect.objectContaining({ expiresAt: later(90 * DAY).toISOString() })],
    ]);
  });

  it("rotates with graceHours 0 by revoking the old token at once", async () => {
    const { name, alex } = await visionAccount();
    const old = await executeCommand(mintToken, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: 30 });
    const rotated = await executeCommand(rotateToken, alex, { tenant: "vision-lab", serviceAccount: name, prefix: old.prefix, graceHours: 0, expiresInDays: 30 });
    expect(rotated.previous).toEqual({ prefix: old.prefix, validUntil: NOW });
    expect(await tokenState(old.token, NOW)).toBe("revoked");
    expect(await tokenState(rotated.token, NOW)).toBe("ok");
    // A revoked token cannot be rotated again.
    expect((await appErrorOf(executeCommand(rotateToken, alex, { tenant: "vision-lab", serviceAccount: name, prefix: old.prefix, graceHours: 0, noExpiry: true }))).code).toBe(
      "not_found",
    );
  });

  it("never lengthens the old token's life when rotating: the grace ends at its own expiry if sooner", async () => {
    const { name, alex } = await visionAccount();
    const old = await mintTokenAsOperator(db, "vision-lab", name, later(HOUR), NOW);
    const rotated = await executeCommand(rotateToken, alex, { tenant: "vision-lab", serviceAccount: name, prefix: old.prefix, graceHours: 24, noExpiry: true });
    expect(rotated.previous).toEqual({ prefix: old.prefix, validUntil: later(HOUR) });
    expect(await tokenState(old.token, later(HOUR))).toBe("expired");
  });

  it("records last use, refreshed at most once a minute", async () => {
    const { name, alex } = await visionAccount();
    const { token, prefix } = await executeCommand(mintToken, alex, { tenant: "vision-lab", serviceAccount: name, expiresInDays: 30 });
    expect((await tokenRow(prefix))?.lastUsedAt).toBeNull();

    await tokenState(token, NOW);
    expect((await tokenRow(prefix))?.lastUsedAt).toEqual(NOW);
    await tokenState(token, later(30_000));
    expect((await tokenRow(prefix))?.lastUsedAt).toEqual(NOW);
    await tokenState(token, later(61_000));
    expect((await tokenRow(prefix))?.lastUsedAt).toEqual(later(61_000));
    // A refused attempt is not a use.
    await executeCommand(revokeToken, alex, { tenant: "vision-lab", serviceAccount: name, prefix });
    await tokenState(token, later(DAY));
    expect((await tokenRow(prefix))?.lastUsedAt).toEqual(later(61_000));
  });
});
