import type { Database } from "@/db/client";
import type { EffectiveQuota } from "@/lib/cluster/desired-state";
import { config, type ClusterSettings } from "@/lib/config";
import { gpuAmountsOf, type QuotaAmounts } from "./amounts";
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
  /** The extended resource each GPU model asked for is served as (from the node pools): model -> resource. */
  gpuResources: Record<string, string>;
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

export class UnknownGpuModelError extends Error {
  constructor(
    message: string,
    /** The model no pool offers: the commands name its row. */
    readonly model: string,
  ) {
    super(message);
  }
}

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
  // Every model asked for, burst-only ones too, needs its resource: without it the grant would have no GPU line to borrow on.
  // A mixed MIG pool's further profiles are models of their own.
  const resourceByModel = gpuResourcesByModel(pools);
  const asked: Record<string, string> = {};
  for (const g of amounts.gpus) {
    const resource = resourceByModel.get(g.model);
    if (!resource) throw new UnknownGpuModelError(`No node pool offers the GPU model "${g.model}".`, g.model);
    asked[g.model] = resource;
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

  const currentGpus = Object.entries(gpusByModel).map(([model, count]) => ({ model, count, burst: 0 }));
  const currentCost = monthlyCost({ gpus: gpuAmountsOf(currentGpus), cpuCores: quota.cpuCores, memoryBytes: quota.memoryBytes, storageBytes: quota.storageBytes }, prices);

  // The quota after, per flavour too (what the diff of rendered objects shows): the lines of the grant approval would write, in force now.
  const asGrant: GrantSpan = { ...amounts, startsAt: at, endsAt: null, lines: linesOfAmounts(amounts, asked) };
  const cohort = project ? cohortPicture(members, project.slug, asGrant.lines) : [];
  const afterQuota = effectiveQuotaAt(settings.defaultProjectQuota, [...spans, asGrant], at, gpuResources);

  return {
    gpuResources: asked,
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
