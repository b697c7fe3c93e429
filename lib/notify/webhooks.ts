import crypto from "node:crypto";
import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { webhookDeliveries, webhooks } from "@/db/schema";
import type { PeriodicJob } from "@/lib/jobs/periodic";
import { metrics } from "@/lib/observability/metrics";

export const WEBHOOK_EVENTS = ["request.created", "request.decided", "request.applied", "request.failed", "budget.threshold", "budget.forecast", "gpu.idle", "access.expiring", "access.extension"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * Queue an event for every active webhook subscribed to it, in the caller's
 * transaction (an event is sent only if what it reports committed). The
 * payload is Slack-compatible: `text` is what a channel shows.
 */
export async function enqueueWebhookEvent(db: Database, event: WebhookEvent, payload: { text: string } & Record<string, unknown>, at: Date): Promise<void> {
  const hooks = await db.select({ id: webhooks.id, events: webhooks.events }).from(webhooks).where(eq(webhooks.active, true));
  const subscribed = hooks.filter((h) => h.events.includes(event));
  if (subscribed.length === 0) return;
  await db.insert(webhookDeliveries).values(subscribed.map((h) => ({ webhookId: h.id, event, payload: { event, ...payload }, nextAttemptAt: at, createdAt: at })));
}

/**
 * `X-Allot-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`:
 * the receiver recomputes it with the shared secret and rejects old timestamps.
 */
export function signatureHeader(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const mac = crypto.createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
  return `t=${t},v1=${mac}`;
}

const MAX_ATTEMPTS = 6;

/** Send due deliveries (any replica may run this: rows are claimed with SKIP LOCKED). Returns how many were tried. */
export async function deliverDueWebhooks(db: Database, now: Date, send: typeof fetch = fetch): Promise<number> {
  const due = await db.transaction(async (tx) => {
    const rows = await tx
      .select({ d: webhookDeliveries, url: webhooks.url, secret: webhooks.secret })
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
      .where(and(eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, now)))
      .orderBy(asc(webhookDeliveries.id))
      .limit(20)
      .for("update", { of: webhookDeliveries, skipLocked: true });
    if (rows.length > 0) {
      // Claimed for two minutes: a crashed sender's deliveries come back after that.
      await tx
        .update(webhookDeliveries)
        .set({ nextAttemptAt: new Date(now.getTime() + 120_000), attempts: sql`${webhookDeliveries.attempts} + 1` })
        .where(inArray(webhookDeliveries.id, rows.map((r) => r.d.id)));
    }
    return rows;
  });
  for (const { d, url, secret } of due) {
    const body = JSON.stringify(d.payload);
    let error: string | null = null;
    try {
      const response = await send(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Allot-Event": d.event, "X-Allot-Delivery": String(d.id), "X-Allot-Signature": signatureHeader(secret, body, now) },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) error = `HTTP ${response.status}`;
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    const attempts = d.attempts + 1;
    if (error !== null) metrics().webhookFailures.inc({ outcome: attempts >= MAX_ATTEMPTS ? "failed" : "retry" });
    await db
      .update(webhookDeliveries)
      .set(
        error === null
          ? { status: "delivered", deliveredAt: now, lastError: null }
          : attempts >= MAX_ATTEMPTS
            ? { status: "failed", lastError: error }
            : { lastError: error, nextAttemptAt: new Date(now.getTime() + 30_000 * 2 ** (attempts - 1)) },
      )
      .where(eq(webhookDeliveries.id, d.id));
  }
  return due.length;
}

/** Retries on every pass, after the reconcile pass: a slow endpoint never holds up cluster changes. */
export function webhookDeliveryJob(db: Database): PeriodicJob {
  return {
    name: "webhook delivery",
    everyMs: 0,
    phase: "after-reconcile",
    async run(now) {
      await deliverDueWebhooks(db, now);
      return null;
    },
  };
}
