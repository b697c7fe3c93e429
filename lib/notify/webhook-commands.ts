import "server-only";
import crypto from "node:crypto";
import { desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { webhookDeliveries, webhooks } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import type { CommandContext } from "@/lib/auth/context";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { AppError } from "@/lib/errors";
import { WEBHOOK_EVENTS } from "./webhooks";
import { VALID_ID, oneOf } from "@/lib/input/messages";

const onPlatform = () => Promise.resolve({ action: "webhooks.manage" as const, resource: { kind: "platform" as const } });

const eventsInput = z.preprocess(
  (v) => (typeof v === "string" ? v.split(/[\s,]+/).filter(Boolean) : v),
  z
    .array(z.string())
    .min(1, "Choose at least one event.")
    .refine((events) => events.every((e) => (WEBHOOK_EVENTS as readonly string[]).includes(e)), oneOf(WEBHOOK_EVENTS))
    .transform((events) => [...new Set(events)]),
);

/** An outgoing webhook; its signing secret is shown once. */
export const createWebhook = defineCommand({
  name: "createWebhook",
  input: z.object({ url: z.url({ protocol: /^https?$/, message: "Enter an http:// or https:// URL." }), events: eventsInput }),
  target: onPlatform,
  async run(ctx, input) {
    const secret = crypto.randomBytes(32).toString("base64url");
    return ctx.db.transaction(async (tx) => {
      const [row] = await tx.insert(webhooks).values({ url: input.url, events: input.events, secret, createdAt: ctx.now }).returning();
      await recordAudit(tx, { actor: auditActorOf(ctx.actor), at: ctx.now, tenantId: null, action: "webhook.created", target: { type: "webhook", id: row!.id }, after: { url: input.url, events: input.events } });
      return { id: row!.id, url: row!.url, secret };
    });
  },
});

export const deleteWebhook = defineCommand({
  name: "deleteWebhook",
  input: z.object({ webhookId: z.uuid({ message: VALID_ID }) }),
  target: onPlatform,
  async run(ctx, input) {
    return ctx.db.transaction(async (tx) => {
      const [row] = await tx.delete(webhooks).where(eq(webhooks.id, input.webhookId)).returning();
      if (!row) throw new AppError("not_found", "No such webhook.");
      await recordAudit(tx, { actor: auditActorOf(ctx.actor), at: ctx.now, tenantId: null, action: "webhook.deleted", target: { type: "webhook", id: row.id }, before: { url: row.url, events: row.events } });
      return { deleted: true };
    });
  },
});

/** Webhooks with their recent delivery results, for platform admins (null otherwise). Secrets are never listed. */
export async function listWebhooks(ctx: CommandContext) {
  if (!can(ctx.actor, "webhooks.manage", { kind: "platform" }, ctx.now)) return null;
  const hooks = await ctx.db.select({ id: webhooks.id, url: webhooks.url, events: webhooks.events, createdAt: webhooks.createdAt }).from(webhooks).orderBy(desc(webhooks.createdAt));
  const recent = await ctx.db.select().from(webhookDeliveries).orderBy(desc(webhookDeliveries.id)).limit(50);
  const counts = await ctx.db.select({ webhookId: webhookDeliveries.webhookId, status: webhookDeliveries.status, n: sql<number>`count(*)::int` }).from(webhookDeliveries).groupBy(webhookDeliveries.webhookId, webhookDeliveries.status);
  return hooks.map((h) => ({
    ...h,
    counts: Object.fromEntries(counts.filter((c) => c.webhookId === h.id).map((c) => [c.status, Number(c.n)])),
    recent: recent.filter((d) => d.webhookId === h.id).slice(0, 10),
  }));
}
