import { z } from "zod";
import { GiB, type QuotaAmounts } from "./amounts";
import type { CapacityLine } from "./capacity";
import type { CostEstimate } from "./cost";

/** Platform rules for quota requests, kept in instance_settings under "quota_policy". */
export const quotaPolicySchema = z.object({
  overcommit: z.object({
    cpu: z.coerce.number().min(0.1, "must be at least 0.1").max(20, "must be at most 20"),
    memory: z.coerce.number().min(0.1, "must be at least 0.1").max(20, "must be at most 20"),
    gpu: z.coerce.number().min(0.1, "must be at least 0.1").max(20, "must be at most 20"),
  }),
  autoApprove: z.object({
    enabled: z.boolean(),
    /** Requests adding no GPUs and at most these amounts are approved without a person. */
    maxCpuCores: z.coerce.number().min(0, "must be 0 or more"),
    maxMemoryGiB: z.coerce.number().min(0, "must be 0 or more"),
    maxStorageGiB: z.coerce.number().min(0, "must be 0 or more"),
    /** Or: any request whose monthly estimate is under this (null: rule off). */
    underMonthlyCost: z.coerce.number().min(0, "must be 0 or more").nullable(),
  }),
  /** Above this monthly estimate a second, different platform admin must approve too (null: never). */
  secondApprovalAboveMonthlyCost: z.coerce.number().min(0, "must be 0 or more").nullable(),
  /** Tenant admins are warned this long before a time-bound grant ends. */
  expiryWarningHours: z.coerce.number().int("must be whole hours").min(0, "must be 0 or more").max(24 * 30, "must be at most 720"),
});
export type QuotaPolicy = z.infer<typeof quotaPolicySchema>;

export const DEFAULT_QUOTA_POLICY: QuotaPolicy = {
  overcommit: { cpu: 1, memory: 1, gpu: 1 },
  autoApprove: { enabled: true, maxCpuCores: 8, maxMemoryGiB: 32, maxStorageGiB: 200, underMonthlyCost: null },
  secondApprovalAboveMonthlyCost: null,
  expiryWarningHours: 72,
};

export type AutoDecision = { auto: true; rule: string } | { auto: false; reason: string };

/**
 * Whether a request is approved by rule, without a person. Never when it
 * would not fit the cluster or when part of it has no price (the cost rule
 * cannot be judged then).
 */
export function autoApproval(amounts: QuotaAmounts, estimate: CostEstimate, capacity: readonly CapacityLine[], policy: QuotaPolicy): AutoDecision {
  const rules = policy.autoApprove;
  if (!rules.enabled) return { auto: false, reason: "automatic approval is off" };
  if (capacity.some((l) => l.exceeds)) return { auto: false, reason: "it would exceed the capacity of the cluster" };
  const small =
    amounts.gpuCount === 0 &&
    amounts.cpuCores <= rules.maxCpuCores &&
    amounts.memoryBytes <= rules.maxMemoryGiB * GiB &&
    amounts.storageBytes <= rules.maxStorageGiB * GiB;
  if (small) return { auto: true, rule: `no GPUs and at most ${rules.maxCpuCores} cores, ${rules.maxMemoryGiB} GiB memory and ${rules.maxStorageGiB} GiB storage` };
  if (rules.underMonthlyCost !== null && estimate.unpriced.length === 0 && estimate.monthly < rules.underMonthlyCost) {
    return { auto: true, rule: `monthly estimate under ${rules.underMonthlyCost}` };
  }
  return { auto: false, reason: "it is larger than the automatic approval rules allow" };
}

export const needsSecondApproval = (monthly: number, policy: QuotaPolicy) => policy.secondApprovalAboveMonthlyCost !== null && monthly > policy.secondApprovalAboveMonthlyCost;
