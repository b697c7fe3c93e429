import { z } from "zod";

/**
 * What a node pool knows of its hardware beyond counts (pure): the labels and
 * taints its nodes carry, how its GPUs are shared, and which workload tiers
 * may run there. The create/edit form sends labels and taints as lines of
 * text; the API as JSON; both reach the same checks, with messages that
 * name the line and the rule (Kubernetes label and taint syntax).
 */

export const GPU_SHARING = ["exclusive", "mig", "time_sliced"] as const;
export type GpuSharing = (typeof GPU_SHARING)[number];

export const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;
export type TaintEffect = (typeof TAINT_EFFECTS)[number];
export interface NodeTaint {
  key: string;
  value?: string;
  effect: TaintEffect;
}

/** The workload tiers a pool may admit (null on a pool: every tier). */
export const WORKLOAD_TIERS = ["serving", "training", "preemptible"] as const;
export type WorkloadTier = (typeof WORKLOAD_TIERS)[number];

/** Time-slicing replicas per physical GPU: the device plugin accepts any, 64 is more than anyone shares one GPU. */
export const MAX_GPU_SLICES = 64;
export const MAX_NODE_LABELS = 64;
export const MAX_NODE_TAINTS = 32;

// ---------------------------------------------------------------- Kubernetes syntax

/** A label name, or the name part of a key: up to 63 alphanumerics, '-', '_', '.', starting and ending alphanumeric. */
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
/** A label value: empty, or a NAME. */
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
/** A DNS subdomain (a key's prefix): lower-case labels joined by dots, at most 253 characters. */
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why `key` is not a Kubernetes label (or taint) key, or null when it is one. */
export function labelKeyProblem(key: string): string | null {
  const slash = key.indexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : null;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== null && !DNS_SUBDOMAIN.test(prefix)) return `key “${key}” has a prefix that is not a DNS subdomain (lower-case letters, digits, '-' and '.', e.g. nvidia.com)`;
  if (!NAME.test(name)) return `key “${key}” must end in a name of at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
  return null;
}

/** Why `value` is not a label (or taint) value, or null when it is one (empty is one). */
export function labelValueProblem(key: string, value: string): string | null {
  if (value === "" || NAME.test(value)) return null;
  return `value “${value}” of ${key} must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
}

// ---------------------------------------------------------------- lines of text

/** Non-empty entries, one a line (commas also separate: neither labels nor taints may contain one). */
const entriesOf = (text: string) =>
  text
    .split(/\r?\n|,/)
    .map((raw) => raw.trim())
    .filter((entry) => entry !== "");

type Parsed<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** "key=value" lines into labels. */
export function parseNodeLabels(text: string): Parsed<Record<string, string>> {
  const problems: string[] = [];
  const labels: Record<string, string> = {};
  for (const entry of entriesOf(text)) {
    const eq = entry.indexOf("=");
    if (eq < 0) {
      problems.push(`“${entry}” must be key=value`);
      continue;
    }
    const key = entry.slice(0, eq).trim();
    const value = entry.slice(eq + 1).trim();
    if (key in labels) problems.push(`key “${key}” is given twice`);
    labels[key] = value;
  }
  if (problems.length > 0) return { ok: false, problems };
  return checkLabels(labels);
}

/** "key=value:Effect" (or "key:Effect") lines into taints. */
export function parseNodeTaints(text: string): Parsed<NodeTaint[]> {
  const problems: string[] = [];
  const taints: NodeTaint[] = [];
  for (const entry of entriesOf(text)) {
    const colon = entry.lastIndexOf(":");
    if (colon < 0) {
      problems.push(`“${entry}” must be key=value:Effect or key:Effect (Effect one of ${TAINT_EFFECTS.join(", ")})`);
      continue;
    }
    const head = entry.slice(0, colon).trim();
    const effect = entry.slice(colon + 1).trim();
    const eq = head.indexOf("=");
    const key = eq < 0 ? head : head.slice(0, eq).trim();
    const value = eq < 0 ? undefined : head.slice(eq + 1).trim();
    taints.push({ key, ...(value === undefined || value === "" ? {} : { value }), effect: effect as TaintEffect });
  }
  if (problems.length > 0) return { ok: false, problems };
  return checkTaints(taints);
}

/** The form's text for stored labels: one key=value a line, keys sorted. */
export const formatNodeLabels = (labels: Record<string, string>) =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join("\n");

/** The form's text for stored taints: one key=value:Effect a line, as stored. */
export const formatNodeTaint = (t: NodeTaint) => `${t.key}${t.value === undefined ? "" : `=${t.value}`}:${t.effect}`;
export const formatNodeTaints = (taints: readonly NodeTaint[]) => taints.map(formatNodeTaint).join("\n");

// ---------------------------------------------------------------- checks

export function checkLabels(labels: Record<string, string>): Parsed<Record<string, string>> {
  const problems: string[] = [];
  const keys = Object.keys(labels);
  if (keys.length > MAX_NODE_LABELS) problems.push(`must be at most ${MAX_NODE_LABELS} labels`);
  for (const key of keys) {
    const p = labelKeyProblem(key) ?? labelValueProblem(key, labels[key]!);
    if (p) problems.push(p);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: Object.fromEntries(keys.sort().map((k) => [k, labels[k]!])) };
}

export function checkTaints(taints: readonly NodeTaint[]): Parsed<NodeTaint[]> {
  const problems: string[] = [];
  if (taints.length > MAX_NODE_TAINTS) problems.push(`must be at most ${MAX_NODE_TAINTS} taints`);
  const seen = new Set<string>();
  for (const t of taints) {
    const p = labelKeyProblem(t.key) ?? (t.value === undefined ? null : labelValueProblem(t.key, t.value));
    if (p) problems.push(p);
    if (!(TAINT_EFFECTS as readonly string[]).includes(t.effect)) problems.push(`effect “${t.effect}” of ${t.key} must be one of ${TAINT_EFFECTS.join(", ")}`);
    // The API server refuses two taints with the same key and effect.
    const id = `${t.key}:${t.effect}`;
    if (seen.has(id)) problems.push(`${t.key} is given twice with effect ${t.effect}`);
    seen.add(id);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: taints.map((t) => ({ key: t.key, ...(t.value === undefined ? {} : { value: t.value }), effect: t.effect })) };
}

// ---------------------------------------------------------------- zod fields (form text or API JSON)

function fromParsed<T>(parsed: Parsed<T>, ctx: z.RefinementCtx): T {
  if (parsed.ok) return parsed.value;
  for (const message of parsed.problems) ctx.addIssue({ code: "custom", message });
  return z.NEVER;
}

/** Node labels: key=value lines (form), or an object of strings (API). Absent or empty: none. */
export const nodeLabelsInput = z
  .union([
    z.string().max(20_000, "must be at most 20000 characters").describe("key=value lines"),
    // An object whose values state their grammar (the keys' is checked below: JSON Schema here cannot say it).
    z
      .object({})
      .catchall(z.string().max(63).regex(LABEL_VALUE, "must be a label value"))
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
  value: z.string().max(63).regex(LABEL_VALUE, "must be a label value").optional(),
  effect: z.enum(TAINT_EFFECTS, { message: `must be one of ${TAINT_EFFECTS.join(", ")}` }),
});

/** Node taints: key=value:Effect lines (form), or a list of {key, value?, effect} (API). Absent or empty: none. */
export const nodeTaintsInput = z
  .union([z.string().max(20_000, "must be at most 20000 characters").describe("key=value:Effect lines"), z.array(taintObject).max(MAX_NODE_TAINTS), z.null()])
  .optional()
  .transform((raw, ctx) => {
    if (raw == null) return [];
    return fromParsed(typeof raw === "string" ? parseNodeTaints(raw) : checkTaints(raw), ctx);
  })
  .describe(`Taints of the pool's nodes, as key=value:Effect lines or a list (effect one of ${TAINT_EFFECTS.join(", ")})`);

/** GPU sharing as sent; null (absent or empty): as the GPU resource says (sharingFor). */
export const gpuSharingInput = z
  .union([z.enum(GPU_SHARING, { message: `must be one of ${GPU_SHARING.join(", ")}` }), z.literal(""), z.null()])
  .optional()
  .transform((v): GpuSharing | null => (v == null || v === "" ? null : v))
  .describe(
    "How the GPUs are shared: exclusive (whole GPUs), mig (MIG instances), time_sliced (replicas of each GPU); empty: as the GPU resource says (mig for nvidia.com/mig-*, time_sliced for nvidia.com/gpu.shared, else exclusive)",
  );

/** The sharing a pool has when none was sent: what its GPU resource implies. */
export function sharingFor(sent: GpuSharing | null, gpuResource: string | null): GpuSharing {
  if (sent !== null) return sent;
  if (gpuResource?.startsWith("nvidia.com/mig-")) return "mig";
  return gpuResource === "nvidia.com/gpu.shared" ? "time_sliced" : "exclusive";
}

/** Workload tiers: a list (API), or names separated by commas or spaces (form). Absent or empty: every tier. */
export const tiersInput = z
  .union([
    z
      .string()
      .max(200)
      .regex(new RegExp(`^[\\s,]*(?:(?:${WORKLOAD_TIERS.join("|")})[\\s,]*)*$`), `must be tiers from ${WORKLOAD_TIERS.join(", ")}`)
      .describe(`Tier names separated by commas or spaces (${WORKLOAD_TIERS.join(", ")}); empty: every tier`),
    z.array(z.enum(WORKLOAD_TIERS, { message: `must be one of ${WORKLOAD_TIERS.join(", ")}` })).min(1, "must name at least one tier; null allows every tier"),
    z.null(),
  ])
  .optional()
  .transform((raw, ctx): WorkloadTier[] | null => {
    if (raw == null) return null;
    const names = typeof raw === "string" ? raw.split(/[\s,]+/).filter(Boolean) : raw;
    if (names.length === 0) return null;
    const unknown = names.filter((n) => !(WORKLOAD_TIERS as readonly string[]).includes(n));
    if (unknown.length > 0) {
      ctx.addIssue({ code: "custom", message: `must be tiers from ${WORKLOAD_TIERS.join(", ")} (not ${unknown.map((u) => `“${u}”`).join(", ")})` });
      return z.NEVER;
    }
    // In the known order, each once.
    return WORKLOAD_TIERS.filter((t) => names.includes(t));
  })
  .describe(`The workload tiers allowed on the pool (${WORKLOAD_TIERS.join(", ")}); null or empty: every tier`);

// ---------------------------------------------------------------- slices and physical GPUs

/** What decides how many GPU units a node offers. */
export interface GpuSharingFacts {
  gpusPerNode: number;
  /** Absent: exclusive (pool facts from before pools knew their sharing). */
  gpuSharing?: GpuSharing;
  gpuSlices?: number;
}

/**
 * The schedulable units of the pool's GPU resource per node: what quota,
 * capacity and the rate card count (a gpu:<model> unit is one slice of a
 * time-sliced model, one MIG instance of a MIG profile, one GPU otherwise).
 * A time-sliced pool's gpusPerNode counts physical GPUs, each offered as
 * gpuSlices replicas; a MIG pool's gpusPerNode already counts instances.
 */
export function schedulableGpusPerNode(p: GpuSharingFacts): number {
  return p.gpuSharing === "time_sliced" ? p.gpusPerNode * Math.max(1, p.gpuSlices ?? 1) : p.gpusPerNode;
}

/**
 * The physical GPUs per node: gpusPerNode, except for MIG pools, where it
 * counts instances; there the GPU count label (nvidia.com/gpu.count, set by
 * GPU feature discovery) tells, and null when the pool does not carry it.
 */
export function physicalGpusPerNode(p: GpuSharingFacts & { nodeLabels?: Record<string, string> }): number | null {
  if (p.gpuSharing !== "mig") return p.gpusPerNode;
  const count = p.nodeLabels?.["nvidia.com/gpu.count"];
  return count !== undefined && /^\d+$/.test(count) ? Number(count) : null;
}

/** How people read a pool's sharing: "whole GPUs", "MIG instances", "time-sliced ×4". */
export function sharingLabel(p: { gpuSharing: GpuSharing; gpuSlices: number }): string {
  if (p.gpuSharing === "mig") return "MIG instances";
  if (p.gpuSharing === "time_sliced") return `time-sliced ×${p.gpuSlices}`;
  return "whole GPUs";
}
