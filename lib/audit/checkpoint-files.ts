import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { CheckpointFormatError, parseSignedCheckpoint, type SignedCheckpoint } from "./checkpoint";

/**
 * Checkpoints as files: one file per checkpoint, never rewritten. A file is
 * written under a temporary name, fsync'd, then hard-linked to its final name
 * (which fails rather than replaces when the name exists), and the directory
 * is fsync'd, so a crash leaves either the whole checkpoint or none.
 */

const PREFIX = "audit-checkpoint-";

/** Named by seq and hash, so names sort by seq and replicas writing the same head meet on one file. */
export function checkpointFileName(c: Pick<SignedCheckpoint, "seq" | "hash">): string {
  return `${PREFIX}${String(c.seq).padStart(12, "0")}-${c.hash.slice(0, 16)}.json`;
}

export async function writeCheckpointFile(dir: string, c: SignedCheckpoint): Promise<{ file: string; created: boolean }> {
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, checkpointFileName(c));
  const temporary = path.join(dir, `.${checkpointFileName(c)}.${randomUUID()}.tmp`);
  const handle = await fs.open(temporary, "wx", 0o444);
  try {
    await handle.writeFile(`${JSON.stringify(c)}\n`, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  let created = true;
  try {
    await fs.link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    created = false; // this head is checkpointed already (another replica, or an earlier run)
  } finally {
    await fs.unlink(temporary);
  }
  const directory = await fs.open(dir, "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
  return { file, created };
}

export type CheckpointRead = { source: string; checkpoint: SignedCheckpoint } | { source: string; error: string };

/**
 * The checkpoints in a file: one JSON checkpoint, or JSON lines of checkpoints
 * or of the log lines that carry one (`{"event":"audit.checkpoint","checkpoint":{…}}`),
 * so a checkpoint copied from the log stream or a webhook receiver can be
 * checked as it is. Other lines (the rest of a log) are passed over.
 */
export function checkpointsInText(text: string, source: string): CheckpointRead[] {
  const whole = tryJson(text);
  const values = whole.ok ? [{ value: whole.value, source }] : text.split("\n").flatMap((line, i) => {
    const parsed = tryJson(line);
    return parsed.ok ? [{ value: parsed.value, source: `${source}:${i + 1}` }] : [];
  });
  const reads: CheckpointRead[] = [];
  for (const { value, source: where } of values) {
    if (typeof value !== "object" || value === null) continue;
    const candidate = "format" in value ? value : "checkpoint" in value ? value.checkpoint : undefined;
    if (candidate === undefined) continue;
    try {
      reads.push({ source: where, checkpoint: parseSignedCheckpoint(candidate) });
    } catch (error) {
      if (!(error instanceof CheckpointFormatError)) throw error;
      reads.push({ source: where, error: `not a valid checkpoint: ${error.message}` });
    }
  }
  return reads;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (!text.trim()) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export async function readCheckpointFile(file: string): Promise<CheckpointRead[]> {
  return checkpointsInText(await fs.readFile(file, "utf8"), file);
}

/** Every checkpoint file in the directory; a directory not made yet holds none. */
export async function readCheckpointDirectory(dir: string): Promise<CheckpointRead[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const files = names.filter((n) => n.startsWith(PREFIX) && n.endsWith(".json")).sort();
  const reads: CheckpointRead[] = [];
  for (const name of files) reads.push(...(await readCheckpointFile(path.join(dir, name))));
  return reads;
}
