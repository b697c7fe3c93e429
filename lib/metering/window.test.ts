import { describe, expect, it } from "vitest";
import { resolveWindow, spendQueryInput } from "./window";

const NOW = new Date("2026-03-15T10:30:00Z");
const resolve = (raw: Record<string, string>): ReturnType<typeof resolveWindow> | { issues: string[] } => {
  const parsed = spendQueryInput.safeParse(raw);
  if (!parsed.success) return { issues: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) };
  return resolveWindow(parsed.data, NOW);
};

describe("spend windows", () => {
  it("ends named ranges with today and starts them whole days back", () => {
    expect(resolve({ range: "7d" })).toMatchObject({ window: { from: new Date("2026-03-09T00:00:00Z"), to: new Date("2026-03-16T00:00:00Z"), lastDay: "2026-03-15", granularity: "day" } });
    expect(resolve({})).toMatchObject({ window: { range: "30d", from: new Date("2026-02-14T00:00:00Z") } });
    expect(resolve({ range: "month" })).toMatchObject({ window: { from: new Date("2026-03-01T00:00:00Z"), to: new Date("2026-03-16T00:00:00Z") } });
  });

  it("takes a custom range with its last day included", () => {
    expect(resolve({ from: "2026-01-01", to: "2026-01-31", granularity: "month" })).toMatchObject({
      window: { range: "custom", from: new Date("2026-01-01T00:00:00Z"), to: new Date("2026-02-01T00:00:00Z"), lastDay: "2026-01-31" },
    });
  });

  it("names the field of a bad window", () => {
    expect(resolve({ range: "custom", from: "2026-01-01" })).toEqual({ issues: ["to: Enter the last day of a custom range."] });
    expect(resolve({ from: "2026-02-01", to: "2026-01-01" })).toEqual({ issues: ["to: Enter a last day on or after the first."] });
    const firstIssue = (raw: Record<string, string>) => {
      const r = resolve(raw);
      return "issues" in r ? r.issues[0] : undefined;
    };
    expect(firstIssue({ from: "2026-13-01", to: "2026-01-01" })).toMatch(/^from: /);
    expect(firstIssue({ range: "week" })).toMatch(/^range: Choose one of/);
    expect(firstIssue({ granularity: "minute" })).toMatch(/^granularity: /);
    expect(resolve({ range: "90d", granularity: "hour" })).toEqual({ errors: { granularity: ["Pick day or month: hour granularity covers at most 31 days."] } });
    expect(resolve({ from: "2020-01-01", to: "2026-01-01" })).toEqual({ errors: { from: ["Choose a window of at most 1098 days."] } });
  });
});
