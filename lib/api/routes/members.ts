import "server-only";
import { z } from "zod";
import { executeCommand } from "@/lib/auth/command";
import { changeMemberRole, inviteMember, removeMember, revokeInvitation } from "@/lib/tenancy/commands/members";
import { AppError } from "@/lib/errors";
import { openInvitations } from "@/lib/tenancy/member-queries";
import { tenantDetail } from "@/lib/tenancy/queries";
import { tenantParams } from "../params";
import { apiRoute, commandInput } from "../route";
import { invitationOut, memberOut, okOut } from "../schemas";

const memberParams = tenantParams.extend({ principalId: z.string() });

export const listMembers = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/members",
  summary: "Members of the tenant and their roles",
  tag: "Members",
  params: tenantParams,
  response: z.object({ members: z.array(memberOut) }),
  async handler(ctx, { params }) {
    const detail = await tenantDetail(ctx, params.tenant);
    if (!detail) throw new AppError("not_found");
    return { members: detail.members };
  },
});

export const inviteMemberRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/invitations",
  summary: "Invite a person to the tenant; returns the single-use link to pass on (mailed when SMTP is configured)",
  tag: "Members",
  params: tenantParams,
  body: inviteMember.input,
  bodyFromPath: ["tenant"],
  response: invitationOut,
  status: 201,
  handler: (ctx, { params, body }) => executeCommand(inviteMember, ctx, commandInput(body, params)),
});

export const listInvitations = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/invitations",
  summary: "Open invitations of the tenant (tenant admins)",
  tag: "Members",
  params: tenantParams,
  response: z.object({
    invitations: z.array(
      z.object({
        id: z.string(),
        email: z.string(),
        tenantRole: z.string().nullable(),
        projectRole: z.string().nullable(),
        projectName: z.string().nullable(),
        grantExpiresAt: z.string().nullable(),
        expiresAt: z.string(),
        invitedBy: z.string().nullable(),
      }),
    ),
  }),
  handler: async (ctx, { params }) => ({ invitations: await openInvitations(ctx, params.tenant) }),
});

export const revokeInvitationRoute = apiRoute({
  method: "DELETE",
  path: "/api/v1/tenants/{tenant}/invitations/{invitationId}",
  summary: "Withdraw an open invitation",
  tag: "Members",
  params: tenantParams.extend({ invitationId: z.string() }),
  response: okOut,
  async handler(ctx, { params }) {
    await executeCommand(revokeInvitation, ctx, params);
    return { ok: true };
  },
});

export const changeMemberRoleRoute = apiRoute({
  method: "PATCH",
  path: "/api/v1/tenants/{tenant}/members/{principalId}",
  summary: "Change a member's role (quote the version you read; 409 if it changed meanwhile)",
  tag: "Members",
  params: memberParams,
  body: changeMemberRole.input,
  bodyFromPath: ["tenant", "principalId"],
  response: z.object({ role: z.enum(["tenant_admin", "member", "viewer"]), version: z.number().int() }),
  handler: (ctx, { params, body }) => executeCommand(changeMemberRole, ctx, commandInput(body, params)),
});

export const removeMemberRoute = apiRoute({
  method: "DELETE",
  path: "/api/v1/tenants/{tenant}/members/{principalId}",
  summary: "Remove a member and their project grants in this tenant (the last tenant admin cannot be removed)",
  tag: "Members",
  params: memberParams,
  response: okOut,
  async handler(ctx, { params }) {
    await executeCommand(removeMember, ctx, params);
    return { ok: true };
  },
});
