import { resourceKind, type ResourceKind } from "@/lib/metering/units";

/**
 * The one palette of the spend pages: a resource has the same colour on every
 * page, whatever else the page shows. A colour depends on the resource key
 * alone (never on its position among the resources of a report, which would
 * give the A100 one colour on a project's page and another on its tenant's).
 * GPU models and custom meters take a colour of their family by a hash of the key.
 */

const GPU_COLOURS = ["#4f46e5", "#a855f7", "#2563eb", "#c026d3", "#1e3a8a", "#7c3aed"];
const KIND_COLOURS: Record<Exclude<ResourceKind, "gpu" | "custom">, string> = { cpu: "#0d9488", memory: "#d97706", storage: "#64748b", inference: "#db2777" };
const CUSTOM_COLOURS = ["#65a30d", "#0891b2", "#b45309", "#475569"];

/** Colours of the parts that are not one resource: GPUs busy or idle, everything else, a tenant's spend. */
export const PART_COLOURS = { busy: "#4f46e5", idle: "#f59e0b", other: "#0d9488", spend: "#4f46e5" } as const;

/** The budget line drawn over a chart. */
export const BUDGET_COLOUR = "#dc2626";

function stableIndex(key: string, size: number): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) >>> 0;
  return h % size;
}

export function resourceColour(key: string): string {
  const kind = resourceKind(key);
  if (kind === "gpu") return GPU_COLOURS[stableIndex(key, GPU_COLOURS.length)]!;
  if (kind === "custom") return CUSTOM_COLOURS[stableIndex(key, CUSTOM_COLOURS.length)]!;
  return KIND_COLOURS[kind];
}

/** The colour of each resource of a list, for a chart's legend and its bars. */
export function resourceColours(keys: readonly string[]): Map<string, string> {
  return new Map(keys.map((key) => [key, resourceColour(key)]));
}
