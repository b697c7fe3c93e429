import "server-only";
import { desc, eq } from "drizzle-orm";
import type { Database } from "@/db/client";
import { auditEvents } from "@/db/schema";
import type { AuditCheckpointSettings } from "@/lib/config";
import { checkCheckpointSignature, signCheckpoint, type SignedCheckpoint } from "./checkpoint";
import { readCheckpointDirectory, writeCheckpointFile } from "./checkpoint-files";
import { sendCheckpointWebhook, type WebhookOutcome } from "./checkpoint-webhook";
import { verifyAuditChain, verifyAuditChainAfter } from "./verify";

export type Head = { seq: number; hash: string };

export type CheckpointWrite =
  | { written: false; reason: "not_configured" | "empty" | "unchanged"; head: Head | null }
  /** The log does not follow from the last checkpoint: signing its head now would vouch for the damage. */
  | { written: false; reason: "refused"; head: Head | null; detail: string }
  | {
      written: true;
      checkpoint: SignedCheckpoint;
      file: { path: string; created: boolean } | null;
      logged: boolean;
      /** Retries go on in the background; the caller awaits it or not. */
      webhook: Promise<WebhookOutcome> | null;
    };

export type CheckpointWriteOptions = {
  now: Date;
  /** The last checkpoint this process wrote; else the newest in the directory is used. */
  last?: Head | null;
  /** Write even when the head has not moved (on demand: a fresh time says the head still stands). */
  force?: boolean;
  /** Where the log line goes (stdout). */
  out?: (line: string) => void;
  send?: typeof fetch;
  signal?: AbortSignal;
  webhookBackoffMs?: number;
};

/** The JSON line a checkpoint is logged as; `allot verify-audit --checkpoint` reads it back as it is. */
export function checkpointLogLine(c: SignedCheckpoint): string {
  return JSON.stringify({ level: "info", time: c.at, event: "audit.checkpoint", msg: `audit checkpoint at event ${c.seq}`, checkpoint: c });
}

/**
 * Sign the chain's head and send it to every configured place: the log stream,
 * a file in the checkpoint directory, the webhook. Before signing, the events
 * since the last checkpoint must follow from it (or, with none known, the whole
 * chain must verify), so a damaged log is refused rather than vouched for.
 */
export async function writeAuditCheckpoint(db: Database, settings: AuditCheckpointSettings, o: CheckpointWriteOptions): Promise<CheckpointWrite> {
  const [head] = await db.select({ seq: auditEvents.seq, hash: auditEvents.hash }).from(auditEvents).orderBy(desc(auditEvents.seq)).limit(1);
  if (!settings.signing) return { written: false, reason: "not_configured", head: head ?? null };
  if (!head) return { written: false, reason: "empty", head: null };
  const last = o.last !== undefined && o.last !== null ? o.last : await newestInDirectory(settings);
  if (last && !o.force && last.seq === head.seq && last.hash === head.hash) return { written: false, reason: "unchanged", head };
  const problem = await whyNotFollowing(db, head, last);
  if (problem) return { written: false, reason: "refused", head, detail: problem };

  const checkpoint = signCheckpoint(head, o.now, settings.signing.privateKey);
  if (settings.logStream) (o.out ?? ((line) => process.stdout.write(`${line}\n`)))(checkpointLogLine(checkpoint));
  const webhook = settings.webhook
    ? sendCheckpointWebhook(settings.webhook, checkpoint, { now: () => o.now, send: o.send, signal: o.signal, backoffMs: o.webhookBackoffMs })
    : null;
  const file = settings.dir ? await writeCheckpointFile(settings.dir, checkpoint) : null;
  return { written: true, checkpoint, file: file ? { path: file.file, created: file.created } : null, logged: settings.logStream, webhook };
}

async function whyNotFollowing(db: Database, head: Head, last: Head | null): Promise<string | null> {
  if (!last) {
    const chain = await verifyAuditChain(db);
    return chain.intact ? null : `the hash chain is broken at event ${chain.broken.seq}: ${chain.broken.reason}`;
  }
  if (head.seq < last.seq) return `the log ends at event ${head.seq}, but the last checkpoint was signed at event ${last.seq}: events ${head.seq + 1}–${last.seq} are missing`;
  const [at] = await db.select({ hash: auditEvents.hash }).from(auditEvents).where(eq(auditEvents.seq, last.seq));
  if (!at) return `event ${last.seq}, which the last checkpoint was signed at, is missing`;
  if (at.hash !== last.hash) return `event ${last.seq} has another hash than the last checkpoint signed: events up to it were changed or replaced`;
  const after = await verifyAuditChainAfter(db, last);
  return after.intact ? null : `the hash chain after the last checkpoint is broken at event ${after.broken.seq}: ${after.broken.reason}`;
}

async function newestInDirectory(settings: AuditCheckpointSettings): Promise<Head | null> {
  if (!settings.dir || !settings.publicKey) return null;
  let newest: Head | null = null;
  for (const read of await readCheckpointDirectory(settings.dir)) {
    if ("error" in read || !checkCheckpointSignature(read.checkpoint, settings.publicKey).valid) continue;
    if (!newest || read.checkpoint.seq > newest.seq) newest = { seq: read.checkpoint.seq, hash: read.checkpoint.hash };
  }
  return newest;
}
