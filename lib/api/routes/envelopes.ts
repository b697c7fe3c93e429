import "server-only";
import { z } from "zod";
import { executeCommand } from "@/lib/auth/command";
import { moveQuota, setTenantEnvelope } from "@/lib/quota/commands/envelopes";
import { setProjectSharing } from "@/lib/quota/commands/sharing";
import { tenantEnvelopeView } from "@/lib/quota/envelope-queries";
import { projectParams, tenantParams } from "../params";
import { apiRoute, commandInput } from "../route";

/**
 * A tenant's quota envelope over REST: readers of the tenant see it and how
 * it is divided; platform admins set a line; tenant admins move guaranteed
 * quota between the tenant's projects (or to and from what is unallocated)
 * without a ticket. Amounts are in each line's unit: whole GPUs, cores,
 * bytes for memory.
 */
const TAG = "Quota envelopes";

const envelopeRowOut = z.object({
  quota: z.string().describe('The line: "cpu", "memory" or "gpu:<model>"'),
  flavor: z.string().describe('"default" for CPU and memory, else the GPU model'),
  resource: z.string().describe("cpu, memory, or the GPU's extended resource name"),
  guarantee: z.number().describe("What the platform approved for the whole tenant (cores, bytes or devices)"),
  burst: z.number().describe("What the tenant's projects may borrow beyond it in all"),
  allocated: z.number().describe("The sum of the projects' granted guarantees in force"),
  unallocated: z.number().describe("guarantee − allocated: what the tenant admins can still give a project"),
  byProject: z.array(z.object({ project: z.string(), guarantee: z.number(), burst: z.number() })),
});
const envelopeOut = z.object({ lines: z.array(envelopeRowOut) });

async function envelopeOf(ctx: Parameters<typeof tenantEnvelopeView>[0], tenant: string) {
  const view = await tenantEnvelopeView(ctx, tenant);
  return {
    lines: view.rows.map((r) => ({
      quota: r.key,
      flavor: r.line.flavor,
      resource: r.line.resource,
      guarantee: r.line.guarantee,
      burst: r.line.burst,
      allocated: r.allocated,
      unallocated: r.unallocated,
      byProject: r.byProject.map((p) => ({ project: p.slug, guarantee: p.guarantee, burst: p.burst })),
    })),
  };
}

export const getTenantEnvelope = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/quota-envelope",
  summary: "The tenant's quota envelope per line and how it is divided among its projects",
  tag: TAG,
  params: tenantParams,
  response: envelopeOut,
  handler: (ctx, { params }) => envelopeOf(ctx, params.tenant),
});

export const setTenantEnvelopeRoute = apiRoute({
  method: "PUT",
  path: "/api/v1/tenants/{tenant}/quota-envelope",
  summary: "Set one line of the tenant's envelope (platform admins); it cannot go below what the projects hold; 0 and 0 removes the line",
  tag: TAG,
  params: tenantParams,
  body: setTenantEnvelope.input,
  bodyFromPath: ["tenant"],
  response: envelopeOut,
  async handler(ctx, { params, body }) {
    await executeCommand(setTenantEnvelope, ctx, commandInput(body, params));
    return envelopeOf(ctx, params.tenant);
  },
});

export const moveQuotaRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/quota-moves",
  summary: "Move guaranteed quota between two projects of the tenant, or to and from the envelope's unallocated part (tenant admins); applied at once",
  description: "Leave `from` out to give from what is unallocated, `to` out to give back to it. A project gives only what it holds permanently.",
  tag: TAG,
  params: tenantParams,
  body: moveQuota.input,
  bodyFromPath: ["tenant"],
  response: z.object({ transferId: z.string(), quota: z.string(), amount: z.number(), from: z.string().nullable(), to: z.string().nullable() }),
  status: 201,
  handler: (ctx, { params, body }) => executeCommand(moveQuota, ctx, commandInput(body, params)),
});

export const setProjectSharingRoute = apiRoute({
  method: "PUT",
  path: "/api/v1/tenants/{tenant}/projects/{project}/quota-sharing",
  summary: "Set how a project shares with its cohort (tenant admins, with Kueue): its fair-share weight, and a line's lend limit (empty lendLimit: all of the guarantee may be lent)",
  tag: TAG,
  params: projectParams,
  body: setProjectSharing.input,
  bodyFromPath: ["tenant", "project"],
  response: z.object({ project: z.string(), fairShareWeight: z.number().optional(), quota: z.string().optional(), lendLimit: z.number().nullable().optional() }),
  handler: (ctx, { params, body }) => executeCommand(setProjectSharing, ctx, commandInput(body, params)),
});
