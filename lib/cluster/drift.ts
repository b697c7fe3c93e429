import { parseQuantity } from "./quantity";

export interface FieldDrift {
  path: string;
  desired: unknown;
  live: unknown;
}

/** Metadata the API server fills in; the portal owns only labels and annotations there. */
const OWNED_METADATA = new Set(["labels", "annotations"]);

/** Quantities come back normalised ("1024Mi" as "1Gi", "0.5" as "500m"): equal amounts are not drift. */
function sameScalar(desired: unknown, live: unknown): boolean {
  if (desired === live) return true;
  if (typeof desired === "string" && typeof live === "string") {
    const a = parseQuantity(desired);
    const b = parseQuantity(live);
    return a !== null && b !== null && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));
  }
  if (typeof desired === "number" && typeof live === "string") return parseQuantity(live) === desired;
  return false;
}

function sameValue(desired: unknown, live: unknown): boolean {
  if (Array.isArray(desired)) {
    return Array.isArray(live) && desired.length === live.length && desired.every((d, i) => drift(d, live[i], "").length === 0);
  }
  if (desired !== null && typeof desired === "object") return live !== null && typeof live === "object" && drift(desired, live, "").length === 0;
  return sameScalar(desired, live);
}

function drift(desired: unknown, live: unknown, path: string): FieldDrift[] {
  if (desired === null || typeof desired !== "object" || Array.isArray(desired)) {
    return sameValue(desired, live) ? [] : [{ path: path || ".", desired, live: live ?? null }];
  }
  const liveObject = live !== null && typeof live === "object" && !Array.isArray(live) ? (live as Record<string, unknown>) : {};
  const out: FieldDrift[] = [];
  for (const [key, value] of Object.entries(desired as Record<string, unknown>)) {
    if (value === undefined) continue;
    out.push(...drift(value, liveObject[key], `${path}.${key}`));
  }
  return out;
}

/**
 * The fields the portal sets that differ on the live object. Only what we
 * render is compared (server-side apply owns exactly those), so fields other
 * controllers add (status, defaults, other labels) never count as drift.
 * Lists are compared whole, in order, as server-side apply replaces them.
 */
export function ownedFieldDrift(desired: Record<string, unknown>, live: Record<string, unknown>): FieldDrift[] {
  const out: FieldDrift[] = [];
  for (const [key, value] of Object.entries(desired)) {
    if (key === "apiVersion" || key === "kind") continue;
    if (key === "metadata" && value && typeof value === "object") {
      const liveMeta = (live.metadata ?? {}) as Record<string, unknown>;
      for (const [mk, mv] of Object.entries(value as Record<string, unknown>)) {
        if (OWNED_METADATA.has(mk)) out.push(...drift(mv, liveMeta[mk], `.metadata.${mk}`));
      }
      continue;
    }
    out.push(...drift(value, live[key], `.${key}`));
  }
  return out;
}
