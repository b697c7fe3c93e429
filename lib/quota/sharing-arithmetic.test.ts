import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PoolCapacityInput } from "./capacity";
import { cohortFigures } from "./cohort";
import { divideEnvelope, moveLines, moveProblem, type ProjectHolding } from "./envelope";
import { sumLines } from "./lines";
import { approvalArithmetic, guaranteedOn, holdingsAfterGrant, minimumProblem, poolMinimumProblem, sharingArithmetic, tenantLineFigures, type LineHolding, type TenantHoldings } from "./sharing-arithmetic";

const GiB = 2 ** 30;
const ONE = { cpu: 1, memory: 1, gpu: 1 };
const H100 = { flavor: "H100", resource: "nvidia.com/gpu" };
// 3 nodes at the minimum, 4 present, 6 at the maximum: 24 / 32 / 48 H100.
const h100Pool: PoolCapacityInput = { name: "h100-pool", gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 4, minNodes: 3, maxNodes: 6, cpuPerNode: 208, memoryBytesPerNode: 1800 * GiB };
const cpuPool: PoolCapacityInput = { name: "cpu", gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 10, maxNodes: null, cpuPerNode: 64, memoryBytesPerNode: 256 * GiB };

const line = (over: Partial<LineHolding>): LineHolding => ({ ...H100, envelope: null, held: 0, heldBurst: 0, lendable: 0, ...over });
const tenant = (slug: string, lines: LineHolding[], active = true): TenantHoldings => ({ tenantId: `id-${slug}`, slug, name: slug, active, lines });

// The demo's story: vision-lab's envelope 8 + burst 8, language-models' 16 of which 8 lent.
const vision = tenant("vision-lab", [line({ envelope: { guarantee: 8, burst: 8 }, held: 8, heldBurst: 8, lendable: 8 })]);
const language = tenant("language-models", [line({ envelope: { guarantee: 16, burst: 0 }, held: 16, lendable: 8 })]);
const noEnvelope = tenant("robotics", [line({ held: 2, heldBurst: 4, lendable: 2 })]);

describe("sharing arithmetic per GPU line", () => {
  it("adds up guarantees (envelopes where set, else the projects'), bursts and what is lent, against the pools at minimum, now and maximum", () => {
    const [h100, ...rest] = sharingArithmetic([h100Pool, cpuPool], ONE, [vision, language, noEnvelope]);
    expect(rest).toEqual([]);
    expect(h100).toMatchObject({ key: "gpu:H100", capacity: { atMin: 24, now: 32, atMax: 48 }, guaranteed: 26, headroomAtMin: -2, burst: 12, peak: 38, burstWithinMaximum: true });
    // Borrowing could take the pools from 32 to 38: two more nodes (to 5 of 6).
    expect(h100!.growthFromBorrowing).toBe(6);
    expect(h100!.peakFit).toEqual({ kind: "grows", pools: [{ pool: "h100-pool", nodes: 4, to: 5, max: 6 }] });
    expect(h100!.tenants.map((t) => [t.slug, t.guarantee, t.burst, t.lendable, t.fromEnvelope])).toEqual([
      ["vision-lab", 8, 8, 8, true],
      ["language-models", 16, 0, 8, true],
      ["robotics", 2, 4, 2, false],
    ]);
  });

  it("says when bursts could ask for more than even the autoscaler maximum, and lists a line held on no pool at zero capacity", () => {
    const greedy = tenant("greedy", [line({ held: 8, heldBurst: 40 }), line({ flavor: "B200", held: 1 })]);
    const [b200, h100] = sharingArithmetic([h100Pool], ONE, [greedy]);
    expect(h100).toMatchObject({ peak: 48, burstWithinMaximum: true, growthFromBorrowing: 16 });
    const [h] = sharingArithmetic([h100Pool], ONE, [tenant("greedy", [line({ held: 8, heldBurst: 41 })])]);
    expect(h).toMatchObject({ peak: 49, burstWithinMaximum: false, growthFromBorrowing: 16, peakFit: { kind: "does_not_fit", autoscales: true } });
    expect(b200).toMatchObject({ key: "gpu:B200", capacity: { atMin: 0, now: 0, atMax: 0 }, guaranteed: 1, headroomAtMin: -1 });
  });

  it("counts a disabled tenant's envelope (a promise until lowered) and uses an override for the tenant whose envelope is being set", () => {
    const disabled = tenant("old", [line({ envelope: { guarantee: 4, burst: 0 } })], false);
    expect(guaranteedOn([vision, language, disabled], H100)).toBe(28);
    expect(guaranteedOn([vision, language], H100, { tenantId: "id-vision-lab", guarantee: 10 })).toBe(26);
    expect(guaranteedOn([vision], H100, { tenantId: "id-new", guarantee: 3 })).toBe(11);
  });
});

describe("approval arithmetic", () => {
  it("inside an envelope an approval adds no guarantee; beyond it the envelope rises and the line may break the minimum", () => {
    const [inside] = approvalArithmetic([h100Pool], ONE, [tenant("vision-lab", [line({ envelope: { guarantee: 10, burst: 8 }, held: 8, heldBurst: 8 })]), language], "id-vision-lab", [{ ...H100, guarantee: 2, burst: 0 }]);
    expect([inside!.before.guaranteed, inside!.after.guaranteed, inside!.breaksMinimum]).toEqual([26, 26, false]);

    const lines = approvalArithmetic([h100Pool], ONE, [vision, language], "id-vision-lab", [{ ...H100, guarantee: 2, burst: 4 }]);
    expect(lines.map((l) => [l.before.guaranteed, l.after.guaranteed, l.before.burst, l.after.burst, l.breaksMinimum])).toEqual([[24, 26, 8, 12, true]]);
    expect(minimumProblem(lines)).toBe(
      "would guarantee 26 H100 GPUs across all tenants, more than the pools hold at their autoscaler minimum (24); nothing more can be guaranteed: grant less (or burst instead), or raise the pools' minimum first",
    );
  });

  it("counts the first grant of a tenant the holdings do not list yet, so it cannot slip past the minimum", () => {
    const [first] = approvalArithmetic([h100Pool], ONE, [language], "id-new", [{ ...H100, guarantee: 10, burst: 2 }]);
    expect([first!.before.guaranteed, first!.after.guaranteed, first!.after.burst, first!.breaksMinimum]).toEqual([16, 26, 2, true]);
    expect(first!.after.tenants.map((t) => t.slug)).toEqual(["language-models", "id-new"]);
  });

  it("burst alone never breaks the minimum, nor does an approval on a line already above it that adds no guarantee", () => {
    expect(minimumProblem(approvalArithmetic([h100Pool], ONE, [vision, language], "id-vision-lab", [{ ...H100, guarantee: 0, burst: 8 }]))).toBeNull();
    const over = tenant("over", [line({ held: 30 })]);
    expect(minimumProblem(approvalArithmetic([h100Pool], ONE, [over], "id-over", [{ ...H100, guarantee: 0, burst: 2 }]))).toBeNull();
    expect(approvalArithmetic([h100Pool], ONE, [over], "id-over", [{ flavor: "default", resource: "cpu", guarantee: 4, burst: 0 }])).toEqual([]);
  });
});

describe("approval arithmetic of CPU and memory burst", () => {
  const cpu = { flavor: "default", resource: "cpu" };
  const memory = { flavor: "default", resource: "memory" };
  // The H100 pool (208 cores a node: 624 / 832 / 1248) and the CPU pool (64 a node, 10 nodes, no autoscaling): 1264 / 1472 / 1888 cores.
  const holders = [tenant("vision-lab", [line({ ...cpu, held: 400, heldBurst: 100, lendable: 400 }), line({ ...memory, held: 2000 * GiB, heldBurst: 0 })]), language];

  it("shows the CPU and memory lines a request asks to borrow, at the pools' minimum, now and maximum, and never refuses on them", () => {
    const lines = approvalArithmetic([h100Pool, cpuPool], ONE, holders, "id-vision-lab", [
      { ...cpu, guarantee: 8, burst: 900 },
      { ...memory, guarantee: 0, burst: 1024 * GiB },
      { ...H100, guarantee: 0, burst: 4 },
    ]);
    expect(lines.map((l) => l.after.key)).toEqual(["cpu", "memory", "gpu:H100"]);
    const [c, m] = lines;
    expect(c!.before).toMatchObject({ capacity: { atMin: 1264, now: 1472, atMax: 1888 }, guaranteed: 400, burst: 100 });
    expect(c!.after).toMatchObject({ guaranteed: 408, burst: 1000, peak: 1408, burstWithinMaximum: true, peakFit: { kind: "fits" } });
    expect(m!.after).toMatchObject({ guaranteed: 2000 * GiB, burst: 1024 * GiB, peak: 3024 * GiB });
    expect(lines.every((l) => !l.breaksMinimum)).toBe(true);
    // Beyond even the minimum in CPU guarantees: shown, not refused (CPU is checked against the nodes present).
    const over = approvalArithmetic([cpuPool], ONE, holders, "id-vision-lab", [{ ...cpu, guarantee: 1000, burst: 1 }]);
    expect(over[0]).toMatchObject({ breaksMinimum: false, after: { guaranteed: 1400, headroomAtMin: -760 } });
    expect(minimumProblem(over)).toBeNull();
  });

  it("leaves out CPU and memory guarantees that borrow nothing (the capacity table has them), and the capacity page keeps to GPU lines", () => {
    expect(approvalArithmetic([h100Pool, cpuPool], ONE, holders, "id-vision-lab", [{ ...cpu, guarantee: 8, burst: 0 }])).toEqual([]);
    expect(sharingArithmetic([h100Pool, cpuPool], ONE, holders).map((l) => l.key)).toEqual(["gpu:H100"]);
    expect(sharingArithmetic([h100Pool, cpuPool], ONE, holders, true).map((l) => l.key)).toEqual(["cpu", "memory", "gpu:H100"]);
  });
});

// ---------------------------------------------------------------- properties

const holdingArb = fc.record({
  envelope: fc.option(fc.record({ guarantee: fc.integer({ min: 0, max: 40 }), burst: fc.integer({ min: 0, max: 40 }) }), { nil: null }),
  held: fc.integer({ min: 0, max: 40 }),
  heldBurst: fc.integer({ min: 0, max: 40 }),
});
const poolArb = fc.record({ min: fc.integer({ min: 0, max: 6 }), extra: fc.integer({ min: 0, max: 3 }), grow: fc.integer({ min: 0, max: 4 }) }).map(
  ({ min, extra, grow }): PoolCapacityInput => ({ ...h100Pool, minNodes: min, nodeCount: min + extra, maxNodes: min + extra + grow }),
);
const grantArb = fc.record({ tenant: fc.integer({ min: 0, max: 3 }), guarantee: fc.integer({ min: 0, max: 12 }), burst: fc.integer({ min: 0, max: 12 }) });

describe("properties", () => {
  it("approvals checked by the arithmetic keep every line's guarantees within the pools at their minimum", () => {
    fc.assert(
      fc.property(poolArb, fc.array(grantArb, { maxLength: 30 }), (pool, grants) => {
        let tenants: TenantHoldings[] = [0, 1, 2, 3].map((i) => tenant(`t${i}`, [], true));
        for (const g of grants) {
          const id = `id-t${g.tenant}`;
          const checked = approvalArithmetic([pool], ONE, tenants, id, [{ ...H100, guarantee: g.guarantee, burst: g.burst }]);
          if (minimumProblem(checked) !== null) continue;
          tenants = holdingsAfterGrant(tenants, id, [{ ...H100, guarantee: g.guarantee, burst: g.burst }]);
          const [h] = sharingArithmetic([pool], ONE, tenants);
          expect(h ? h.guaranteed : 0).toBeLessThanOrEqual(pool.minNodes! * 8);
        }
      }),
    );
  });

  it("a tenant's burst limit is never below what its projects may burst, and borrowing grows the pools by at most the bursts, within the maximum", () => {
    fc.assert(
      fc.property(poolArb, fc.array(holdingArb, { minLength: 1, maxLength: 4 }), fc.array(grantArb, { maxLength: 10 }), (pool, holdings, grants) => {
        // Envelopes as the commands keep them: never below what the projects hold.
        let tenants = holdings.map((h, i) => tenant(`t${i}`, [line({ ...h, envelope: h.envelope && { guarantee: Math.max(h.envelope.guarantee, h.held), burst: Math.max(h.envelope.burst, h.heldBurst) } })]));
        for (const g of grants) tenants = holdingsAfterGrant(tenants, `id-t${g.tenant % tenants.length}`, [{ ...H100, guarantee: g.guarantee, burst: g.burst }]);
        for (const t of tenants) for (const l of t.lines) expect(tenantLineFigures(l).burst).toBeGreaterThanOrEqual(l.heldBurst);
        const [h] = sharingArithmetic([pool], ONE, tenants);
        expect(h!.peak - h!.guaranteed).toBe(h!.burst);
        expect(h!.growthFromBorrowing).toBeLessThanOrEqual(h!.burst);
        expect(h!.growthFromBorrowing).toBeLessThanOrEqual(h!.capacity.atMax - h!.capacity.now);
        expect(h!.burstWithinMaximum).toBe(h!.peak <= h!.capacity.atMax);
      }),
    );
  });

  it("a move inside the envelope never changes the tenant's guarantee, nor what its projects hold together", () => {
    const projectArb = fc.record({ permanent: fc.integer({ min: 0, max: 20 }), timeBound: fc.integer({ min: 0, max: 20 }) });
    fc.assert(
      fc.property(
        fc.array(projectArb, { minLength: 2, maxLength: 4 }),
        fc.integer({ min: 0, max: 30 }),
        fc.option(fc.nat(3), { nil: null }),
        fc.option(fc.nat(3), { nil: null }),
        fc.integer({ min: 0, max: 30 }),
        (projects, spare, fromIndex, toIndex, amount) => {
          const holdings: ProjectHolding[] = projects.map((p, i) => {
            const permanent = [{ ...H100, guarantee: p.permanent, burst: 0, lendLimit: null }];
            return { projectId: `p${i}`, slug: `p${i}`, name: `p${i}`, permanent, inForce: sumLines([...permanent, { ...H100, guarantee: p.timeBound, burst: 0, lendLimit: null }]) };
          });
          const envelope = { ...H100, guarantee: projects.reduce((s, p) => s + p.permanent + p.timeBound, 0) + spare, burst: 0 };
          const [row] = divideEnvelope([envelope], holdings);
          const from = fromIndex === null ? null : (holdings[fromIndex % holdings.length] ?? null);
          const to = toIndex === null ? null : (holdings[toIndex % holdings.length] ?? null);
          if (moveProblem(row, from, to, amount) !== null) return;
          const { taken, given } = moveLines(H100, amount);
          const after = holdings.map((h) => ({ ...h, inForce: sumLines([...h.inForce, ...(h === from ? taken : []), ...(h === to ? given : [])]) }));
          const members = (hs: ProjectHolding[]) => hs.map((h) => ({ slug: h.slug, name: h.name, weight: 1, lines: h.inForce }));
          const heldBefore = cohortFigures(members(holdings), H100).guarantee;
          const heldAfter = cohortFigures(members(after), H100).guarantee;
          const asTenant = (held: number) => tenant("t", [line({ envelope: { guarantee: envelope.guarantee, burst: 0 }, held })]);
          expect(tenantLineFigures(asTenant(heldAfter).lines[0]).guarantee).toBe(tenantLineFigures(asTenant(heldBefore).lines[0]).guarantee);
          // Between two projects nothing is created or lost; from or to the unallocated part the projects' sum moves by the amount, within the envelope.
          const expected = from && to ? heldBefore : from ? heldBefore - amount : heldBefore + amount;
          expect(heldAfter).toBe(expected);
          expect(heldAfter).toBeLessThanOrEqual(envelope.guarantee);
        },
      ),
    );
  });
});

describe("an edit of the pools against the guarantees", () => {
  // vision 8 + language 16 = 24 guaranteed; the pool holds 24 at its minimum of 3 nodes.
  const tenants = [vision, language];
  it("refuses a minimum that no longer holds the guarantees, naming the line and the shortfall", () => {
    expect(poolMinimumProblem([h100Pool, cpuPool], [{ ...h100Pool, minNodes: 2 }, cpuPool], ONE, tenants)).toBe(
      "would leave the pools holding 16 H100 GPUs at their autoscaler minimum, fewer than the 24 guaranteed across all tenants (8 short; guaranteed to language-models 16, vision-lab 8): keep the minimum higher, or lower the guarantees first",
    );
    // Fewer GPUs per node shrink the minimum as surely; so does a pool moved to another model.
    expect(poolMinimumProblem([h100Pool], [{ ...h100Pool, gpusPerNode: 4 }], ONE, tenants)).toMatch(/holding 12 H100 GPUs/);
    expect(poolMinimumProblem([h100Pool], [{ ...h100Pool, gpuModel: "B200" }], ONE, tenants)).toMatch(/holding 0 H100 GPUs/);
  });

  it("lets through an edit that keeps the guarantees, raises the minimum, or leaves a line already over no worse", () => {
    expect(poolMinimumProblem([h100Pool], [{ ...h100Pool, minNodes: 3, maxNodes: 4 }], ONE, tenants)).toBeNull();
    expect(poolMinimumProblem([h100Pool], [{ ...h100Pool, minNodes: 5, maxNodes: 8 }], ONE, tenants)).toBeNull();
    // Overcommit counts: twice the GPUs at the minimum leaves room to shrink.
    expect(poolMinimumProblem([h100Pool], [{ ...h100Pool, minNodes: 2 }], { ...ONE, gpu: 2 }, tenants)).toBeNull();
    const over = [...tenants, noEnvelope]; // 26 guaranteed on 24: already over, and an edit of the maximum changes nothing at the minimum.
    expect(poolMinimumProblem([h100Pool], [{ ...h100Pool, maxNodes: 8 }], ONE, over)).toBeNull();
    expect(poolMinimumProblem([h100Pool], [{ ...h100Pool, minNodes: 2 }], ONE, over)).toMatch(/fewer than the 26 guaranteed/);
  });
});
