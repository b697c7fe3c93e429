import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { gt, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { auditEvents } from "@/db/schema";
import type { AuditCheckpointSettings } from "@/lib/config";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { checkpointKeyId, checkpointPrivateKey, checkpointPublicKey, generateCheckpointKeyPair, parseSignedCheckpoint, type SignedCheckpoint } from "./checkpoint";
import { readCheckpointDirectory } from "./checkpoint-files";
import { auditCheckpointTicker } from "./checkpoint-ticker";
import { writeAuditCheckpoint } from "./checkpoint-writer";
import { describeAuditVerification } from "./describe-verification";
import { recordAudit } from "./record";
import { verifyAuditLog } from "./verify-with-checkpoints";

const T0 = new Date("2026-12-03T10:00:00.000Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allot-checkpoints-"));
const pair = generateCheckpointKeyPair();
const privateKey = checkpointPrivateKey(pair.privatePem);
const publicKey = checkpointPublicKey(pair.publicPem);
const logLines: string[] = [];

const settings = (over: Partial<AuditCheckpointSettings> = {}): AuditCheckpointSettings => ({
  signing: { privateKey },
  publicKey,
  keyId: checkpointKeyId(publicKey),
  dir,
  webhook: null,
  logStream: true,
  intervalMinutes: 5,
  ...over,
});

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
});
afterAll(async () => {
  await handle?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function appendEvents(from: number, to: number) {
  for (let n = from; n <= to; n++) {
    await db.transaction((tx) => recordAudit(tx, { actor: { principalId: null, label: "test:checkpoint" }, at: at(n), tenantId: null, action: `test.event_${n}`, target: { type: "thing", id: `thing-${n}` }, after: { n } }));
  }
}

async function checkpointNow(over: Partial<AuditCheckpointSettings> = {}, minutes = 0): Promise<SignedCheckpoint> {
  const result = await writeAuditCheckpoint(db, settings(over), { now: at(100 + minutes), force: true, out: (l) => logLines.push(l) });
  if (!result.written) throw new Error(`no checkpoint: ${result.reason}`);
  return result.checkpoint;
}

/** Run statements with the append-only trigger off, as someone with the table owner's rights could. */
async function behindTheTrigger(work: () => Promise<unknown>) {
  await db.execute(sql`alter table audit_events disable trigger audit_events_append_only`);
  try {
    await work();
  } finally {
    await db.execute(sql`alter table audit_events enable trigger audit_events_append_only`);
  }
}

/** The summary as the audit page shows it; which lines are findings is checked where something is found. */
const verifyWithFindings = async (over: Partial<{ publicKey: typeof publicKey | null; dir: string | null; files: string[] }> = {}) =>
  describeAuditVerification(await verifyAuditLog(db, { publicKey, dir, ...over }));
const verify = async (over: Parameters<typeof verifyWithFindings>[0] = {}) => {
  const { status, lines } = await verifyWithFindings(over);
  return { status, lines };
};

describe(`audit checkpoints (${databaseLabel()})`, () => {
  it("says honestly that the end of the log cannot be checked without a key or checkpoints", async () => {
    await appendEvents(1, 10);
    expect(await verify({ publicKey: null, dir: null })).toEqual({
      status: "unchecked",
      lines: [
        "Hash chain intact: 10 events verified.",
        "The newest events cannot be checked: no checkpoint key is configured (ALLOT_AUDIT_CHECKPOINT_KEY_FILE or ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE), so events removed from the end of the log would go unnoticed.",
      ],
    });
    expect((await verify({ dir: null })).lines[1]).toMatch(/^The newest events cannot be checked: no checkpoint directory is configured .* would go unnoticed\.$/);
    expect(await verify()).toMatchObject({ status: "unchecked", lines: [expect.any(String), `The newest events cannot be checked: no checkpoint signed by this key was found in ${dir}, so events removed from the end of the log would go unnoticed.`] });
  });

  it("signs the head to the log stream and a file, and the log matches it", async () => {
    const c = await checkpointNow();
    expect(c).toMatchObject({ seq: 10, at: at(100).toISOString(), keyId: pair.keyId });
    const [head] = await db.select().from(auditEvents).where(sql`seq = 10`);
    expect(c.hash).toBe(head!.hash);
    // The log stream: one JSON line carrying the checkpoint.
    expect(logLines).toHaveLength(1);
    expect(parseSignedCheckpoint((JSON.parse(logLines[0]!) as { checkpoint: unknown }).checkpoint)).toEqual(c);
    // The directory: one read-only file per checkpoint.
    const files = fs.readdirSync(dir);
    expect(files).toEqual([`audit-checkpoint-000000000010-${c.hash.slice(0, 16)}.json`]);
    expect(fs.statSync(path.join(dir, files[0]!)).mode & 0o222).toBe(0);
    expect(await readCheckpointDirectory(dir)).toEqual([{ source: path.join(dir, files[0]!), checkpoint: c }]);

    expect(await verify()).toEqual({ status: "ok", lines: ["Hash chain intact: 10 events verified.", "The log matches the newest checkpoint (event 10, signed 2026-12-03T11:40:00.000Z)."] });
    await appendEvents(11, 12);
    expect((await verify()).lines).toEqual([
      "Hash chain intact: 12 events verified.",
      "The log matches the newest checkpoint (event 10, signed 2026-12-03T11:40:00.000Z).",
      "2 newer events are not covered by a checkpoint yet.",
    ]);
  });

  it("writes again only when the head moved, unless asked", async () => {
    const moved = await writeAuditCheckpoint(db, settings(), { now: at(105), out: (l) => logLines.push(l) });
    expect(moved).toMatchObject({ written: true, checkpoint: { seq: 12 } });
    const still = await writeAuditCheckpoint(db, settings(), { now: at(110), out: (l) => logLines.push(l) });
    expect(still).toMatchObject({ written: false, reason: "unchanged", head: { seq: 12 } });
    const forced = await writeAuditCheckpoint(db, settings(), { now: at(110), force: true, out: (l) => logLines.push(l) });
    // The same head again meets the file already written for it.
    expect(forced).toMatchObject({ written: true, checkpoint: { seq: 12 }, file: { created: false } });
    expect(fs.readdirSync(dir)).toHaveLength(2);
  });

  it("reports the newest events deleted with SQL as missing, by seq, and refuses to sign the shortened log", async () => {
    await appendEvents(13, 15);
    await checkpointNow({}, 15); // at event 15
    const removed = await db.select().from(auditEvents).where(gt(auditEvents.seq, 12));
    await behindTheTrigger(() => db.execute(sql`delete from audit_events where seq > 12`));

    const verdict = await verifyWithFindings();
    expect(verdict.status).toBe("failed");
    expect(verdict.lines).toEqual([
      // The chain itself cannot tell: what is left links up perfectly.
      "Hash chain intact: 12 events verified.",
      "Events 13–15 are MISSING: the checkpoint of 2026-12-03T11:55:00.000Z was signed at event 15, but the log ends at event 12.",
    ]);
    // Only the missing events are a finding (the CLI writes findings to stderr, the rest to stdout).
    expect(verdict.findings).toEqual([verdict.lines[1]]);
    const refused = await writeAuditCheckpoint(db, settings(), { now: at(120), out: (l) => logLines.push(l) });
    expect(refused).toMatchObject({ written: false, reason: "refused", detail: "the log ends at event 12, but the last checkpoint was signed at event 15: events 13–15 are missing" });

    // New events under the removed numbers do not hide it: they differ from what was signed.
    await appendEvents(100, 103);
    expect((await verify()).lines[1]).toBe(
      "Events 13–15 are CHANGED since the checkpoint of 2026-12-03T11:55:00.000Z: the log's event 15 has another hash than the one signed, so at least one of these events was changed or replaced.",
    );
    await behindTheTrigger(() => db.execute(sql`delete from audit_events where seq > 12`));

    await db.insert(auditEvents).values(removed);
    expect((await verify()).status).toBe("ok");
  });

  it("reports an event changed and re-hashed (which the chain alone cannot see) between the checkpoints around it", async () => {
    await checkpointNow({}, 20); // event 15 again: the same file
    await appendEvents(16, 18);
    await checkpointNow({}, 25); // at 18
    const original = await db.select().from(auditEvents).where(gt(auditEvents.seq, 12));
    // Rewrite event 14 and re-hash it and every event after it: a consistent forgery.
    await behindTheTrigger(async () => {
      const { hashAuditEvent } = await import("./chain");
      let prevHash = original[0]!.prevHash;
      for (const e of original) {
        const forged = { ...e, prevHash, actorLabel: e.seq === 14 ? "someone-else" : e.actorLabel };
        const hash = hashAuditEvent(prevHash, forged);
        await db.execute(sql`update audit_events set actor_label = ${forged.actorLabel}, prev_hash = ${prevHash}, hash = ${hash} where seq = ${e.seq}`);
        prevHash = hash;
      }
    });
    const verdict = await verify();
    expect(verdict.status).toBe("failed");
    expect(verdict.lines).toEqual([
      "Hash chain intact: 18 events verified.",
      "Events 13–15 are CHANGED since the checkpoint of 2026-12-03T11:55:00.000Z: the log's event 15 has another hash than the one signed, so at least one of these events was changed or replaced.",
    ]);
    expect(await writeAuditCheckpoint(db, settings(), { now: at(130) })).toMatchObject({ reason: "refused", detail: expect.stringMatching(/^event 18 has another hash than the last checkpoint signed/) as unknown });

    // Changed without re-hashing, the chain itself points at the event.
    await behindTheTrigger(async () => {
      for (const e of original) await db.execute(sql`update audit_events set actor_label = ${e.actorLabel}, prev_hash = ${e.prevHash}, hash = ${e.hash} where seq = ${e.seq}`);
      await db.execute(sql`update audit_events set target_id = 'elsewhere' where seq = 17`);
    });
    expect((await verify()).lines).toEqual(["Hash chain BROKEN at event 17: content does not match its hash (the event was changed) (16 events before it verified).", "The log matches the newest checkpoint (event 18, signed 2026-12-03T12:05:00.000Z) and 3 earlier ones."]);
    // Without a checkpoint to start from, the writer re-hashes the whole chain and refuses to vouch for it.
    expect(await writeAuditCheckpoint(db, settings({ dir: null }), { now: at(130), force: true })).toMatchObject({ reason: "refused", detail: expect.stringMatching(/^the hash chain is broken at event 17/) as unknown });
    await behindTheTrigger(() => db.execute(sql`update audit_events set target_id = 'thing-17' where seq = 17`));
    expect((await verify()).status).toBe("ok");
  });

  it("refuses altered checkpoint files and passes over another key's, and reads checkpoints given as files or log lines", async () => {
    const extra = fs.mkdtempSync(path.join(os.tmpdir(), "allot-checkpoint-files-"));
    try {
      const genuine = await checkpointNow({ dir: null, logStream: false });
      const altered = path.join(extra, "altered.json");
      fs.writeFileSync(altered, JSON.stringify({ ...genuine, seq: 12 }));
      const other = generateCheckpointKeyPair();
      const foreign = await checkpointNow({ signing: { privateKey: checkpointPrivateKey(other.privatePem) }, dir: null, logStream: false });
      const foreignFile = path.join(extra, "foreign.json");
      fs.writeFileSync(foreignFile, JSON.stringify(foreign));
      const verdict = await verify({ files: [altered, foreignFile] });
      expect(verdict).toEqual({
        status: "failed",
        lines: [
          "Hash chain intact: 18 events verified.",
          `The newest events cannot be checked: no checkpoint signed by this key was found in ${altered}, ${foreignFile}, so events removed from the end of the log would go unnoticed.`,
          `Refused checkpoint ${altered}: its signature does not verify: the checkpoint was altered after it was signed.`,
          "1 checkpoint signed by another key was passed over (an earlier key?).",
        ],
      });

      // A log excerpt as it is: other lines are passed over, the checkpoint line is read.
      const excerpt = path.join(extra, "portal.log");
      fs.writeFileSync(excerpt, ["[allot] database ready", logLines.at(-1)!, '{"level":"info","msg":"other"}', ""].join("\n"));
      expect(await verify({ files: [excerpt] })).toMatchObject({ status: "ok" });
    } finally {
      fs.rmSync(extra, { recursive: true, force: true });
    }
  });

  it("posts checkpoints to the webhook with retries, signed with its secret", async () => {
    const received: { body: string; signature: string | undefined }[] = [];
    let failuresLeft = 2;
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        if (failuresLeft-- > 0) {
          res.writeHead(503).end();
          return;
        }
        received.push({ body, signature: req.headers["x-allot-signature"] as string | undefined });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    try {
      const result = await writeAuditCheckpoint(db, settings({ dir: null, logStream: false, webhook: { url, secret: "s".repeat(32) } }), { now: at(200), force: true, webhookBackoffMs: 10 });
      expect(result.written).toBe(true);
      if (!result.written) return;
      expect(await result.webhook).toEqual({ delivered: true, attempts: 3 });
      expect(received).toHaveLength(1);
      const body = JSON.parse(received[0]!.body) as { event: string; text: string; checkpoint: unknown };
      expect(body).toMatchObject({ event: "audit.checkpoint", text: expect.stringMatching(/^Audit checkpoint: event 18,/) as unknown });
      expect(parseSignedCheckpoint(body.checkpoint)).toEqual(result.checkpoint);
      expect(received[0]!.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

      failuresLeft = 100;
      const failing = await writeAuditCheckpoint(db, settings({ dir: null, logStream: false, webhook: { url, secret: null } }), { now: at(201), force: true, webhookBackoffMs: 5 });
      expect(failing.written && (await failing.webhook)).toEqual({ delivered: false, attempts: 5, error: "HTTP 503" });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("ticks in the worker loop: a checkpoint when the head moved, none when it did not", async () => {
    const lines: string[] = [];
    const messages: string[] = [];
    const tickerDir = fs.mkdtempSync(path.join(os.tmpdir(), "allot-ticker-"));
    try {
      const ticker = auditCheckpointTicker({ db, settings: settings({ dir: tickerDir, intervalMinutes: 1 }), clock: () => at(300), log: (m) => messages.push(m), out: (l) => lines.push(l) });
      ticker.tick();
      ticker.tick(); // within the interval: nothing more
      await ticker.stop();
      expect(lines).toHaveLength(1);
      expect(fs.readdirSync(tickerDir)).toHaveLength(1);
      expect(messages).toEqual([]);
    } finally {
      fs.rmSync(tickerDir, { recursive: true, force: true });
    }
  });
});
