import "server-only";
import { asc, gt } from "drizzle-orm";
import type { Database } from "@/db/client";
import { auditEvents } from "@/db/schema";
import { findFirstBrokenLink, GENESIS_HASH, type BrokenLink } from "./chain";

export type ChainVerification = { intact: true; events: number } | { intact: false; events: number; broken: BrokenLink };

const PAGE = 2000;

/** Re-hash the whole log in order, a page at a time, and report the first broken link. */
export function verifyAuditChain(db: Database): Promise<ChainVerification> {
  return verifyFrom(db, null);
}

/**
 * Re-hash only the events after a known-good one (a checkpoint already
 * matched): they must follow from its hash, numbered on from its seq.
 */
export function verifyAuditChainAfter(db: Database, known: { seq: number; hash: string }): Promise<ChainVerification> {
  return verifyFrom(db, known);
}

async function verifyFrom(db: Database, known: { seq: number; hash: string } | null): Promise<ChainVerification> {
  let expected = known ? { prevHash: known.hash, seq: known.seq + 1 } : { prevHash: GENESIS_HASH, seq: 1 };
  let checked = 0;
  for (;;) {
    const page = await db
      .select()
      .from(auditEvents)
      // From the start, the first page has no lower bound, so a forged row with seq <= 0 is read and fails the check.
      .where(checked === 0 && !known ? undefined : gt(auditEvents.seq, expected.seq - 1))
      .orderBy(asc(auditEvents.seq))
      .limit(PAGE);
    const broken = findFirstBrokenLink(page, expected);
    if (broken) return { intact: false, events: checked + page.filter((e) => e.seq < broken.seq).length, broken };
    checked += page.length;
    const last = page.at(-1);
    if (!last || page.length < PAGE) return { intact: true, events: checked };
    expected = { prevHash: last.hash, seq: last.seq + 1 };
  }
}
