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


/** A pool's further requestable profiles: at most this many (a MIG GPU has at most 7 instances, of few profiles). */
export const MAX_GPU_PROFILES = 16;
const MIG_PROFILE_RESOURCE = /^nvidia\.com\/mig-[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PROFILE_MODEL = /^[A-Za-z0-9][A-Za-z0-9 ._()+-]*$/;
const MODEL_RULE = "a model name such as A100 3g.40gb (letters, digits, spaces, '.', '-', '_', '+', brackets, at most 60)";
const PROFILE_LINE = /^(.+?)\s*=\s*(\S+)\s*[x×]\s*(\S+)$/;

interface ProfileIn {
  model: string;
  resource: string;
  perNode: number;
}

/** Why a profile is not one, each problem a sentence naming it; the list is checked as a whole too (each model and resource once). */
function profileProblems(list: readonly ProfileIn[]): string[] {
  const problems: string[] = [];
  if (list.length > MAX_GPU_PROFILES) problems.push(`Enter at most ${MAX_GPU_PROFILES} further GPU profiles.`);
  for (const x of list) {
    if (x.model.length > 60 || !PROFILE_MODEL.test(x.model)) problems.push(`Give the profile “${x.model}” ${MODEL_RULE}.`);
    if (!MIG_PROFILE_RESOURCE.test(x.resource)) problems.push(`Give the profile ${x.model} a MIG resource such as nvidia.com/mig-3g.40gb, not “${x.resource}”.`);
    if (!Number.isInteger(x.perNode) || x.perNode < 1 || x.perNode > 1024) problems.push(`Give the profile ${x.model} a whole number from 1 to 1024 of instances per node.`);
  }
  const models = list.map((x) => x.model);
  const dupModel = models.find((m, i) => models.indexOf(m) !== i);
  if (dupModel) problems.push(`Name the profile ${dupModel} once only.`);
  const resources = list.map((x) => x.resource);
  const dupResource = resources.find((r, i) => resources.indexOf(r) !== i);
  if (dupResource) problems.push(`Make ${dupResource} requestable under one model only.`);
  return problems;
}

/** "model = resource x perNode" lines (the form) into profiles. */
function parseProfileLines(text: string): Parsed<ProfileIn[]> {
  const problems: string[] = [];
  const list: ProfileIn[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "") continue;
    const m = PROFILE_LINE.exec(line);
    if (!m) {
      problems.push(`Write “${line}” as model = resource x instances per node, e.g. A100 3g.40gb = nvidia.com/mig-3g.40gb x 2.`);
      continue;
    }
    list.push({ model: m[1]!.trim(), resource: m[2]!, perNode: /^\d+$/.test(m[3]!) ? Number(m[3]) : NaN });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: list };
}

const PER_NODE_RULE = "Enter a whole number from 1 to 1024 of instances per node.";
const RESOURCE_RULE = "Enter a MIG resource such as nvidia.com/mig-3g.40gb.";
const profileObject = z.object({
  model: z.string({ message: `Enter ${MODEL_RULE}.` }).max(60, atMostChars(60)).regex(PROFILE_MODEL, `Enter ${MODEL_RULE}.`),
  resource: z.string({ message: RESOURCE_RULE }).max(253, atMostChars(253)).regex(MIG_PROFILE_RESOURCE, RESOURCE_RULE),
  perNode: z.number({ message: PER_NODE_RULE }).int(PER_NODE_RULE).min(1, PER_NODE_RULE).max(1024, PER_NODE_RULE),
});

/**
 * A pool's further requestable GPU profiles (MIG mixed strategy): "model =
 * resource x perNode" lines (form), or a list of {model, resource, perNode}
 * (API). Absent or empty: none, the pool's GPU model is its only profile.
 */
export const gpuProfilesInput = z
  .union([z.string().max(5_000, atMostChars(5000)).describe("model = resource x perNode lines"), z.array(profileObject).max(MAX_GPU_PROFILES, `Enter at most ${MAX_GPU_PROFILES} further GPU profiles.`), z.null()])
  .optional()
  .transform((raw, ctx): ProfileIn[] => {
    if (raw == null) return [];
    const parsed = typeof raw === "string" ? parseProfileLines(raw) : ({ ok: true, value: raw } as const);
    if (!parsed.ok) return fromParsed(parsed, ctx);
    const list = parsed.value;
    const problems = profileProblems(list);
    if (problems.length > 0) return fromParsed<ProfileIn[]>({ ok: false, problems }, ctx);
    return list.map((x) => ({ model: x.model, resource: x.resource, perNode: x.perNode }));
  })
  .describe("Further requestable GPU profiles of a MIG mixed-strategy pool, beside its GPU model: each a model name of its own, its MIG resource and the instances a node offers");
