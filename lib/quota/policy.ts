import { GiB, gpuBurstTotal, gpuTotal, hasBurst, type QuotaAmounts } from "./amounts";
import type { CapacityLine } from "./capacity";
import { monthlyCost, type CostEstimate } from "./cost";
import { grantInForce, type GrantSpan } from "./effective";
import type { QuotaPolicy } from "./policy-schema";
import { formatMoney, minorDigits, roundMoney, sumMoney } from "@/lib/money";

/** Automatic approvals in force may add up to this many times the per-request limits, unless the policy says otherwise. */
export const DEFAULT_CUMULATIVE_FACTOR = 3;

/** The approval queue's "large" filter when no second-approval limit is set: monthly estimates above this. */
export const DEFAULT_LARGE_REQUEST_MONTHLY_COST = 5000;

/** Platform rules for quota requests (the schema, which the settings store and form parse with, is in policy-schema.ts). */
export type { QuotaPolicy } from "./policy-schema";

export const DEFAULT_QUOTA_POLICY: QuotaPolicy = {
  overcommit: { cpu: 1, memory: 1, gpu: 1 },
  autoApprove: { enabled: true, maxCpuCores: 8, maxMemoryGiB: 32, maxStorageGiB: 200, underMonthlyCost: null, cumulativeFactor: DEFAULT_CUMULATIVE_FACTOR },
  secondApprovalAboveMonthlyCost: null,
  expiryWarningHours: 72,
};

export type AutoDecision = { auto: true; rule: string } | { auto: false; reason: string };

/**
 * What a project already holds by automatic approval: the grants in force
 * that a rule approved (not a person), their amounts, and their monthly cost
 * at the prices in force now.
 */
export interface AutoApprovedHoldings {
  grants: number;
  cpuCores: number;
  memoryBytes: number;
  storageBytes: number;
  monthly: number;
}

export const NO_AUTO_APPROVED_HOLDINGS: AutoApprovedHoldings = { grants: 0, cpuCores: 0, memoryBytes: 0, storageBytes: 0, monthly: 0 };

/** The holdings of the automatically approved grants in force at `at`, priced at `prices` (the ones in force now). */
export function autoApprovedHoldings(grants: readonly GrantSpan[], at: Date, prices: ReadonlyMap<string, number>): AutoApprovedHoldings {
  const held = { ...NO_AUTO_APPROVED_HOLDINGS };
  for (const g of grants) {
    if (!grantInForce(g, at)) continue;
    held.grants += 1;
    held.cpuCores = Math.round((held.cpuCores + g.cpuCores) * 1000) / 1000;
    held.memoryBytes += g.memoryBytes;
    held.storageBytes += g.storageBytes;
    held.monthly = Math.round((held.monthly + monthlyCost(g, prices).monthly) * 100) / 100;
  }
  return held;
}

/** "GPUs", "CPU and memory", "GPUs, CPU and memory": what a request asks to borrow. */
function burstWords(a: QuotaAmounts): string {
  const parts = [gpuBurstTotal(a) > 0 ? "GPUs" : null, (a.cpuBurst ?? 0) > 0 ? "CPU" : null, (a.memoryBurstBytes ?? 0) > 0 ? "memory" : null].filter((p): p is string => p !== null);
  return parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : (parts[0] ?? "");
}

const num = (n: number) => (Math.round(n * 1000) / 1000).toLocaleString("en-US", { maximumFractionDigits: 3 });
const gib = (bytes: number) => num(bytes / GiB);

/**
 * Whether a request is approved by rule, without a person. Never when it
 * would not fit the cluster or when part of it has no price (the cost rule
 * cannot be judged then). With a cumulative factor N, each rule also holds
 * for the project's automatically approved grants in force plus this
 * request, against N times its limits: many small requests in a row cannot
 * add up to a large one nobody looked at.
 *
 * A request naming several GPU models is judged as one request: the "small"
 * rule holds only without GPUs of any model, burst of any model sends it to
 * a person, and the cost rule prices every model at its own rate and adds
 * them up (one model without a price leaves the rule unjudged); the
 * cumulative cap counts them likewise, so splitting a request by model
 * gains nothing.
 */
export function autoApproval(
  amounts: QuotaAmounts,
  estimate: CostEstimate,
  capacity: readonly Pick<CapacityLine, "exceeds" | "fit">[],
  policy: QuotaPolicy,
  currency: string,
  held: AutoApprovedHoldings = NO_AUTO_APPROVED_HOLDINGS,
): AutoDecision {
  const rules = policy.autoApprove;
  if (!rules.enabled) return { auto: false, reason: "automatic approval is off" };
  // Burst lets a project borrow from its cohort and reclaim nothing of its own: a person weighs it against the others' guarantees.
  if (hasBurst(amounts)) return { auto: false, reason: `it asks for burst ${burstWords(amounts)}, which a platform admin decides` };
  // Nodes the autoscaler might add are a person's call: the rules approve only what fits on the nodes present.
  if (capacity.some((l) => l.exceeds && l.fit.kind === "grows")) return { auto: false, reason: "it fits only when the autoscaler adds nodes" };
  if (capacity.some((l) => l.exceeds)) return { auto: false, reason: "it would exceed the capacity of the cluster" };
  const n = rules.cumulativeFactor;
  const holders = `the project's ${held.grants === 0 ? "" : `${held.grants} `}automatically approved grant${held.grants === 1 ? "" : "s"} in force`;
  const blocked: string[] = [];

  const small =
    gpuTotal(amounts) === 0 &&
    amounts.cpuCores <= rules.maxCpuCores &&
    amounts.memoryBytes <= rules.maxMemoryGiB * GiB &&
    amounts.storageBytes <= rules.maxStorageGiB * GiB;
  const smallRule = `no GPUs and at most ${rules.maxCpuCores} cores, ${rules.maxMemoryGiB} GiB memory and ${rules.maxStorageGiB} GiB storage`;
  if (small) {
    if (n === null) return { auto: true, rule: smallRule };
    const cpu = held.cpuCores + amounts.cpuCores;
    const memory = held.memoryBytes + amounts.memoryBytes;
    const storage = held.storageBytes + amounts.storageBytes;
    // A hair of tolerance: sums of fractional cores drift in binary floating point.
    if (cpu <= n * rules.maxCpuCores + 1e-9 && memory <= n * rules.maxMemoryGiB * GiB && storage <= n * rules.maxStorageGiB * GiB) {
      return {
        auto: true,
        rule: `${smallRule}; automatically approved grants in force, this one included: ${num(cpu)} of ${num(n * rules.maxCpuCores)} cores, ${gib(memory)} of ${num(n * rules.maxMemoryGiB)} GiB memory, ${gib(storage)} of ${num(n * rules.maxStorageGiB)} GiB storage (${num(n)}× the limits)`,
      };
    }
    blocked.push(
      `${holders} and this request would hold ${num(cpu)} cores, ${gib(memory)} GiB memory and ${gib(storage)} GiB storage, more than ${num(n)}× the automatic limits (${num(n * rules.maxCpuCores)} cores, ${num(n * rules.maxMemoryGiB)} GiB memory, ${num(n * rules.maxStorageGiB)} GiB storage)`,
    );
  }

  const under = rules.underMonthlyCost;
  if (under !== null && estimate.unpriced.length === 0 && estimate.monthly < under) {
    const money = (amount: number) => formatMoney(amount, currency);
    if (n === null) return { auto: true, rule: `monthly estimate under ${money(under)}` };
    const total = sumMoney([held.monthly, estimate.monthly], minorDigits(currency));
    const limit = roundMoney(n * under, minorDigits(currency));
    if (total <= limit) return { auto: true, rule: `monthly estimate under ${money(under)}; automatically approved grants in force, this one included: ${money(total)} of ${money(limit)} a month (${num(n)}× the limit)` };
    blocked.push(`${holders} and this request come to ${money(total)} a month, more than ${num(n)}× the automatic limit (${money(limit)})`);
  }
  if (blocked.length > 0) return { auto: false, reason: blocked.join("; and ") };
  return { auto: false, reason: "it is larger than the automatic approval rules allow" };
}

export const needsSecondApproval = (monthly: number, policy: QuotaPolicy) => policy.secondApprovalAboveMonthlyCost !== null && monthly > policy.secondApprovalAboveMonthlyCost;

/** The monthly estimate above which the approval queue calls a request large: the second-approval limit when one is set. */
export const largeRequestThreshold = (policy: QuotaPolicy): number => policy.secondApprovalAboveMonthlyCost ?? DEFAULT_LARGE_REQUEST_MONTHLY_COST;
