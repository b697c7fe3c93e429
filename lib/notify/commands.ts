import { and, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { notifications } from "@/db/schema";
import { defineCommand } from "@/lib/auth/command";
import { AppError } from "@/lib/errors";
import { uuidInput } from "@/lib/tenancy/inputs";

/**
 * Mark in-app notices read: one (notificationId) or every unread one. A
 * principal marks only its own: the rows are chosen by the actor, never by the
 * input, and someone else's notice is "not found".
 *
 * Policy: "notification.own" (any signed-in principal); run() enforces the
 * "own" part.
 */
export const markNotificationsRead = defineCommand({
  name: "markNotificationsRead",
  input: z.object({
    notificationId: z.preprocess((v) => (v === "" || v === null ? undefined : v), uuidInput.optional()),
  }),
  target: () => Promise.resolve({ action: "notification.own" as const, resource: { kind: "platform" as const } }),
  async run(ctx, input) {
    const own = eq(notifications.principalId, ctx.actor.principalId);
    if (input.notificationId) {
      const [row] = await ctx.db.select({ id: notifications.id, readAt: notifications.readAt }).from(notifications).where(and(own, eq(notifications.id, input.notificationId)));
      if (!row) throw new AppError("not_found", "No such notification.");
      if (row.readAt) return { marked: 0 };
    }
    const marked = await ctx.db
      .update(notifications)
      .set({ readAt: ctx.now })
      .where(and(own, isNull(notifications.readAt), input.notificationId ? eq(notifications.id, input.notificationId) : undefined))
      .returning({ id: notifications.id });
    return { marked: marked.length };
  },
});
