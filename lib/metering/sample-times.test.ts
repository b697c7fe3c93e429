import { describe, expect, it } from "vitest";
import { sampleTimeProblems } from "./inputs";
import { usageRetainedFrom } from "./retention";

/** Which hours a push may name at a given instant: none in the future, none older than 400 days, none before retention's horizon. */
const NOW = new Date("2026-03-10T12:00:00Z");
const at = (iso: string) => ({ hour: new Date(iso) });

describe("the hours a push may name", () => {
  it("refuses future hours and hours older than 400 days, naming the sample's field", () => {
    expect(sampleTimeProblems([at("2026-03-10T12:00:00Z"), at("2025-03-01T00:00:00Z")], NOW)).toBeNull();
    expect(sampleTimeProblems([at("2026-03-10T13:00:00Z"), at("2025-01-01T00:00:00Z")], NOW)).toEqual({
      "samples.0.hour": ["Enter an hour that is not in the future."],
      "samples.1.hour": ["Enter an hour within the last 400 days."],
    });
  });

  it("refuses hours before the retention horizon, which retention would drop again, and says from when usage is kept", () => {
    const retainedFrom = usageRetainedFrom(6, NOW);
    expect(retainedFrom).toEqual(new Date("2025-09-01T00:00:00Z"));
    expect(sampleTimeProblems([at("2025-09-01T00:00:00Z"), at("2025-08-31T23:00:00Z")], NOW, retainedFrom)).toEqual({
      "samples.1.hour": ["Enter an hour from 2025-09-01 on: usage before it is no longer kept (ALLOT_USAGE_RETENTION_MONTHS)."],
    });
    // Unset retention keeps everything: only the 400 days apply.
    expect(usageRetainedFrom(null, NOW)).toBeNull();
    expect(sampleTimeProblems([at("2025-08-31T23:00:00Z")], NOW, null)).toBeNull();
  });
});
