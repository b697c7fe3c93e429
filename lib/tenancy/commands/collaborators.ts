import "server-only";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db/client";
import { invitations, memberships, projectGrants, users } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf, type CommandContext } from "@/lib/auth/context";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { emailInput, futureInstant, projectRoleInput, uuidInput, versionInput } from "../inputs";
import { collaboratorExpiryProblem } from "../invitation-rules";
import { invitationPath, newInvitationToken } from "../invitation-token";
import { assertProjectOpen, assertTenantActive, projectBySlugs } from "../lookup";
import { onProject, projectAddress } from "../targets";
import { sendInvitationMail } from "./members";
import { enqueueProjectChange } from "@/lib/cluster/outbox";

const DAY = 86_400_000;

/** An expiry must be in the future and within ALLOT_MAX_COLLABORATOR_DAYS of now (collaboratorExpiryProblem). */
function checkCollaboratorExpiry(ctx: CommandContext, expiresAt: Date) {
  const problem = collaboratorExpiryProblem(expiresAt, ctx.now, config().maxCollaboratorDays);
  if (problem) throw new AppError("validation", undefined, { expiresAt: [problem] });
}

/**
 * Invite a person outside the tenant to one project, with a mandatory expiry.
 * The inviting admin is recorded as sponsor (granted_by) when they accept.
 */
export const inviteCollaborator = defineCommand({
  name: "inviteCollaborator",
  input: projectAddress.extend({ email: emailInput, role: projectRoleInput, expiresAt: futureInstant }),
  target: onProject("project.access.manage"),
  async run(ctx, input, { tenantId, projectId }) {
    checkCollaboratorExpiry(ctx, input.expiresAt);
    const { token, hash } = newInvitationToken();
    // The link itself expires sooner than the grant, or with it.
    const linkExpiresAt = new Date(Math.min(ctx.now.getTime() + config().invitationDays * DAY, input.expiresAt.getTime()));
    const created = await ctx.db.transaction(async (tx) => {
      const { tenant, project } = await projectBySlugs(tx, input.tenant, input.project);
      assertTenantActive(tenant);
      assertProjectOpen(project);
      const [member] = await tx
        .select({ id: memberships.id })
        .from(memberships)
        .innerJoin(users, eq(users.principalId, memberships.principalId))
        .where(and(eq(memberships.tenantId, tenantId), eq(users.email, input.email)));
      if (member) {
        throw new AppError("conflict", "This person is a member of the tenant: grant them a project role instead.", { email: ["Enter someone outside the tenant: this person is already a member."] });
      }
      const [row] = await tx
        .insert(invitations)
        .values({
          tenantId,
          projectId,
          email: input.email,
          projectRole: input.role,
          grantExpiresAt: input.expiresAt,
          tokenHash: hash,
          expiresAt: linkExpiresAt,
          invitedBy: ctx.actor.principalId,
          createdAt: ctx.now,
        })
        .returning();
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "collaborator.invited",
        target: { type: "invitation", id: row!.id },
        after: { email: input.email, projectId, role: input.role, grantExpiresAt: input.expiresAt, sponsor: ctx.actor.principalId },
      });
      return { id: row!.id, projectName: project.name };
    });
    const path = invitationPath(token);
    const mailed = await sendInvitationMail(input.email, `You are invited to the project ${created.projectName} on Allot`, path, linkExpiresAt);
    return { invitationId: created.id, email: input.email, role: input.role, grantExpiresAt: input.expiresAt, token, path, expiresAt: linkExpiresAt, mailed };
  },
});

async function grantOn(db: Database, projectId: string, grantId: string) {
  const [grant] = await db
    .select()
    .from(projectGrants)
    .where(and(eq(projectGrants.id, grantId), eq(projectGrants.projectId, projectId)));
  if (!grant) throw new AppError("not_found", "No such grant on this project.");
  return grant;
}

/** Move a collaborator's expiry (sooner or later, within the maximum). */
export const extendCollaborator = defineCommand({
  name: "extendCollaborator",
  input: projectAddress.extend({ grantId: uuidInput, expiresAt: futureInstant, version: versionInput }),
  target: onProject("project.access.manage"),
  async run(ctx, input, { tenantId, projectId }) {
    checkCollaboratorExpiry(ctx, input.expiresAt);
    return ctx.db.transaction(async (tx) => {
      const { tenant, project } = await projectBySlugs(tx, input.tenant, input.project);
      assertTenantActive(tenant);
      assertProjectOpen(project);
      const grant = await grantOn(tx, projectId, input.grantId);
      const [updated] = await tx
        .update(projectGrants)
        .set({ expiresAt: input.expiresAt, version: grant.version + 1 })
        .where(and(eq(projectGrants.id, grant.id), eq(projectGrants.version, input.version)))
        .returning();
      if (!updated) throw new AppError("conflict", "Someone changed this grant meanwhile. Reload and try again.");
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "project_grant.expiry_changed",
        target: { type: "project_grant", id: grant.id },
        before: { expiresAt: grant.expiresAt },
        after: { expiresAt: input.expiresAt },
      });
      await enqueueProjectChange(tx, { tenantId, projectId, reason: "collaborator expiry changed", at: ctx.now });
      return updated;
    });
  },
});
