import "server-only";
import { z } from "zod";
import { executeCommand } from "@/lib/auth/command";
import { rolesOn } from "@/lib/auth/policy";
import { AppError } from "@/lib/errors";
import { toCsv } from "@/lib/csv";
import { createProject } from "@/lib/tenancy/commands/create-project";
import { grantProjectRole, revokeProjectGrant } from "@/lib/tenancy/commands/project-access";
import { archiveProject, updateProject } from "@/lib/tenancy/commands/projects";
import { visibleProjects } from "@/lib/tenancy/member-queries";
import { projectDetail } from "@/lib/tenancy/queries";
import { ACCESS_CSV_COLUMNS } from "@/lib/tenancy/access-csv";
import { projectParams, tenantParams } from "../params";
import { apiRoute, commandInput } from "../route";
import { accessEntryOut, grantOut, okOut, projectOut, roleList } from "../schemas";

const projectWithRoles = projectOut.extend({ roles: roleList });

export const listProjects = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/projects",
  summary: "Projects of a tenant that the caller can open",
  tag: "Projects",
  params: tenantParams,
  response: z.object({ projects: z.array(projectWithRoles) }),
  async handler(ctx, { params }) {
    const { tenant, projects } = await visibleProjects(ctx, params.tenant);
    return { projects: projects.map((p) => ({ ...p, roles: rolesOn(ctx.actor, { kind: "project", tenantId: tenant.id, projectId: p.id }, ctx.now) })) };
  },
});

export const createProjectRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/projects",
  summary: "Create a project (tenant admins); its slug fixes the namespace name",
  tag: "Projects",
  params: tenantParams,
  body: createProject.input,
  bodyFromPath: ["tenant"],
  response: projectOut,
  status: 201,
  handler: (ctx, { params, body }) => executeCommand(createProject, ctx, commandInput(body, params)),
});

async function detailOrNotFound(ctx: Parameters<typeof projectDetail>[0], params: { tenant: string; project: string }) {
  const detail = await projectDetail(ctx, params.tenant, params.project);
  if (!detail) throw new AppError("not_found");
  return detail;
}

export const getProject = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/projects/{project}",
  summary: "One project",
  tag: "Projects",
  params: projectParams,
  response: projectWithRoles,
  async handler(ctx, { params }) {
    const detail = await detailOrNotFound(ctx, params);
    return { ...detail.project, roles: detail.roles };
  },
});

export const updateProjectRoute = apiRoute({
  method: "PATCH",
  path: "/api/v1/tenants/{tenant}/projects/{project}",
  summary: "Rename or re-describe a project (quote its version)",
  tag: "Projects",
  params: projectParams,
  body: updateProject.input,
  bodyFromPath: ["tenant", "project"],
  response: projectOut,
  handler: (ctx, { params, body }) => executeCommand(updateProject, ctx, commandInput(body, params)),
});

export const archiveProjectRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/projects/{project}/archive",
  summary: "Archive a project: readable, but no further changes or access",
  tag: "Projects",
  params: projectParams,
  response: projectOut,
  handler: (ctx, { params }) => executeCommand(archiveProject, ctx, params),
});

export const projectAccess = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/projects/{project}/access",
  summary: "Who has access to the project, how, with which role and until when (?format=csv for CSV)",
  tag: "Projects",
  params: projectParams,
  csv: true,
  response: z.object({ access: z.array(accessEntryOut) }),
  async handler(ctx, { params, format }) {
    const detail = await detailOrNotFound(ctx, params);
    if (format === "csv") return { csv: toCsv(detail.access, ACCESS_CSV_COLUMNS), filename: `${detail.project.namespace}-access.csv` };
    return { access: detail.access };
  },
});

export const grantProjectRoleRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/projects/{project}/grants",
  summary: "Give a tenant member or service account a role on the project (or change it)",
  tag: "Projects",
  params: projectParams,
  body: grantProjectRole.input,
  bodyFromPath: ["tenant", "project"],
  response: grantOut,
  status: 201,
  handler: (ctx, { params, body }) => executeCommand(grantProjectRole, ctx, commandInput(body, params)),
});

export const revokeProjectGrantRoute = apiRoute({
  method: "DELETE",
  path: "/api/v1/tenants/{tenant}/projects/{project}/grants/{grantId}",
  summary: "Remove a project grant (member, service account or collaborator)",
  tag: "Projects",
  params: projectParams.extend({ grantId: z.string() }),
  response: okOut,
  async handler(ctx, { params }) {
    await executeCommand(revokeProjectGrant, ctx, params);
    return { ok: true };
  },
});
