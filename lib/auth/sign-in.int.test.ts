import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { authSessions, platformAdmins, principals, tenants, users } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import { verifyAuditChain } from "@/lib/audit/verify";
import { parseConfig } from "@/lib/config";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { appErrorOf, auditLog, countOf, personaEmail, principalIdOf } from "@/test/fixtures";
import { loadActor, loadActorForSession } from "./load-actor";
import { grantPlatformAdmin } from "./platform-admins";
import { can } from "./policy";
import { endSession, provisionOidcUser, startSession, type OidcIdentity } from "./sign-in";

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const HOUR = 3_600_000;
const later = (ms: number) => new Date(NOW.getTime() + ms);
const ISSUER = "https://idp.example.test";

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  await seedDemoData(db, SEEDED_AT);
});
afterAll(async () => {
  await handle?.close();
});

const identity = (subject: string, email: string, extra: Partial<OidcIdentity> = {}): OidcIdentity => ({
  issuer: ISSUER,
  subject,
  email,
  name: null,
  inAdminGroup: null,
  groups: [],
  ...extra,
});

async function auditSince(count: number) {
  return (await auditLog(db)).slice(count);
}

async function adminRow(principalId: string) {
  const [row] = await db.select().from(platformAdmins).where(eq(platformAdmins.principalId, principalId));
  return row ?? null;
}

describe(`provisionOidcUser (${databaseLabel()})`, () => {
  it("creates a principal and user for a new identity, audited", async () => {
    const eventsBefore = await countOf(db, "audit_events");
    const principalId = await provisionOidcUser(db, identity("sub-new", "  New.Person@Example.COM ", { name: "New Person" }), NOW);

    const [row] = await db.select().from(users).innerJoin(principals, eq(principals.id, users.principalId)).where(eq(users.principalId, principalId));
    expect(row?.users).toEqual({ principalId, email: "new.person@example.com", oidcIssuer: ISSUER, oidcSubject: "sub-new" });
    expect(row?.principals).toMatchObject({ kind: "user", displayName: "New Person", disabledAt: null });
    expect(await auditSince(eventsBefore)).toEqual([
      expect.objectContaining({
        action: "user.created",
        at: NOW,
        actorPrincipalId: null,
        actorLabel: "system:sign-in",
        targetType: "principal",
        targetId: principalId,
        after: { email: "new.person@example.com", displayName: "New Person", issuer: ISSUER },
      }),
    ]);
  });

  it("returns the same principal for the same (issuer, subject), creating nothing", async () => {
    const first = await principalIdOf(db, "new.person@example.com");
    const usersBefore = await countOf(db, "users");
    const eventsBefore = await countOf(db, "audit_events");

    // The provider may report a changed email or name: the subject is what identifies.
    expect(await provisionOidcUser(db, identity("sub-new", "renamed@example.com", { name: "Renamed" }), later(HOUR))).toBe(first);

    expect(await countOf(db, "users")).toBe(usersBefore);
    expect(await countOf(db, "audit_events")).toBe(eventsBefore);
  });

  it("links an existing email-only user (made by the CLI) on first sign-in", async () => {
    const granted = await grantPlatformAdmin(db, "ops@example.com", { principalId: null, label: "system:cli" }, NOW);
    expect(granted).toMatchObject({ created: true, alreadyAdmin: false });
    const eventsBefore = await countOf(db, "audit_events");

    const principalId = await provisionOidcUser(db, identity("sub-ops", "OPS@example.com"), later(HOUR));

    expect(principalId).toBe(granted.principalId);
    const [user] = await db.select().from(users).where(eq(users.principalId, principalId));
    expect(user).toMatchObject({ email: "ops@example.com", oidcIssuer: ISSUER, oidcSubject: "sub-ops" });
    expect(await auditSince(eventsBefore)).toEqual([
      expect.objectContaining({ action: "user.identity_linked", targetId: principalId, after: { email: "ops@example.com", issuer: ISSUER, subject: "sub-ops" } }),
    ]);
  });

  it("refuses an email already linked to a different subject, writing nothing", async () => {
    const usersBefore = await countOf(db, "users");
    const eventsBefore = await countOf(db, "audit_events");

    const error = await appErrorOf(provisionOidcUser(db, identity("sub-impostor", "ops@example.com"), later(HOUR)));

    expect(error.code).toBe("conflict");
    expect(await countOf(db, "users")).toBe(usersBefore);
    expect(await countOf(db, "audit_events")).toBe(eventsBefore);
    const [user] = await db.select().from(users).where(eq(users.email, "ops@example.com"));
    expect(user?.oidcSubject).toBe("sub-ops");
  });

  it("grants platform admin from the admin group and revokes it when the group is gone", async () => {
    const eventsBefore = await countOf(db, "audit_events");
    const principalId = await provisionOidcUser(db, identity("sub-sre", "sre@example.com", { inAdminGroup: true }), NOW);

    expect(await adminRow(principalId)).toMatchObject({ source: "oidc_group", grantedAt: NOW });
    expect((await auditSince(eventsBefore)).map((e) => e.action)).toEqual(["user.created", "platform_admin.granted"]);
    expect((await loadActor(db, principalId, []))?.isPlatformAdmin).toBe(true);

    // Still in the group, or no groups claim configured: nothing changes, nothing is audited.
    const steady = await countOf(db, "audit_events");
    await provisionOidcUser(db, identity("sub-sre", "sre@example.com", { inAdminGroup: true }), later(HOUR));
    await provisionOidcUser(db, identity("sub-sre", "sre@example.com", { inAdminGroup: null }), later(2 * HOUR));
    expect(await countOf(db, "audit_events")).toBe(steady);
    expect(await adminRow(principalId)).not.toBeNull();

    await provisionOidcUser(db, identity("sub-sre", "sre@example.com", { inAdminGroup: false }), later(3 * HOUR));
    expect(await adminRow(principalId)).toBeNull();
    expect(await auditSince(steady)).toEqual([
      expect.objectContaining({ action: "platform_admin.revoked", targetId: principalId, before: { source: "oidc_group" }, at: later(3 * HOUR) }),
    ]);
    expect((await loadActor(db, principalId, []))?.isPlatformAdmin).toBe(false);
  });

  it("never lets the group sync remove a CLI or seed grant", async () => {
    const ops = await principalIdOf(db, "ops@example.com");
    await provisionOidcUser(db, identity("sub-ops", "ops@example.com", { inAdminGroup: false }), later(HOUR));
    expect(await adminRow(ops)).toMatchObject({ source: "cli" });

    // Priya's role came with the demo seed; her first OIDC sign-in links her and keeps it.
    const priya = await principalIdOf(db, personaEmail("platform-admin"));
    expect(await provisionOidcUser(db, identity("sub-priya", personaEmail("platform-admin"), { inAdminGroup: false }), later(HOUR))).toBe(priya);
    expect(await adminRow(priya)).toMatchObject({ source: "seed" });
  });

  it("leaves the audit chain intact after all of that", async () => {
    expect(await verifyAuditChain(db)).toMatchObject({ intact: true });
  });
});

describe(`sessions (${databaseLabel()})`, () => {
  it("loads the actor for an open session and none once it has ended", async () => {
    const dana = await principalIdOf(db, personaEmail("data-scientist"));
    const eventsBefore = await countOf(db, "audit_events");
    const sessionId = await startSession(db, dana, "demo", NOW, 12);

    const actor = await loadActorForSession(db, sessionId, later(HOUR), []);
    expect(actor).toMatchObject({ principalId: dana, email: personaEmail("data-scientist"), isPlatformAdmin: false });

    const started = await auditSince(eventsBefore);
    expect(started).toEqual([expect.objectContaining({ action: "session.started", actorPrincipalId: dana, targetId: sessionId.slice(0, 8) })]);
    // The session id is a bearer secret: the log keeps only its prefix.
    expect(JSON.stringify(started)).not.toContain(sessionId);

    await endSession(db, sessionId, later(2 * HOUR));
    expect(await loadActorForSession(db, sessionId, later(2 * HOUR), [])).toBeNull();
    const [row] = await db.select().from(authSessions).where(eq(authSessions.id, sessionId));
    expect(row?.endedAt).toEqual(later(2 * HOUR));

    // Ending it again changes nothing.
    const afterEnd = await countOf(db, "audit_events");
    await endSession(db, sessionId, later(3 * HOUR));
    expect(await countOf(db, "audit_events")).toBe(afterEnd);
    expect((await auditSince(eventsBefore)).map((e) => e.action)).toEqual(["session.started", "session.ended"]);
  });

  it("stops at the expiry instant, without sleeping: `now` decides", async () => {
    const alex = await principalIdOf(db, personaEmail("vision-admin"));
    const sessionId = await startSession(db, alex, "demo", NOW, 12);
    expect(await loadActorForSession(db, sessionId, later(12 * HOUR - 1), [])).not.toBeNull();
    expect(await loadActorForSession(db, sessionId, later(12 * HOUR), [])).toBeNull();
    expect(await loadActorForSession(db, sessionId, later(48 * HOUR), [])).toBeNull();
  });

  it("knows no actor for an unknown session id", async () => {
    expect(await loadActorForSession(db, "no-such-session", NOW, [])).toBeNull();
  });

  it("drops a disabled principal's open session and refuses to start a new one", async () => {
    const vic = await principalIdOf(db, personaEmail("viewer"));
    const sessionId = await startSession(db, vic, "demo", NOW, 12);
    expect(await loadActorForSession(db, sessionId, later(HOUR), [])).not.toBeNull();

    await db.update(principals).set({ disabledAt: later(HOUR) }).where(eq(principals.id, vic));

    expect(await loadActorForSession(db, sessionId, later(2 * HOUR), [])).toBeNull();
    expect(await loadActor(db, vic, [personaEmail("viewer")])).toBeNull();
    const sessionsBefore = await countOf(db, "auth_sessions");
    const eventsBefore = await countOf(db, "audit_events");
    expect((await appErrorOf(startSession(db, vic, "demo", later(2 * HOUR), 12))).code).toBe("forbidden");
    expect(await countOf(db, "auth_sessions")).toBe(sessionsBefore);
    expect(await countOf(db, "audit_events")).toBe(eventsBefore);
  });

  it("refuses to start a session for a principal that does not exist", async () => {
    expect((await appErrorOf(startSession(db, "00000000-0000-4000-8000-000000000000", "demo", NOW, 12))).code).toBe("forbidden");
  });
});

describe(`loadActor (${databaseLabel()})`, () => {
  it("makes a user platform admin by the ALLOT_PLATFORM_ADMINS list, applied on every load", async () => {
    const alex = await principalIdOf(db, personaEmail("vision-admin"));
    const { platformAdminEmails } = parseConfig({ ALLOT_PLATFORM_ADMINS: " Alex@Vision.Allot.Demo , someone@else.example" });

    expect((await loadActor(db, alex, platformAdminEmails))?.isPlatformAdmin).toBe(true);
    expect((await loadActor(db, alex, []))?.isPlatformAdmin).toBe(false);
    expect(await adminRow(alex)).toBeNull();
    // A stored grant needs no list.
    expect((await loadActor(db, await principalIdOf(db, personaEmail("platform-admin")), []))?.isPlatformAdmin).toBe(true);
  });

  it("loads every binding with its tenant's status, so a disabled tenant's roles stop counting", async () => {
    const bo = await principalIdOf(db, personaEmail("language-admin"));
    const cleo = await principalIdOf(db, personaEmail("collaborator"));
    const [lm] = await db.select().from(tenants).where(eq(tenants.slug, "language-models"));

    const before = await loadActor(db, bo, []);
    expect(before?.memberships).toEqual([{ tenantId: lm!.id, tenantStatus: "active", role: "tenant_admin", via: null }]);
    expect(can(before!, "tenant.view", { kind: "tenant", tenantId: lm!.id }, NOW)).toBe(true);

    await db.update(tenants).set({ status: "disabled" }).where(eq(tenants.id, lm!.id));
    try {
      const after = await loadActor(db, bo, []);
      expect(after?.memberships).toEqual([{ tenantId: lm!.id, tenantStatus: "disabled", role: "tenant_admin", via: null }]);
      expect(can(after!, "tenant.view", { kind: "tenant", tenantId: lm!.id }, NOW)).toBe(false);

      const collaborator = await loadActor(db, cleo, []);
      expect(collaborator?.memberships).toEqual([]);
      expect(collaborator?.projectGrants).toEqual([expect.objectContaining({ tenantId: lm!.id, tenantStatus: "disabled", role: "member" })]);
    } finally {
      await db.update(tenants).set({ status: "active" }).where(eq(tenants.id, lm!.id));
    }
  });
});
