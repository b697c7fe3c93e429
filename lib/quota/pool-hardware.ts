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
export const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
/** A DNS subdomain (a key's prefix): lower-case labels joined by dots, at most 253 characters. */
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why `key` is not a Kubernetes label (or taint) key, or null when it is one. */
export function labelKeyProblem(key: string): string | null {
  const slash = key.indexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : null;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== null && !DNS_SUBDOMAIN.test(prefix)) return `Give key “${key}” a prefix that is a DNS subdomain (lower-case letters, digits, '-' and '.', e.g. nvidia.com).`;
  if (!NAME.test(name)) return `End key “${key}” in a name of at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit.`;
  return null;
}

/** Why `value` is not a label (or taint) value, or null when it is one (empty is one). */
export function labelValueProblem(key: string, value: string): string | null {
  if (value === "" || NAME.test(value)) return null;
  return `Write the value “${value}” of ${key} in at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit.`;
}

// ---------------------------------------------------------------- lines of text

/** Non-empty entries, one a line (commas also separate: neither labels nor taints may contain one). */
const entriesOf = (text: string) =>
  text
    .split(/\r?\n|,/)
    .map((raw) => raw.trim())
    .filter((entry) => entry !== "");

export type Parsed<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** "key=value" lines into labels. */
export function parseNodeLabels(text: string): Parsed<Record<string, string>> {
  const problems: string[] = [];
  const labels: Record<string, string> = {};
  for (const entry of entriesOf(text)) {
    const eq = entry.indexOf("=");
    if (eq < 0) {
      problems.push(`Write “${entry}” as key=value.`);
      continue;
    }
    const key = entry.slice(0, eq).trim();
    const value = entry.slice(eq + 1).trim();
    if (key in labels) problems.push(`Give key “${key}” once only.`);
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
      problems.push(`Write “${entry}” as key=value:Effect or key:Effect (Effect one of ${TAINT_EFFECTS.join(", ")}).`);
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
  if (keys.length > MAX_NODE_LABELS) problems.push(`Enter at most ${MAX_NODE_LABELS} labels.`);
  for (const key of keys) {
    const p = labelKeyProblem(key) ?? labelValueProblem(key, labels[key]!);
    if (p) problems.push(p);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: Object.fromEntries(keys.sort().map((k) => [k, labels[k]!])) };
}

export function checkTaints(taints: readonly NodeTaint[]): Parsed<NodeTaint[]> {
  const problems: string[] = [];
  if (taints.length > MAX_NODE_TAINTS) problems.push(`Enter at most ${MAX_NODE_TAINTS} taints.`);
  const seen = new Set<string>();
  for (const t of taints) {
    const p = labelKeyProblem(t.key) ?? (t.value === undefined ? null : labelValueProblem(t.key, t.value));
    if (p) problems.push(p);
    if (!(TAINT_EFFECTS as readonly string[]).includes(t.effect)) problems.push(`Give ${t.key} an effect that is one of ${TAINT_EFFECTS.join(", ")}, not “${t.effect}”.`);
    // The API server refuses two taints with the same key and effect.
    const id = `${t.key}:${t.effect}`;
    if (seen.has(id)) problems.push(`Give ${t.key} with effect ${t.effect} once only.`);
    seen.add(id);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: taints.map((t) => ({ key: t.key, ...(t.value === undefined ? {} : { value: t.value }), effect: t.effect })) };
}

/** The sharing a pool has when none was sent: what its GPU resource implies. */
export function sharingFor(sent: GpuSharing | null, gpuResource: string | null): GpuSharing {
  if (sent !== null) return sent;
  if (gpuResource?.startsWith("nvidia.com/mig-")) return "mig";
  return gpuResource === "nvidia.com/gpu.shared" ? "time_sliced" : "exclusive";
}

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
