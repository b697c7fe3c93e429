import "server-only";
import { z } from "zod";
import { executeCommand } from "@/lib/auth/command";
import { extendCollaborator, inviteCollaborator } from "@/lib/tenancy/commands/collaborators";
import { revokeProjectGrant } from "@/lib/tenancy/commands/project-access";
import { tenantCollaborators } from "@/lib/tenancy/member-queries";
import { projectParams, tenantParams } from "../params";
import { apiRoute, commandInput } from "../route";
import { collaboratorOut, grantOut, invitationOut, okOut } from "../schemas";

const grantParams = projectParams.extend({ grantId: z.string() });

export const listCollaborators = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/collaborators",
  summary: "External collaborators of the tenant's projects, with sponsor and expiry (tenant admins)",
  tag: "Collaborators",
  params: tenantParams,
  response: z.object({ collaborators: z.array(collaboratorOut) }),
  handler: async (ctx, { params }) => ({ collaborators: (await tenantCollaborators(ctx, params.tenant)).collaborators }),
});

export const inviteCollaboratorRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/projects/{project}/collaborators",
  summary: "Invite a person outside the tenant to this one project, with a mandatory expiry",
  tag: "Collaborators",
  params: projectParams,
  body: inviteCollaborator.input,
  bodyFromPath: ["tenant", "project"],
  response: invitationOut,
  status: 201,
  handler: (ctx, { params, body }) => executeCommand(inviteCollaborator, ctx, commandInput(body, params)),
});

export const extendCollaboratorRoute = apiRoute({
  method: "PATCH",
  path: "/api/v1/tenants/{tenant}/projects/{project}/collaborators/{grantId}",
  summary: "Change a collaborator's expiry (within the maximum)",
  tag: "Collaborators",
  params: grantParams,
  body: extendCollaborator.input,
  bodyFromPath: ["tenant", "project", "grantId"],
  response: grantOut,
  handler: (ctx, { params, body }) => executeCommand(extendCollaborator, ctx, commandInput(body, params)),
});

export const revokeCollaboratorRoute = apiRoute({
  method: "DELETE",
  path: "/api/v1/tenants/{tenant}/projects/{project}/collaborators/{grantId}",
  summary: "Revoke a collaborator's access now",
  tag: "Collaborators",
  params: grantParams,
  response: okOut,
  async handler(ctx, { params }) {
    await executeCommand(revokeProjectGrant, ctx, params);
    return { ok: true };
  },
});
