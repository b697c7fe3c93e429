import "server-only";
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import { invitations, memberships, principals, projectGrants, projects, users } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { sendMail } from "@/lib/notify/mail";
import { emailInput, tenantRoleInput, uuidInput, versionInput } from "../inputs";
import { invitationPath, newInvitationToken } from "../invitation-token";
import { assertTenantActive, tenantBySlug } from "../lookup";
import { onTenant, tenantAddress } from "../targets";
import { enqueueTenantChange } from "@/lib/cluster/outbox";

const DAY = 86_400_000;

/** Invite a person to the tenant by email; they accept through the link (shown here, and mailed when SMTP is set). */
export const inviteMember = defineCommand({
  name: "inviteMember",
  input: tenantAddress.extend({ email: emailInput, role: tenantRoleInput }),
  target: onTenant("tenant.members.manage"),
  async run(ctx, input, { tenantId }) {
    const { token, hash } = newInvitationToken();
    const expiresAt = new Date(ctx.now.getTime() + config().invitationDays * DAY);
    const invitation = await ctx.db.transaction(async (tx) => {
      const tenant = await tenantBySlug(tx, input.tenant);
      assertTenantActive(tenant);
      const [existing] = await tx
        .select({ id: memberships.id })
        .from(memberships)
        .innerJoin(users, eq(users.principalId, memberships.principalId))
        .where(and(eq(memberships.tenantId, tenantId), eq(users.email, input.email)));
      if (existing) throw new AppError("conflict", "This person is already a member of the tenant.", { email: ["Enter someone who is not yet a member: this person already is."] });
      const [row] = await tx
        .insert(invitations)
        .values({ tenantId, email: input.email, tenantRole: input.role, tokenHash: hash, expiresAt, invitedBy: ctx.actor.principalId, createdAt: ctx.now })
        .returning();
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "invitation.created",
        target: { type: "invitation", id: row!.id },
        after: { email: input.email, role: input.role, expiresAt },
      });
      return { ...row!, tenantName: tenant.name };
    });
    const path = invitationPath(token);
    const mailed = await sendInvitationMail(input.email, `You are invited to ${invitation.tenantName} on Allot`, path, expiresAt);
    return { invitationId: invitation.id, email: input.email, role: input.role, token, path, expiresAt, mailed };
  },
});

export async function sendInvitationMail(to: string, subject: string, path: string, expiresAt: Date): Promise<boolean> {
  const base = config().publicUrl;
  if (!base) return false; // without AUTH_URL there is no absolute link to mail
  return sendMail({
    to,
    subject,
    text: `${subject}.\n\nAccept here (single use, until ${expiresAt.toISOString()}):\n${new URL(path, base).toString()}\n`,
  });
}

/**
 * Lock the tenant's admin memberships and refuse when the change would leave
 * none. Locking them (FOR UPDATE) serialises two admins demoting each other.
 */
async function assertAdminRemains(tx: Database, tenantId: string, membershipId: string) {
  const admins = await tx
    .select({ id: memberships.id })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.role, "tenant_admin")))
    .for("update");
  if (admins.length <= 1 && admins.some((a) => a.id === membershipId)) {
    throw new AppError("conflict", "A tenant must keep at least one tenant admin: make someone else an admin first.");
  }
}

const memberTarget = tenantAddress.extend({ principalId: uuidInput });

async function membershipOf(db: Database, tenantId: string, principalId: string) {
  const [row] = await db
    .select({ membership: memberships, displayName: principals.displayName })
    .from(memberships)
    .innerJoin(principals, eq(principals.id, memberships.principalId))
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.principalId, principalId)));
  if (!row) throw new AppError("not_found", "This person is not a member of the tenant.");
  return row;
}

/** Change a member's role. `version` is the one shown to the admin: a concurrent change wins, this one conflicts. */
export const changeMemberRole = defineCommand({
  name: "changeMemberRole",
  input: memberTarget.extend({ role: tenantRoleInput, version: versionInput }),
  target: onTenant("tenant.members.manage"),
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      const { membership } = await membershipOf(tx, tenantId, input.principalId);
      if (membership.version !== input.version) throw new AppError("conflict", "Someone changed this membership meanwhile. Reload and try again.");
      if (membership.role === input.role) return membership;
      if (membership.role === "tenant_admin") await assertAdminRemains(tx, tenantId, membership.id);
      const [updated] = await tx
        .update(memberships)
        .set({ role: input.role, version: membership.version + 1 })
        .where(and(eq(memberships.id, membership.id), eq(memberships.version, input.version)))
        .returning();
      if (!updated) throw new AppError("conflict", "Someone changed this membership meanwhile. Reload and try again.");
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "membership.role_changed",
        target: { type: "principal", id: input.principalId },
        before: { role: membership.role },
        after: { role: input.role },
      });
      await enqueueTenantChange(tx, { tenantId, reason: "member role changed", at: ctx.now });
      return updated;
    });
  },
});

/**
 * Remove a member, with their project grants in this tenant (they would
 * otherwise linger as collaborators without expiry). Service accounts they
 * created belong to the tenant and stay.
 */
export const removeMember = defineCommand({
  name: "removeMember",
  input: memberTarget.extend({ version: versionInput.optional() }),
  target: onTenant("tenant.members.manage"),
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => removeMembershipWithin(tx, { actor: auditActorOf(ctx.actor), now: ctx.now }, tenantId, input.principalId, input.version));
  },
});

/**
 * The removal itself, inside the caller's transaction: the command above, and
 * an access review's revocation (lib/reviews), which writes its decision in
 * the same transaction and was authorized by the review's own policy action.
 */
export async function removeMembershipWithin(tx: Database, by: { actor: AuditActor; now: Date }, tenantId: string, principalId: string, expectedVersion?: number) {
  const { membership } = await membershipOf(tx, tenantId, principalId);
  if (expectedVersion !== undefined && expectedVersion !== membership.version) {
    throw new AppError("conflict", "Someone changed this membership meanwhile. Reload and try again.");
  }
  if (membership.role === "tenant_admin") await assertAdminRemains(tx, tenantId, membership.id);
  const tenantProjects = tx.select({ id: projects.id }).from(projects).where(eq(projects.tenantId, tenantId));
  const removedGrants = await tx
    .delete(projectGrants)
    .where(and(eq(projectGrants.principalId, principalId), inArray(projectGrants.projectId, tenantProjects)))
    .returning({ projectId: projectGrants.projectId, role: projectGrants.role });
  await tx.delete(memberships).where(eq(memberships.id, membership.id));
  // Invitations they sent die with their membership: nobody joins on a departed admin's word.
  const withdrawn = await tx
    .update(invitations)
    .set({ revokedAt: by.now })
    .where(and(eq(invitations.tenantId, tenantId), eq(invitations.invitedBy, principalId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .returning({ id: invitations.id });
  await recordAudit(tx, {
    actor: by.actor,
    at: by.now,
    tenantId,
    action: "membership.removed",
    target: { type: "principal", id: principalId },
    before: { role: membership.role, projectGrants: removedGrants, invitationsWithdrawn: withdrawn.map((i) => i.id) },
  });
  await enqueueTenantChange(tx, { tenantId, reason: "member removed", at: by.now });
  return { removed: true, projectGrantsRemoved: removedGrants.length };
}

/** Withdraw an invitation that has not been accepted. */
export const revokeInvitation = defineCommand({
  name: "revokeInvitation",
  input: tenantAddress.extend({ invitationId: uuidInput }),
  target: onTenant("tenant.members.manage"),
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      const [revoked] = await tx
        .update(invitations)
        .set({ revokedAt: ctx.now })
        .where(and(eq(invitations.id, input.invitationId), eq(invitations.tenantId, tenantId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
        .returning();
      if (!revoked) throw new AppError("not_found", "No open invitation with this id in this tenant.");
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "invitation.revoked",
        target: { type: "invitation", id: revoked.id },
        before: { email: revoked.email },
      });
      return { revoked: true };
    });
  },
});
