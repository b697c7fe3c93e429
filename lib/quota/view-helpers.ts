import type { EffectiveQuota } from "@/lib/cluster/desired-state";
import { formatMoney as formatAmount, formatUnitPrice as formatPrice, minorDigits, roundMoney, subtractMoney, sumMoney } from "@/lib/money";
import { GiB, type GpuAmount, type QuotaAmounts } from "./amounts";
import { perNodeOfModel } from "./pool-profiles";
import { capacityImpact, type Allocation, type CapacityKey, type CapacityLine, type PoolCapacityInput } from "./capacity";
import { costOverPeriod, describePeriod, monthlyCost, type CostEstimate } from "./cost";
import { autoApproval, NO_AUTO_APPROVED_HOLDINGS, type AutoApprovedHoldings, type AutoDecision, type QuotaPolicy } from "./policy";

/**
 * Pure helpers for the quota pages, safe in client components (no server
 * imports): the request form's live preview follows the same arithmetic as
 * assessRequest, from data the server page loaded once.
 */

/** What the request form's preview needs, serialisable from the server page to the client. */
export interface PreviewBasis {
  current: { quota: EffectiveQuota; gpusByModel: Record<string, number>; burstByModel?: Record<string, number> };
  /** GPU model -> extended resource name (from the node pools). */
  gpuResources: Record<string, string>;
  /** Prices in force now by rate key ("gpu:H100", "cpu", …). */
  prices: [string, number][];
  /** The node pools: capacity counts their nodes present; growth within the autoscaler maximum is shown apart. */
  pools: PoolCapacityInput[];
  /** What every open project holds now. */
  allocated: Allocation;
  policy: QuotaPolicy;
  /** What the project holds by automatic approval now (the cumulative cap); none when left out. */
  autoApproved?: AutoApprovedHoldings;
  /** The project's month against its budget, when the person may see its spend; left out otherwise. */
  budget?: BudgetBasis | null;
  /** The configured currency (ISO 4217): the rules' words name amounts in it, the budget check rounds to its minor unit. */
  currency: string;
}

/** This month's spend of a project and its budget, as the budget check needs them (from lib/metering budgetStatus). */
export interface BudgetBasis {
  /** The monthly budget, or null when none is set. */
  monthlyAmount: number | null;
  monthToDate: number;
  /** This month's spend forecast to its end. */
  forecast: number;
  /** False when the project has no usage recorded at all yet: its zero spend is then not a figure to show. Default true. */
  usageRecorded?: boolean;
}

/**
 * A request's monthly estimate against the project's budget: this month's
 * forecast plus the estimate, compared with the monthly budget.
 */
export type BudgetCheck =
  | { kind: "no_budget"; monthToDate: number; forecast: number; added: number; usageRecorded: boolean }
  | {
      kind: "within" | "over";
      budget: number;
      monthToDate: number;
      forecast: number;
      added: number;
      total: number;
      /** budget − total: negative when over. */
      left: number;
      forecastAlreadyOver: boolean;
      usageRecorded: boolean;
    };

/** The budget basis of a budget status (lib/metering budgetStatus, or a usage summary's). */
export const budgetBasisOf = (status: { monthlyAmount: number | null; month: { monthToDate: number; forecast: number } }, usageRecorded = true): BudgetBasis => ({
  monthlyAmount: status.monthlyAmount,
  monthToDate: status.month.monthToDate,
  forecast: status.month.forecast,
  usageRecorded,
});

/**
 * The figures come from the spend report already rounded (lib/money.ts), so
 * the forecast shown here is the spend page's; the estimate is rounded once
 * and the total and what is left are added in minor units.
 */
export function checkBudget(b: BudgetBasis, added: number, digits = 2): BudgetCheck {
  const forecast = roundMoney(b.forecast, digits);
  const monthToDate = roundMoney(b.monthToDate, digits);
  const addedLine = roundMoney(added, digits);
  const usageRecorded = b.usageRecorded ?? true;
  if (b.monthlyAmount === null) return { kind: "no_budget", monthToDate, forecast, added: addedLine, usageRecorded };
  const budget = roundMoney(b.monthlyAmount, digits);
  const total = sumMoney([forecast, addedLine], digits);
  return {
    usageRecorded,
    kind: total > budget ? "over" : "within",
    budget,
    monthToDate,
    forecast,
    added: addedLine,
    total,
    left: subtractMoney(budget, total, digits),
    forecastAlreadyOver: forecast > budget,
  };
}

export interface Preview {
  after: { quota: EffectiveQuota; gpusByModel: Record<string, number>; burstByModel: Record<string, number> };
  estimate: CostEstimate;
  /** Capacity before/after of the resources the request touches. */
  capacity: CapacityLine[];
  auto: AutoDecision;
  /** The estimate against the project's budget; null when the basis carries no budget status. */
  budget: BudgetCheck | null;
}

/** The quota after adding `amounts`, its monthly cost, its capacity impact, what the automatic rules say and how it sits with the budget. */
export function previewRequest(basis: PreviewBasis, amounts: QuotaAmounts): Preview {
  const { quota, gpusByModel } = basis.current;
  const afterQuota: EffectiveQuota = {
    ...quota,
    cpuCores: Math.round((quota.cpuCores + amounts.cpuCores) * 1000) / 1000,
    memoryBytes: quota.memoryBytes + amounts.memoryBytes,
    storageBytes: quota.storageBytes + amounts.storageBytes,
    gpus: { ...quota.gpus },
  };
  const afterGpus = { ...gpusByModel };
  // Burst is not reserved: it raises the hard cap and what the project may borrow, not what it holds, so it is neither priced nor counted against capacity.
  const cpuBurst = amounts.cpuBurst ?? 0;
  const memoryBurst = amounts.memoryBurstBytes ?? 0;
  const afterBurst = { ...basis.current.burstByModel };
  // Each GPU model on the extended resource its pools serve it as; a model no pool serves adds nothing (the server refuses it).
  const served = amounts.gpus.filter((g) => basis.gpuResources[g.model]);
  for (const g of served) {
    const resource = basis.gpuResources[g.model]!;
    if (g.count > 0) {
      afterQuota.gpus[resource] = (afterQuota.gpus[resource] ?? 0) + g.count;
      afterGpus[g.model] = (afterGpus[g.model] ?? 0) + g.count;
    }
  }
  if (cpuBurst > 0 || memoryBurst > 0 || served.some((g) => g.burst > 0)) {
    const burst = quota.burst ?? { cpuCores: 0, memoryBytes: 0, gpus: {} };
    afterQuota.burst = { cpuCores: Math.round((burst.cpuCores + cpuBurst) * 1000) / 1000, memoryBytes: burst.memoryBytes + memoryBurst, gpus: { ...burst.gpus } };
    for (const g of served) {
      if (g.burst === 0) continue;
      const resource = basis.gpuResources[g.model]!;
      afterQuota.burst.gpus[resource] = (afterQuota.burst.gpus[resource] ?? 0) + g.burst;
      afterBurst[g.model] = (afterBurst[g.model] ?? 0) + g.burst;
    }
  }
  const estimate = monthlyCost(amounts, new Map(basis.prices));
  const extra: Allocation = { cpuCores: amounts.cpuCores, memoryBytes: amounts.memoryBytes, gpusByModel: Object.fromEntries(amounts.gpus.filter((g) => g.count > 0).map((g) => [g.model, g.count])) };
  const capacity = touchedLines(capacityImpact(basis.pools, basis.policy.overcommit, basis.allocated, extra), amounts);
  return {
    after: { quota: afterQuota, gpusByModel: afterGpus, burstByModel: afterBurst },
    estimate,
    capacity,
    auto: autoApproval(amounts, estimate, capacity, basis.policy, basis.currency, basis.autoApproved ?? NO_AUTO_APPROVED_HOLDINGS),
    budget: basis.budget ? checkBudget(basis.budget, estimate.monthly, minorDigits(basis.currency)) : null,
  };
}

/** Only the resources a request adds to matter to its decision (as assessRequest filters them). */
export function touchedLines(lines: readonly CapacityLine[], amounts: QuotaAmounts): CapacityLine[] {
  return lines.filter(
    (l) => (l.resource === "cpu" && amounts.cpuCores > 0) || (l.resource === "memory" && amounts.memoryBytes > 0) || amounts.gpus.some((g) => g.count > 0 && l.resource === `gpu:${g.model}`),
  );
}

/** The overcommit ratio that applies to a capacity line's resource. */
export function overcommitOf(policy: QuotaPolicy, resource: CapacityKey): number {
  return resource === "cpu" ? policy.overcommit.cpu : resource === "memory" ? policy.overcommit.memory : policy.overcommit.gpu;
}

/**
 * When a request lets the project borrow GPUs but the project would hold no
 * CPU or memory burst: every pod asks for CPU and memory too, and Kueue
 * admits it on borrowed quota only where each resource it asks for may
 * borrow, so the GPUs could not be used. What to enter instead: each GPU
 * pool's CPU and memory per GPU, times that model's burst GPUs, added up over
 * the models. Null when nothing is missing.
 */
export interface ComputeBurstHint {
  missing: ("cpuBurst" | "memoryBurst")[];
  /** Burst GPUs of every model together. */
  gpus: number;
  /** The models with burst, in words ("H100" or "H100 and L4"). */
  gpuModel: string;
  /** The pools' per-GPU share for that many GPUs; null when a model's pool is unknown. */
  suggested: { pool: string; cores: number; memoryBytes: number } | null;
}

export function computeBurstHint(basis: Pick<PreviewBasis, "pools">, amounts: QuotaAmounts, after: EffectiveQuota): ComputeBurstHint | null {
  const bursting: GpuAmount[] = amounts.gpus.filter((g) => g.burst > 0);
  if (bursting.length === 0) return null;
  const missing: ComputeBurstHint["missing"] = [];
  if ((after.burst?.cpuCores ?? 0) === 0) missing.push("cpuBurst");
  if ((after.burst?.memoryBytes ?? 0) === 0) missing.push("memoryBurst");
  if (missing.length === 0) return null;
  // A mixed MIG pool's further profile shares the same nodes: its per-instance share is of its own instances.
  const shares = bursting.map((g) => {
    const pool = basis.pools.find((p) => perNodeOfModel(p, g.model) > 0);
    const perGpu = pool ? g.burst / perNodeOfModel(pool, g.model) : 0;
    return pool ? { pool: pool.name, cores: Math.floor(pool.cpuPerNode * perGpu), memoryBytes: Math.floor((pool.memoryBytesPerNode * perGpu) / GiB) * GiB } : null;
  });
  const known = shares.every((x) => x !== null);
  return {
    missing,
    gpus: bursting.reduce((n, g) => n + g.burst, 0),
    gpuModel: andList(bursting.map((g) => g.model)),
    suggested: known
      ? { pool: andList(shares.map((x) => x.pool)), cores: shares.reduce((n, x) => n + x.cores, 0), memoryBytes: shares.reduce((n, x) => n + x.memoryBytes, 0) }
      : null,
  };
}

/** "a", "a and b", "a, b and c". */
export function andList(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items.at(-1)}` : (items[0] ?? "");
}

/** "4", "0.5" — cores as people read them. */
export function formatCores(cores: number): string {
  return String(Math.round(cores * 1000) / 1000);
}

/** Bytes as GiB with at most one decimal ("64 GiB"); whole TiB as TiB ("2 TiB"). */
export function formatBytes(bytes: number): string {
  const gib = bytes / GiB;
  if (gib >= 1024 && gib % 1024 === 0) return `${(gib / 1024).toLocaleString("en-US")} TiB`;
  return `${(Math.round(gib * 10) / 10).toLocaleString("en-US")} GiB`;
}

/** Money in the configured currency ("$11,972.00"): the one rule of lib/money.ts. */
export const formatMoney = (amount: number, currency: string): string => formatAmount(amount, currency);

/** A unit price ("$0.004"), as lib/money.ts writes every price of the rate card. */
export const formatUnitPrice = (amount: number | string, currency: string): string => formatPrice(amount, currency);

/** A rate key as a person reads it: "gpu:H100" -> "H100 GPUs", "cpu" -> "CPU". */
export function resourceLabel(key: string): string {
  if (key.startsWith("gpu:")) return `${key.slice(4)} GPUs`;
  return ({ cpu: "CPU", memory: "Memory", storage: "Storage", inference: "Inference" } as Record<string, string>)[key] ?? key;
}

/** The amounts of a request in one line: "4 × H100, 2 × L4, 32 cores, 256 GiB memory". */
export function describeAmounts(a: QuotaAmounts): string {
  const parts = [
    // Each model with its guarantee and its burst: "2 × H100, burst up to 2 more H100, 4 × L4".
    ...a.gpus.flatMap((g) => [g.count > 0 ? `${g.count} × ${g.model}` : null, g.burst > 0 ? `burst up to ${g.burst} more ${g.model}` : null]),
    a.cpuCores > 0 ? `${formatCores(a.cpuCores)} cores` : null,
    (a.cpuBurst ?? 0) > 0 ? `burst up to ${formatCores(a.cpuBurst!)} more cores` : null,
    a.memoryBytes > 0 ? `${formatBytes(a.memoryBytes)} memory` : null,
    (a.memoryBurstBytes ?? 0) > 0 ? `burst up to ${formatBytes(a.memoryBurstBytes!)} more memory` : null,
    a.storageBytes > 0 ? `${formatBytes(a.storageBytes)} storage` : null,
  ].filter(Boolean);
  return parts.length ? parts.join(", ") : "nothing";
}

/** A quantity on the capacity table: GiB for memory (the lines are in GiB already), else as is. */
export function formatCapacityValue(resource: CapacityKey, value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return resource === "memory" ? `${rounded.toLocaleString("en-US")} GiB` : rounded.toLocaleString("en-US");
}

/** A share of capacity as a percentage ("12.5%"); "—" with no capacity. */
export function formatShare(share: number): string {
  if (!Number.isFinite(share)) return "no capacity";
  return `${Math.round(share * 1000) / 10}%`;
}

/** A share as a whole percentage ("63%"), one decimal under 10% ("4.5%"). */
export function formatPercent(share: number): string {
  const pct = share * 100;
  return `${pct < 10 ? Math.round(pct * 10) / 10 : Math.round(pct)}%`;
}

const USAGE_UNITS: Record<string, string> = { gpu: "GPU-hours", cpu: "core-hours", memory: "GiB-hours", storage: "GiB-hours", inference: "requests" };

/** A metered quantity in its consumed unit: "620 GPU-hours", "1,234.5 core-hours", "12,000 requests". */
export function formatUsageQuantity(resource: string, quantity: number): string {
  const kind = resource.startsWith("gpu:") ? "gpu" : resource;
  const unit = USAGE_UNITS[kind] ?? "units";
  const value = quantity >= 100 ? Math.round(quantity) : Math.round(quantity * 10) / 10;
  return `${value.toLocaleString("en-US")} ${unit}`;
}

/**
 * The cost of a time-bound request or grant over its period, beside its
 * monthly rate: "$5,405.12 for its 13.7 days". An approver deciding a 14-day
 * request must not read the monthly figure as what it costs. Null when
 * permanent (the monthly rate says it all) or already ended.
 */
export function periodCostPhrase(monthly: number, from: Date, endsAt: Date | null, currency: string): string | null {
  const period = costOverPeriod(monthly, from, endsAt);
  return period && `${formatMoney(period.cost, currency)} for its ${describePeriod(period.hours)}`;
}

/**
 * What an extension adds, beside the grant's monthly rate: "$2,661.66 for the
 * added 7 days", the period from the grant's end now to the new end. Null when
 * the new end is not later.
 */
export function addedPeriodCostPhrase(monthly: number, from: Date, to: Date, currency: string): string | null {
  const period = costOverPeriod(monthly, from, to);
  return period && `${formatMoney(period.cost, currency)} for the added ${describePeriod(period.hours)}`;
}
