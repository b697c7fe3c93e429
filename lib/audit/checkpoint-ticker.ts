import type { Database } from "@/db/client";
import type { Clock } from "@/lib/clock";
import type { AuditCheckpointSettings } from "@/lib/config";
import { writeAuditCheckpoint, type Head } from "./checkpoint-writer";

/**
 * The periodic checkpoint: every interval, sign the head if it moved. The
 * worker loop calls tick() on each pass; a write runs beside the pass, and
 * webhook retries beside that, so neither holds up reconciling.
 */
export function auditCheckpointTicker(o: {
  db: Database;
  settings: AuditCheckpointSettings;
  clock: Clock;
  log: (message: string, error?: unknown) => void;
  out?: (line: string) => void;
  send?: typeof fetch;
  webhookBackoffMs?: number;
}): { tick(): void; stop(): Promise<void> } {
  const everyMs = o.settings.intervalMinutes * 60_000;
  let lastCheck = -Infinity;
  let last: Head | null = null;
  let lastProblem: string | null = null;
  let running: Promise<void> | null = null;
  const deliveries = new Set<Promise<void>>();
  const abort = new AbortController();
  let stopped = false;
  return {
    tick() {
      if (stopped || running || !o.settings.signing || everyMs === 0 || Date.now() - lastCheck < everyMs) return;
      lastCheck = Date.now();
      running = writeAuditCheckpoint(o.db, o.settings, { now: o.clock(), last, out: o.out, send: o.send, signal: abort.signal, webhookBackoffMs: o.webhookBackoffMs })
        .then(
          (result) => {
            if (result.written) {
              last = { seq: result.checkpoint.seq, hash: result.checkpoint.hash };
              lastProblem = null;
              if (result.webhook) {
                const delivery = result.webhook.then((w) => {
                  if (!w.delivered) o.log(`audit checkpoint at event ${result.checkpoint.seq} not delivered to the webhook after ${w.attempts} attempts: ${w.error}`);
                });
                deliveries.add(delivery);
                void delivery.finally(() => deliveries.delete(delivery));
              }
            } else if (result.reason === "refused" && result.detail !== lastProblem) {
              // Said once per distinct problem, not every interval: it stays until an operator acts.
              lastProblem = result.detail;
              o.log(`AUDIT CHECKPOINT REFUSED: ${result.detail}. No checkpoint is signed until this is explained (see "Audit checkpoints" in the README).`);
            }
          },
          (error: unknown) => o.log("writing the audit checkpoint failed; trying again at the next interval", error),
        )
        .finally(() => {
          running = null;
        });
    },
    async stop() {
      stopped = true;
      await running;
      abort.abort();
      await Promise.all(deliveries);
    },
  };
}
