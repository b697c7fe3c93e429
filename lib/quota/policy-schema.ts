import { z } from "zod";
import { DEFAULT_CUMULATIVE_FACTOR } from "./policy";

/*
 * Apart from policy.ts so that the client components that run its rules (the request form's
 * preview of automatic approval) do not carry the schema library.
 */

const OVERCOMMIT = "Enter a factor from 0.1 to 20.";

/** Platform rules for quota requests, kept in instance_settings under "quota_policy". */
export const quotaPolicySchema = z.object({
  overcommit: z.object({
    cpu: z.coerce.number().min(0.1, OVERCOMMIT).max(20, OVERCOMMIT),
    memory: z.coerce.number().min(0.1, OVERCOMMIT).max(20, OVERCOMMIT),
    gpu: z.coerce.number().min(0.1, OVERCOMMIT).max(20, OVERCOMMIT),
  }),
  autoApprove: z.object({
    enabled: z.boolean(),
    /** Requests adding no GPUs and at most these amounts are approved without a person. */
    maxCpuCores: z.coerce.number().min(0, "Enter 0 or more."),
    maxMemoryGiB: z.coerce.number().min(0, "Enter 0 or more."),
    maxStorageGiB: z.coerce.number().min(0, "Enter 0 or more."),
    /** Or: any request whose monthly estimate is under this (null: rule off). */
    underMonthlyCost: z.coerce.number().min(0, "Enter 0 or more.").nullable(),
    /**
     * The cumulative cap: a project's automatically approved grants in force,
     * with the new request, stay within this many times each rule's limit
     * (null: each request is judged alone). Stored policies from before the
     * cap get the default.
     */
    cumulativeFactor: z.coerce.number().min(1, "Enter a number from 1 to 100.").max(100, "Enter a number from 1 to 100.").nullable().default(DEFAULT_CUMULATIVE_FACTOR),
  }),
  /** Above this monthly estimate a second, different platform admin must approve too (null: never). */
  secondApprovalAboveMonthlyCost: z.coerce.number().min(0, "Enter 0 or more.").nullable(),
  /** Tenant admins are warned this long before a time-bound grant ends. */
  expiryWarningHours: z.coerce.number().int("Enter whole hours.").min(0, "Enter 0 or more.").max(24 * 30, "Enter at most 720 hours."),
});
export type QuotaPolicy = z.infer<typeof quotaPolicySchema>;

