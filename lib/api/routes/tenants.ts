import "server-only";
import { asc, inArray } from "drizzle-orm";
import { z } from "zod";
import { tenants } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { can, rolesOn } from "@/lib/auth/policy";
import { AppError } from "@/lib/errors";
import { createTenant } from "@/lib/tenancy/commands/create-tenant";
import { setTenantStatus } from "@/lib/tenancy/commands/set-tenant-status";
import { tenantBySlug } from "@/lib/tenancy/lookup";
import { visibleTenantIds } from "@/lib/tenancy/member-queries";
import { tenantParams } from "../params";
import { apiRoute, commandInput } from "../route";
import { roleList, tenantOut } from "../schemas";

const tenantWithRoles = tenantOut.extend({ roles: roleList });

export const listTenants = apiRoute({
  method: "GET",
  path: "/api/v1/tenants",
  summary: "Tenants the caller reaches (all of them for a platform admin)",
  tag: "Tenants",
  params: z.object({}),
  response: z.object({ tenants: z.array(tenantWithRoles) }),
  async handler(ctx) {
    const ids = visibleTenantIds(ctx);
    if (ids !== "all" && ids.length === 0) return { tenants: [] };
    const rows = await ctx.db
      .select()
      .from(tenants)
      .where(ids === "all" ? undefined : inArray(tenants.id, ids))
      .orderBy(asc(tenants.slug));
    return { tenants: rows.map((t) => ({ ...t, roles: rolesOn(ctx.actor, { kind: "tenant", tenantId: t.id }, ctx.now) })) };
  },
});

export const createTenantRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants",
  summary: "Create a tenant with its first tenant admins (platform admins)",
  tag: "Tenants",
  params: z.object({}),
  body: createTenant.input,
  response: tenantOut,
  status: 201,
  handler: (ctx, { body }) => executeCommand(createTenant, ctx, body),
});

export const getTenant = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}",
  summary: "One tenant",
  tag: "Tenants",
  params: tenantParams,
  response: tenantWithRoles,
  async handler(ctx, { params }) {
    const tenant = await tenantBySlug(ctx.db, params.tenant);
    if (!can(ctx.actor, "tenant.view", { kind: "tenant", tenantId: tenant.id }, ctx.now)) throw new AppError("not_found");
    return { ...tenant, roles: rolesOn(ctx.actor, { kind: "tenant", tenantId: tenant.id }, ctx.now) };
  },
});

export const updateTenantStatus = apiRoute({
  method: "PATCH",
  path: "/api/v1/tenants/{tenant}",
  summary: "Disable or re-enable a tenant (platform admins); nothing is deleted",
  tag: "Tenants",
  params: tenantParams,
  body: setTenantStatus.input,
  bodyFromPath: ["tenant"],
  response: tenantOut,
  handler: (ctx, { params, body }) => executeCommand(setTenantStatus, ctx, commandInput(body, params)),
});
