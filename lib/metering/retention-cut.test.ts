import { describe, expect, it } from "vitest";
import { retentionCutOf } from "./report";

/** When a spend window reaches back past what retention keeps, the report says so (the page and the API then warn instead of showing zero). */
const NOW = new Date("2026-03-10T12:00:00Z");
const window = (from: string, to: string) => ({ from: new Date(`${from}T00:00:00Z`), to: new Date(`${to}T00:00:00Z`) });

describe("the retention cut of a spend window", () => {
  it("is absent when everything is kept, or the window and its previous period are wholly kept", () => {
    expect(retentionCutOf(window("2020-01-01", "2020-02-01"), NOW, null)).toBeUndefined();
    // Six months kept: from 2025-09-01. March 1-10 and the ten days before it are kept.
    expect(retentionCutOf(window("2026-03-01", "2026-03-11"), NOW, 6)).toBeUndefined();
  });

  it("names the first day kept and whether the window or only its previous period starts before it", () => {
    expect(retentionCutOf(window("2025-08-15", "2025-09-15"), NOW, 6)).toEqual({ retainedFrom: "2025-09-01", months: 6, window: true, previous: true });
    // The window is kept; the month before it (its comparison) is not.
    expect(retentionCutOf(window("2025-09-01", "2025-10-01"), NOW, 6)).toEqual({ retainedFrom: "2025-09-01", months: 6, window: false, previous: true });
    // A window wholly before the horizon: all of it gone, said rather than shown as no use.
    expect(retentionCutOf(window("2025-01-01", "2025-02-01"), NOW, 6)).toMatchObject({ window: true });
  });
});
