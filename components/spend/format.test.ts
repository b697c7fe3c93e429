import { describe, expect, it } from "vitest";
import { changeAgainst } from "./format";

describe("a figure against the period before", () => {
  it("says the change to the cent, with its share of what it was", () => {
    expect(changeAgainst(1120, 1000, "USD")).toEqual({ delta: 120, text: "+$120.00 (+12%)" });
    expect(changeAgainst(996.5, 1000, "USD")).toEqual({ delta: -3.5, text: "−$3.50 (−0.4%)" });
    expect(changeAgainst(10.1, 10.1, "USD")).toEqual({ delta: 0, text: "no change" });
  });

  it("calls spend with nothing before it new rather than an infinite rise", () => {
    expect(changeAgainst(40, 0, "USD")).toEqual({ delta: 40, text: "+$40.00 (new)" });
    expect(changeAgainst(0, 25, "EUR")).toEqual({ delta: -25, text: "−€25.00 (−100%)" });
  });

  it("works on the rounded amounts, so floating-point dust is no change", () => {
    expect(changeAgainst(0.1 + 0.2, 0.3, "USD").text).toBe("no change");
  });
});
