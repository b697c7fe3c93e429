import "server-only";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { platformAdmins } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { findOrCreateUserByEmail } from "./users";
import { EMAIL_ADDRESS } from "@/lib/input/messages";

export const adminEmail = z.string().trim().toLowerCase().pipe(z.email({ message: EMAIL_ADDRESS }));

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

/**
 * Take the platform admin role recorded in the database from a principal
 * (an access review's revocation), inside the caller's transaction. The last
 * one is refused: nobody could then administer the platform from the portal.
 * Returns false when the role was already gone. Admins named in
 * ALLOT_PLATFORM_ADMINS are configuration, not rows, and stay until it changes.
 */
export async function revokePlatformAdminWithin(tx: Database, by: { actor: AuditActor; now: Date }, principalId: string): Promise<boolean> {
  const rows = await tx.select().from(platformAdmins).for("update");
  const row = rows.find((r) => r.principalId === principalId);
  if (!row) return false;
  if (rows.length <= 1) throw new AppError("conflict", "The platform must keep at least one platform admin: make someone else one first.");
  await tx.delete(platformAdmins).where(eq(platformAdmins.principalId, principalId));
  await recordAudit(tx, {
    actor: by.actor,
    at: by.now,
    tenantId: null,
    action: "platform_admin.revoked",
    target: { type: "principal", id: principalId },
    before: { source: row.source },
  });
  return true;
}
