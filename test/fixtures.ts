import { asc, eq, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { auditEvents, users } from "@/db/schema";
import type { Actor } from "@/lib/auth/actor";
import type { CommandContext } from "@/lib/auth/context";
import { loadActor } from "@/lib/auth/load-actor";
import { DEMO_PERSONAS } from "@/lib/demo/personas";
import { AppError } from "@/lib/errors";

/**
 * Helpers shared by the integration tests: real actors loaded from the
 * database, raw SQL that reads the same on both drivers, and error checks.
 */

export type PersonaKey = "platform-admin" | "vision-admin" | "language-admin" | "data-scientist" | "viewer" | "collaborator";

export function personaEmail(key: PersonaKey): string {
  const persona = DEMO_PERSONAS.find((p) => p.key === key);
  if (!persona) throw new Error(`no demo persona ${key}`);
  return persona.email;
}

export async function principalIdOf(db: Database, email: string): Promise<string> {
  const [user] = await db.select({ principalId: users.principalId }).from(users).where(eq(users.email, email));
  if (!user) throw new Error(`no user ${email}`);
  return user.principalId;
}

/** The actor for a demo persona, loaded by loadActor exactly as a request would. */
export async function actorOf(db: Database, key: PersonaKey, platformAdminEmails: readonly string[] = []): Promise<Actor> {
  const actor = await loadActor(db, await principalIdOf(db, personaEmail(key)), platformAdminEmails);
  if (!actor) throw new Error(`persona ${key} has no actor (disabled?)`);
  return actor;
}

export async function contextOf(db: Database, key: PersonaKey, now: Date): Promise<CommandContext> {
  return { actor: await actorOf(db, key), db, now };
}

export { rowsOf } from "@/db/rows";

import { rowsOf } from "@/db/rows";

export async function countOf(db: Database, table: string): Promise<number> {
  const [row] = await rowsOf<{ n: number | string }>(db, sql`select count(*)::int as n from ${sql.identifier(table)}`);
  return Number(row!.n);
}

export async function auditLog(db: Database) {
  return db.select().from(auditEvents).orderBy(asc(auditEvents.seq));
}

/** Every message down an error's cause chain (drizzle wraps the driver's error). */
export function errorText(error: unknown): string {
  const parts: string[] = [];
  let e: unknown = error;
  for (let depth = 0; e && depth < 5; depth++) {
    parts.push(e instanceof Error ? e.message : JSON.stringify(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(" <- ");
}

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection, but the promise resolved");
}

/** The AppError a promise rejects with; any other failure is rethrown. */
export async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await rejectionOf(promise);
  if (error instanceof AppError) return error;
  throw error;
}
