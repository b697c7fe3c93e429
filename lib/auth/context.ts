import type { Database } from "@/db/client";
import type { AuditActor } from "@/lib/audit/record";
import type { Actor } from "./actor";

/** What every command and query receives: who acts, on which database, at what instant. */
export type CommandContext = { actor: Actor; db: Database; now: Date };

export function auditActorOf(actor: Actor): AuditActor {
  return { principalId: actor.principalId, label: actor.email ?? actor.displayName };
}
