import "server-only";
import { eq } from "drizzle-orm";
import type { Database } from "@/db/client";
import { principals, users } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";

/**
 * The user principal with this (lower-cased) email, created if it has never
 * signed in; it is linked to its OIDC identity on first sign-in. Call inside
 * the transaction of the change that needs the user.
 */
export async function findOrCreateUserByEmail(tx: Database, email: string, actor: AuditActor, now: Date): Promise<{ principalId: string; created: boolean }> {
  const [user] = await tx.select({ principalId: users.principalId }).from(users).where(eq(users.email, email));
  if (user) return { principalId: user.principalId, created: false };
  const [principal] = await tx.insert(principals).values({ kind: "user", displayName: email, createdAt: now }).returning({ id: principals.id });
  await tx.insert(users).values({ principalId: principal!.id, email });
  await recordAudit(tx, { actor, at: now, tenantId: null, action: "user.created", target: { type: "principal", id: principal!.id }, after: { email } });
  return { principalId: principal!.id, created: true };
}
