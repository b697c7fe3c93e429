import "server-only";
import { z } from "zod";
import type { CommandContext } from "@/lib/auth/context";
import type { Action } from "@/lib/auth/policy";
import { projectBySlugs, tenantBySlug } from "./lookup";
import { projectSlug, tenantSlug } from "./slugs";

/**
 * The `target` step shared by tenancy commands: find the tenant or project
 * named in the input by slug, and name the action on it. The ids the policy
 * sees come from these rows.
 */
export const tenantAddress = z.object({ tenant: tenantSlug });
export const projectAddress = z.object({ tenant: tenantSlug, project: projectSlug });

export function onTenant(action: Action) {
  return async (ctx: CommandContext, input: { tenant: string }) => {
    const tenant = await tenantBySlug(ctx.db, input.tenant);
    return { action, resource: { kind: "tenant" as const, tenantId: tenant.id } };
  };
}

export function onProject(action: Action) {
  return async (ctx: CommandContext, input: { tenant: string; project: string }) => {
    const { tenant, project } = await projectBySlugs(ctx.db, input.tenant, input.project);
    return { action, resource: { kind: "project" as const, tenantId: tenant.id, projectId: project.id } };
  };
}
