import "server-only";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { tenantRequests, tenants } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { decisionConflict } from "@/lib/auth/policy";
import { enqueueProjectChange } from "@/lib/cluster/outbox";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { notify, platformAdminIds } from "@/lib/notify/in-app";
import { insertProject } from "@/lib/tenancy/commands/create-project";
import { createTenantInput, insertTenant } from "@/lib/tenancy/commands/create-tenant";
import { nameInput, uuidInput, versionInput } from "@/lib/tenancy/inputs";
import { projectSlug } from "@/lib/tenancy/slugs";
import { amountFields, readAmounts, withGpuRows } from "../amount-inputs";
import { gpuRowLabel, isEmpty } from "../amounts";
import { insertGrant } from "../grant-store";
import { linesOfAmounts } from "../lines";
import { gpuResourcesByModel } from "../pool-profiles";
import { loadPools } from "../store";
import { tenantQuotaColumn, tenantQuotaOf } from "../request-amounts";
import { FILL_IN, NO_POOL_OFFERS, TELL_REQUESTER_WHY, atMostChars } from "@/lib/input/messages";

const onPlatform = (action: "tenant_request.create" | "tenant_request.decide") => () => Promise.resolve({ action, resource: { kind: "platform" as const } });

const noBurst = z.undefined({ message: "Leave burst out for a new tenant: ask for it on its project once it exists." }).optional();

/**
 * Onboarding by request: anyone signed in asks for a tenant with its first
 * admins, first project and that project's quota. It waits in the approval
 * queue; approving it creates everything in one transaction and reconciles it.
 */
export const requestTenant = defineCommand({
  name: "requestTenant",
  input: withGpuRows(createTenantInput.extend({
    projectName: nameInput,
    projectSlug,
    // A new tenant starts with guarantees only: burst is a project's request once its queues exist.
    ...amountFields,
    gpuBurst: noBurst,
    cpuBurst: noBurst,
    memoryBurst: noBurst,
    justification: z.string({ message: FILL_IN }).trim().min(10, "Say in a sentence what the team will do, at least 10 characters.").max(2000, atMostChars(2000)),
  })),
  target: onPlatform("tenant_request.create"),
  async run(ctx, input) {
    // Burst is refused above for the shorthand; a row of the list may carry it too.
    const burstRow = (input.gpus ?? []).findIndex((g) => g.burst > 0);
    if (burstRow >= 0) throw new AppError("validation", undefined, { [`gpus.${burstRow}.burst`]: [`${gpuRowLabel(burstRow)}: leave burst out for a new tenant: ask for it on its project once it exists.`] });
    const { amounts: quota, problems, modelField } = readAmounts(input, { burstAllowed: false });
    // The starting quota alone is a valid first project: only the problems of the GPU rows count here.
    const rowProblems = problems && Object.fromEntries(Object.entries(problems).filter(([k]) => k !== "_form"));
    if (rowProblems && Object.keys(rowProblems).length > 0) throw new AppError("validation", undefined, rowProblems);
    const firstAdmins = input.firstAdmins.length > 0 ? input.firstAdmins : ctx.actor.email ? [ctx.actor.email] : [];
    if (firstAdmins.length === 0) throw new AppError("validation", undefined, { firstAdmins: ["Enter the email of at least one first tenant admin."] });
    return ctx.db.transaction(async (tx) => {
      const [taken] = await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, input.slug));
      const [asked] = await tx.select({ id: tenantRequests.id }).from(tenantRequests).where(and(eq(tenantRequests.slug, input.slug), eq(tenantRequests.status, "pending")));
      if (taken || asked) throw new AppError("validation", undefined, { slug: [taken ? "Choose another slug: this one is taken." : "Choose another slug: a pending request already asks for this one."] });
      // A mixed MIG pool's further profiles are models of their own.
      const offered = quota.gpus.length > 0 ? gpuResourcesByModel(await loadPools(tx)) : new Map<string, string>();
      const unknown = quota.gpus.find((g) => !offered.has(g.model));
      if (unknown) throw new AppError("validation", undefined, { [modelField(unknown.model)]: [NO_POOL_OFFERS] });
      const [row] = await tx
        .insert(tenantRequests)
        .values({
          requestedBy: ctx.actor.principalId,
          name: input.name,
          slug: input.slug,
          costCentre: input.costCentre,
          isolationTier: input.isolationTier,
          firstAdmins,
          projectName: input.projectName,
          projectSlug: input.projectSlug,
          quota: tenantQuotaColumn(quota),
          justification: input.justification,
          createdAt: ctx.now,
        })
        .returning();
      await recordAudit(tx, { actor: auditActorOf(ctx.actor), at: ctx.now, tenantId: null, action: "tenant_request.created", target: { type: "tenant_request", id: row!.id }, after: { name: input.name, slug: input.slug } });
      await notify(tx, await platformAdminIds(tx), { kind: "tenant_request.created", title: `New tenant requested: ${input.name}`, link: "/admin/requests" }, ctx.now);
      return row!;
    });
  },
});

async function lockPending(tx: Database, id: string, version: number) {
  const [row] = await tx.select().from(tenantRequests).where(eq(tenantRequests.id, id)).for("update");
  if (!row) throw new AppError("not_found", "No such tenant request.");
  if (row.status !== "pending") throw new AppError("conflict", `This tenant request was already decided (${row.status}). Reload to see the decision.`);
  if (row.version !== version) throw new AppError("conflict", "This tenant request changed since you opened it. Reload and decide again.");
  return row;
}

export const approveTenantRequest = defineCommand({
  name: "approveTenantRequest",
  input: z.object({ requestId: uuidInput, version: versionInput }),
  target: onPlatform("tenant_request.decide"),
  async run(ctx, input) {
    try {
      return await ctx.db.transaction(async (tx) => {
        const r = await lockPending(tx, input.requestId, input.version);
        // Separation of duties, decided by the policy; the tenant does not exist yet.
        const conflict = decisionConflict(ctx.actor, { requestedBy: r.requestedBy, tenantId: null }, ctx.now);
        if (conflict) throw new AppError("forbidden", conflict);
        const actor = auditActorOf(ctx.actor);
        const tenant = await insertTenant(
          tx,
          { name: r.name, slug: r.slug, costCentre: r.costCentre, isolationTier: r.isolationTier === "dedicated" ? "dedicated" : "shared", firstAdmins: r.firstAdmins },
          actor,
          ctx.now,
        );
        const project = await insertProject(tx, tenant, { slug: r.projectSlug, name: r.projectName, description: "" }, actor, ctx.now);
        const quota = tenantQuotaOf(r.quota);
        if (!isEmpty(quota)) {
          const offered = quota.gpus.length > 0 ? gpuResourcesByModel(await loadPools(tx)) : new Map<string, string>();
          const resources: Record<string, string> = {};
          for (const g of quota.gpus) {
            const resource = offered.get(g.model);
            if (!resource) throw new AppError("conflict", `No node pool offers ${g.model} any more; reject the request or add the pool first.`);
            resources[g.model] = resource;
          }
          await insertGrant(tx, { projectId: project.id, lines: linesOfAmounts(quota, resources), startsAt: ctx.now, endsAt: null, source: "onboarding", createdAt: ctx.now });
          await enqueueProjectChange(tx, { tenantId: tenant.id, projectId: project.id, reason: "tenant request approved", at: ctx.now });
        }
        const [row] = await tx
          .update(tenantRequests)
          .set({ status: "approved", decidedBy: ctx.actor.principalId, decidedAt: ctx.now, tenantId: tenant.id, version: r.version + 1 })
          .where(eq(tenantRequests.id, r.id))
          .returning();
        await recordAudit(tx, { actor, at: ctx.now, tenantId: tenant.id, action: "tenant_request.approved", target: { type: "tenant_request", id: r.id }, after: { tenant: tenant.slug, project: project.slug } });
        await notify(tx, [r.requestedBy], { kind: "tenant_request.decided", title: `Your tenant ${r.name} is ready`, link: `/tenants/${tenant.slug}` }, ctx.now);
        return row!;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError("conflict", "A tenant with this slug exists already; reject the request and ask for another slug.");
      throw error;
    }
  },
});

export const rejectTenantRequest = defineCommand({
  name: "rejectTenantRequest",
  input: z.object({ requestId: uuidInput, version: versionInput, reason: z.string({ message: FILL_IN }).trim().min(5, TELL_REQUESTER_WHY).max(2000) }),
  target: onPlatform("tenant_request.decide"),
  async run(ctx, input) {
    return ctx.db.transaction(async (tx) => {
      const r = await lockPending(tx, input.requestId, input.version);
      // Separation of duties, decided by the policy; the tenant does not exist yet.
      const conflict = decisionConflict(ctx.actor, { requestedBy: r.requestedBy, tenantId: null }, ctx.now);
      if (conflict) throw new AppError("forbidden", conflict);
      const [row] = await tx
        .update(tenantRequests)
        .set({ status: "rejected", decidedBy: ctx.actor.principalId, decidedAt: ctx.now, decisionNote: input.reason, version: r.version + 1 })
        .where(eq(tenantRequests.id, r.id))
        .returning();
      await recordAudit(tx, { actor: auditActorOf(ctx.actor), at: ctx.now, tenantId: null, action: "tenant_request.rejected", target: { type: "tenant_request", id: r.id }, after: { reason: input.reason } });
      await notify(tx, [r.requestedBy], { kind: "tenant_request.decided", title: `Your request for the tenant ${r.name} was rejected`, body: input.reason, link: "/tenant-requests" }, ctx.now);
      return row!;
    });
  },
});

export const cancelTenantRequest = defineCommand({
  name: "cancelTenantRequest",
  input: z.object({ requestId: uuidInput }),
  target: onPlatform("tenant_request.create"),
  async run(ctx, input) {
    return ctx.db.transaction(async (tx) => {
      const [r] = await tx.select().from(tenantRequests).where(eq(tenantRequests.id, input.requestId)).for("update");
      if (!r || r.requestedBy !== ctx.actor.principalId) throw new AppError("not_found", "No such tenant request of yours.");
      if (r.status !== "pending") throw new AppError("conflict", `This tenant request was already decided (${r.status}).`);
      const [row] = await tx.update(tenantRequests).set({ status: "cancelled", version: r.version + 1 }).where(eq(tenantRequests.id, r.id)).returning();
      await recordAudit(tx, { actor: auditActorOf(ctx.actor), at: ctx.now, tenantId: null, action: "tenant_request.cancelled", target: { type: "tenant_request", id: r.id } });
      return row!;
    });
  },
});
