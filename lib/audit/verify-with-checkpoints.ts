import "server-only";
import type { KeyObject } from "node:crypto";
import { desc, inArray } from "drizzle-orm";
import type { Database } from "@/db/client";
import { auditEvents } from "@/db/schema";
import { checkCheckpointSignature, type SignedCheckpoint } from "./checkpoint";
import { compareWithCheckpoints, type CheckpointComparison } from "./checkpoint-compare";
import { readCheckpointDirectory, readCheckpointFile, type CheckpointRead } from "./checkpoint-files";
import { verifyAuditChain, type ChainVerification } from "./verify";

/** Where checkpoints are read from: explicit files (the CLI's --checkpoint) take the place of the directory. */
export type CheckpointSource = { publicKey: KeyObject | null; dir: string | null; files?: readonly string[] };

export type RefusedCheckpoint = { source: string; reason: string };

export type TailVerdict =
  | { state: "unchecked"; reason: "no_key" | "no_source" | "none_found"; where: string | null; refused: RefusedCheckpoint[]; otherKey: number }
  | { state: "checked"; comparison: CheckpointComparison; refused: RefusedCheckpoint[]; otherKey: number };

export type AuditVerification = { chain: ChainVerification; head: { seq: number; hash: string } | null; tail: TailVerdict };

/**
 * The hash chain from the first event, then its end against the signed
 * checkpoints: only they can show that the newest events were removed.
 */
export async function verifyAuditLog(db: Database, source: CheckpointSource): Promise<AuditVerification> {
  const chain = await verifyAuditChain(db);
  const [head] = await db.select({ seq: auditEvents.seq, hash: auditEvents.hash }).from(auditEvents).orderBy(desc(auditEvents.seq)).limit(1);
  return { chain, head: head ?? null, tail: await checkTail(db, source, head?.seq ?? 0) };
}

async function checkTail(db: Database, source: CheckpointSource, headSeq: number): Promise<TailVerdict> {
  const where = source.files?.length ? source.files.join(", ") : source.dir;
  if (!source.publicKey) return { state: "unchecked", reason: "no_key", where, refused: [], otherKey: 0 };
  if (!where) return { state: "unchecked", reason: "no_source", where: null, refused: [], otherKey: 0 };
  const reads: CheckpointRead[] = source.files?.length
    ? (await Promise.all(source.files.map((f) => readCheckpointFile(f)))).flat()
    : await readCheckpointDirectory(source.dir!);
  const refused: RefusedCheckpoint[] = [];
  const valid: SignedCheckpoint[] = [];
  let otherKey = 0;
  for (const read of reads) {
    if ("error" in read) {
      refused.push({ source: read.source, reason: read.error });
      continue;
    }
    const check = checkCheckpointSignature(read.checkpoint, source.publicKey);
    if (check.valid) valid.push(read.checkpoint);
    else if (check.reason === "other_key") otherKey++;
    else refused.push({ source: read.source, reason: "its signature does not verify: the checkpoint was altered after it was signed" });
  }
  const stored = await storedHashes(db, [...new Set(valid.filter((c) => c.seq <= headSeq).map((c) => c.seq))]);
  const comparison = compareWithCheckpoints(valid, headSeq, (seq) => stored.get(seq));
  if (!comparison) return { state: "unchecked", reason: "none_found", where, refused, otherKey };
  return { state: "checked", comparison, refused, otherKey };
}

async function storedHashes(db: Database, seqs: number[]): Promise<Map<number, string>> {
  const hashes = new Map<number, string>();
  // Bounded batches: a directory may hold a checkpoint every few minutes for years.
  for (let i = 0; i < seqs.length; i += 1000) {
    const rows = await db.select({ seq: auditEvents.seq, hash: auditEvents.hash }).from(auditEvents).where(inArray(auditEvents.seq, seqs.slice(i, i + 1000)));
    for (const r of rows) hashes.set(r.seq, r.hash);
  }
  return hashes;
}
