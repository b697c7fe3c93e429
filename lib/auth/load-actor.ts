import "server-only";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import { authSessions, memberships, platformAdmins, principals, projectGrants, projects, tenants, users } from "@/db/schema";
import { groupBindingsOf } from "@/lib/groups/derived";
import type { Actor } from "./actor";

/**
 * Build the actor for a principal: every binding it holds, however it came,
 * directly or through its identity provider's groups (lib/groups/derived.ts).
 * This is the one place roles are loaded, so pages, actions and the API see
 * the same. A disabled principal gets no actor at all. `platformAdminEmails`
 * is the live ALLOT_PLATFORM_ADMINS list, applied on every request rather
 * than stored.
 */
export async function loadActor(db: Database, principalId: string, platformAdminEmails: readonly string[]): Promise<Actor | null> {
  const [row] = await db
    .select({
      id: principals.id,
      kind: principals.kind,
      displayName: principals.displayName,
      disabledAt: principals.disabledAt,
      email: users.email,
      platformAdminSince: platformAdmins.grantedAt,
    })
    .from(principals)
    .leftJoin(users, eq(users.principalId, principals.id))
    .leftJoin(platformAdmins, eq(platformAdmins.principalId, principals.id))
    .where(eq(principals.id, principalId));
  if (!row || row.disabledAt !== null) return null;

  const [membershipRows, grantRows, fromGroups] = await Promise.all([
    db
      .select({ tenantId: memberships.tenantId, role: memberships.role, tenantStatus: tenants.status })
      .from(memberships)
      .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
      .where(eq(memberships.principalId, principalId)),
    db
      .select({
        projectId: projectGrants.projectId,
        role: projectGrants.role,
        expiresAt: projectGrants.expiresAt,
        tenantId: projects.tenantId,
        tenantStatus: tenants.status,
      })
      .from(projectGrants)
      .innerJoin(projects, eq(projects.id, projectGrants.projectId))
      .innerJoin(tenants, eq(tenants.id, projects.tenantId))
      .where(eq(projectGrants.principalId, principalId)),
    // Service accounts are in no group: neither SCIM nor a sign-in puts them there.
    row.kind === "user" ? groupBindingsOf(db, principalId) : { memberships: [], projectGrants: [] },
  ]);

  return {
    principalId: row.id,
    kind: row.kind,
    displayName: row.displayName,
    email: row.email,
    isPlatformAdmin: row.platformAdminSince !== null || (row.email !== null && platformAdminEmails.includes(row.email)),
    memberships: [...membershipRows.map((m) => ({ ...m, via: null })), ...fromGroups.memberships],
    projectGrants: [...grantRows.map((g) => ({ ...g, via: null })), ...fromGroups.projectGrants],
  };
}

/**
 * The actor behind a browser session id, if the session is still open at
 * `now`. A session made by signing in through the identity provider carries
 * that sign-in's groups claim; once it is `recheckMinutes` old
 * (ALLOT_SESSION_RECHECK_MINUTES) it no longer counts, so the person signs in
 * again and the claim is read afresh: someone taken out of a group in the IdP
 * keeps what the group gave for at most that long. Demo sessions carry no claim.
 */
export async function loadActorForSession(
  db: Database,
  sessionId: string,
  now: Date,
  platformAdminEmails: readonly string[],
  recheckMinutes: number | null = null,
): Promise<Actor | null> {
  const [session] = await db
    .select({ principalId: authSessions.principalId, method: authSessions.method, createdAt: authSessions.createdAt })
    .from(authSessions)
    .where(and(eq(authSessions.id, sessionId), isNull(authSessions.endedAt), gt(authSessions.expiresAt, now)));
  if (!session) return null;
  if (recheckMinutes !== null && sessionNeedsRecheck(session, now, recheckMinutes)) return null;
  return loadActor(db, session.principalId, platformAdminEmails);
}

/** Whether a session's groups claim is too old to act on: only sessions from the identity provider carry one. */
export function sessionNeedsRecheck(session: { method: string; createdAt: Date }, now: Date, recheckMinutes: number): boolean {
  return session.method === "oidc" && now.getTime() - session.createdAt.getTime() >= recheckMinutes * 60_000;
}
