import { describe, expect, it } from "vitest";
import { CONSUMED_UNIT, PRICING_UNIT, isPoolResource, pricingDivisor, resourceKind, RESOURCE_KEY_PATTERN } from "./units";

describe("usage resource keys and units", () => {
  it("knows GPU models and MIG profiles, the built-in resources and custom meters", () => {
    expect(["gpu:H100", "gpu:A100 1g.10gb", "cpu", "memory", "storage", "inference", "tokens"].map(resourceKind)).toEqual(["gpu", "gpu", "cpu", "memory", "storage", "inference", "custom"]);
    expect(["gpu:H100", "gpu:A100 1g.10gb", "cpu", "memory"].every(isPoolResource)).toBe(true);
    expect(["storage", "inference", "tokens"].some(isPoolResource)).toBe(false);
  });

  it("prices storage per GiB-month and inference per 1,000 requests", () => {
    expect(pricingDivisor("storage")).toBe(730);
    expect(pricingDivisor("inference")).toBe(1000);
    expect(pricingDivisor("gpu")).toBe(1);
    expect([CONSUMED_UNIT.storage, PRICING_UNIT.storage]).toEqual(["GiB-Hours", "GiB-Months"]);
  });

  it("accepts rate-card keys and refuses others", () => {
    for (const ok of ["gpu:H100", "gpu:A100 1g.10gb", "cpu", "tokens", "llm.tokens_out"]) expect(RESOURCE_KEY_PATTERN.test(ok)).toBe(true);
    for (const bad of ["", "GPU", "gpu:", "gpu: H100", "cpu;drop", "a".repeat(70)]) expect(RESOURCE_KEY_PATTERN.test(bad)).toBe(false);
  });
});
