import "server-only";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db/client";
import { memberships, projectGrants, serviceAccounts } from "@/db/schema";
import type { AuditActor } from "@/lib/audit/record";
import { revokePlatformAdminWithin } from "@/lib/auth/platform-admins";
import { removeGroupMappingWithin } from "@/lib/groups/commands";
import { revokeTrustsWithin } from "@/lib/federation/revoke";
import { removeMembershipWithin } from "@/lib/tenancy/commands/members";
import { revokeGrantWithin } from "@/lib/tenancy/commands/project-access";
import { revokeTokenWithin } from "@/lib/tenancy/commands/service-accounts";
import { AppError } from "@/lib/errors";
import { CONFIGURED_BY_ENVIRONMENT, type ItemKind } from "./assign";

const isConfiguredByEnvironment = (detail: unknown) => typeof detail === "object" && detail !== null && (detail as { configuredBy?: unknown }).configuredBy === "environment";
import { liveTokens } from "./snapshot";

export type RevocableItem = { kind: ItemKind; subjectId: string; principalId: string | null; projectId: string | null; detail?: unknown };

/** The access was removed between the snapshot and the decision (by hand, by another item, by expiry). */
export const ALREADY_GONE = "the access was already gone";

/**
 * Take away what an item stands for, through the same functions the tenancy
 * commands use (membership removal, grant removal, token and federation
 * trust revocation), inside
 * the caller's transaction so it commits with the item's decision. Each of
 * them audits its own change as `by`. Returns a note when there was nothing
 * left to take; throws the AppError of a refusal (the last tenant admin, the
 * last platform admin).
 */
export async function revokeItemAccess(tx: Database, by: { actor: AuditActor; now: Date }, tenantId: string | null, item: RevocableItem): Promise<string | null> {
  switch (item.kind) {
    case "membership": {
      const [row] = await tx.select({ principalId: memberships.principalId }).from(memberships).where(and(eq(memberships.id, item.subjectId), tenantId ? eq(memberships.tenantId, tenantId) : undefined));
      if (!row || !tenantId) return ALREADY_GONE;
      await removeMembershipWithin(tx, by, tenantId, row.principalId);
      return null;
    }
    case "project_grant":
    case "collaborator": {
      const [row] = await tx.select({ projectId: projectGrants.projectId }).from(projectGrants).where(eq(projectGrants.id, item.subjectId));
      if (!row || !tenantId || row.projectId !== item.projectId) return ALREADY_GONE;
      await revokeGrantWithin(tx, by, tenantId, row.projectId, item.subjectId);
      return null;
    }
    case "service_account": {
      const [account] = await tx.select({ tenantId: serviceAccounts.tenantId }).from(serviceAccounts).where(eq(serviceAccounts.principalId, item.subjectId));
      if (!account || account.tenantId !== tenantId) return ALREADY_GONE;
      // Every trust in force and every token that works now, including ones made after the snapshot: the decision is about the account's access.
      const trusts = await revokeTrustsWithin(tx, by, tenantId, item.subjectId);
      const tokens = await liveTokens(tx, [item.subjectId], by.now);
      if (trusts.length === 0 && tokens.length === 0) return "no live tokens or trusts were left to revoke";
      for (const token of tokens) await revokeTokenWithin(tx, by, tenantId, token);
      return null;
    }
    case "group_mapping": {
      // Nobody here can take a person out of the identity provider's group: the mapping goes, for the whole group.
      if (!tenantId) return ALREADY_GONE;
      return (await removeGroupMappingWithin(tx, by, tenantId, item.subjectId)) ? null : ALREADY_GONE;
    }
    case "platform_admin":
      // The environment grants it on every request: deleting nothing here and calling it revoked would be a lie.
      if (isConfiguredByEnvironment(item.detail)) throw new AppError("conflict", `Platform admin ${CONFIGURED_BY_ENVIRONMENT} (ALLOT_PLATFORM_ADMINS); the portal cannot revoke it.`);
      return (await revokePlatformAdminWithin(tx, by, item.subjectId)) ? null : ALREADY_GONE;
  }
}
