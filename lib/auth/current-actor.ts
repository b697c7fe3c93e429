import "server-only";
import { cache } from "react";
import { db } from "@/db/client";
import { config } from "@/lib/config";
import { systemClock } from "@/lib/clock";
import type { Actor } from "./actor";
import type { CommandContext } from "./context";
import { loadActorForSession } from "./load-actor";
import { auth } from "./nextauth";

/**
 * The signed-in principal for this request, or null: signed out, session ended
 * or expired, or principal disabled. Cached per request, so a page and its
 * components share one lookup.
 */
export const currentActor = cache(async (): Promise<Actor | null> => {
  const session = await auth();
  if (!session?.sid) return null;
  const c = config();
  return loadActorForSession(db(), session.sid, systemClock(), c.platformAdminEmails, c.sessionRecheckMinutes);
});

/** The context for queries and commands on behalf of the signed-in principal. */
export const currentContext = cache(async (): Promise<CommandContext | null> => {
  const actor = await currentActor();
  return actor ? { actor, db: db(), now: systemClock() } : null;
});
