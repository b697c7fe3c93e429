import "server-only";
import { and, eq } from "drizzle-orm";
import { memberships, projectGrants, serviceAccounts } from "@/db/schema";
import type { Database } from "@/db/client";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf, type CommandContext } from "@/lib/auth/context";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { futureInstant, projectGrantRoleInput, uuidInput } from "../inputs";
import { assertProjectOpen, assertTenantActive, projectBySlugs } from "../lookup";
import { onProject, projectAddress } from "../targets";
import { enqueueProjectChange } from "@/lib/cluster/outbox";
import { FUTURE_DATE } from "@/lib/input/messages";


/**
 * Give a tenant member or one of the tenant's service accounts a role on the
 * project (or change it). People outside the tenant are invited as
 * collaborators instead, so their access always expires.
 */
export const grantProjectRole = defineCommand({
  name: "grantProjectRole",
  input: projectAddress.extend({ principalId: uuidInput, role: projectGrantRoleInput, expiresAt: futureInstant.optional() }),
  target: onProject("project.access.manage"),
  async run(ctx, input, { tenantId, projectId }) {
    if (input.expiresAt && input.expiresAt.getTime() <= ctx.now.getTime()) {
      throw new AppError("validation", undefined, { expiresAt: [FUTURE_DATE] });
    }
    try {
      return await ctx.db.transaction(async (tx) => {
        const { tenant, project } = await projectBySlugs(tx, input.tenant, input.project);
        assertTenantActive(tenant);
        assertProjectOpen(project);
        return setProjectRoleWithin(tx, ctx, { tenantId, projectId }, input.principalId, input.role, input.expiresAt ?? null);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError("conflict", "This principal was granted a role meanwhile. Reload and try again.");
      throw error;
    }
  },
});

/**
 * Set a principal's role on a project (insert or replace), audited, with the
 * project's cluster change queued; inside the caller's transaction, which has
 * checked the tenant is active and the project open (the command above, and
 * minting a token with a role, lib/tenancy/commands/mint-token-with-role.ts).
 */
export async function setProjectRoleWithin(
  tx: Database,
  ctx: CommandContext,
  { tenantId, projectId }: { tenantId: string; projectId: string },
  principalId: string,
  role: "member" | "viewer" | "meter",
  expiresAt: Date | null,
) {
  const [[member], [account]] = await Promise.all([
    tx.select({ id: memberships.id }).from(memberships).where(and(eq(memberships.tenantId, tenantId), eq(memberships.principalId, principalId))),
    tx.select({ id: serviceAccounts.principalId }).from(serviceAccounts).where(and(eq(serviceAccounts.tenantId, tenantId), eq(serviceAccounts.principalId, principalId))),
  ]);
  if (!member && !account) {
    throw new AppError("validation", "Only members and service accounts of this tenant can be granted a role here; invite others as collaborators.", {
      principalId: ["Choose a member or service account of this tenant."],
    });
  }
  if (role === "meter" && !account) {
    throw new AppError("validation", "The meter role is for service accounts that push usage, not for people.", { role: ["Choose member or viewer: meter is for service accounts only."] });
  }
  const [existing] = await tx
    .select()
    .from(projectGrants)
    .where(and(eq(projectGrants.projectId, projectId), eq(projectGrants.principalId, principalId)));
  const values = { role, expiresAt };
  const [grant] = existing
    ? await tx
        .update(projectGrants)
        .set({ ...values, version: existing.version + 1 })
        .where(eq(projectGrants.id, existing.id))
        .returning()
    : await tx
        .insert(projectGrants)
        .values({ projectId, principalId, ...values, grantedBy: ctx.actor.principalId, createdAt: ctx.now })
        .returning();
  await recordAudit(tx, {
    actor: auditActorOf(ctx.actor),
    at: ctx.now,
    tenantId,
    action: existing ? "project_grant.changed" : "project_grant.created",
    target: { type: "project_grant", id: grant!.id },
    before: existing ? { role: existing.role, expiresAt: existing.expiresAt } : null,
    after: { projectId, principalId, ...values },
  });
  await enqueueProjectChange(tx, { tenantId, projectId, reason: existing ? "project role changed" : "project role granted", at: ctx.now });
  return grant!;
}

/** Remove a grant: a member's or service account's project role, or a collaborator's access. */
export const revokeProjectGrant = defineCommand({
  name: "revokeProjectGrant",
  input: projectAddress.extend({ grantId: uuidInput }),
  target: onProject("project.access.manage"),
  async run(ctx, input, { tenantId, projectId }) {
    return ctx.db.transaction(async (tx) => revokeGrantWithin(tx, { actor: auditActorOf(ctx.actor), now: ctx.now }, tenantId, projectId, input.grantId));
  },
});

/** The revocation itself, inside the caller's transaction (the command above, and an access review's decision). */
export async function revokeGrantWithin(tx: Database, by: { actor: AuditActor; now: Date }, tenantId: string, projectId: string, grantId: string) {
  const [removed] = await tx
    .delete(projectGrants)
    .where(and(eq(projectGrants.id, grantId), eq(projectGrants.projectId, projectId)))
    .returning();
  if (!removed) throw new AppError("not_found", "No such grant on this project.");
  await recordAudit(tx, {
    actor: by.actor,
    at: by.now,
    tenantId,
    action: "project_grant.revoked",
    target: { type: "project_grant", id: removed.id },
    before: { projectId, principalId: removed.principalId, role: removed.role, expiresAt: removed.expiresAt },
  });
  await enqueueProjectChange(tx, { tenantId, projectId, reason: "project role revoked", at: by.now });
  return { revoked: true };
}
