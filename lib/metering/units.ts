import { HOURS_PER_MONTH } from "@/lib/quota/cost";

/**
 * What a usage resource key is, and the units it is counted and priced in.
 * Keys are the rate card's: "gpu:<model>" (a GPU model or MIG profile), "cpu",
 * "memory", "storage", "inference"; anything else is a custom meter, priced
 * when the rate card has a row with its exact key.
 *
 * Usage is stored in consumed units (GPU-hours, core-hours, GiB-hours,
 * requests). Two resources are priced in a larger unit: storage per GiB-month
 * (730 hours) and inference per 1,000 requests, hence the divisor.
 */
export type ResourceKind = "gpu" | "cpu" | "memory" | "storage" | "inference" | "custom";

export const RESOURCE_KEY_PATTERN = /^(gpu:[A-Za-z0-9][A-Za-z0-9 ._-]{0,62}|[a-z][a-z0-9_.-]{0,62})$/;

export function resourceKind(key: string): ResourceKind {
  if (key.startsWith("gpu:")) return "gpu";
  if (key === "cpu" || key === "memory" || key === "storage" || key === "inference") return key;
  return "custom";
}

export const gpuModelOf = (key: string): string | null => (key.startsWith("gpu:") ? key.slice(4) : null);

/**
 * The unit of a consumed quantity as the portal writes it in prose, tables and
 * messages: "GPU-hours", like "per GPU-hour" on the rate card. The FOCUS
 * columns below keep the spelling FOCUS's unit format gives ("GPU-Hours"),
 * because tools that read FOCUS files match on it.
 */
export const QUANTITY_UNIT: Record<ResourceKind, string> = {
  gpu: "GPU-hours",
  cpu: "core-hours",
  memory: "GiB-hours",
  storage: "GiB-hours",
  inference: "requests",
  custom: "units",
};

/** FinOps FOCUS ConsumedUnit of each kind. */
export const CONSUMED_UNIT: Record<ResourceKind, string> = {
  gpu: "GPU-Hours",
  cpu: "Core-Hours",
  memory: "GiB-Hours",
  storage: "GiB-Hours",
  inference: "Requests",
  custom: "Units",
};

/** FinOps FOCUS PricingUnit: the unit the rate card's price is per. */
export const PRICING_UNIT: Record<ResourceKind, string> = {
  gpu: "GPU-Hours",
  cpu: "Core-Hours",
  memory: "GiB-Hours",
  storage: "GiB-Months",
  inference: "1000 Requests",
  custom: "Units",
};

/** Consumed quantity ÷ divisor = pricing quantity. Mirrored in SQL by pricingDivisorSql (rollup.ts). */
export function pricingDivisor(kind: ResourceKind): number {
  return kind === "storage" ? HOURS_PER_MONTH : kind === "inference" ? 1000 : 1;
}

/**
 * Whether a line's usage has a price: "unpriced" when none of its quantity
 * had a price in force (its cost is unknown, never zero), "partly" when some
 * did. Every page, export and API answer says so the same way.
 */
export type Pricing = "priced" | "partly" | "unpriced";
export function pricingOf(line: { quantity: number; unpricedQuantity: number }): Pricing {
  if (!(line.unpricedQuantity > 0)) return "priced";
  return line.unpricedQuantity >= line.quantity ? "unpriced" : "partly";
}

/** Whether the resource is node-pool capacity (idle is computed over these), not storage or a meter. */
export const isPoolResource = (key: string): boolean => {
  const kind = resourceKind(key);
  return kind === "gpu" || kind === "cpu" || kind === "memory";
};

/** A label for people: "H100 GPU-hours", "CPU core-hours"… */
export function resourceLabel(key: string): string {
  const kind = resourceKind(key);
  switch (kind) {
    case "gpu":
      return `${gpuModelOf(key)} GPUs`;
    case "cpu":
      return "CPU";
    case "memory":
      return "Memory";
    case "storage":
      return "Storage";
    case "inference":
      return "Inference requests";
    default:
      return key;
  }
}

/** ISO date (YYYY-MM-DD) of the UTC day holding `at`. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The start of the UTC hour holding `at`. */
export const hourStart = (at: Date): Date => new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);
