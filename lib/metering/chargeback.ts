import type { Minor } from "@/lib/money";

/**
 * Idle cost charged back: the platform either shows the cluster's idle cost
 * apart, beside the projects ("apart"), or allocates it to the tenants in
 * proportion to their guarantees, and within a tenant to its projects the
 * same way ("chargeback"). Pure arithmetic on minor units: the I/O is in
 * chargeback-query.ts.
 */
export const IDLE_COST_MODES = ["apart", "chargeback"] as const;
export type IdleCostMode = (typeof IDLE_COST_MODES)[number];

/** What one project was guaranteed over a period, valued (any fixed unit: only ratios count). */
export interface GuaranteeWeight {
  projectId: string;
  tenantId: string;
  weight: bigint;
}

/**
 * `total` split over the keys in proportion to their weights, by largest
 * remainder: each key gets the floor of its exact share, and the cents left
 * go one each to the largest remainders (ties to the key that sorts first),
 * so the parts add up to the total exactly and each is within a cent of its
 * exact share. Keys without a positive weight get nothing; with no positive
 * weight at all nothing is allocated (an empty map).
 */
export function largestRemainder(total: Minor, weights: ReadonlyMap<string, bigint>): Map<string, Minor> {
  const positive = [...weights].filter(([, w]) => w > 0n).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const sum = positive.reduce((s, [, w]) => s + w, 0n);
  if (total <= 0 || sum === 0n) return new Map();
  const whole = BigInt(total);
  const parts = positive.map(([key, w]) => ({ key, floor: (whole * w) / sum, remainder: (whole * w) % sum }));
  let left = whole - parts.reduce((s, p) => s + p.floor, 0n);
  const byRemainder = [...parts].sort((a, b) => (b.remainder > a.remainder ? 1 : b.remainder < a.remainder ? -1 : 0));
  const extra = new Set<string>();
  for (const p of byRemainder) {
    if (left <= 0n) break;
    extra.add(p.key);
    left -= 1n;
  }
  return new Map(parts.map((p) => [p.key, Number(p.floor) + (extra.has(p.key) ? 1 : 0)]));
}

/**
 * One period's idle charged back: first to tenants by the sum of their
 * projects' guarantees, then within each tenant to its projects, both by
 * largest remainder, so the projects' parts add up to their tenant's and
 * the tenants' to the idle, to the cent. Negative idle (use beyond capacity)
 * and periods with no guarantee in force charge nothing back: the idle stays
 * apart.
 */
export function chargeBackPeriod(idle: Minor, weights: readonly GuaranteeWeight[]): Map<string, Minor> {
  const byTenant = new Map<string, bigint>();
  for (const w of weights) if (w.weight > 0n) byTenant.set(w.tenantId, (byTenant.get(w.tenantId) ?? 0n) + w.weight);
  const perProject = new Map<string, Minor>();
  for (const [tenantId, tenantShare] of largestRemainder(idle, byTenant)) {
    const own = new Map(weights.filter((w) => w.tenantId === tenantId).map((w) => [w.projectId, w.weight] as const));
    for (const [projectId, part] of largestRemainder(tenantShare, own)) perProject.set(projectId, (perProject.get(projectId) ?? 0) + part);
  }
  return perProject;
}

/** One period as chargeback reads it: its idle cost, the rule in force and the guarantees in force. */
export interface IdlePeriod {
  period: string;
  idle: Minor;
  mode: IdleCostMode;
  weights: readonly GuaranteeWeight[];
}

/** Idle charged back per project over many periods (only those whose rule was chargeback). */
export function chargeBack(periods: readonly IdlePeriod[]): Map<string, Minor> {
  const total = new Map<string, Minor>();
  for (const p of periods) {
    if (p.mode !== "chargeback") continue;
    for (const [projectId, part] of chargeBackPeriod(p.idle, p.weights)) total.set(projectId, (total.get(projectId) ?? 0) + part);
  }
  return total;
}
