import { setTimeout as sleep } from "node:timers/promises";
import { signatureHeader } from "@/lib/notify/webhooks";
import type { SignedCheckpoint } from "./checkpoint";

export type WebhookOutcome = { delivered: true; attempts: number } | { delivered: false; attempts: number; error: string };

/**
 * POST a checkpoint, retried with backoff. It is sent straight from the
 * process, not through the webhook queue in the database: whoever can rewrite
 * the database could otherwise drop the very delivery that would expose it.
 * Signed with the shared secret as other webhooks are (X-Allot-Signature).
 */
export async function sendCheckpointWebhook(
  hook: { url: string; secret: string | null },
  checkpoint: SignedCheckpoint,
  o: { now: () => Date; send?: typeof fetch; attempts?: number; backoffMs?: number; signal?: AbortSignal },
): Promise<WebhookOutcome> {
  const send = o.send ?? fetch;
  const attempts = o.attempts ?? 5;
  const backoffMs = o.backoffMs ?? 1000;
  const body = JSON.stringify({ event: "audit.checkpoint", text: `Audit checkpoint: event ${checkpoint.seq}, hash ${checkpoint.hash.slice(0, 16)}…, signed ${checkpoint.at}`, checkpoint });
  let error = "not sent";
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) {
      try {
        await sleep(backoffMs * 2 ** (attempt - 2), undefined, { signal: o.signal });
      } catch {
        return { delivered: false, attempts: attempt - 1, error: `${error}; stopped before trying again` };
      }
    }
    try {
      const headers: Record<string, string> = { "Content-Type": "application/json", "X-Allot-Event": "audit.checkpoint" };
      if (hook.secret) headers["X-Allot-Signature"] = signatureHeader(hook.secret, body, o.now());
      const timeout = AbortSignal.timeout(10_000);
      const response = await send(hook.url, { method: "POST", headers, body, signal: o.signal ? AbortSignal.any([o.signal, timeout]) : timeout });
      if (response.ok) return { delivered: true, attempts: attempt };
      error = `HTTP ${response.status}`;
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
  }
  return { delivered: false, attempts, error };
}
