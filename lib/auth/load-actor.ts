import "server-only";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import { authSessions, memberships, platformAdmins, principals, projectGrants, projects, tenants, users } from "@/db/schema";
import type { Actor } from "./actor";

/**
 * Build the actor for a principal: every binding it holds, however it came. A
 * disabled principal gets no actor at all. `platformAdminEmails` is the live
 * ALLOT_PLATFORM_ADMINS list, applied on every request rather than stored.
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

  const [membershipRows, grantRows] = await Promise.all([
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
  ]);

  return {
    principalId: row.id,
    kind: row.kind,
    displayName: row.displayName,
    email: row.email,
    isPlatformAdmin: row.platformAdminSince !== null || (row.email !== null && platformAdminEmails.includes(row.email)),
    memberships: membershipRows,
    projectGrants: grantRows,
  };
}

/** The actor behind a browser session id, if the session is still open at `now`. */
export async function loadActorForSession(
  db: Database,
  sessionId: string,
  now: Date,
  platformAdminEmails: readonly string[],
): Promise<Actor | null> {
  const [session] = await db
    .select({ principalId: authSessions.principalId })
    .from(authSessions)
    .where(and(eq(authSessions.id, sessionId), isNull(authSessions.endedAt), gt(authSessions.expiresAt, now)));
  return session ? loadActor(db, session.principalId, platformAdminEmails) : null;
}
