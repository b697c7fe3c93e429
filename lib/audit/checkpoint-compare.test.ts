import { describe, expect, it } from "vitest";
import { compareWithCheckpoints } from "./checkpoint-compare";

const hashOf = (seq: number, variant = "a") => `${variant}${String(seq).padStart(63, "0")}`;
const cp = (seq: number, variant = "a", at = `2026-12-03T12:${String(seq % 60).padStart(2, "0")}:00.000Z`) => ({ seq, hash: hashOf(seq, variant), at });
/** A log of `head` events, where events from `changedFrom` on were re-hashed (variant "b"). */
const log = (head: number, changedFrom = Infinity) => (seq: number) => (seq <= head ? hashOf(seq, seq >= changedFrom ? "b" : "a") : undefined);

describe("comparing the log with checkpoints", () => {
  it("has nothing to say without checkpoints", () => {
    expect(compareWithCheckpoints([], 10, log(10))).toBeNull();
  });

  it("matches, and counts the newer events no checkpoint covers yet", () => {
    expect(compareWithCheckpoints([cp(5), cp(8)], 10, log(10))).toEqual({ latest: cp(8), compared: 2, missing: null, changed: null, uncovered: 2 });
  });

  it("reports the events removed from the end as missing", () => {
    expect(compareWithCheckpoints([cp(5), cp(8)], 6, log(6))).toMatchObject({ missing: { from: 7, to: 8 }, changed: null, uncovered: 0 });
    expect(compareWithCheckpoints([cp(8)], 0, log(0))).toMatchObject({ missing: { from: 1, to: 8 } });
  });

  it("brackets a re-hashed change between the last checkpoint that matches and the first that does not", () => {
    const r = compareWithCheckpoints([cp(3), cp(6), cp(9), cp(12)], 12, log(12, 7));
    expect(r).toMatchObject({ missing: null, changed: { from: 7, to: 9, checkpoint: cp(9) } });
    expect(compareWithCheckpoints([cp(9)], 12, log(12, 7))).toMatchObject({ changed: { from: 1, to: 9 } });
  });

  it("reports both when events were replaced and the log is also shorter (a restore from an older backup, then new events)", () => {
    expect(compareWithCheckpoints([cp(3), cp(6), cp(20)], 10, log(10, 5))).toMatchObject({ missing: { from: 11, to: 20 }, changed: { from: 4, to: 6 } });
  });

  it("names one event when two checkpoints of one seq disagree", () => {
    const r = compareWithCheckpoints([cp(6, "a"), cp(6, "b", "2026-12-03T13:00:00.000Z")], 6, log(6));
    expect(r?.changed).toMatchObject({ from: 6, to: 6 });
  });
});
