import { capacityAtMinNowMax, fitOf, type CapacityKey, type Fit, type Overcommit, type PoolCapacityInput } from "./capacity";
import { DEFAULT_FLAVOR } from "./lines";
import { gpuResourcesByModel } from "./pool-profiles";

/**
 * The arithmetic of GPU sharing, per GPU line (flavour): what the pools hold
 * at their autoscaler minimum, now and at their maximum (overcommit
 * included), what all tenants are guaranteed of it, what their burst limits
 * add, and so how far borrowing alone could make the autoscaler grow the
 * pools. Guarantees must fit the minimum (what stays however far the
 * autoscaler shrinks); bursts are preemptible and bounded by the maximum.
 * Pure: no I/O. The loader is envelope-store's tenantLineHoldings.
 */

/** What one tenant holds of one line. */
export interface LineHolding {
  flavor: string;
  resource: string;
  /** The envelope the platform set for the tenant on this line, if any. */
  envelope: { guarantee: number; burst: number } | null;
  /** What the tenant's open projects hold from grants in force (each project at least 0). */
  held: number;
  heldBurst: number;
  /** What the projects let others borrow of their guarantees (their lend limits applied). */
  lendable: number;
}

export interface TenantHoldings {
  tenantId: string;
  slug: string;
  name: string;
  /** A disabled tenant's projects count for nothing; its envelope stays a promise until the platform lowers it. */
  active: boolean;
  lines: LineHolding[];
}

type Line = { flavor: string; resource: string };
const sameLine = (a: Line, b: Line) => a.flavor === b.flavor && a.resource === b.resource;
const lineOf = (t: TenantHoldings, line: Line) => t.lines.find((l) => sameLine(l, line));

/**
 * What a tenant is guaranteed and may burst on a line: its envelope where the
 * platform set one (its projects divide it), else what its projects hold.
 * The one rule behind the envelope check, the approval check and the pages.
 */
export function tenantLineFigures(h: LineHolding | undefined): { guarantee: number; burst: number } {
  if (!h) return { guarantee: 0, burst: 0 };
  return h.envelope ? { guarantee: h.envelope.guarantee, burst: h.envelope.burst } : { guarantee: h.held, burst: h.heldBurst };
}

/** What all tenants are guaranteed of a line; `override` stands for one tenant's guarantee (an envelope being set). */
export function guaranteedOn(tenants: readonly TenantHoldings[], line: Line, override?: { tenantId: string; guarantee: number }): number {
  let sum = 0;
  for (const t of tenants) sum += override?.tenantId === t.tenantId ? override.guarantee : tenantLineFigures(lineOf(t, line)).guarantee;
  if (override && !tenants.some((t) => t.tenantId === override.tenantId)) sum += override.guarantee;
  return sum;
}

/**
 * The holdings once a grant of `added` lines is written to a project of
 * `tenantId`: its projects hold more, and an envelope they outgrow is raised
 * to what they hold (as raiseEnvelopeToHoldings does), so inside an envelope
 * the tenant's guarantee does not change. What the projects lend is left as
 * it was (a project's lend limit decides it, not the grant).
 */
export function holdingsAfterGrant(tenants: readonly TenantHoldings[], tenantId: string, added: readonly (Line & { guarantee: number; burst: number })[]): TenantHoldings[] {
  // A tenant the holdings do not list (it held nothing) gets its first lines: leaving it out would let its first grant past every check.
  const listed = tenants.some((t) => t.tenantId === tenantId) ? tenants : [...tenants, { tenantId, slug: tenantId, name: tenantId, active: true, lines: [] }];
  return listed.map((t) => {
    if (t.tenantId !== tenantId) return t;
    const lines = [...t.lines];
    for (const a of added) {
      const i = lines.findIndex((l) => sameLine(l, a));
      const h: LineHolding = i >= 0 ? lines[i]! : { flavor: a.flavor, resource: a.resource, envelope: null, held: 0, heldBurst: 0, lendable: 0 };
      const held = h.held + a.guarantee;
      const heldBurst = h.heldBurst + a.burst;
      const envelope = h.envelope ? { guarantee: Math.max(h.envelope.guarantee, held), burst: Math.max(h.envelope.burst, heldBurst) } : null;
      const next = { ...h, held, heldBurst, envelope };
      if (i >= 0) lines[i] = next;
      else lines.push(next);
    }
    return { ...t, lines };
  });
}

export interface TenantOnLine {
  slug: string;
  name: string;
  active: boolean;
  guarantee: number;
  burst: number;
  lendable: number;
  /** Whether the guarantee is the tenant's envelope (else its projects' guarantees). */
  fromEnvelope: boolean;
}

export interface LineArithmetic {
  key: CapacityKey;
  flavor: string;
  resource: string;
  /** What the pools hold at their autoscaler minimum, now and at their maximum, overcommit included. */
  capacity: { atMin: number; now: number; atMax: number };
  /** What all tenants are guaranteed. */
  guaranteed: number;
  /** capacity.atMin − guaranteed: what can still be guaranteed; negative when guarantees exceed the minimum. */
  headroomAtMin: number;
  /** The sum of the tenants' burst limits: what borrowing may add on top of the guarantees. */
  burst: number;
  /** Every guarantee and every burst at once: the most the tenants' queues could ask for. */
  peak: number;
  /** How much capacity beyond the nodes present borrowing alone could make the autoscaler add (up to the maximum). */
  growthFromBorrowing: number;
  /** Whether peak demand fits now, only once the autoscaler grows pools (which, to how many nodes), or not even at the maximum. */
  peakFit: Fit;
  /** peak ≤ capacity at the maximum: bursts can never ask for more than the pools could ever hold. */
  burstWithinMaximum: boolean;
  tenants: TenantOnLine[];
}

/** Where a line lives in capacity: "gpu:<model>" for a GPU model, "cpu" / "memory" for the default flavour's. */
const keyOf = (l: Line): CapacityKey => (l.flavor === DEFAULT_FLAVOR ? l.resource : `gpu:${l.flavor}`);

/** CPU and memory: the lines of the default flavour Kueue shares beside the GPUs (storage is not Kueue's). */
export const isComputeLine = (l: Line) => l.flavor === DEFAULT_FLAVOR && (l.resource === "cpu" || l.resource === "memory");

/**
 * The arithmetic of every GPU line the pools offer or a tenant holds, ordered
 * by model; with `compute`, the CPU and memory lines first (cores, bytes).
 * The capacity page and the pool-edit check speak of GPU lines only: the
 * guarantee invariant is kept per GPU line, while CPU and memory guarantees
 * are checked against the nodes present (capacityImpact). Tenants' CPU and
 * memory here are what grants hold, each project's starting quota aside.
 */
export function sharingArithmetic(pools: readonly PoolCapacityInput[], overcommit: Overcommit, tenants: readonly TenantHoldings[], compute = false): LineArithmetic[] {
  const ranges = capacityAtMinNowMax(pools, overcommit).filter((r) => r.resource.startsWith("gpu:") || (compute && (r.resource === "cpu" || r.resource === "memory")));
  const resourceOf = gpuResourcesByModel(pools);
  const lines = new Map<CapacityKey, Line>();
  for (const r of ranges) {
    if (!r.resource.startsWith("gpu:")) {
      lines.set(r.resource, { flavor: DEFAULT_FLAVOR, resource: r.resource });
      continue;
    }
    const model = r.resource.slice(4);
    const resource = resourceOf.get(model);
    if (resource) lines.set(r.resource, { flavor: model, resource });
  }
  for (const t of tenants) for (const l of t.lines) if ((l.flavor !== DEFAULT_FLAVOR || (compute && isComputeLine(l))) && !lines.has(keyOf(l))) lines.set(keyOf(l), { flavor: l.flavor, resource: l.resource });
  const order = (k: CapacityKey) => (k === "cpu" ? 0 : k === "memory" ? 1 : 2);
  return [...lines.entries()]
    .sort(([a], [b]) => order(a) - order(b) || (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, line]) => {
      const r = ranges.find((x) => x.resource === key);
      return lineArithmetic(pools, overcommit, tenants, line, { atMin: r?.atMin ?? 0, now: r?.now ?? 0, atMax: r?.atMax ?? 0 });
    });
}

function lineArithmetic(pools: readonly PoolCapacityInput[], overcommit: Overcommit, tenants: readonly TenantHoldings[], line: Line, capacity: LineArithmetic["capacity"]): LineArithmetic {
  const onLine: TenantOnLine[] = tenants
    .map((t) => {
      const h = lineOf(t, line);
      const f = tenantLineFigures(h);
      return { slug: t.slug, name: t.name, active: t.active, ...f, lendable: h?.lendable ?? 0, fromEnvelope: Boolean(h?.envelope) };
    })
    .filter((t) => t.guarantee > 0 || t.burst > 0);
  const guaranteed = onLine.reduce((s, t) => s + t.guarantee, 0);
  const burst = onLine.reduce((s, t) => s + t.burst, 0);
  const peak = guaranteed + burst;
  return {
    key: keyOf(line),
    flavor: line.flavor,
    resource: line.resource,
    capacity,
    guaranteed,
    headroomAtMin: capacity.atMin - guaranteed,
    burst,
    peak,
    growthFromBorrowing: Math.max(0, Math.min(peak, capacity.atMax) - Math.max(guaranteed, capacity.now)),
    peakFit: fitOf(pools, overcommit, keyOf(line), peak),
    burstWithinMaximum: peak <= capacity.atMax,
    tenants: onLine,
  };
}

/** One line a request touches, before and after approval. */
export interface ApprovalArithmetic {
  before: LineArithmetic;
  after: LineArithmetic;
  /** A GPU line the approval would leave guaranteed above what the pools hold at their minimum, and adds to: approving is refused. */
  breaksMinimum: boolean;
}

/**
 * The arithmetic of each line among `added`, before and after they are
 * granted to a project of `tenantId`: every GPU line, and the CPU and memory
 * lines that ask for burst (what borrowing them could make the autoscaler
 * add; their guarantees alone are the capacity table's). Only a GPU line can
 * break the minimum.
 */
export function approvalArithmetic(
  pools: readonly PoolCapacityInput[],
  overcommit: Overcommit,
  tenants: readonly TenantHoldings[],
  tenantId: string,
  added: readonly (Line & { guarantee: number; burst: number })[],
): ApprovalArithmetic[] {
  const touched = added.filter((a) => (a.flavor !== DEFAULT_FLAVOR && (a.guarantee !== 0 || a.burst !== 0)) || (isComputeLine(a) && a.burst !== 0));
  if (touched.length === 0) return [];
  const compute = touched.some(isComputeLine);
  const before = sharingArithmetic(pools, overcommit, tenants, compute);
  const after = sharingArithmetic(pools, overcommit, holdingsAfterGrant(tenants, tenantId, touched), compute);
  return touched.flatMap((a) => {
    const b = before.find((x) => x.key === keyOf(a));
    const n = after.find((x) => x.key === keyOf(a));
    if (!b || !n) return [];
    return [{ before: b, after: n, breaksMinimum: !isComputeLine(a) && n.guaranteed > n.capacity.atMin && n.guaranteed > b.guaranteed }];
  });
}

/** The refusal of an approval that would break the invariant, naming the line, or null. */
export function minimumProblem(lines: readonly ApprovalArithmetic[]): string | null {
  const broken = lines.find((l) => l.breaksMinimum);
  if (!broken) return null;
  const { after, before } = broken;
  const room = Math.max(0, before.headroomAtMin);
  return `would guarantee ${after.guaranteed} ${after.flavor} GPUs across all tenants, more than the pools hold at their autoscaler minimum (${after.capacity.atMin}); ${
    room > 0 ? `at most ${room} more can be guaranteed` : "nothing more can be guaranteed"
  }: grant less (or burst instead), or raise the pools' minimum first`;
}

/**
 * Why an edit of the pools would leave a GPU line's guarantees above what the
 * pools hold at their autoscaler minimum, naming the line, or null: the
 * invariant approvals keep (minimumProblem), kept from the other side. Only a
 * line whose minimum the edit lowers is judged, so a line already over (the
 * autoscaler's bounds imported) does not block an unrelated edit.
 */
export function poolMinimumProblem(
  before: readonly PoolCapacityInput[],
  after: readonly PoolCapacityInput[],
  overcommit: Overcommit,
  tenants: readonly TenantHoldings[],
  remedy = "keep the minimum higher, or lower the guarantees first",
): string | null {
  const was = sharingArithmetic(before, overcommit, tenants);
  const broken = sharingArithmetic(after, overcommit, tenants).find((n) => n.guaranteed > n.capacity.atMin && n.capacity.atMin < (was.find((b) => b.key === n.key)?.capacity.atMin ?? 0));
  if (!broken) return null;
  const { capacity, guaranteed, flavor } = broken;
  return `would leave the pools holding ${capacity.atMin} ${flavor} GPUs at their autoscaler minimum, fewer than the ${guaranteed} guaranteed across all tenants (${guaranteed - capacity.atMin} short; ${guaranteesOnWords(tenants, broken)}): ${remedy}`;
}

/** Who depends on a line: "guaranteed to Language Models 16, Vision Lab 8", largest first. */
function guaranteesOnWords(tenants: readonly TenantHoldings[], line: Line): string {
  const holders = tenants
    .map((t) => ({ name: t.name, guarantee: tenantLineFigures(lineOf(t, line)).guarantee }))
    .filter((h) => h.guarantee > 0)
    .sort((a, b) => b.guarantee - a.guarantee || (a.name < b.name ? -1 : 1));
  return `guaranteed to ${holders.map((h) => `${h.name} ${h.guarantee}`).join(", ")}`;
}
