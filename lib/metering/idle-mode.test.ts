import { describe, expect, it } from "vitest";
import { idleModeAt, idleModeSpans, idleRuleSentence, nextUtcDay, type IdleModeHistory } from "./idle-mode";

const history: IdleModeHistory = {
  initial: "apart",
  changes: [
    { mode: "chargeback", effectiveFrom: new Date("2026-05-03T00:00:00Z") },
    { mode: "apart", effectiveFrom: new Date("2026-05-10T00:00:00Z") },
  ],
};

describe("the idle cost rule over time", () => {
  it("rules from the change's instant on, and before the first change the default rules", () => {
    expect(idleModeAt(history, new Date("2026-05-02T23:59:59Z"))).toBe("apart");
    expect(idleModeAt(history, new Date("2026-05-03T00:00:00Z"))).toBe("chargeback");
    expect(idleModeAt(history, new Date("2026-05-10T00:00:00Z"))).toBe("apart");
  });

  it("takes effect at the start of the next UTC day", () => {
    expect(nextUtcDay(new Date("2026-05-31T23:30:00Z")).toISOString()).toBe("2026-06-01T00:00:00.000Z");
    expect(nextUtcDay(new Date("2026-05-31T00:00:00Z")).toISOString()).toBe("2026-06-01T00:00:00.000Z");
  });

  it("states the rule of a window, naming each rule's days where it changed inside", () => {
    const one = idleModeSpans(history, new Date("2026-05-04T00:00:00Z"), new Date("2026-05-06T00:00:00Z"));
    expect(one).toHaveLength(1);
    expect(idleRuleSentence(one)).toMatch(/^Each UTC day's idle capacity cost is charged back to tenants in proportion to/);
    const mixed = idleModeSpans(history, new Date("2026-05-01T00:00:00Z"), new Date("2026-05-05T00:00:00Z"));
    expect(mixed.map((s) => s.mode)).toEqual(["apart", "chargeback"]);
    expect(idleRuleSentence(mixed)).toMatch(/^From 2026-05-01 to 2026-05-02, idle capacity cost is shown apart.*; from 2026-05-03 to 2026-05-04, each UTC day's idle/);
  });
});
