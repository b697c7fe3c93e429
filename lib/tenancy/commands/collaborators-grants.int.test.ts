import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { invitations, memberships, projectGrants } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { authenticateToken } from "@/lib/auth/token-auth";
import { config } from "@/lib/config";
import { databaseLabel } from "@/test/database";
import { appErrorOf, auditLog, contextOf, countOf, personaEmail, principalIdOf, type PersonaKey } from "@/test/fixtures";
import {
  addGrant,
  contextFor,
  DAY,
  fingerprint,
  HOUR,
  newMember,
  projectIdOf,
  seededDatabase,
  uniqueEmail,
  userWithEmail,
} from "@/test/tenancy";
import { hashInvitationToken } from "../invitation-token";
import { tenantCollaborators } from "../member-queries";
import { createServiceAccountAsOperator, mintTokenAsOperator } from "../operator";
import { projectDetail, reachableTenants, tenantDetail } from "../queries";
import { acceptInvitation } from "./accept-invitation";
import { extendCollaborator, inviteCollaborator } from "./collaborators";
import { createProject } from "./create-project";
import { grantProjectRole, revokeProjectGrant } from "./project-access";
import { archiveProject, updateProject } from "./projects";
import { createServiceAccount } from "./service-accounts";

/** External collaborators and direct project grants, through executeCommand with seeded actors. */

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const CLEO_EXPIRES = new Date(SEEDED_AT.getTime() + 60 * DAY);
const later = (ms: number) => new Date(NOW.getTime() + ms);

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let tenantId: Record<string, string>;

beforeAll(() => {
  ({ db, tenantId } = seeded);
});

const as = (key: PersonaKey, now: Date = NOW): Promise<CommandContext> => contextOf(db, key, now);
const asPrincipal = (principalId: string, now: Date = NOW) => contextFor(db, principalId, now);
const idOf = (key: PersonaKey) => principalIdOf(db, personaEmail(key));

async function auditSince(count: number) {
  return (await auditLog(db)).slice(count);
}

async function grantRow(projectId: string, principalId: string) {
  const [row] = await db
    .select()
    .from(projectGrants)
    .where(and(eq(projectGrants.projectId, projectId), eq(projectGrants.principalId, principalId)));
  return row ?? null;
}

const invite = (fields: Record<string, unknown>) => ({ tenant: "language-models", project: "pretraining", email: uniqueEmail("guest"), role: "viewer", ...fields });

describe(`inviteCollaborator (${databaseLabel()})`, () => {
  it("requires an expiry in the future and within the maximum, as validation on expiresAt", async () => {
    const bo = await as("language-admin");
    const max = config().maxCollaboratorDays;
    const before = await fingerprint(db);
    for (const expiresAt of [undefined, "not a date", NOW, later(-DAY), "2020-01-01", later(max * DAY + 1), later(400 * DAY)]) {
      const error = await appErrorOf(executeCommand(inviteCollaborator, bo, invite({ expiresAt })));
      expect(error.code, String(expiresAt)).toBe("validation");
      expect(Object.keys(error.fields ?? {}), String(expiresAt)).toEqual(["expiresAt"]);
    }
    expect(await fingerprint(db)).toEqual(before);

    // Exactly the maximum is allowed, and a date-only value is read as that day.
    const atMax = await executeCommand(inviteCollaborator, bo, invite({ expiresAt: later(max * DAY) }));
    expect(atMax.grantExpiresAt).toEqual(later(max * DAY));
    const dateOnly = await executeCommand(inviteCollaborator, bo, invite({ expiresAt: "2026-12-20" }));
    expect(dateOnly.grantExpiresAt).toEqual(new Date("2026-12-20T00:00:00.000Z"));
  });

  it("refuses a member of the tenant with conflict on email: they get a project role instead", async () => {
    const before = await fingerprint(db);
    for (const email of [personaEmail("viewer"), personaEmail("language-admin").toUpperCase()]) {
      const error = await appErrorOf(executeCommand(inviteCollaborator, await as("language-admin"), invite({ email, expiresAt: later(30 * DAY) })));
      expect(error.code, email).toBe("conflict");
      expect(error.fields, email).toEqual({ email: ["Enter someone outside the tenant: this person is already a member."] });
    }
    expect(await fingerprint(db)).toEqual(before);
  });

  it("makes the accepted invitee a collaborator of that one project, sponsored by the inviting admin, until the expiry", async () => {
    const bo = await as("language-admin");
    const email = uniqueEmail("visiting");
    const grantExpiresAt = later(30 * DAY);
    const events = await countOf(db, "audit_events");

    const invited = await executeCommand(inviteCollaborator, bo, invite({ email, role: "member", expiresAt: grantExpiresAt.toISOString() }));

    // The link lasts the invitation period, never longer than the access it grants.
    const linkExpiresAt = later(Math.min(config().invitationDays * DAY, 30 * DAY));
    expect(invited).toMatchObject({ email, role: "member", grantExpiresAt, expiresAt: linkExpiresAt, mailed: false });
    const pretraining = await projectIdOf(db, "language-models", "pretraining");
    const [row] = await db.select().from(invitations).where(eq(invitations.id, invited.invitationId));
    expect(row).toMatchObject({
      tenantId: tenantId["language-models"],
      projectId: pretraining,
      tenantRole: null,
      projectRole: "member",
      grantExpiresAt,
      tokenHash: hashInvitationToken(invited.token),
      invitedBy: bo.actor.principalId,
    });
    expect(JSON.stringify(row)).not.toContain(invited.token);
    expect(await auditSince(events)).toEqual([
      expect.objectContaining({
        action: "collaborator.invited",
        tenantId: tenantId["language-models"],
        targetId: invited.invitationId,
        after: { email, projectId: pretraining, role: "member", grantExpiresAt: grantExpiresAt.toISOString(), sponsor: bo.actor.principalId },
      }),
    ]);

    const guest = await userWithEmail(db, email, NOW);
    expect(await executeCommand(acceptInvitation, await asPrincipal(guest, later(HOUR)), { token: invited.token })).toEqual({
      tenantSlug: "language-models",
      projectSlug: "pretraining",
    });
    expect(await grantRow(pretraining, guest)).toMatchObject({ role: "member", expiresAt: grantExpiresAt, grantedBy: bo.actor.principalId });
    expect(await db.select().from(memberships).where(eq(memberships.principalId, guest))).toEqual([]);
    const listed = (await tenantCollaborators(bo, "language-models")).collaborators.find((c) => c.principalId === guest);
    expect(listed).toMatchObject({ projectSlug: "pretraining", sponsor: "Bo Larsen", expiresAt: grantExpiresAt, expired: false });

    // What the collaborator reaches: that project, nothing else of the tenant.
    const justBefore = new Date(grantExpiresAt.getTime() - 1);
    const ctx = await asPrincipal(guest, justBefore);
    expect(await projectDetail(ctx, "language-models", "pretraining")).toMatchObject({ roles: ["project_member"], canEdit: false });
    expect(await projectDetail(ctx, "language-models", "chat-eval")).toBeNull();
    expect(await tenantDetail(ctx, "language-models")).toBeNull();
    expect((await reachableTenants(ctx)).map((t) => [t.slug, t.projects.map((p) => p.slug)])).toEqual([["language-models", ["pretraining"]]]);
    const edit = { tenant: "language-models", project: "pretraining", name: "Renamed", version: 1 };
    expect((await appErrorOf(executeCommand(updateProject, ctx, edit))).code).toBe("forbidden");

    // From the expiry instant on, the project is out of sight: refused as not found, nothing written.
    const expired = await asPrincipal(guest, grantExpiresAt);
    expect(await projectDetail(expired, "language-models", "pretraining")).toBeNull();
    expect(await reachableTenants(expired)).toEqual([]);
    const before = await fingerprint(db);
    expect((await appErrorOf(executeCommand(updateProject, expired, edit))).code).toBe("not_found");
    expect((await appErrorOf(executeCommand(inviteCollaborator, expired, invite({ expiresAt: later(31 * DAY) })))).code).toBe("not_found");
    expect(await fingerprint(db)).toEqual(before);
    expect((await tenantCollaborators(await as("language-admin", grantExpiresAt), "language-models")).collaborators.find((c) => c.principalId === guest)).toMatchObject({
      expired: true,
    });
  });

  it("refuses an invitee who already has access to the project with conflict", async () => {
    const cleoEmail = personaEmail("collaborator");
    const invited = await executeCommand(inviteCollaborator, await as("language-admin"), invite({ project: "chat-eval", email: cleoEmail, expiresAt: later(20 * DAY) }));
    const before = await fingerprint(db);
    const error = await appErrorOf(executeCommand(acceptInvitation, await as("collaborator"), { token: invited.token }));
    expect(error.code).toBe("conflict");
    expect(await fingerprint(db)).toEqual(before);
  });
});

describe(`extendCollaborator and revokeProjectGrant (${databaseLabel()})`, () => {
  it("moves Cleo's expiry when the version is current, audited; a stale version conflicts", async () => {
    const chatEval = await projectIdOf(db, "language-models", "chat-eval");
    const cleo = await idOf("collaborator");
    const grant = (await grantRow(chatEval, cleo))!;
    expect(grant).toMatchObject({ version: 1, expiresAt: CLEO_EXPIRES });
    const bo = await as("language-admin");
    const newExpiry = later(80 * DAY);
    const events = await countOf(db, "audit_events");

    const updated = await executeCommand(extendCollaborator, bo, { tenant: "language-models", project: "chat-eval", grantId: grant.id, expiresAt: newExpiry, version: 1 });

    expect(updated).toMatchObject({ id: grant.id, expiresAt: newExpiry, version: 2, grantedBy: grant.grantedBy });
    expect(await auditSince(events)).toEqual([
      expect.objectContaining({
        action: "project_grant.expiry_changed",
        targetId: grant.id,
        before: { expiresAt: CLEO_EXPIRES.toISOString() },
        after: { expiresAt: newExpiry.toISOString() },
      }),
    ]);
    // Past the old expiry, Cleo still works on chat-eval.
    expect(await projectDetail(await as("collaborator", CLEO_EXPIRES), "language-models", "chat-eval")).not.toBeNull();

    const before = await fingerprint(db);
    const stale = await appErrorOf(
      executeCommand(extendCollaborator, bo, { tenant: "language-models", project: "chat-eval", grantId: grant.id, expiresAt: later(10 * DAY), version: 1 }),
    );
    expect(stale.code).toBe("conflict");
    const tooFar = await appErrorOf(
      executeCommand(extendCollaborator, bo, { tenant: "language-models", project: "chat-eval", grantId: grant.id, expiresAt: later(1000 * DAY), version: 2 }),
    );
    expect(tooFar.code).toBe("validation");
    expect(Object.keys(tooFar.fields ?? {})).toEqual(["expiresAt"]);
    // The grant id is looked up under the project in the path only.
    const elsewhere = await appErrorOf(
      executeCommand(extendCollaborator, bo, { tenant: "language-models", project: "pretraining", grantId: grant.id, expiresAt: later(10 * DAY), version: 2 }),
    );
    expect(elsewhere.code).toBe("not_found");
    expect(await fingerprint(db)).toEqual(before);
  });

  it("revokes a collaborator's access at once, audited; revoking again is not_found", async () => {
    const chatEval = await projectIdOf(db, "language-models", "chat-eval");
    const guest = await userWithEmail(db, uniqueEmail("short"), NOW);
    const grantId = await addGrant(db, { projectId: chatEval, principalId: guest, role: "viewer", expiresAt: later(5 * DAY), grantedBy: await idOf("language-admin"), createdAt: NOW });
    expect(await projectDetail(await asPrincipal(guest), "language-models", "chat-eval")).not.toBeNull();
    const events = await countOf(db, "audit_events");

    expect(await executeCommand(revokeProjectGrant, await as("language-admin"), { tenant: "language-models", project: "chat-eval", grantId })).toEqual({ revoked: true });

    expect(await grantRow(chatEval, guest)).toBeNull();
    expect(await projectDetail(await asPrincipal(guest), "language-models", "chat-eval")).toBeNull();
    expect(await auditSince(events)).toEqual([
      expect.objectContaining({ action: "project_grant.revoked", targetId: grantId, before: { projectId: chatEval, principalId: guest, role: "viewer", expiresAt: later(5 * DAY).toISOString() } }),
    ]);
    expect((await appErrorOf(executeCommand(revokeProjectGrant, await as("language-admin"), { tenant: "language-models", project: "chat-eval", grantId }))).code).toBe("not_found");
  });
});

describe(`grantProjectRole (${databaseLabel()})`, () => {
  it("gives a tenant member a role on a project, then changes it, audited both times", async () => {
    const alex = await as("vision-admin");
    const dana = await idOf("data-scientist");
    const segmentation = await projectIdOf(db, "vision-lab", "segmentation-research");
    expect(await projectDetail(await as("data-scientist"), "vision-lab", "segmentation-research")).toBeNull();
    const events = await countOf(db, "audit_events");

    const grant = await executeCommand(grantProjectRole, alex, { tenant: "vision-lab", project: "segmentation-research", principalId: dana, role: "viewer" });

    expect(grant).toMatchObject({ projectId: segmentation, principalId: dana, role: "viewer", expiresAt: null, grantedBy: alex.actor.principalId, version: 1, createdAt: NOW });
    expect(await projectDetail(await as("data-scientist"), "vision-lab", "segmentation-research")).toMatchObject({ roles: ["project_viewer"] });

    const changed = await executeCommand(grantProjectRole, alex, { tenant: "vision-lab", project: "segmentation-research", principalId: dana, role: "member" });
    expect(changed).toMatchObject({ id: grant.id, role: "member", version: 2 });
    expect((await auditSince(events)).map((e) => [e.action, e.targetId, e.before, e.after])).toEqual([
      ["project_grant.created", grant.id, null, { projectId: segmentation, principalId: dana, role: "viewer", expiresAt: null }],
      ["project_grant.changed", grant.id, { role: "viewer", expiresAt: null }, { projectId: segmentation, principalId: dana, role: "member", expiresAt: null }],
    ]);
  });

  it("gives one of the tenant's service accounts a role, which its token then carries", async () => {
    const alex = await as("vision-admin");
    const account = await executeCommand(createServiceAccount, alex, { tenant: "vision-lab", name: "seg-trainer", description: "" });
    await executeCommand(grantProjectRole, alex, { tenant: "vision-lab", project: "segmentation-research", principalId: account.principalId, role: "member" });
    const { token } = await mintTokenAsOperator(db, "vision-lab", "seg-trainer", null, NOW);

    const auth = await authenticateToken(db, token, NOW, []);
    expect(auth.ok).toBe(true);
    if (!auth.ok) return;
    expect(auth.actor.projectGrants).toEqual([
      { projectId: await projectIdOf(db, "vision-lab", "segmentation-research"), tenantId: tenantId["vision-lab"], tenantStatus: "active", role: "member", expiresAt: null, via: null },
    ]);
    expect(await projectDetail({ actor: auth.actor, db, now: NOW }, "vision-lab", "segmentation-research")).not.toBeNull();
    expect(await projectDetail({ actor: auth.actor, db, now: NOW }, "vision-lab", "detector-training")).toBeNull();
  });

  it("refuses principals outside the tenant as validation naming principalId, writing nothing", async () => {
    const outsider = await userWithEmail(db, uniqueEmail("outsider"), NOW);
    const foreignAccount = await createServiceAccountAsOperator(db, { tenant: "language-models", name: "lm-bot", description: "", projectRoles: [] }, NOW);
    const candidates = {
      "another tenant's admin": await idOf("language-admin"),
      "another tenant's service account": foreignAccount.principalId,
      "a collaborator elsewhere": await idOf("collaborator"),
      "a user of no tenant": outsider,
      "no principal at all": "00000000-0000-4000-8000-000000000000",
    };
    const before = await fingerprint(db);
    for (const [label, principalId] of Object.entries(candidates)) {
      const error = await appErrorOf(executeCommand(grantProjectRole, await as("vision-admin"), { tenant: "vision-lab", project: "detector-training", principalId, role: "viewer" }));
      expect(error.code, label).toBe("validation");
      expect(Object.keys(error.fields ?? {}), label).toEqual(["principalId"]);
    }
    expect(await fingerprint(db)).toEqual(before);
  });

  it("ignores mass-assigned fields: the project comes from the path, grantedBy is the actor", async () => {
    const alex = await as("vision-admin");
    const member = await newMember(db, tenantId["vision-lab"]!, "member", NOW);
    const detector = await projectIdOf(db, "vision-lab", "detector-training");
    const chatEval = await projectIdOf(db, "language-models", "chat-eval");

    const grant = await executeCommand(grantProjectRole, alex, {
      tenant: "vision-lab",
      project: "detector-training",
      principalId: member,
      role: "viewer",
      tenantId: tenantId["language-models"],
      projectId: chatEval,
      grantedBy: await idOf("language-admin"),
      createdAt: "2020-01-01",
      version: 42,
      tenantRole: "tenant_admin",
      isPlatformAdmin: true,
    });

    expect(grant).toMatchObject({ projectId: detector, principalId: member, role: "viewer", grantedBy: alex.actor.principalId, version: 1, createdAt: NOW });
    expect(await grantRow(chatEval, member)).toBeNull();
    expect(await db.select({ role: memberships.role }).from(memberships).where(eq(memberships.principalId, member))).toEqual([{ role: "member" }]);
    const actor = (await asPrincipal(member)).actor;
    expect(actor.isPlatformAdmin).toBe(false);

    // A tenant role is not a project role: escalation through `role` is a validation error.
    const escalate = await appErrorOf(executeCommand(grantProjectRole, alex, { tenant: "vision-lab", project: "detector-training", principalId: member, role: "tenant_admin" }));
    expect(escalate.code).toBe("validation");
    expect(Object.keys(escalate.fields ?? {})).toEqual(["role"]);
  });

  it("refuses a past expiry as validation on expiresAt", async () => {
    const member = await newMember(db, tenantId["vision-lab"]!, "member", NOW);
    const error = await appErrorOf(
      executeCommand(grantProjectRole, await as("vision-admin"), { tenant: "vision-lab", project: "detector-training", principalId: member, role: "viewer", expiresAt: NOW }),
    );
    expect(error.code).toBe("validation");
    expect(Object.keys(error.fields ?? {})).toEqual(["expiresAt"]);
  });

  it("refuses any new access or change on an archived project with conflict", async () => {
    const alex = await as("vision-admin");
    await executeCommand(createProject, alex, { tenant: "vision-lab", name: "Old work", slug: "old-work" });
    const archived = await executeCommand(archiveProject, alex, { tenant: "vision-lab", project: "old-work" });
    expect(archived.archivedAt).toEqual(NOW);
    const member = await newMember(db, tenantId["vision-lab"]!, "member", NOW);
    const before = await fingerprint(db);

    const attempts = {
      grantProjectRole: () => executeCommand(grantProjectRole, alex, { tenant: "vision-lab", project: "old-work", principalId: member, role: "viewer" }),
      inviteCollaborator: () =>
        executeCommand(inviteCollaborator, alex, { tenant: "vision-lab", project: "old-work", email: uniqueEmail("late"), role: "viewer", expiresAt: later(DAY) }),
      updateProject: () => executeCommand(updateProject, alex, { tenant: "vision-lab", project: "old-work", name: "New name", version: archived.version }),
      archiveProject: () => executeCommand(archiveProject, alex, { tenant: "vision-lab", project: "old-work" }),
    };
    for (const [name, attempt] of Object.entries(attempts)) {
      expect((await appErrorOf(attempt())).code, name).toBe("conflict");
    }
    expect(await fingerprint(db)).toEqual(before);
    // Still readable.
    expect(await projectDetail(alex, "vision-lab", "old-work")).toMatchObject({ project: { archivedAt: NOW } });
  });
});
