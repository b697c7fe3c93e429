import "server-only";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { groupMappings, projects } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { enqueueProjectChange, enqueueTenantChange } from "@/lib/cluster/outbox";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { tenantRoleInput, uuidInput } from "@/lib/tenancy/inputs";
import { assertProjectOpen, assertTenantActive, tenantBySlug } from "@/lib/tenancy/lookup";
import { projectSlug } from "@/lib/tenancy/slugs";
import { onTenant, tenantAddress } from "@/lib/tenancy/targets";
import { groupKey, groupNameInput } from "./group-key";

/**
 * Group mappings: an identity provider's group gets a role in the tenant or
 * on one of its projects. Tenant admins manage their tenant's, platform admins
 * any tenant's (policy action tenant.groups.manage). Whoever is in the group
 * holds the role from their next request (lib/groups/derived.ts), and the
 * group is bound on the cluster in the same transaction.
 */

/** A mapping is a RoleBinding of the group on the cluster (lib/cluster/desired-from-db.ts): the project's, or every project's for a tenant mapping. */
async function enqueueMappingChange(tx: Database, e: { tenantId: string; projectId: string | null; reason: string; at: Date }) {
  if (e.projectId === null) await enqueueTenantChange(tx, { tenantId: e.tenantId, reason: e.reason, at: e.at });
  else await enqueueProjectChange(tx, { tenantId: e.tenantId, projectId: e.projectId, reason: e.reason, at: e.at });
}

const mappingInput = tenantAddress
  .extend({
    group: groupNameInput,
    // A form's "whole tenant" option sends an empty string.
    project: z.union([z.literal("").transform(() => null), projectSlug]).nullish().transform((p) => p ?? null),
    role: tenantRoleInput,
  })
  .superRefine((input, issue) => {
    // A project role is member or viewer; administering is the tenant's role, given in the whole tenant.
    if (input.project !== null && input.role === "tenant_admin") {
      issue.addIssue({ code: "custom", path: ["role"], message: "Choose member or viewer for a project: tenant admin applies to the whole tenant." });
    }
  });

export const mapGroup = defineCommand({
  name: "mapGroup",
  input: mappingInput,
  target: onTenant("tenant.groups.manage"),
  async run(ctx, input, { tenantId }) {
    try {
      return await ctx.db.transaction(async (tx) => {
        assertTenantActive(await tenantBySlug(tx, input.tenant));
        let projectId: string | null = null;
        if (input.project !== null) {
          // The project is looked up inside the tenant acted on: another tenant's slug is simply not found here.
          const [project] = await tx.select().from(projects).where(and(eq(projects.tenantId, tenantId), eq(projects.slug, input.project)));
          if (!project) throw new AppError("validation", undefined, { project: ["Choose a project of this tenant."] });
          assertProjectOpen(project);
          projectId = project.id;
        }
        const role = input.project === null ? { tenantRole: input.role, projectRole: null } : { tenantRole: null, projectRole: input.role as "member" | "viewer" };
        const [row] = await tx
          .insert(groupMappings)
          .values({ tenantId, projectId, groupName: input.group, groupKey: groupKey(input.group), ...role, createdBy: ctx.actor.principalId, createdAt: ctx.now })
          .returning();
        await recordAudit(tx, {
          actor: auditActorOf(ctx.actor),
          at: ctx.now,
          tenantId,
          action: "group_mapping.created",
          target: { type: "group_mapping", id: row!.id },
          after: { group: input.group, projectId, project: input.project, role: input.role },
        });
        await enqueueMappingChange(tx, { tenantId, projectId, reason: "group mapping added", at: ctx.now });
        return row!;
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new AppError("conflict", `The group ${input.group} already has a role ${input.project === null ? "in this tenant" : "on this project"}; remove that mapping first to change it.`, {
          group: ["Choose another group: this one is already mapped here."],
        });
      }
      throw error;
    }
  },
});

/**
 * Remove one mapping of a tenant inside the caller's transaction, audited as
 * `by`, and unbind it on the cluster; null when it is not there (any more).
 * Shared with access reviews, whose revocation of a group's item is this.
 */
export async function removeGroupMappingWithin(tx: Database, by: { actor: AuditActor; now: Date }, tenantId: string, mappingId: string) {
  // The tenant in the WHERE clause: another tenant's mapping id is not found here.
  const [removed] = await tx
    .delete(groupMappings)
    .where(and(eq(groupMappings.id, mappingId), eq(groupMappings.tenantId, tenantId)))
    .returning();
  if (!removed) return null;
  await recordAudit(tx, {
    actor: by.actor,
    at: by.now,
    tenantId,
    action: "group_mapping.deleted",
    target: { type: "group_mapping", id: removed.id },
    before: { group: removed.groupName, projectId: removed.projectId, role: removed.tenantRole ?? removed.projectRole },
  });
  await enqueueMappingChange(tx, { tenantId, projectId: removed.projectId, reason: "group mapping removed", at: by.now });
  return removed;
}

export const unmapGroup = defineCommand({
  name: "unmapGroup",
  input: tenantAddress.extend({ mappingId: uuidInput }),
  target: onTenant("tenant.groups.manage"),
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      const removed = await removeGroupMappingWithin(tx, { actor: auditActorOf(ctx.actor), now: ctx.now }, tenantId, input.mappingId);
      if (!removed) throw new AppError("not_found", "No such group mapping in this tenant.");
      return { removed: true };
    });
  },
});
