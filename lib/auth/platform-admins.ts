import "server-only";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { platformAdmins } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { findOrCreateUserByEmail } from "./users";

export const adminEmail = z.string().trim().toLowerCase().pipe(z.email({ message: "must be an email address" }));

/**
 * Make the user with this email a platform admin, creating the user if it has
 * never signed in (it is linked to its OIDC identity on first sign-in). Used by
 * the operator CLI to bootstrap an installation.
 */
export async function grantPlatformAdmin(
  db: Database,
  rawEmail: string,
  actor: AuditActor,
  now: Date,
): Promise<{ principalId: string; created: boolean; alreadyAdmin: boolean }> {
  const email = adminEmail.parse(rawEmail);
  return db.transaction(async (tx) => {
    const { principalId, created } = await findOrCreateUserByEmail(tx, email, actor, now);
    const user = { principalId };
    const [existing] = await tx.select().from(platformAdmins).where(eq(platformAdmins.principalId, user.principalId));
    if (existing?.source === "cli" || existing?.source === "seed") return { principalId: user.principalId, created, alreadyAdmin: true };
    // A group-derived role becomes a standing one: the CLI grant must not vanish when the group changes.
    if (existing) await tx.delete(platformAdmins).where(eq(platformAdmins.principalId, user.principalId));
    await tx.insert(platformAdmins).values({ principalId: user.principalId, source: "cli", grantedAt: now });
    await recordAudit(tx, {
      actor,
      at: now,
      tenantId: null,
      action: "platform_admin.granted",
      target: { type: "principal", id: user.principalId },
      before: existing ? { source: existing.source } : null,
      after: { email, source: "cli" },
    });
    return { principalId: user.principalId, created, alreadyAdmin: false };
  });
}
