import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chargeBack, chargeBackPeriod, largestRemainder, type GuaranteeWeight } from "./chargeback";

const weights = fc.array(
  fc.record({ projectId: fc.constantFrom("p1", "p2", "p3", "p4", "p5"), tenantId: fc.constantFrom("t1", "t2", "t3"), weight: fc.bigInt({ min: -5n, max: 10n ** 12n }) }),
  { maxLength: 8 },
).map((ws) => [...new Map(ws.map((w) => [w.projectId, w])).values()] as GuaranteeWeight[]);
const idle = fc.integer({ min: -1_000_000, max: 10_000_000_000 });

describe("idle chargeback arithmetic", () => {
  it("allocates every cent of a period's idle, none negative, each within a cent of its exact share, tenants and projects alike", () => {
    fc.assert(
      fc.property(idle, weights, (cents, ws) => {
        const parts = chargeBackPeriod(cents, ws);
        const positive = ws.filter((w) => w.weight > 0n);
        const total = positive.reduce((s, w) => s + w.weight, 0n);
        if (cents <= 0 || total === 0n) {
          expect(parts.size).toBe(0);
          return;
        }
        expect([...parts.values()].reduce((a, b) => a + b, 0)).toBe(cents);
        for (const v of parts.values()) expect(v).toBeGreaterThanOrEqual(0);
        for (const w of ws) if (w.weight <= 0n) expect(parts.has(w.projectId)).toBe(false);
        // Per tenant: within a cent of the tenant's exact share (cents × its weight ÷ all weights).
        for (const tenantId of new Set(positive.map((w) => w.tenantId))) {
          const own = positive.filter((w) => w.tenantId === tenantId);
          const weight = own.reduce((s, w) => s + w.weight, 0n);
          const got = BigInt(own.reduce((s, w) => s + (parts.get(w.projectId) ?? 0), 0));
          const exact = BigInt(cents) * weight;
          expect(got * total - exact <= total && exact - got * total <= total).toBe(true);
          // And each project within a cent of its exact share of its tenant's part.
          for (const w of own) {
            const part = BigInt(parts.get(w.projectId) ?? 0);
            const exactOfTenant = got * w.weight;
            expect(part * weight - exactOfTenant <= weight && exactOfTenant - part * weight <= weight).toBe(true);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it("splits by largest remainder: 100 cents over three equal weights is 34, 33, 33", () => {
    expect(largestRemainder(100, new Map([["a", 1n], ["b", 1n], ["c", 1n]]))).toEqual(new Map([["a", 34], ["b", 33], ["c", 33]]));
    expect(largestRemainder(10, new Map([["a", 2n], ["b", 1n]]))).toEqual(new Map([["a", 7], ["b", 3]]));
  });

  it("charges only periods whose rule was chargeback, adding up over them", () => {
    const ws: GuaranteeWeight[] = [
      { projectId: "p1", tenantId: "t1", weight: 3n },
      { projectId: "p2", tenantId: "t2", weight: 1n },
    ];
    const total = chargeBack([
      { period: "2026-05-01", idle: 400, mode: "chargeback", weights: ws },
      { period: "2026-05-02", idle: 1_000, mode: "apart", weights: ws },
      { period: "2026-05-03", idle: 800, mode: "chargeback", weights: ws },
      { period: "2026-05-04", idle: 500, mode: "chargeback", weights: [] },
    ]);
    expect(total).toEqual(new Map([["p1", 900], ["p2", 300]]));
  });
});
