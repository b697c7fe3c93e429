import "server-only";
import { randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import { authSessions, platformAdmins, principals, users } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { recordClaimGroups } from "@/lib/groups/claim";

/**
 * What happens in the database when someone signs in or out: provisioning of
 * OIDC users, platform admin by group, and the server-side session record.
 * Every write here is audited in the same transaction.
 */

export type OidcIdentity = {
  issuer: string;
  subject: string;
  email: string;
  name: string | null;
  /** Whether the provider's groups claim contains ALLOT_ADMIN_GROUP (null: not configured). */
  inAdminGroup: boolean | null;
  /** The groups claim of this sign-in (claimGroupNames); replaces the person's claim groups. */
  groups: string[];
};

const system: AuditActor = { principalId: null, label: "system:sign-in" };

/**
 * Find or create the principal for an OIDC identity. Matches by (issuer,
 * subject) first; an existing user with the same email (created by an admin or
 * an invitation) is linked on first sign-in.
 */
export async function provisionOidcUser(db: Database, identity: OidcIdentity, now: Date): Promise<string> {
  try {
    return await provisionOnce(db, identity, now);
  } catch (error) {
    // Two first sign-ins at once (two tabs): the loser finds the winner's row on a second look.
    if (isUniqueViolation(error)) return provisionOnce(db, identity, now);
    throw error;
  }
}

async function provisionOnce(db: Database, identity: OidcIdentity, now: Date): Promise<string> {
  const email = identity.email.trim().toLowerCase();
  return db.transaction(async (tx) => {
    const [bySubject] = await tx
      .select({ principalId: users.principalId })
      .from(users)
      .where(and(eq(users.oidcIssuer, identity.issuer), eq(users.oidcSubject, identity.subject)));
    let principalId = bySubject?.principalId;

    if (!principalId) {
      const [byEmail] = await tx.select({ principalId: users.principalId, subject: users.oidcSubject }).from(users).where(eq(users.email, email));
      if (byEmail && byEmail.subject !== null) {
        // The email belongs to another identity at the provider: never merge them silently.
        throw new AppError("conflict", "This email address is already linked to a different sign-in identity.");
      }
      if (byEmail) {
        principalId = byEmail.principalId;
        await tx.update(users).set({ oidcIssuer: identity.issuer, oidcSubject: identity.subject }).where(eq(users.principalId, principalId));
        await recordAudit(tx, {
          actor: system,
          at: now,
          tenantId: null,
          action: "user.identity_linked",
          target: { type: "principal", id: principalId },
          after: { email, issuer: identity.issuer, subject: identity.subject },
        });
      } else {
        const [created] = await tx
          .insert(principals)
          .values({ kind: "user", displayName: identity.name ?? email })
          .returning({ id: principals.id });
        principalId = created!.id;
        await tx.insert(users).values({ principalId, email, oidcIssuer: identity.issuer, oidcSubject: identity.subject });
        await recordAudit(tx, {
          actor: system,
          at: now,
          tenantId: null,
          action: "user.created",
          target: { type: "principal", id: principalId },
          after: { email, displayName: identity.name ?? email, issuer: identity.issuer },
        });
      }
    }

    if (identity.inAdminGroup !== null) await syncGroupAdmin(tx, principalId, identity.inAdminGroup, now);
    await recordClaimGroups(tx, principalId, identity.groups, now);
    return principalId;
  });
}

/** Keep the group-derived platform admin role in step with the provider's groups claim. */
async function syncGroupAdmin(tx: Database, principalId: string, inAdminGroup: boolean, now: Date) {
  const [current] = await tx.select().from(platformAdmins).where(eq(platformAdmins.principalId, principalId));
  if (inAdminGroup && !current) {
    await tx.insert(platformAdmins).values({ principalId, source: "oidc_group", grantedAt: now });
    await recordAudit(tx, {
      actor: system,
      at: now,
      tenantId: null,
      action: "platform_admin.granted",
      target: { type: "principal", id: principalId },
      after: { source: "oidc_group" },
    });
  } else if (!inAdminGroup && current?.source === "oidc_group") {
    await tx.delete(platformAdmins).where(eq(platformAdmins.principalId, principalId));
    await recordAudit(tx, {
      actor: system,
      at: now,
      tenantId: null,
      action: "platform_admin.revoked",
      target: { type: "principal", id: principalId },
      before: { source: "oidc_group" },
    });
  }
}

/** Record a new browser session for an enabled principal; returns the session id the JWT carries. */
export async function startSession(db: Database, principalId: string, method: string, now: Date, hours: number): Promise<string> {
  const id = randomBytes(24).toString("base64url");
  await db.transaction(async (tx) => {
    const [principal] = await tx
      .select({ disabledAt: principals.disabledAt, label: principals.displayName, email: users.email })
      .from(principals)
      .leftJoin(users, eq(users.principalId, principals.id))
      .where(eq(principals.id, principalId));
    if (!principal || principal.disabledAt) throw new AppError("forbidden", "This account is disabled.");
    const expiresAt = new Date(now.getTime() + hours * 3_600_000);
    await tx.insert(authSessions).values({ id, principalId, method, createdAt: now, expiresAt });
    await recordAudit(tx, {
      actor: { principalId, label: principal.email ?? principal.label },
      at: now,
      tenantId: null,
      action: "session.started",
      // The session id is a bearer secret until it expires: audit a prefix only.
      target: { type: "session", id: id.slice(0, 8) },
      after: { method, expiresAt },
    });
  });
  return id;
}

/** End a session (sign-out). Ending one that is already over changes nothing. */
export async function endSession(db: Database, sessionId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [ended] = await tx
      .update(authSessions)
      .set({ endedAt: now })
      .where(and(eq(authSessions.id, sessionId), isNull(authSessions.endedAt)))
      .returning({ principalId: authSessions.principalId });
    if (!ended) return;
    const [who] = await tx.select({ label: principals.displayName, email: users.email }).from(principals).leftJoin(users, eq(users.principalId, principals.id)).where(eq(principals.id, ended.principalId));
    await recordAudit(tx, {
      actor: { principalId: ended.principalId, label: who?.email ?? who?.label ?? ended.principalId },
      at: now,
      tenantId: null,
      action: "session.ended",
      target: { type: "session", id: sessionId.slice(0, 8) },
    });
  });
}

/**
 * End every open session of a principal (it was disabled): the next request
 * with any of its cookies finds no session. Call inside the disabling transaction.
 */
export async function endAllSessions(tx: Database, principalId: string, now: Date): Promise<number> {
  const ended = await tx
    .update(authSessions)
    .set({ endedAt: now })
    .where(and(eq(authSessions.principalId, principalId), isNull(authSessions.endedAt)))
    .returning({ id: authSessions.id });
  return ended.length;
}
