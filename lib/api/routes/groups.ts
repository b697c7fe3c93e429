import "server-only";
import { z } from "zod";
import { executeCommand } from "@/lib/auth/command";
import { AppError } from "@/lib/errors";
import { mapGroup, unmapGroup } from "@/lib/groups/commands";
import { tenantGroupMappings } from "@/lib/groups/queries";
import { tenantBySlug } from "@/lib/tenancy/lookup";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { tenantParams } from "../params";
import { apiRoute, commandInput } from "../route";
import { groupMappingOut, okOut } from "../schemas";

/** IdP group mappings of a tenant (lib/groups): tenant and platform admins, policy action tenant.groups.manage. */

/** The tenant's mappings; refused as the commands refuse: 404 to whoever cannot see the tenant, 403 to the others. */
async function mappingsOf(ctx: CommandContext, tenantSlug: string) {
  const tenant = await tenantBySlug(ctx.db, tenantSlug);
  const mappings = await tenantGroupMappings(ctx, tenant);
  if (mappings === null) throw new AppError(can(ctx.actor, "tenant.view", { kind: "tenant", tenantId: tenant.id }, ctx.now) ? "forbidden" : "not_found");
  return mappings;
}

export const listGroupMappings = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/group-mappings",
  summary: "IdP groups mapped to roles in the tenant or on its projects, with how many people hold each role through them (tenant admins)",
  tag: "Groups",
  params: tenantParams,
  response: z.object({ mappings: z.array(groupMappingOut) }),
  handler: async (ctx, { params }) => ({ mappings: await mappingsOf(ctx, params.tenant) }),
});

export const createGroupMapping = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/group-mappings",
  summary: "Give an IdP group a role in the whole tenant (project omitted) or on one project (member or viewer); its members hold it from their next request",
  tag: "Groups",
  params: tenantParams,
  body: mapGroup.input,
  bodyFromPath: ["tenant"],
  response: groupMappingOut,
  status: 201,
  async handler(ctx, { params, body }) {
    const created = await executeCommand(mapGroup, ctx, commandInput(body, params));
    const mapping = (await mappingsOf(ctx, params.tenant)).find((m) => m.id === created.id);
    if (!mapping) throw new AppError("not_found");
    return mapping;
  },
});

export const deleteGroupMapping = apiRoute({
  method: "DELETE",
  path: "/api/v1/tenants/{tenant}/group-mappings/{mappingId}",
  summary: "Remove a group mapping: its members lose the role at once (direct grants stay)",
  tag: "Groups",
  params: tenantParams.extend({ mappingId: z.string() }),
  response: okOut,
  async handler(ctx, { params }) {
    await executeCommand(unmapGroup, ctx, params);
    return { ok: true };
  },
});
