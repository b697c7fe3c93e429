import type { Database } from "@/db/client";
import type { EffectiveQuota } from "@/lib/cluster/desired-state";
import { config, type ClusterSettings } from "@/lib/config";
import type { QuotaAmounts } from "./amounts";
import { capacityPoolOf, clusterCapacity, tenantShares, type CapacityLine } from "./capacity";
import { monthlyCost, ratesInForce, type CostEstimate } from "./cost";
import { effectiveQuotaAt, gpusByModelAt, linesAt, type GrantSpan } from "./effective";
import { gpusByModelOfLines, linesOfAmounts } from "./lines";
import { autoApprovedHoldings, needsSecondApproval, type AutoApprovedHoldings, type AutoDecision, type QuotaPolicy } from "./policy";
import { loadPlatformQuota, type PlatformQuota } from "./platform-quota";
import { gpuResourcesByModel } from "./pool-profiles";
import { autoApprovedGrantsOf } from "./store";
import { previewRequest } from "./view-helpers";
import { cohortPicture } from "./cohort";
import { approvalArithmetic, type ApprovalArithmetic } from "./sharing-arithmetic";

export interface Assessment {
  /** The extended resource the GPU model is served as (from the node pools), when GPUs are asked for. */
  gpuResource: string | null;
  current: { quota: EffectiveQuota; gpusByModel: Record<string, number>; burstByModel: Record<string, number>; monthly: CostEstimate };
  after: { quota: EffectiveQuota; gpusByModel: Record<string, number>; burstByModel: Record<string, number> };
  estimate: CostEstimate;
  capacity: CapacityLine[];
  shares: ReturnType<typeof tenantShares>;
  auto: AutoDecision;
  /** What the project holds by automatic approval now: what the cumulative cap of the rules counts. */
  autoApproved: AutoApprovedHoldings;
  secondApproval: boolean;
  policy: QuotaPolicy;
  /** The tenant's cohort on each line the request touches, before and after: guarantees, bursts, what is lent, fair shares. */
  cohort: ReturnType<typeof cohortPicture>;
  /** Each GPU line the request touches, across all tenants, before and after: guarantees against the pools at minimum / now / maximum, bursts, peak demand. */
  sharing: ApprovalArithmetic[];
}

export class UnknownGpuModelError extends Error {}

/**
 * Everything a decision about adding `amounts` to a project rests on, at
 * `at`: its quota now and after, the monthly cost at the rate card, the
 * capacity of the affected resources before and after, every tenant's share,
 * and what the automatic rules say. Used by the request form's preview, by
 * the create command (auto-approval) and by the approval queue.
 */
export async function assessRequest(db: Database, settings: ClusterSettings, projectId: string, amounts: QuotaAmounts, at: Date, basis?: PlatformQuota): Promise<Assessment> {
  // The platform's basis (loadPlatformQuota), read once for a list; this project's automatic grants are its own.
  const [platform, autoGrants] = await Promise.all([basis ?? loadPlatformQuota(db, settings, at), autoApprovedGrantsOf(db, [projectId])]);
  const { pools, rateRows, policy, allocation, gpuResources, holdings } = platform;
  const project = platform.projects.get(projectId);
  const members = project ? platform.cohortOf(project.tenantId) : [];
  let gpuResource: string | null = null;
  const resourceByModel = gpuResourcesByModel(pools);
  // Burst-only GPUs need their resource too: without it the grant would have no GPU line to borrow on.
  if (amounts.gpuCount > 0 || (amounts.gpuBurst ?? 0) > 0) {
    // A mixed MIG pool's further profiles are models of their own.
    gpuResource = (amounts.gpuModel && resourceByModel.get(amounts.gpuModel)) ?? null;
    if (!gpuResource) throw new UnknownGpuModelError(`No node pool offers the GPU model "${amounts.gpuModel}".`);
  }
  const spans = platform.grants.get(projectId) ?? [];
  const quota = effectiveQuotaAt(settings.defaultProjectQuota, spans, at, gpuResources);
  const gpusByModel = gpusByModelAt(spans, at);
  const burstByModel = gpusByModelOfLines(linesAt(settings.defaultProjectQuota, spans, at), "burst");
  const prices = ratesInForce(rateRows, at);
  const autoApproved = autoApprovedHoldings(autoGrants.get(projectId) ?? [], at, prices);
  const capacity = clusterCapacity(pools, policy.overcommit);
  // The same arithmetic as the request form's live preview, so the two never disagree.
  const preview = previewRequest(
    {
      current: { quota, gpusByModel, burstByModel },
      gpuResources: Object.fromEntries(resourceByModel),
      prices: [...prices],
      pools: pools.map(capacityPoolOf),
      allocated: allocation.total,
      policy,
      autoApproved,
      currency: config().currency,
    },
    amounts,
  );

  const currentCost = monthlyCost({ gpuModel: null, gpuCount: 0, cpuCores: quota.cpuCores, memoryBytes: quota.memoryBytes, storageBytes: quota.storageBytes }, prices);
  for (const [model, n] of Object.entries(gpusByModel)) {
    const gpu = monthlyCost({ gpuModel: model, gpuCount: n, cpuCores: 0, memoryBytes: 0, storageBytes: 0 }, prices);
    currentCost.lines.push(...gpu.lines);
    currentCost.unpriced.push(...gpu.unpriced);
    currentCost.monthly = Math.round((currentCost.monthly + gpu.monthly) * 100) / 100;
  }

  // The quota after, per flavour too (what the diff of rendered objects shows): the lines of the grant approval would write, in force now.
  const asGrant: GrantSpan = { ...amounts, gpuResource, startsAt: at, endsAt: null, lines: linesOfAmounts(amounts, gpuResource) };
  const cohort = project ? cohortPicture(members, project.slug, asGrant.lines) : [];
  const afterQuota = effectiveQuotaAt(settings.defaultProjectQuota, [...spans, asGrant], at, gpuResources);

  return {
    gpuResource,
    current: { quota, gpusByModel, burstByModel, monthly: currentCost },
    after: { quota: afterQuota, gpusByModel: preview.after.gpusByModel, burstByModel: preview.after.burstByModel },
    estimate: preview.estimate,
    capacity: preview.capacity,
    shares: tenantShares(capacity, allocation.byTenant),
    auto: preview.auto,
    autoApproved,
    secondApproval: needsSecondApproval(preview.estimate.monthly, policy),
    policy,
    cohort,
    sharing: project ? approvalArithmetic(pools, policy.overcommit, holdings, project.tenantId, asGrant.lines) : [],
  };
}
