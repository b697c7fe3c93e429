import "server-only";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { authSessions, memberships, platformAdmins, principals, projectGrants, projects, tenants, users } from "@/db/schema";
import { groupBindingsOf } from "@/lib/groups/derived";
import type { Actor, ProjectRole, TenantRole, TenantStatus } from "./actor";

/**
 * The columns of an actor, read in the one statement that finds its principal:
 * the principal, its email and stored platform admin role by join, and its
 * direct memberships and project grants as JSON arrays from correlated
 * subqueries. One round trip instead of three; a token or a session joins
 * the same columns to its own row (token-auth.ts, loadActorForSession).
 */
export const actorColumns = {
  id: principals.id,
  kind: principals.kind,
  displayName: principals.displayName,
  disabledAt: principals.disabledAt,
  email: users.email,
  platformAdminSince: platformAdmins.grantedAt,
  memberships: sql<unknown>`coalesce((
    select json_agg(json_build_object('tenantId', m.tenant_id, 'role', m.role, 'tenantStatus', t.status))
      from ${memberships} m join ${tenants} t on t.id = m.tenant_id
     where m.principal_id = ${principals.id}), '[]'::json)`,
  projectGrants: sql<unknown>`coalesce((
    select json_agg(json_build_object('projectId', g.project_id, 'role', g.role, 'tenantId', p.tenant_id, 'tenantStatus', t.status,
                                      'expiresAtMs', floor(extract(epoch from g.expires_at) * 1000)))
      from ${projectGrants} g join ${projects} p on p.id = g.project_id join ${tenants} t on t.id = p.tenant_id
     where g.principal_id = ${principals.id}), '[]'::json)`,
};

type ActorRow = {
  id: string;
  kind: Actor["kind"];
  displayName: string;
  disabledAt: Date | null;
  email: string | null;
  platformAdminSince: Date | null;
  memberships: unknown;
  projectGrants: unknown;
};

type MembershipJson = { tenantId: string; role: TenantRole; tenantStatus: TenantStatus };
type GrantJson = { projectId: string; role: ProjectRole; tenantId: string; tenantStatus: TenantStatus; expiresAtMs: number | string | null };

/** PGlite and postgres.js both parse json columns; a driver that hands back the text is read too. */
function jsonArray<T>(value: unknown): T[] {
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value;
  return Array.isArray(parsed) ? (parsed as T[]) : [];
}

/**
 * The actor of a row read with actorColumns, or null for a disabled principal.
 * People also get what their groups give (one more statement); service
 * accounts are in no group: neither SCIM nor a sign-in puts them there.
 */
export async function actorFromRow(db: Database, row: ActorRow, platformAdminEmails: readonly string[]): Promise<Actor | null> {
  if (row.disabledAt !== null) return null;
  const fromGroups = row.kind === "user" ? await groupBindingsOf(db, row.id) : { memberships: [], projectGrants: [] };
  const direct = jsonArray<MembershipJson>(row.memberships).map((m) => ({ tenantId: m.tenantId, role: m.role, tenantStatus: m.tenantStatus, via: null }));
  const grants = jsonArray<GrantJson>(row.projectGrants).map((g) => ({
    projectId: g.projectId,
    role: g.role,
    expiresAt: g.expiresAtMs === null ? null : new Date(Number(g.expiresAtMs)),
    tenantId: g.tenantId,
    tenantStatus: g.tenantStatus,
    via: null,
  }));
  return {
    principalId: row.id,
    kind: row.kind,
    displayName: row.displayName,
    email: row.email,
    isPlatformAdmin: row.platformAdminSince !== null || (row.email !== null && platformAdminEmails.includes(row.email)),
    memberships: [...direct, ...fromGroups.memberships],
    projectGrants: [...grants, ...fromGroups.projectGrants],
  };
}

/**
 * Build the actor for a principal: every binding it holds, however it came,
 * directly or through its identity provider's groups (lib/groups/derived.ts).
 * This is the one place roles are loaded, so pages, actions and the API see
 * the same, read afresh on every request (never cached across requests, so a
 * revoked role or token counts on the next one). A disabled principal gets no
 * actor at all. `platformAdminEmails` is the live ALLOT_PLATFORM_ADMINS list,
 * applied on every request rather than stored.
 */
export async function loadActor(db: Database, principalId: string, platformAdminEmails: readonly string[]): Promise<Actor | null> {
  const [row] = await db
    .select(actorColumns)
    .from(principals)
    .leftJoin(users, eq(users.principalId, principals.id))
    .leftJoin(platformAdmins, eq(platformAdmins.principalId, principals.id))
    .where(eq(principals.id, principalId));
  return row ? actorFromRow(db, row, platformAdminEmails) : null;
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
  const [row] = await db
    .select({ session: { method: authSessions.method, createdAt: authSessions.createdAt }, actor: actorColumns })
    .from(authSessions)
    .innerJoin(principals, eq(principals.id, authSessions.principalId))
    .leftJoin(users, eq(users.principalId, principals.id))
    .leftJoin(platformAdmins, eq(platformAdmins.principalId, principals.id))
    .where(and(eq(authSessions.id, sessionId), isNull(authSessions.endedAt), gt(authSessions.expiresAt, now)));
  if (!row) return null;
  if (recheckMinutes !== null && sessionNeedsRecheck(row.session, now, recheckMinutes)) return null;
  return actorFromRow(db, row.actor, platformAdminEmails);
}

/** Whether a session's groups claim is too old to act on: only sessions from the identity provider carry one. */
export function sessionNeedsRecheck(session: { method: string; createdAt: Date }, now: Date, recheckMinutes: number): boolean {
  return session.method === "oidc" && now.getTime() - session.createdAt.getTime() >= recheckMinutes * 60_000;
}
