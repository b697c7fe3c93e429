import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "@/db/client";
import { principalClaimGroups } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { groupKey } from "./group-key";

const system: AuditActor = { principalId: null, label: "system:sign-in" };

/**
 * Replace a person's claim groups with those of this sign-in, in the sign-in's
 * transaction; a change is audited. Groups missing from the claim are gone at
 * once, and with them whatever their mappings gave.
 */
export async function recordClaimGroups(tx: Database, principalId: string, names: string[], now: Date): Promise<void> {
  const before = await tx.select().from(principalClaimGroups).where(eq(principalClaimGroups.principalId, principalId));
  const wanted = new Map(names.map((name) => [groupKey(name), name]));
  const removed = before.filter((row) => !wanted.has(row.groupKey));
  const added = [...wanted].filter(([key]) => !before.some((row) => row.groupKey === key));
  if (removed.length) await tx.delete(principalClaimGroups).where(and(eq(principalClaimGroups.principalId, principalId), inArray(principalClaimGroups.groupKey, removed.map((r) => r.groupKey))));
  if (wanted.size) {
    // Every value seen now gets this sign-in's instant, so "seen" says how fresh the claim is.
    await tx
      .insert(principalClaimGroups)
      .values([...wanted].map(([key, name]) => ({ principalId, groupKey: key, groupName: name, seenAt: now })))
      .onConflictDoUpdate({ target: [principalClaimGroups.principalId, principalClaimGroups.groupKey], set: { seenAt: now } });
  }
  if (removed.length || added.length) {
    await recordAudit(tx, {
      actor: system,
      at: now,
      tenantId: null,
      action: "user.claim_groups.changed",
      target: { type: "principal", id: principalId },
      before: { groups: before.map((r) => r.groupName).sort() },
      after: { groups: [...wanted.values()].sort(), added: added.map(([, name]) => name), removed: removed.map((r) => r.groupName) },
    });
  }
}
