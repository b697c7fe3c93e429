import "server-only";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { projectUsageSummaries, type ProjectUsageSummary } from "@/lib/metering/project-summaries";
import { capacityPoolOf } from "./capacity";
import { requestableGpuModels } from "./commands/requests";
import { ratesInForce } from "./cost";
import { gpusByModelOfLines } from "./lines";
import { autoApprovedHoldings } from "./policy";
import { projectQuota } from "./queries";
import { autoApprovedGrantsOf, clusterAllocation, loadPools, loadQuotaPolicy, loadRates } from "./store";
import { budgetBasisOf, type PreviewBasis } from "./view-helpers";

/**
 * What the request form's live preview computes from, loaded once: prices in
 * force, capacity and what is allocated now, what the project holds by
 * automatic approval, and (for those who may see its spend) its month against
 * the budget. Asking and editing a request preview the same way.
 */
export async function requestFormBasis(
  ctx: CommandContext,
  tenantSlug: string,
  projectSlug: string,
): Promise<{ models: Awaited<ReturnType<typeof requestableGpuModels>>; basis: PreviewBasis; usage: ProjectUsageSummary | null }> {
  const quota = await projectQuota(ctx, tenantSlug, projectSlug);
  const settings = config().cluster;
  const seesSpend = can(ctx.actor, "project.spend.view", { kind: "project", tenantId: quota.tenantId, projectId: quota.projectId }, ctx.now);
  const [models, pools, rateRows, policy, allocation, autoGrants, usage] = await Promise.all([
    requestableGpuModels(ctx.db),
    loadPools(ctx.db),
    loadRates(ctx.db),
    loadQuotaPolicy(ctx.db),
    clusterAllocation(ctx.db, settings, ctx.now),
    autoApprovedGrantsOf(ctx.db, [quota.projectId]),
    seesSpend ? projectUsageSummaries(ctx.db, [quota.projectId], ctx.now).then((m) => m.get(quota.projectId) ?? null) : null,
  ]);
  const prices = ratesInForce(rateRows, ctx.now);
  const basis: PreviewBasis = {
    current: { quota: quota.effective, gpusByModel: quota.gpusByModel, burstByModel: gpusByModelOfLines(quota.lines, "burst") },
    gpuResources: Object.fromEntries(models.map((m) => [m.model, m.resource])),
    prices: [...prices],
    pools: pools.map(capacityPoolOf),
    allocated: allocation.total,
    policy,
    autoApproved: autoApprovedHoldings(autoGrants.get(quota.projectId) ?? [], ctx.now, prices),
    budget: usage ? budgetBasisOf(usage.budget, usage.lastUsageDay !== null) : null,
    currency: config().currency,
  };
  return { models, basis, usage };
}
