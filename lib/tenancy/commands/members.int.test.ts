import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { invitations, memberships, projectGrants, serviceAccounts, tenants } from "@/db/schema";
import { verifyAuditChain } from "@/lib/audit/verify";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { authenticateToken } from "@/lib/auth/token-auth";
import { config } from "@/lib/config";
import { databaseLabel } from "@/test/database";
import { appErrorOf, auditLog, contextOf, countOf, errorText, personaEmail, principalIdOf, rejectionOf, type PersonaKey } from "@/test/fixtures";
import {
  addGrant,
  contextFor,
  DAY,
  fingerprint,
  HOUR,
  newMember,
  projectIdOf,
  racingBehindLock,
  type SeededDatabase,
  seededDatabase,
  unique,
  uniqueEmail,
  userWithEmail,
} from "@/test/tenancy";
import { hashInvitationToken } from "../invitation-token";
import { visibleProjects } from "../member-queries";
import { projectDetail, tenantDetail } from "../queries";
import { acceptInvitation } from "./accept-invitation";
import { createProject } from "./create-project";
import { createTenant } from "./create-tenant";
import { changeMemberRole, inviteMember, removeMember, revokeInvitation } from "./members";
import { grantProjectRole } from "./project-access";
import { createServiceAccount, mintToken } from "./service-accounts";
import { setTenantStatus } from "./set-tenant-status";

/**
 * Invitations, member roles, removal and tenant onboarding/disabling, through
 * executeCommand with actors loaded from the seeded demo data.
 */

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const later = (ms: number) => new Date(NOW.getTime() + ms);

const seeded = seededDatabase(SEEDED_AT);
let handle: SeededDatabase["handle"];
let db: Database;
let tenantId: Record<string, string>;

beforeAll(() => {
  ({ handle, db, tenantId } = seeded);
});

const as = (key: PersonaKey, now: Date = NOW): Promise<CommandContext> => contextOf(db, key, now);
const asPrincipal = (principalId: string, now: Date = NOW) => contextFor(db, principalId, now);

async function auditSince(count: number) {
  return (await auditLog(db)).slice(count);
}

async function membershipOf(tenant: string, principalId: string) {
  const [row] = await db
    .select()
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId[tenant]!), eq(memberships.principalId, principalId)));
  return row ?? null;
}

/** A tenant of its own, made by Priya with these first admins, so tests do not disturb the demo tenants. */
async function tenantWithAdmins(...admins: string[]) {
  const slug = unique("team");
  const tenant = await executeCommand(createTenant, await as("platform-admin"), { name: `Team ${slug}`, slug, firstAdmins: admins });
  tenantId[slug] = tenant.id;
  const ids = await Promise.all(admins.map((email) => principalIdOf(db, email)));
  return { slug, id: tenant.id, admins: ids };
}

describe(`inviteMember and acceptInvitation (${databaseLabel()})`, () => {
  it("stores an invitation with only the hash of its token, audited as invitation.created", async () => {
    const alex = await as("vision-admin");
    const events = await countOf(db, "audit_events");

    const result = await executeCommand(inviteMember, alex, { tenant: "vision-lab", email: "  New.Hire@Example.COM ", role: "viewer" });

    const expiresAt = later(config().invitationDays * DAY);
    expect(result).toMatchObject({ email: "new.hire@example.com", role: "viewer", expiresAt, mailed: false, path: `/invite/${result.token}` });
    expect(result.token.length).toBeGreaterThanOrEqual(40);
    const [row] = await db.select().from(invitations).where(eq(invitations.id, result.invitationId));
    expect(row).toEqual({
      id: result.invitationId,
      tenantId: tenantId["vision-lab"],
      projectId: null,
      email: "new.hire@example.com",
      tenantRole: "viewer",
      projectRole: null,
      grantExpiresAt: null,
      tokenHash: hashInvitationToken(result.token),
      expiresAt,
      invitedBy: alex.actor.principalId,
      createdAt: NOW,
      acceptedAt: null,
      acceptedBy: null,
      revokedAt: null,
    });
    expect(JSON.stringify(row)).not.toContain(result.token);

    const written = await auditSince(events);
    expect(written).toEqual([
      expect.objectContaining({
        action: "invitation.created",
        at: NOW,
        tenantId: tenantId["vision-lab"],
        actorPrincipalId: alex.actor.principalId,
        targetType: "invitation",
        targetId: result.invitationId,
        after: { email: "new.hire@example.com", role: "viewer", expiresAt: expiresAt.toISOString() },
      }),
    ]);
    expect(JSON.stringify(written)).not.toContain(result.token);
  });

  it("makes the person whose email it names a member with that role, once", async () => {
    const email = uniqueEmail("joiner");
    const invite = await executeCommand(inviteMember, await as("vision-admin"), { tenant: "vision-lab", email, role: "member" });
    const joiner = await userWithEmail(db, email, NOW);
    const acceptedAt = later(HOUR);
    const events = await countOf(db, "audit_events");

    const outcome = await executeCommand(acceptInvitation, await asPrincipal(joiner, acceptedAt), { token: invite.token });

    expect(outcome).toEqual({ tenantSlug: "vision-lab", projectSlug: null });
    expect(await membershipOf("vision-lab", joiner)).toMatchObject({ role: "member", version: 1, createdAt: acceptedAt });
    const [row] = await db.select().from(invitations).where(eq(invitations.id, invite.invitationId));
    expect(row).toMatchObject({ acceptedAt, acceptedBy: joiner, revokedAt: null });
    expect(await auditSince(events)).toEqual([
      expect.objectContaining({
        action: "invitation.accepted",
        at: acceptedAt,
        tenantId: tenantId["vision-lab"],
        actorPrincipalId: joiner,
        targetId: invite.invitationId,
        after: { role: "member" },
      }),
    ]);
    const ctx = await asPrincipal(joiner, acceptedAt);
    expect(can(ctx.actor, "tenant.view", { kind: "tenant", tenantId: tenantId["vision-lab"]! }, acceptedAt)).toBe(true);

    // The link is single use: a second accept, even by the same person, is a conflict that writes nothing.
    const before = await fingerprint(db);
    const again = await appErrorOf(executeCommand(acceptInvitation, ctx, { token: invite.token }));
    expect(again.code).toBe("conflict");
    expect(await fingerprint(db)).toEqual(before);
  });

  it("lets only one of two simultaneous accepts of the same link succeed", async () => {
    const email = uniqueEmail("two-tabs");
    const invite = await executeCommand(inviteMember, await as("vision-admin"), { tenant: "vision-lab", email, role: "member" });
    const person = await asPrincipal(await userWithEmail(db, email, NOW));
    const events = await countOf(db, "audit_events");

    const results = await racingBehindLock(db, handle.kind, sql`select id from invitations where id = ${invite.invitationId} for update`, 2, () =>
      Promise.allSettled([executeCommand(acceptInvitation, person, { token: invite.token }), executeCommand(acceptInvitation, person, { token: invite.token })]),
    );

    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect((results.find((r) => r.status === "rejected") as PromiseRejectedResult).reason).toMatchObject({ name: "AppError", code: "conflict" });
    expect((await auditSince(events)).map((e) => e.action)).toEqual(["invitation.accepted"]);
  });

  it("refuses a forwarded link: someone signed in with another email is forbidden and nothing changes", async () => {
    const email = uniqueEmail("addressee");
    const invite = await executeCommand(inviteMember, await as("vision-admin"), { tenant: "vision-lab", email, role: "viewer" });
    const before = await fingerprint(db);

    for (const key of ["data-scientist", "platform-admin", "language-admin"] as const) {
      const error = await appErrorOf(executeCommand(acceptInvitation, await as(key), { token: invite.token }));
      expect(error.code, key).toBe("forbidden");
      // The holder of a forwarded link learns neither the addressee nor the invitation's state.
      expect(error.message, key).toContain("another email address");
      expect(error.message, key).not.toContain(email);
    }
    expect(await fingerprint(db)).toEqual(before);

    // The addressee can still use it: the refusals were about who asked, not the link.
    const addressee = await userWithEmail(db, email, NOW);
    await executeCommand(acceptInvitation, await asPrincipal(addressee), { token: invite.token });
    expect(await membershipOf("vision-lab", addressee)).toMatchObject({ role: "viewer" });
  });

  it("refuses an expired link with conflict, from the instant it expires", async () => {
    const email = uniqueEmail("late");
    const invite = await executeCommand(inviteMember, await as("vision-admin"), { tenant: "vision-lab", email, role: "member" });
    const late = await userWithEmail(db, email, NOW);
    const before = await fingerprint(db);

    for (const now of [invite.expiresAt, new Date(invite.expiresAt.getTime() + DAY)]) {
      const error = await appErrorOf(executeCommand(acceptInvitation, await asPrincipal(late, now), { token: invite.token }));
      expect(error.code, now.toISOString()).toBe("conflict");
      expect(error.message).toMatch(/expired/);
    }
    expect(await fingerprint(db)).toEqual(before);

    // One millisecond earlier it was still good.
    await executeCommand(acceptInvitation, await asPrincipal(late, new Date(invite.expiresAt.getTime() - 1)), { token: invite.token });
    expect(await membershipOf("vision-lab", late)).not.toBeNull();
  });

  it("refuses a withdrawn link with conflict; withdrawing is audited and works once", async () => {
    const email = uniqueEmail("withdrawn");
    const alex = await as("vision-admin");
    const invite = await executeCommand(inviteMember, alex, { tenant: "vision-lab", email, role: "member" });
    const events = await countOf(db, "audit_events");

    expect(await executeCommand(revokeInvitation, alex, { tenant: "vision-lab", invitationId: invite.invitationId })).toEqual({ revoked: true });
    expect(await auditSince(events)).toEqual([
      expect.objectContaining({ action: "invitation.revoked", targetId: invite.invitationId, before: { email }, actorPrincipalId: alex.actor.principalId }),
    ]);

    const invitee = await asPrincipal(await userWithEmail(db, email, NOW));
    const before = await fingerprint(db);
    const error = await appErrorOf(executeCommand(acceptInvitation, invitee, { token: invite.token }));
    expect(error.code).toBe("conflict");
    expect(error.message).toMatch(/withdrawn/);
    expect((await appErrorOf(executeCommand(revokeInvitation, alex, { tenant: "vision-lab", invitationId: invite.invitationId }))).code).toBe("not_found");
    expect(await fingerprint(db)).toEqual(before);
  });

  it("does not withdraw another tenant's invitation through one's own tenant", async () => {
    const invite = await executeCommand(inviteMember, await as("language-admin"), { tenant: "language-models", email: uniqueEmail("lm"), role: "viewer" });
    const before = await fingerprint(db);
    const error = await appErrorOf(executeCommand(revokeInvitation, await as("vision-admin"), { tenant: "vision-lab", invitationId: invite.invitationId }));
    expect(error.code).toBe("not_found");
    expect(await fingerprint(db)).toEqual(before);
  });

  it("refuses to invite someone who is already a member, whatever the case of the email", async () => {
    const before = await fingerprint(db);
    for (const email of [personaEmail("data-scientist"), personaEmail("data-scientist").toUpperCase(), personaEmail("vision-admin")]) {
      const error = await appErrorOf(executeCommand(inviteMember, await as("vision-admin"), { tenant: "vision-lab", email, role: "viewer" }));
      expect(error.code, email).toBe("conflict");
      expect(error.fields, email).toEqual({ email: ["Enter someone who is not yet a member: this person already is."] });
    }
    expect(await fingerprint(db)).toEqual(before);
  });

  it("rejects an unknown role or a malformed email as validation, naming the field", async () => {
    const alex = await as("vision-admin");
    const role = await appErrorOf(executeCommand(inviteMember, alex, { tenant: "vision-lab", email: uniqueEmail("x"), role: "platform_admin" }));
    expect(role.code).toBe("validation");
    expect(Object.keys(role.fields ?? {})).toEqual(["role"]);
    const email = await appErrorOf(executeCommand(inviteMember, alex, { tenant: "vision-lab", email: "not-an-email", role: "member" }));
    expect(Object.keys(email.fields ?? {})).toEqual(["email"]);
  });
});

describe(`changeMemberRole (${databaseLabel()})`, () => {
  it("changes the role when the quoted version is current: version bumps, audited with before and after", async () => {
    const member = await newMember(db, tenantId["vision-lab"]!, "member", NOW);
    const alex = await as("vision-admin");
    const events = await countOf(db, "audit_events");

    const updated = await executeCommand(changeMemberRole, alex, { tenant: "vision-lab", principalId: member, role: "viewer", version: 1 });

    expect(updated).toMatchObject({ principalId: member, role: "viewer", version: 2 });
    expect(await membershipOf("vision-lab", member)).toMatchObject({ role: "viewer", version: 2 });
    expect(await auditSince(events)).toEqual([
      expect.objectContaining({
        action: "membership.role_changed",
        tenantId: tenantId["vision-lab"],
        actorPrincipalId: alex.actor.principalId,
        targetType: "principal",
        targetId: member,
        before: { role: "member" },
        after: { role: "viewer" },
      }),
    ]);
  });

  it("refuses a stale version with conflict and changes nothing", async () => {
    const member = await newMember(db, tenantId["vision-lab"]!, "member", NOW);
    const alex = await as("vision-admin");
    await executeCommand(changeMemberRole, alex, { tenant: "vision-lab", principalId: member, role: "viewer", version: 1 });
    const before = await fingerprint(db);

    const error = await appErrorOf(executeCommand(changeMemberRole, alex, { tenant: "vision-lab", principalId: member, role: "tenant_admin", version: 1 }));

    expect(error.code).toBe("conflict");
    expect(await fingerprint(db)).toEqual(before);
    expect(await membershipOf("vision-lab", member)).toMatchObject({ role: "viewer", version: 2 });
  });

  it("answers someone who is not a member of the tenant with not_found", async () => {
    const bo = await principalIdOf(db, personaEmail("language-admin"));
    const error = await appErrorOf(executeCommand(changeMemberRole, await as("vision-admin"), { tenant: "vision-lab", principalId: bo, role: "viewer", version: 1 }));
    expect(error.code).toBe("not_found");
    expect(await membershipOf("language-models", bo)).toMatchObject({ role: "tenant_admin", version: 1 });
  });

  it("keeps the last tenant admin: demoting or removing them conflicts until another admin exists", async () => {
    const soloEmail = uniqueEmail("solo");
    const team = await tenantWithAdmins(soloEmail);
    const [solo] = team.admins as [string];
    const before = await fingerprint(db);

    for (const who of [await asPrincipal(solo), await as("platform-admin")]) {
      const demote = await appErrorOf(executeCommand(changeMemberRole, who, { tenant: team.slug, principalId: solo, role: "member", version: 1 }));
      expect(demote.code).toBe("conflict");
      expect(demote.message).toMatch(/at least one tenant admin/);
      const remove = await appErrorOf(executeCommand(removeMember, who, { tenant: team.slug, principalId: solo }));
      expect(remove.code).toBe("conflict");
    }
    expect(await fingerprint(db)).toEqual(before);

    // A second admin joins through an invitation; then the first may step down, and the second is the last one.
    const secondEmail = uniqueEmail("second");
    const invite = await executeCommand(inviteMember, await asPrincipal(solo), { tenant: team.slug, email: secondEmail, role: "tenant_admin" });
    const second = await userWithEmail(db, secondEmail, NOW);
    await executeCommand(acceptInvitation, await asPrincipal(second), { token: invite.token });

    const demoted = await executeCommand(changeMemberRole, await asPrincipal(second), { tenant: team.slug, principalId: solo, role: "member", version: 1 });
    expect(demoted).toMatchObject({ role: "member", version: 2 });
    expect((await appErrorOf(executeCommand(removeMember, await as("platform-admin"), { tenant: team.slug, principalId: second }))).code).toBe("conflict");
    expect((await appErrorOf(executeCommand(changeMemberRole, await asPrincipal(second), { tenant: team.slug, principalId: second, role: "viewer", version: 1 }))).code).toBe(
      "conflict",
    );
    // And the demoted admin can now be removed.
    expect(await executeCommand(removeMember, await asPrincipal(second), { tenant: team.slug, principalId: solo })).toEqual({ removed: true, projectGrantsRemoved: 0 });
  });

  it("lets exactly one of two concurrent changes quoting the same version win; the other conflicts", async () => {
    const member = await newMember(db, tenantId["vision-lab"]!, "member", NOW);
    const [membership] = await db.select({ id: memberships.id }).from(memberships).where(eq(memberships.principalId, member));
    const [alex, priya] = [await as("vision-admin"), await as("platform-admin")];
    const events = await countOf(db, "audit_events");

    const results = await racingBehindLock(db, handle.kind, sql`select id from memberships where id = ${membership!.id} for update`, 2, () =>
      Promise.allSettled([
        executeCommand(changeMemberRole, alex, { tenant: "vision-lab", principalId: member, role: "viewer", version: 1 }),
        executeCommand(changeMemberRole, priya, { tenant: "vision-lab", principalId: member, role: "tenant_admin", version: 1 }),
      ]),
    );

    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toMatchObject({ name: "AppError", code: "conflict" });
    const winner = (won[0] as PromiseFulfilledResult<{ role: string }>).value;
    expect(await membershipOf("vision-lab", member)).toMatchObject({ role: winner.role, version: 2 });
    const written = await auditSince(events);
    expect(written.map((e) => [e.action, e.targetId, e.after])).toEqual([["membership.role_changed", member, { role: winner.role }]]);
  });

  type Attack = (by: CommandContext, tenant: string, target: string) => Promise<unknown>;
  it.each<[string, string, Attack]>([
    ["demoting", "membership.role_changed", (by, tenant, target) => executeCommand(changeMemberRole, by, { tenant, principalId: target, role: "member", version: 1 })],
    ["removing", "membership.removed", (by, tenant, target) => executeCommand(removeMember, by, { tenant, principalId: target })],
  ])("lets only one of the only two admins %s each other at once succeed: the tenant keeps an admin", async (_verb, action, attack) => {
    const team = await tenantWithAdmins(uniqueEmail("twin-a"), uniqueEmail("twin-b"));
    const [a, b] = team.admins as [string, string];
    const [asA, asB] = [await asPrincipal(a), await asPrincipal(b)];
    const run = (by: CommandContext, target: string) => attack(by, team.slug, target);
    const events = await countOf(db, "audit_events");

    const results = await racingBehindLock(
      db,
      handle.kind,
      sql`select id from memberships where tenant_id = ${team.id} and role = 'tenant_admin' for update`,
      2,
      () => Promise.allSettled([run(asA, b), run(asB, a)]),
    );

    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ name: "AppError", code: "conflict" });
    const admins = await db
      .select({ principalId: memberships.principalId })
      .from(memberships)
      .where(and(eq(memberships.tenantId, team.id), eq(memberships.role, "tenant_admin")));
    expect(admins).toHaveLength(1);
    expect((await auditSince(events)).map((e) => e.action)).toEqual([action]);
  });
});

describe(`removeMember (${databaseLabel()})`, () => {
  it("writes the removal and the grant deletions in the transaction of its audit event: no event, nothing removed", async () => {
    const member = await newMember(db, tenantId["vision-lab"]!, "member", NOW);
    await addGrant(db, { projectId: await projectIdOf(db, "vision-lab", "detector-training"), principalId: member, role: "viewer", expiresAt: null, grantedBy: null, createdAt: NOW });
    await db.execute(sql.raw(`create function test_refuse_removal() returns trigger as $$
      begin
        if new.action = 'membership.removed' and new.target_id = '${member}' then raise exception 'audit insert refused by test'; end if;
        return new;
      end; $$ language plpgsql`));
    await db.execute(sql`create trigger test_refuse_removal before insert on audit_events for each row execute function test_refuse_removal()`);
    try {
      const before = await fingerprint(db);
      const error = await rejectionOf(executeCommand(removeMember, await as("vision-admin"), { tenant: "vision-lab", principalId: member }));
      expect(errorText(error)).toContain("audit insert refused by test");
      expect(await fingerprint(db)).toEqual(before);
    } finally {
      await db.execute(sql`drop trigger test_refuse_removal on audit_events`);
      await db.execute(sql`drop function test_refuse_removal()`);
    }
  });

  it("refuses a stale version with conflict", async () => {
    const member = await newMember(db, tenantId["vision-lab"]!, "member", NOW);
    await executeCommand(changeMemberRole, await as("vision-admin"), { tenant: "vision-lab", principalId: member, role: "viewer", version: 1 });
    const before = await fingerprint(db);
    const error = await appErrorOf(executeCommand(removeMember, await as("vision-admin"), { tenant: "vision-lab", principalId: member, version: 1 }));
    expect(error.code).toBe("conflict");
    expect(await fingerprint(db)).toEqual(before);
  });

  it("keeps a service account working after the admin who created it is removed", async () => {
    const [ownerEmail, makerEmail] = [uniqueEmail("owner"), uniqueEmail("maker")];
    const team = await tenantWithAdmins(ownerEmail, makerEmail);
    const [owner, maker] = team.admins as [string, string];
    const asMaker = await asPrincipal(maker);
    await executeCommand(createProject, await asPrincipal(owner), { tenant: team.slug, name: "Nightly", slug: "nightly" });
    const account = await executeCommand(createServiceAccount, asMaker, { tenant: team.slug, name: "nightly-eval", description: "Runs the nightly evaluation" });
    await executeCommand(grantProjectRole, asMaker, { tenant: team.slug, project: "nightly", principalId: account.principalId, role: "member" });
    const { token } = await executeCommand(mintToken, asMaker, { tenant: team.slug, serviceAccount: "nightly-eval", expiresInDays: 30 });

    expect(await executeCommand(removeMember, await asPrincipal(owner), { tenant: team.slug, principalId: maker })).toEqual({ removed: true, projectGrantsRemoved: 0 });

    const [row] = await db.select().from(serviceAccounts).where(eq(serviceAccounts.principalId, account.principalId));
    expect(row).toMatchObject({ tenantId: team.id, name: "nightly-eval", createdBy: maker });
    const auth = await authenticateToken(db, token, later(HOUR), []);
    expect(auth.ok).toBe(true);
    const ctx = { actor: auth.ok ? auth.actor : (null as never), db, now: later(HOUR) };
    expect((await visibleProjects(ctx, team.slug)).projects.map((p) => p.slug)).toEqual(["nightly"]);
  });

  it("removes Dana with her grants in that tenant only, listing them in the audit", async () => {
    const dana = await principalIdOf(db, personaEmail("data-scientist"));
    const detector = await projectIdOf(db, "vision-lab", "detector-training");
    const chatEval = await projectIdOf(db, "language-models", "chat-eval");
    // A grant elsewhere (as a collaborator of language-models) is not this tenant's to remove.
    await addGrant(db, { projectId: chatEval, principalId: dana, role: "viewer", expiresAt: later(10 * DAY), grantedBy: null, createdAt: NOW });
    const alex = await as("vision-admin");
    const events = await countOf(db, "audit_events");

    const result = await executeCommand(removeMember, alex, { tenant: "vision-lab", principalId: dana, version: 1 });

    expect(result).toEqual({ removed: true, projectGrantsRemoved: 1 });
    expect(await membershipOf("vision-lab", dana)).toBeNull();
    const grants = await db.select({ projectId: projectGrants.projectId }).from(projectGrants).where(eq(projectGrants.principalId, dana));
    expect(grants).toEqual([{ projectId: chatEval }]);
    expect(await auditSince(events)).toEqual([
      expect.objectContaining({
        action: "membership.removed",
        tenantId: tenantId["vision-lab"],
        actorPrincipalId: alex.actor.principalId,
        targetId: dana,
        before: { role: "member", projectGrants: [{ projectId: detector, role: "member" }], invitationsWithdrawn: [] },
      }),
    ]);
    const danaNow = await as("data-scientist");
    expect(await tenantDetail(danaNow, "vision-lab")).toBeNull();
    expect(await projectDetail(danaNow, "vision-lab", "detector-training")).toBeNull();
    expect(await projectDetail(danaNow, "language-models", "chat-eval")).not.toBeNull();
  });
});

describe(`createTenant with first admins (${databaseLabel()})`, () => {
  it("creates missing users and a tenant_admin membership for each, audited in order", async () => {
    const newcomer = unique("Newcomer");
    const existing = personaEmail("viewer");
    const priya = await as("platform-admin");
    const events = await countOf(db, "audit_events");
    const slug = unique("onboard");

    // The form sends one string; duplicates (in any case) count once.
    const tenant = await executeCommand(createTenant, priya, {
      name: "Onboarded",
      slug,
      firstAdmins: `${newcomer}@Example.com, ${existing}; ${newcomer.toLowerCase()}@example.com`,
    });

    const newcomerId = await principalIdOf(db, `${newcomer.toLowerCase()}@example.com`);
    const vic = await principalIdOf(db, existing);
    const rows = await db.select({ principalId: memberships.principalId, role: memberships.role }).from(memberships).where(eq(memberships.tenantId, tenant.id));
    expect(rows.sort((x, y) => x.principalId.localeCompare(y.principalId))).toEqual(
      [
        { principalId: newcomerId, role: "tenant_admin" },
        { principalId: vic, role: "tenant_admin" },
      ].sort((x, y) => x.principalId.localeCompare(y.principalId)),
    );
    expect((await auditSince(events)).map((e) => [e.action, e.targetId, e.tenantId, e.actorPrincipalId])).toEqual([
      ["tenant.created", tenant.id, tenant.id, priya.actor.principalId],
      ["user.created", newcomerId, null, priya.actor.principalId],
      ["membership.created", newcomerId, tenant.id, priya.actor.principalId],
      ["membership.created", vic, tenant.id, priya.actor.principalId],
    ]);
    const admin = await asPrincipal(newcomerId);
    expect(can(admin.actor, "project.create", { kind: "tenant", tenantId: tenant.id }, NOW)).toBe(true);
    expect(await verifyAuditChain(db)).toMatchObject({ intact: true });
  });

  it("rejects a bad first-admin email as validation on firstAdmins, creating nothing", async () => {
    const before = await fingerprint(db);
    const error = await appErrorOf(executeCommand(createTenant, await as("platform-admin"), { name: "Bad admins", slug: unique("bad"), firstAdmins: ["ok@example.com", "nope"] }));
    expect(error.code).toBe("validation");
    expect(Object.keys(error.fields ?? {})).toEqual(["firstAdmins.1"]);
    expect(await fingerprint(db)).toEqual(before);
  });
});

describe(`setTenantStatus (${databaseLabel()})`, () => {
  it("disabling takes the tenant away from its members and its service accounts' tokens; enabling gives it back", async () => {
    const adminEmail = uniqueEmail("dis-admin");
    const team = await tenantWithAdmins(adminEmail);
    const [admin] = team.admins as [string];
    const asAdmin = await asPrincipal(admin);
    await executeCommand(createProject, asAdmin, { tenant: team.slug, name: "Workload", slug: "workload" });
    const account = await executeCommand(createServiceAccount, asAdmin, { tenant: team.slug, name: "runner", description: "" });
    await executeCommand(grantProjectRole, asAdmin, { tenant: team.slug, project: "workload", principalId: account.principalId, role: "member" });
    const { token } = await executeCommand(mintToken, asAdmin, { tenant: team.slug, serviceAccount: "runner", noExpiry: true });
    const tenantResource = { kind: "tenant", tenantId: team.id } as const;

    async function tokenContext(now: Date): Promise<CommandContext> {
      const auth = await authenticateToken(db, token, now, []);
      if (!auth.ok) throw new Error(`token refused: ${auth.reason}`);
      return { actor: auth.actor, db, now };
    }
    const reach = async (now: Date) => {
      const admin_ = await asPrincipal(admin, now);
      return {
        adminViews: can(admin_.actor, "tenant.view", tenantResource, now),
        adminDetail: (await tenantDetail(admin_, team.slug)) !== null,
        tokenProjects: await visibleProjects(await tokenContext(now), team.slug).then(
          (r) => r.projects.map((p) => p.slug),
          (e: unknown) => (e as { code?: string }).code,
        ),
        tokenProjectDetail: (await projectDetail(await tokenContext(now), team.slug, "workload")) !== null,
      };
    };
    expect(await reach(NOW)).toEqual({ adminViews: true, adminDetail: true, tokenProjects: ["workload"], tokenProjectDetail: true });

    const priya = await as("platform-admin");
    const events = await countOf(db, "audit_events");
    const disabled = await executeCommand(setTenantStatus, priya, { tenant: team.slug, status: "disabled" });
    expect(disabled).toMatchObject({ status: "disabled", version: 2 });
    expect(await auditSince(events)).toEqual([
      expect.objectContaining({ action: "tenant.disabled", tenantId: team.id, before: { status: "active" }, after: { status: "disabled" } }),
    ]);

    const off = later(HOUR);
    expect(await reach(off)).toEqual({ adminViews: false, adminDetail: false, tokenProjects: "not_found", tokenProjectDetail: false });
    // Commands refuse too: the admin's membership counts for nothing, so the tenant is out of sight.
    const before = await fingerprint(db);
    expect((await appErrorOf(executeCommand(createProject, await asPrincipal(admin, off), { tenant: team.slug, name: "More", slug: "more" }))).code).toBe("not_found");
    expect((await appErrorOf(executeCommand(inviteMember, await as("platform-admin", off), { tenant: team.slug, email: uniqueEmail("x"), role: "member" }))).code).toBe("conflict");
    expect(await fingerprint(db)).toEqual(before);
    // Other tenants are untouched.
    expect(await tenantDetail(await as("vision-admin", off), "vision-lab")).not.toBeNull();

    // Setting the status it already has changes and audits nothing.
    await executeCommand(setTenantStatus, priya, { tenant: team.slug, status: "disabled" });
    expect(await fingerprint(db)).toEqual(before);

    await executeCommand(setTenantStatus, priya, { tenant: team.slug, status: "active" });
    expect(await reach(later(2 * HOUR))).toEqual({ adminViews: true, adminDetail: true, tokenProjects: ["workload"], tokenProjectDetail: true });
    const [row] = await db.select().from(tenants).where(eq(tenants.id, team.id));
    expect(row).toMatchObject({ status: "active", version: 3 });
  });
});
