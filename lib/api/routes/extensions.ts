import "server-only";
import { z } from "zod";
import { executeCommand } from "@/lib/auth/command";
import { can } from "@/lib/auth/policy";
import { AppError } from "@/lib/errors";
import { declineExtension, grantExtension } from "@/lib/tenancy/commands/extensions";
import { pendingExtensionRequests } from "@/lib/tenancy/extension-queries";
import { tenantBySlug } from "@/lib/tenancy/lookup";
import { tenantParams } from "../params";
import { apiRoute, commandInput } from "../route";
import { extensionRequestOut } from "../schemas";

/**
 * Access extension requests (lib/tenancy/commands/extensions.ts), the sponsor's
 * side: list the pending ones and grant or decline each. Asking for an
 * extension is not offered here: only a person may ask (project.extension.request
 * is for users only), and API tokens belong to service accounts.
 */

const requestParams = z.object({ id: z.string() });

export const listExtensionRequests = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/extension-requests",
  summary: "Pending requests to keep a time-bound project access longer, oldest first (tenant admins, who decide them)",
  tag: "Collaborators",
  params: tenantParams,
  response: z.object({ requests: z.array(extensionRequestOut) }),
  async handler(ctx, { params }) {
    const tenant = await tenantBySlug(ctx.db, params.tenant);
    const resource = { kind: "tenant" as const, tenantId: tenant.id };
    // The deciders are the tenant's admins (project.extension.decide); anyone else who sees the tenant is refused rather than shown an empty list.
    if (!can(ctx.actor, "tenant.members.manage", resource, ctx.now)) throw new AppError(can(ctx.actor, "tenant.view", resource, ctx.now) ? "forbidden" : "not_found");
    return { requests: await pendingExtensionRequests(ctx, tenant.slug) };
  },
});

export const grantExtensionRoute = apiRoute({
  method: "POST",
  path: "/api/v1/extension-requests/{id}/grant",
  summary: "Grant an extension request: the access then ends at the date asked for, or at an earlier `until`, within the maximum term",
  tag: "Collaborators",
  params: requestParams,
  body: grantExtension.input,
  bodyFromPath: ["requestId"],
  response: z.object({ grantId: z.string(), expiresAt: z.string().nullable().describe("ISO 8601 date-time, UTC: the access's new end") }),
  handler: (ctx, { params, body }) => executeCommand(grantExtension, ctx, commandInput(body, { requestId: params.id })),
});

export const declineExtensionRoute = apiRoute({
  method: "POST",
  path: "/api/v1/extension-requests/{id}/decline",
  summary: "Decline an extension request, with an optional note to the requester; the access keeps its end",
  tag: "Collaborators",
  params: requestParams,
  body: declineExtension.input,
  bodyFromPath: ["requestId"],
  response: z.object({ requestId: z.string() }),
  handler: (ctx, { params, body }) => executeCommand(declineExtension, ctx, commandInput(body, { requestId: params.id })),
});
