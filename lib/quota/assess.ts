import type { Database } from "@/db/client";
import type { EffectiveQuota } from "@/lib/cluster/desired-state";
import type { ClusterSettings } from "@/lib/config";
import type { QuotaAmounts } from "./amounts";
import { capacityImpact, clusterCapacity, tenantShares, type Allocation, type CapacityLine } from "./capacity";
import { monthlyCost, ratesInForce, type CostEstimate } from "./cost";
import { effectiveQuotaAt, gpusByModelAt } from "./effective";
import { autoApproval, needsSecondApproval, type AutoDecision, type QuotaPolicy } from "./policy";
import { clusterAllocation, grantsOfProjects, knownGpuResources, loadPools, loadQuotaPolicy, loadRates } from "./store";

export interface Assessment {
  /** The extended resource the GPU model is served as (from the node pools), when GPUs are asked for. */
  gpuResource: string | null;
  current: { quota: EffectiveQuota; gpusByModel: Record<string, number>; monthly: CostEstimate };
  after: { quota: EffectiveQuota; gpusByModel: Record<string, number> };
  estimate: CostEstimate;
  capacity: CapacityLine[];
  shares: ReturnType<typeof tenantShares>;
  auto: AutoDecision;
  secondApproval: boolean;
  policy: QuotaPolicy;
}

export class UnknownGpuModelError extends Error {}

/**
 * Everything a decision about adding `amounts` to a project rests on, at
 * `at`: its quota now and after, the monthly cost at the rate card, the
 * capacity of the affected resources before and after, every tenant's share,
 * and what the automatic rules say. Used by the request form's preview, by
 * the create command (auto-approval) and by the approval queue.
 */
/** What every assessment at one instant shares: pools, prices, policy and the cluster's allocation. Load it once for a list. */
export type AssessmentBasis = Awaited<ReturnType<typeof loadAssessmentBasis>>;

export async function loadAssessmentBasis(db: Database, settings: ClusterSettings, at: Date) {
  const [pools, rateRows, policy, allocation, gpuResources] = await Promise.all([loadPools(db), loadRates(db), loadQuotaPolicy(db), clusterAllocation(db, settings, at), knownGpuResources(db)]);
  return { pools, rateRows, policy, allocation, gpuResources };
}

export async function assessRequest(db: Database, settings: ClusterSettings, projectId: string, amounts: QuotaAmounts, at: Date, basis?: AssessmentBasis): Promise<Assessment> {
  const [{ pools, rateRows, policy, allocation, gpuResources }, grants] = await Promise.all([basis ?? loadAssessmentBasis(db, settings, at), grantsOfProjects(db, [projectId])]);
  let gpuResource: string | null = null;
  if (amounts.gpuCount > 0) {
    const pool = pools.find((p) => p.gpuModel === amounts.gpuModel);
    if (!pool) throw new UnknownGpuModelError(`No node pool offers the GPU model "${amounts.gpuModel}".`);
    gpuResource = pool.gpuResource;
  }
  const spans = grants.get(projectId) ?? [];
  const quota = effectiveQuotaAt(settings.defaultProjectQuota, spans, at, gpuResources);
  const gpusByModel = gpusByModelAt(spans, at);
  const afterQuota: EffectiveQuota = {
    ...quota,
    cpuCores: Math.round((quota.cpuCores + amounts.cpuCores) * 1000) / 1000,
    memoryBytes: quota.memoryBytes + amounts.memoryBytes,
    storageBytes: quota.storageBytes + amounts.storageBytes,
    gpus: { ...quota.gpus },
  };
  const afterGpus = { ...gpusByModel };
  if (gpuResource && amounts.gpuModel) {
    afterQuota.gpus[gpuResource] = (afterQuota.gpus[gpuResource] ?? 0) + amounts.gpuCount;
    afterGpus[amounts.gpuModel] = (afterGpus[amounts.gpuModel] ?? 0) + amounts.gpuCount;
  }

  const prices = ratesInForce(rateRows, at);
  const estimate = monthlyCost(amounts, prices);
  const currentCost = monthlyCost(
    { gpuModel: null, gpuCount: 0, cpuCores: quota.cpuCores, memoryBytes: quota.memoryBytes, storageBytes: quota.storageBytes },
    prices,
  );
  for (const [model, n] of Object.entries(gpusByModel)) {
    const gpu = monthlyCost({ gpuModel: model, gpuCount: n, cpuCores: 0, memoryBytes: 0, storageBytes: 0 }, prices);
    currentCost.lines.push(...gpu.lines);
    currentCost.unpriced.push(...gpu.unpriced);
    currentCost.monthly = Math.round((currentCost.monthly + gpu.monthly) * 100) / 100;
  }

  const capacity = clusterCapacity(pools, policy.overcommit);
  const extra: Allocation = { cpuCores: amounts.cpuCores, memoryBytes: amounts.memoryBytes, gpusByModel: amounts.gpuModel && amounts.gpuCount > 0 ? { [amounts.gpuModel]: amounts.gpuCount } : {} };
  const impact = capacityImpact(capacity, allocation.total, extra);
  // Only the resources the request touches matter to the decision.
  const touched = impact.filter((l) => (l.resource === "cpu" && amounts.cpuCores > 0) || (l.resource === "memory" && amounts.memoryBytes > 0) || (amounts.gpuModel !== null && l.resource === `gpu:${amounts.gpuModel}`));

  return {
    gpuResource,
    current: { quota, gpusByModel, monthly: currentCost },
    after: { quota: afterQuota, gpusByModel: afterGpus },
    estimate,
    capacity: touched,
    shares: tenantShares(capacity, allocation.byTenant),
    auto: autoApproval(amounts, estimate, touched, policy),
    secondApproval: needsSecondApproval(estimate.monthly, policy),
    policy,
  };
}
