import type { AuditCheckpoint } from "./checkpoint";

export type CheckpointRef = Pick<AuditCheckpoint, "seq" | "hash" | "at">;

export type CheckpointComparison = {
  /** The checkpoint with the highest seq. */
  latest: CheckpointRef;
  /** How many (signature-checked) checkpoints were compared. */
  compared: number;
  /** Events a checkpoint vouched for that the log no longer holds (its newest events were removed, or it was restored from an older backup). */
  missing: { from: number; to: number } | null;
  /**
   * A checkpointed event whose stored hash differs from the signed one: at least
   * one event in from..to was changed or replaced, and the events after it
   * re-hashed to hide it. `from` follows the last checkpoint that still matched.
   */
  changed: { from: number; to: number; checkpoint: CheckpointRef } | null;
  /** Events newer than the newest checkpoint: nothing outside the database vouches for them yet. */
  uncovered: number;
};

const ref = (c: CheckpointRef): CheckpointRef => ({ seq: c.seq, hash: c.hash, at: c.at });

/**
 * Compare the log with checkpoints already checked for their signature.
 * `headSeq` is the log's last seq (0 when empty); `storedHash` the hash the
 * log holds at a seq, if it holds that event.
 */
export function compareWithCheckpoints(
  checkpoints: readonly CheckpointRef[],
  headSeq: number,
  storedHash: (seq: number) => string | undefined,
): CheckpointComparison | null {
  if (checkpoints.length === 0) return null;
  const sorted = [...checkpoints].sort((a, b) => a.seq - b.seq || a.at.localeCompare(b.at));
  const latest = sorted.at(-1)!;
  let lastMatch = 0;
  let changed: CheckpointComparison["changed"] = null;
  for (const c of sorted) {
    if (c.seq > headSeq) break;
    if (storedHash(c.seq) === c.hash) {
      lastMatch = c.seq;
      continue;
    }
    // Two checkpoints of one seq that disagree (one signed before a restore): the range is that event alone.
    changed = { from: Math.min(lastMatch + 1, c.seq), to: c.seq, checkpoint: ref(c) };
    break;
  }
  return {
    latest: ref(latest),
    compared: sorted.length,
    missing: latest.seq > headSeq ? { from: headSeq + 1, to: latest.seq } : null,
    changed,
    uncovered: Math.max(0, headSeq - latest.seq),
  };
}
