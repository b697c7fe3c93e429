import "server-only";
import { desc, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { auditEvents } from "@/db/schema";
import { asStoredJson, GENESIS_HASH, hashAuditEvent } from "./chain";

/** Who an event is attributed to: a principal, or the system itself (CLI, seeding, expiry). */
export type AuditActor = { principalId: string | null; label: string };

export type AuditEntry = {
  actor: AuditActor;
  at: Date;
  tenantId: string | null;
  action: string;
  target: { type: string; id: string };
  before?: unknown;
  after?: unknown;
};

/** Any constant: all writers of the log queue on it for the length of their transaction. */
const AUDIT_CHAIN_LOCK_KEY = 7_418_002;

/**
 * Append one event. Must be called inside the transaction that makes the change,
 * so the change and its record commit or roll back together.
 */
export async function recordAudit(tx: Database, entry: AuditEntry): Promise<number> {
  await tx.execute(sql`select pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK_KEY})`);
  const [last] = await tx
    .select({ seq: auditEvents.seq, hash: auditEvents.hash })
    .from(auditEvents)
    .orderBy(desc(auditEvents.seq))
    .limit(1);
  const content = {
    seq: (last?.seq ?? 0) + 1,
    at: entry.at,
    actorPrincipalId: entry.actor.principalId,
    actorLabel: entry.actor.label,
    tenantId: entry.tenantId,
    action: entry.action,
    targetType: entry.target.type,
    targetId: entry.target.id,
    before: asStoredJson(entry.before),
    after: asStoredJson(entry.after),
  };
  const prevHash = last?.hash ?? GENESIS_HASH;
  await tx.insert(auditEvents).values({ ...content, prevHash, hash: hashAuditEvent(prevHash, content) });
  return content.seq;
}
