import { resourceKind, type ResourceKind } from "@/lib/metering/units";

/**
 * The one palette of the spend pages: a resource has the same colour on every
 * page, whatever else the page shows. A colour depends on the resource key
 * (never on its position among the resources of a report, which would give
 * the A100 one colour on a project's page and another on its tenant's): CPU,
 * memory, storage and inference have their own; the common GPU models and
 * flavours have a fixed one of the GPU family; any other GPU model or custom
 * meter takes one of its family by a hash of the key. Two resources of one
 * chart never share a colour: when two hashed keys land on the same one, the
 * later key (in the chart's order) takes the next free colour of its family,
 * which is then the only case where a colour can differ between pages.
 */

// Ten GPU colours, far enough apart to tell stacked bars apart, none of them CPU's teal, memory's amber, storage's slate or inference's pink.
const GPU_COLOURS = ["#4f46e5", "#a855f7", "#2563eb", "#c026d3", "#1e3a8a", "#7c3aed", "#0ea5e9", "#6d28d9", "#818cf8", "#86198f"];
/** The GPU flavours most platforms run (and the demo's), each with a colour of its own. */
const KNOWN_GPU_COLOUR_INDEX: Readonly<Record<string, number>> = {
  "gpu:H100": 0,
  "gpu:L4": 2,
  "gpu:A100 1g.10gb": 1,
  "gpu:A100": 4,
  "gpu:H200": 5,
  "gpu:B200": 3,
  "gpu:L40S": 6,
  "gpu:A10": 7,
  "gpu:T4": 8,
  "gpu:V100": 9,
};
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

function familyOf(key: string): { colours: readonly string[]; first: number } | null {
  const kind = resourceKind(key);
  if (kind === "gpu") return { colours: GPU_COLOURS, first: KNOWN_GPU_COLOUR_INDEX[key] ?? stableIndex(key, GPU_COLOURS.length) };
  if (kind === "custom") return { colours: CUSTOM_COLOURS, first: stableIndex(key, CUSTOM_COLOURS.length) };
  return null;
}

/** A resource's own colour, before any collision with another resource of the same chart. */
export function resourceColour(key: string): string {
  const family = familyOf(key);
  return family ? family.colours[family.first]! : KIND_COLOURS[resourceKind(key) as keyof typeof KIND_COLOURS];
}

/**
 * The colour of each resource of a list, for a chart's legend and its bars: each its own colour,
 * except that a key whose colour an earlier key of the list holds takes the next free one of its
 * family (a family with more members than colours repeats only then).
 */
export function resourceColours(keys: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const key of keys) {
    if (out.has(key)) continue;
    const family = familyOf(key);
    let colour = resourceColour(key);
    if (family && taken.has(colour)) {
      for (let step = 1; step < family.colours.length; step++) {
        const next = family.colours[(family.first + step) % family.colours.length]!;
        if (!taken.has(next)) {
          colour = next;
          break;
        }
      }
    }
    out.set(key, colour);
    taken.add(colour);
  }
  return out;
}
