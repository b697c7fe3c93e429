import { z } from "zod";
import { checkLabels, checkTaints, GPU_SHARING, LABEL_VALUE, MAX_NODE_TAINTS, parseNodeLabels, parseNodeTaints, TAINT_EFFECTS, WORKLOAD_TIERS, type GpuSharing, type Parsed, type WorkloadTier } from "./pool-hardware";
import { atMostChars, oneOf } from "@/lib/input/messages";

/**
 * The pool hardware fields of the capacity form (text) and the API (JSON), as zod schemas over the
 * checks of pool-hardware.ts. Apart from it so that client components reading pool facts do not
 * carry the schema library.
 */

const LABEL_VALUE_RULE = "Enter a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit.";

function fromParsed<T>(parsed: Parsed<T>, ctx: z.RefinementCtx): T {
  if (parsed.ok) return parsed.value;
  for (const message of parsed.problems) ctx.addIssue({ code: "custom", message });
  return z.NEVER;
}

/** Node labels: key=value lines (form), or an object of strings (API). Absent or empty: none. */
export const nodeLabelsInput = z
  .union([
    z.string().max(20_000, atMostChars(20000)).describe("key=value lines"),
    // An object whose values state their grammar (the keys' is checked below: JSON Schema here cannot say it).
    z
      .object({})
      .catchall(z.string().max(63).regex(LABEL_VALUE, LABEL_VALUE_RULE))
      .describe("Label key to value"),
    z.null(),
  ])
  .optional()
  .transform((raw, ctx) => {
    if (raw == null) return {};
    return fromParsed(typeof raw === "string" ? parseNodeLabels(raw) : checkLabels(raw), ctx);
  })
  .describe("Labels every node of the pool carries (Kubernetes label syntax), as key=value lines or an object");

const taintObject = z.object({
  key: z.string().min(1).max(317),
  value: z.string().max(63).regex(LABEL_VALUE, LABEL_VALUE_RULE).optional(),
  effect: z.enum(TAINT_EFFECTS, { message: oneOf(TAINT_EFFECTS) }),
});

/** Node taints: key=value:Effect lines (form), or a list of {key, value?, effect} (API). Absent or empty: none. */
export const nodeTaintsInput = z
  .union([z.string().max(20_000, atMostChars(20000)).describe("key=value:Effect lines"), z.array(taintObject).max(MAX_NODE_TAINTS), z.null()])
  .optional()
  .transform((raw, ctx) => {
    if (raw == null) return [];
    return fromParsed(typeof raw === "string" ? parseNodeTaints(raw) : checkTaints(raw), ctx);
  })
  .describe(`Taints of the pool's nodes, as key=value:Effect lines or a list (effect one of ${TAINT_EFFECTS.join(", ")})`);

/** GPU sharing as sent; null (absent or empty): as the GPU resource says (sharingFor). */
export const gpuSharingInput = z
  .union([z.enum(GPU_SHARING, { message: oneOf(GPU_SHARING) }), z.literal(""), z.null()])
  .optional()
  .transform((v): GpuSharing | null => (v == null || v === "" ? null : v))
  .describe(
    "How the GPUs are shared: exclusive (whole GPUs), mig (MIG instances), time_sliced (replicas of each GPU); empty: as the GPU resource says (mig for nvidia.com/mig-*, time_sliced for nvidia.com/gpu.shared, else exclusive)",
  );

/** Workload tiers: a list (API), or names separated by commas or spaces (form). Absent or empty: every tier. */
export const tiersInput = z
  .union([
    z
      .string()
      .max(200)
      .regex(new RegExp(`^[\\s,]*(?:(?:${WORKLOAD_TIERS.join("|")})[\\s,]*)*$`), `Enter tiers from ${WORKLOAD_TIERS.join(", ")}.`)
      .describe(`Tier names separated by commas or spaces (${WORKLOAD_TIERS.join(", ")}); empty: every tier`),
    z.array(z.enum(WORKLOAD_TIERS, { message: oneOf(WORKLOAD_TIERS) })).min(1, "Name at least one tier; null allows every tier."),
    z.null(),
  ])
  .optional()
  .transform((raw, ctx): WorkloadTier[] | null => {
    if (raw == null) return null;
    const names = typeof raw === "string" ? raw.split(/[\s,]+/).filter(Boolean) : raw;
    if (names.length === 0) return null;
    const unknown = names.filter((n) => !(WORKLOAD_TIERS as readonly string[]).includes(n));
    if (unknown.length > 0) {
      ctx.addIssue({ code: "custom", message: `Enter tiers from ${WORKLOAD_TIERS.join(", ")} (not ${unknown.map((u) => `“${u}”`).join(", ")}).` });
      return z.NEVER;
    }
    // In the known order, each once.
    return WORKLOAD_TIERS.filter((t) => names.includes(t));
  })
  .describe(`The workload tiers allowed on the pool (${WORKLOAD_TIERS.join(", ")}); null or empty: every tier`);

