import { createHash } from "node:crypto";

/**
 * The audit hash chain, as pure functions: each event's hash covers its own
 * content and the previous event's hash, so changing, removing or reordering
 * any stored event breaks every link after it.
 */

export const GENESIS_HASH = "0".repeat(64);

export type AuditContent = {
  seq: number;
  at: Date;
  actorPrincipalId: string | null;
  actorLabel: string;
  tenantId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  before: unknown;
  after: unknown;
};

export type ChainedAuditEvent = AuditContent & { prevHash: string; hash: string };

/** JSON with object keys sorted at every depth, so jsonb's re-ordering cannot change a hash. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** The value as it will read back from a jsonb column (Dates become ISO strings). */
export function asStoredJson(value: unknown): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}

export function hashAuditEvent(prevHash: string, content: AuditContent): string {
  const body = canonicalJson({
    seq: content.seq,
    at: content.at.toISOString(),
    actorPrincipalId: content.actorPrincipalId,
    actorLabel: content.actorLabel,
    tenantId: content.tenantId,
    action: content.action,
    targetType: content.targetType,
    targetId: content.targetId,
    before: asStoredJson(content.before),
    after: asStoredJson(content.after),
  });
  return createHash("sha256").update(prevHash).update("\n").update(body).digest("hex");
}

export type BrokenLink = { seq: number; reason: string };

/**
 * Walk events in order and return the first that does not follow from its
 * predecessor, or null if the chain is intact. `expectedPrev` lets a caller
 * verify a long log page by page.
 */
export function findFirstBrokenLink(
  events: readonly ChainedAuditEvent[],
  expected: { prevHash: string; seq: number } = { prevHash: GENESIS_HASH, seq: 1 },
): BrokenLink | null {
  let prevHash = expected.prevHash;
  let nextSeq = expected.seq;
  for (const event of events) {
    if (event.seq !== nextSeq) {
      return { seq: event.seq, reason: `expected event ${nextSeq} next, found ${event.seq} (events missing or reordered)` };
    }
    if (event.prevHash !== prevHash) {
      return { seq: event.seq, reason: "does not link to the event before it (previous hash differs)" };
    }
    if (hashAuditEvent(prevHash, event) !== event.hash) {
      return { seq: event.seq, reason: "content does not match its hash (the event was changed)" };
    }
    prevHash = event.hash;
    nextSeq = event.seq + 1;
  }
  return null;
}
