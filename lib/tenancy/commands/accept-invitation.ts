import "server-only";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { invitations, memberships, projectGrants, projects, tenants } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf, type CommandContext } from "@/lib/auth/context";
import type { Database } from "@/db/client";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { hashInvitationToken } from "../invitation-token";
import { invitationProblem } from "../invitation-rules";
import { enqueueProjectChange, enqueueTenantChange } from "@/lib/cluster/outbox";

/**
 * What the accept page shows before the person confirms: the invitation, or
 * the reason this person cannot accept it (by the same rule as the command).
 */
export async function describeInvitation(ctx: CommandContext, token: string) {
  const row = await findInvitation(ctx.db, token);
  if (!row) return { problem: "This invitation link is not valid. Check that you copied all of it.", invitation: null };
  const problem = invitationProblem({ ...row.invitation, tenantStatus: row.tenantStatus }, ctx.actor.email, ctx.now);
  if (problem) return { problem: problem.message, invitation: null };
  const { invitation } = row;
  return {
    problem: null,
    invitation: {
      tenantName: row.tenantName,
      projectName: row.projectName,
      tenantRole: invitation.tenantRole,
      projectRole: invitation.projectRole,
      grantExpiresAt: invitation.grantExpiresAt,
    },
  };
}

async function findInvitation(db: Database, token: string) {
  const [row] = await db
    .select({ invitation: invitations, tenantName: tenants.name, tenantSlug: tenants.slug, tenantStatus: tenants.status, projectName: projects.name, projectSlug: projects.slug })
    .from(invitations)
    .innerJoin(tenants, eq(tenants.id, invitations.tenantId))
    .leftJoin(projects, eq(projects.id, invitations.projectId))
    .where(eq(invitations.tokenHash, hashInvitationToken(token)));
  return row ?? null;
}

/**
 * Accept an invitation as the signed-in person. The link is single-use, expires,
 * and works only for the email it was sent to, so a forwarded link is useless.
 */
export const acceptInvitation = defineCommand({
  name: "acceptInvitation",
  input: z.object({ token: z.string().min(20, "Open the whole invitation link you were sent: this one is cut short.").max(200) }),
  target: () => Promise.resolve({ action: "invitation.accept", resource: { kind: "platform" } }),
  async run(ctx, input) {
    try {
      return await acceptInTransaction(ctx, input.token);
    } catch (error) {
      // Two invitations for the same person accepted at once: the second finds the first's row.
      if (isUniqueViolation(error)) throw new AppError("conflict", "You already have this access.");
      throw error;
    }
  },
});

async function acceptInTransaction(ctx: CommandContext, token: string) {
  return ctx.db.transaction(async (tx) => {
    const row = await findInvitation(tx, token);
    if (!row) throw new AppError("not_found", "This invitation link is not valid.");
    // Read it again under a row lock, so two tabs accepting at once cannot both succeed.
    const [invitation] = await tx.select().from(invitations).where(eq(invitations.id, row.invitation.id)).for("update");
    if (!invitation) throw new AppError("not_found", "This invitation link is not valid.");
    const problem = invitationProblem({ ...invitation, tenantStatus: row.tenantStatus }, ctx.actor.email, ctx.now);
    if (problem) throw new AppError(problem.code, problem.message);

    let outcome: { tenantSlug: string; projectSlug: string | null };
    if (invitation.projectId && invitation.projectRole) {
      const [existing] = await tx
        .select({ id: projectGrants.id })
        .from(projectGrants)
        .where(and(eq(projectGrants.projectId, invitation.projectId), eq(projectGrants.principalId, ctx.actor.principalId)));
      if (existing) throw new AppError("conflict", "You already have access to this project.");
      await tx.insert(projectGrants).values({
        projectId: invitation.projectId,
        principalId: ctx.actor.principalId,
        role: invitation.projectRole,
        expiresAt: invitation.grantExpiresAt,
        grantedBy: invitation.invitedBy,
        createdAt: ctx.now,
      });
      outcome = { tenantSlug: row.tenantSlug, projectSlug: row.projectSlug };
    } else if (invitation.tenantRole) {
      const [existing] = await tx
        .select({ id: memberships.id })
        .from(memberships)
        .where(and(eq(memberships.tenantId, invitation.tenantId), eq(memberships.principalId, ctx.actor.principalId)));
      if (existing) throw new AppError("conflict", "You are already a member of this tenant.");
      await tx.insert(memberships).values({ tenantId: invitation.tenantId, principalId: ctx.actor.principalId, role: invitation.tenantRole, createdAt: ctx.now });
      outcome = { tenantSlug: row.tenantSlug, projectSlug: null };
    } else {
      throw new Error(`invitation ${invitation.id} has neither a tenant role nor a project grant`);
    }

    await tx.update(invitations).set({ acceptedAt: ctx.now, acceptedBy: ctx.actor.principalId }).where(eq(invitations.id, invitation.id));
    const change = { tenantId: invitation.tenantId, reason: "invitation accepted", at: ctx.now };
    if (invitation.projectId) await enqueueProjectChange(tx, { ...change, projectId: invitation.projectId });
    else await enqueueTenantChange(tx, change);
    await recordAudit(tx, {
      actor: auditActorOf(ctx.actor),
      at: ctx.now,
      tenantId: invitation.tenantId,
      action: "invitation.accepted",
      target: { type: "invitation", id: invitation.id },
      after: invitation.projectId
        ? { projectId: invitation.projectId, role: invitation.projectRole, expiresAt: invitation.grantExpiresAt }
        : { role: invitation.tenantRole },
    });
    return outcome;
  });
}

