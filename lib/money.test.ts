import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decimalText, divideRounded, formatMoney, formatUnitPrice, minorDigits, roundDecimal, roundMoney, scaleDecimal, shareOf, subtractMoney, sumMinor, sumMoney, toMajor, toMinor } from "./money";

/** The money rule: one rounding per line, half away from zero, totals as sums of rounded lines in integers. */

/** Exact reference: a decimal text's value × 10^digits as a fraction, rounded half away from zero with bigints. */
function reference(text: string, digits: number): bigint {
  const [int, frac = ""] = text.replace(/^-/, "").split(".");
  const den = 10n ** BigInt(frac.length);
  const num = BigInt(`${int}${frac}`) * 10n ** BigInt(digits);
  const q = (num * 2n + den) / (den * 2n);
  return text.startsWith("-") ? -q : q;
}

const decimalTextArb = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 9 }))
  .map(([neg, units, scale]) => {
    const s = units.toString().padStart(scale + 1, "0");
    const body = scale === 0 ? s : `${s.slice(0, -scale)}.${s.slice(-scale)}`;
    return neg && units > 0n ? `-${body}` : body;
  });

/** What a person reads off a formatted amount, back in minor units ("$72,490.20" → 7249020). */
const readBack = (shown: string) => Number(shown.replace(/[^\d-]/g, ""));

describe("rounding one line", () => {
  it("rounds any decimal text exactly, half away from zero, to the minor unit", () => {
    fc.assert(
      fc.property(decimalTextArb, fc.constantFrom(0, 2, 3), (text, digits) => {
        expect(scaleDecimal(text, digits)).toBe(reference(text, digits));
      }),
    );
  });

  it("rounds the ties and the float traps the way a person would", () => {
    expect(toMinor("0.005", 2)).toBe(1);
    expect(toMinor("-0.005", 2)).toBe(-1);
    expect(toMinor("0.004999999", 2)).toBe(0);
    expect(toMinor(1.005, 2)).toBe(101);
    expect(toMinor(8830.555, 2)).toBe(883056);
    expect(toMinor(0.1 + 0.2, 2)).toBe(30);
    expect(toMinor("72490.195000000", 2)).toBe(7249020);
    expect(toMinor(1e-7, 2)).toBe(0);
    expect(toMinor(5e-3, 2)).toBe(1);
    expect(toMinor("2.5", 0)).toBe(3);
    expect(roundMoney("190.08575342465755", 2)).toBe(190.09);
    expect(roundDecimal(190.08575342465755, 6)).toBe(190.085753);
    expect(() => toMinor("abc", 2)).toThrow(/not a decimal/);
    expect(() => toMinor(Number.NaN, 2)).toThrow(RangeError);
    expect(() => toMinor("1e30", 2)).toThrow(RangeError);
  });

  it("knows each currency's minor unit", () => {
    expect([minorDigits("USD"), minorDigits("EUR"), minorDigits("JPY"), minorDigits("BHD")]).toEqual([2, 2, 0, 3]);
  });

  it("writes minor units back as exact decimal text and numbers", () => {
    expect(decimalText(7249020, 2)).toBe("72490.20");
    expect(decimalText(-5, 2)).toBe("-0.05");
    expect(decimalText(1234, 0)).toBe("1234");
    expect(toMajor(883056, 2)).toBe(8830.56);
    expect(() => toMajor(10 ** 15, 2)).toThrow(RangeError);
    fc.assert(fc.property(fc.integer({ min: -(10 ** 15) + 1, max: 10 ** 15 - 1 }), fc.constantFrom(0, 2, 3), (m, d) => {
        expect(toMinor(toMajor(m, d), d)).toBe(m);
      }),
    );
  });

  it("divides exactly, rounding half away from zero", () => {
    expect(divideRounded(5n, 2n)).toBe(3n);
    expect(divideRounded(-5n, 2n)).toBe(-3n);
    expect(divideRounded(4n, 3n)).toBe(1n);
    expect(() => divideRounded(1n, 0n)).toThrow(RangeError);
  });
});

describe("the cent rule over random reports", () => {
  // A report: lines of exact cost (as the database holds them, 9 decimals), grouped into sections that are summed again.
  const report = fc.record({
    currency: fc.constantFrom("USD", "EUR", "JPY", "BHD"),
    sections: fc.array(fc.array(fc.bigInt({ min: 0n, max: 10n ** 15n }).map((n) => decimalText(Number(n), 9)), { maxLength: 30 }), { minLength: 1, maxLength: 8 }),
  });

  it("displayed parts sum to the displayed total, exactly, at every level", () => {
    fc.assert(
      fc.property(report, ({ currency, sections }) => {
        const digits = minorDigits(currency);
        const lines = sections.map((s) => s.map((cost) => roundMoney(cost, digits)));
        const subtotals = lines.map((s) => sumMoney(s, digits));
        const total = sumMoney(subtotals, digits);
        // The same total whichever way the lines are grouped.
        expect(sumMoney(lines.flat(), digits)).toBe(total);
        // What a person reads: each shown part, added by hand, is the shown total.
        const shownParts = subtotals.map((v) => readBack(formatMoney(v, currency)));
        expect(shownParts.reduce((a, b) => a + b, 0)).toBe(readBack(formatMoney(total, currency)));
        for (let i = 0; i < lines.length; i++) expect(lines[i]!.reduce((a, v) => a + readBack(formatMoney(v, currency)), 0)).toBe(shownParts[i]);
        // And the lines are the exact costs rounded once: nothing drifts from the database's decimals.
        const exact = sections.flat().map((c) => Number(reference(c, digits)));
        expect(toMinor(total, digits)).toBe(sumMinor(exact));
        // part + rest = whole, for differences (idle = capacity − allocated) as well.
        const rest = subtractMoney(total, subtotals[0]!, digits);
        expect(sumMoney([subtotals[0]!, rest], digits)).toBe(total);
      }),
    );
  });

  it("shares are of the rounded figures, null without a positive whole", () => {
    expect(shareOf(25, 100, 2)).toBe(0.25);
    expect(shareOf(1, 0, 2)).toBeNull();
    expect(shareOf(0.005, 0.01, 2)).toBe(1);
  });

  it("formats from the exact decimal, in en-GB with the narrow symbol", () => {
    expect(formatMoney(72490.2, "USD")).toBe("$72,490.20");
    expect(formatMoney(8830.555, "USD")).toBe("$8,830.56");
    expect(formatMoney(-3.5, "EUR")).toBe("-€3.50");
    expect(formatMoney(1234, "JPY")).toBe("¥1,234");
  });

  it("refuses sums beyond the safe integer range instead of losing cents", () => {
    expect(() => sumMinor([2 ** 53 - 1, 1])).toThrow(RangeError);
    expect(() => sumMinor([0.5])).toThrow(RangeError);
  });
});

describe("unit prices are written like money, with the rate card's precision", () => {
  it("keeps the currency's symbol and minor digits and shows up to six decimals, never rounding a small price to zero", () => {
    expect(formatUnitPrice(2.5, "USD")).toBe("$2.50");
    expect(formatUnitPrice("0.004", "USD")).toBe("$0.004");
    expect(formatUnitPrice("0.000001", "USD")).toBe("$0.000001");
    expect(formatUnitPrice("1234.5", "EUR")).toBe("€1,234.50");
    expect(formatUnitPrice("3", "JPY")).toBe("¥3");
    // The same symbol formatMoney writes, so a price and a cost beside it read alike.
    expect(formatUnitPrice(12, "CAD").charAt(0)).toBe(formatMoney(12, "CAD").charAt(0));
  });
});
