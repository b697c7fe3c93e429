import "server-only";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { projectQuotaSettings, projects } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { enqueueProjectChange } from "@/lib/cluster/outbox";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { decimalNumber } from "@/lib/input/numbers";
import { assertProjectOpen, assertTenantActive, projectBySlugs } from "@/lib/tenancy/lookup";
import { onProject, projectAddress } from "@/lib/tenancy/targets";
import { amountText, lineOfKey, parseLineAmount, quotaKeyInput } from "../envelope";
import { gpuResourcesByModel } from "../envelope-store";
import { NO_POOL_OFFERS } from "@/lib/input/messages";

/**
 * How a project shares with its cohort, set by the tenant's admins: its
 * fair-share weight (Kueue weighs ClusterQueues by it when capacity is
 * scarce) and, per line, how much of its guarantee others may borrow while it
 * is unused (a lend limit; empty: all of it). Written with the project's
 * cluster change and the audit event in one transaction.
 */
export const setProjectSharing = defineCommand({
  name: "setProjectSharing",
  input: projectAddress.extend({
    fairShareWeight: z.preprocess((v) => (v === "" || v === null ? undefined : v), decimalNumber("Fair-share weight", { min: 0, max: 1000 }).optional()),
    quota: z.preprocess((v) => (v === "" || v === null ? undefined : v), quotaKeyInput.optional()),
    /** With `quota`: the lend limit in the line's unit; empty removes it (all of the guarantee may be lent). */
    lendLimit: z.preprocess((v) => (v === "" || v === null ? undefined : v), amountText.optional()),
  }),
  target: onProject("project.sharing.manage"),
  async run(ctx, input, { tenantId, projectId }) {
    // Weights and lend limits are Kueue's: without it nothing would borrow, and a setting that does nothing is not offered.
    if (!config().cluster.render.kueue.enabled) throw new AppError("conflict", "Sharing needs Kueue on the cluster, which this portal is not set up for.");
    if (input.fairShareWeight === undefined && input.quota === undefined) throw new AppError("validation", undefined, { fairShareWeight: ["Enter a weight, or choose a resource to set its lend limit."] });
    if (input.lendLimit !== undefined && input.quota === undefined) throw new AppError("validation", undefined, { quota: ["Choose the resource the lend limit is for."] });
    const limit = input.quota !== undefined && input.lendLimit !== undefined ? parseLineAmount(input.quota, input.lendLimit) : null;
    if (limit && !limit.ok) throw new AppError("validation", undefined, { lendLimit: [limit.message] });
    return ctx.db.transaction(async (tx) => {
      const { tenant, project } = await projectBySlugs(tx, input.tenant, input.project);
      assertTenantActive(tenant);
      assertProjectOpen(project);
      const after: Record<string, unknown> = {};
      if (input.fairShareWeight !== undefined) {
        await tx.update(projects).set({ fairShareWeight: String(input.fairShareWeight) }).where(eq(projects.id, projectId));
        after.fairShareWeight = input.fairShareWeight;
      }
      if (input.quota !== undefined) {
        const line = lineOfKey(input.quota, await gpuResourcesByModel(tx));
        if (!line) throw new AppError("validation", undefined, { quota: [NO_POOL_OFFERS] });
        const where = and(eq(projectQuotaSettings.projectId, projectId), eq(projectQuotaSettings.flavor, line.flavor), eq(projectQuotaSettings.resource, line.resource));
        if (limit?.ok) {
          await tx
            .insert(projectQuotaSettings)
            .values({ projectId, ...line, lendLimit: String(limit.value), updatedBy: ctx.actor.principalId, updatedAt: ctx.now })
            .onConflictDoUpdate({ target: [projectQuotaSettings.projectId, projectQuotaSettings.flavor, projectQuotaSettings.resource], set: { lendLimit: String(limit.value), updatedBy: ctx.actor.principalId, updatedAt: ctx.now } });
        } else {
          await tx.delete(projectQuotaSettings).where(where);
        }
        after.quota = input.quota;
        after.lendLimit = limit?.ok ? limit.value : null;
      }
      await enqueueProjectChange(tx, { tenantId, projectId, reason: "sharing changed", at: ctx.now });
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "project.sharing.set",
        target: { type: "project", id: projectId },
        before: { fairShareWeight: Number(project.fairShareWeight) },
        after,
      });
      return { project: project.slug, ...after };
    });
  },
});
