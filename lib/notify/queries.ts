import { and, count, desc, eq, isNull } from "drizzle-orm";
import { notifications } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";

/** The actor's own in-app notices: nobody reads anyone else's, so there is no policy question here beyond being signed in. */

export type NotificationItem = typeof notifications.$inferSelect;

/** The actor's notices, newest first (the latest `limit`). */
export async function myNotifications(ctx: CommandContext, limit = 100): Promise<NotificationItem[]> {
  return ctx.db.select().from(notifications).where(eq(notifications.principalId, ctx.actor.principalId)).orderBy(desc(notifications.createdAt), desc(notifications.id)).limit(limit);
}

/** How many of the actor's notices are unread: the number on the bell. */
export async function unreadNotificationCount(ctx: CommandContext): Promise<number> {
  const [row] = await ctx.db
    .select({ n: count() })
    .from(notifications)
    .where(and(eq(notifications.principalId, ctx.actor.principalId), isNull(notifications.readAt)));
  return Number(row?.n ?? 0);
}
