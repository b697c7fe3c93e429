import "server-only";
import { and, asc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Database } from "@/db/client";
import { principals, scimGroupMembers, scimGroups, scimUsers, users } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { endAllSessions } from "@/lib/auth/sign-in";
import { isUniqueViolation } from "@/lib/errors";
import { ScimError } from "./errors";
import { checkIfMatch } from "./etag";
import { requiredEquality, type Filter } from "./filter";
import { applyPatch, type PatchOperation } from "./patch";
import { parseUserInput, userResource, type ScimUserRow, type UserInput } from "./resources";

/**
 * SCIM Users are every person principal (kind user), however it was made.
 * Service accounts are never Users. Writes run in one transaction with their
 * audit events; disabling ends the person's sessions in that same transaction.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (id: string) => UUID.test(id);

export const notFound = (what: string, id: string) => new ScimError(404, `No ${what} with id ${id}.`);

async function loadUserRows(db: Database, where: SQL | undefined): Promise<ScimUserRow[]> {
  const rows = await db
    .select({
      id: principals.id,
      email: users.email,
      displayName: principals.displayName,
      disabledAt: principals.disabledAt,
      createdAt: principals.createdAt,
      externalId: scimUsers.externalId,
      givenName: scimUsers.givenName,
      familyName: scimUsers.familyName,
      version: scimUsers.version,
      updatedAt: scimUsers.updatedAt,
    })
    .from(principals)
    .innerJoin(users, eq(users.principalId, principals.id))
    .leftJoin(scimUsers, eq(scimUsers.principalId, principals.id))
    .where(and(eq(principals.kind, "user"), isNull(scimUsers.deletedAt), where))
    .orderBy(asc(principals.createdAt), asc(principals.id));
  const ids = rows.map((r) => r.id);
  const memberships = ids.length
    ? await db
        .select({ principalId: scimGroupMembers.principalId, id: scimGroups.id, displayName: scimGroups.displayName })
        .from(scimGroupMembers)
        .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
        .where(inArray(scimGroupMembers.principalId, ids))
    : [];
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    displayName: r.displayName,
    active: r.disabledAt === null,
    externalId: r.externalId,
    givenName: r.givenName,
    familyName: r.familyName,
    version: r.version ?? 0,
    created: r.createdAt,
    lastModified: r.updatedAt ?? r.createdAt,
    groups: memberships.filter((m) => m.principalId === r.id).map((m) => ({ id: m.id, displayName: m.displayName })),
  }));
}

/** The candidates a filter can match, narrowed in SQL by the equality an IdP looks a person up with. */
export function usersForFilter(db: Database, filter: Filter | null): Promise<ScimUserRow[]> {
  if (!filter) return loadUserRows(db, undefined);
  const userName = requiredEquality(filter, "userName");
  if (userName !== null) return loadUserRows(db, eq(users.email, userName.trim().toLowerCase()));
  const externalId = requiredEquality(filter, "externalId");
  if (externalId !== null) return loadUserRows(db, eq(scimUsers.externalId, externalId));
  const id = requiredEquality(filter, "id");
  if (id !== null) return isUuid(id) ? loadUserRows(db, eq(principals.id, id)) : Promise.resolve([]);
  return loadUserRows(db, undefined);
}

export async function userById(db: Database, id: string): Promise<ScimUserRow> {
  const [row] = isUuid(id) ? await loadUserRows(db, eq(principals.id, id)) : [];
  if (!row) throw notFound("User", id);
  return row;
}

function auditedFields(u: Pick<ScimUserRow, "email" | "displayName" | "externalId" | "givenName" | "familyName" | "active">) {
  return { userName: u.email, displayName: u.displayName, externalId: u.externalId, givenName: u.givenName, familyName: u.familyName, active: u.active };
}

/** Disable or re-enable; disabling ends every open session at once. */
async function setActive(tx: Database, principalId: string, active: boolean, actor: AuditActor, now: Date) {
  await tx.update(principals).set({ disabledAt: active ? null : now }).where(eq(principals.id, principalId));
  const sessionsEnded = active ? 0 : await endAllSessions(tx, principalId, now);
  await recordAudit(tx, {
    actor,
    at: now,
    tenantId: null,
    action: active ? "scim.user.enabled" : "scim.user.disabled",
    target: { type: "principal", id: principalId },
    after: active ? { active } : { active, sessionsEnded },
  });
}

async function writeScimAttributes(tx: Database, principalId: string, input: UserInput, now: Date, deletedAt: Date | null = null) {
  await tx
    .insert(scimUsers)
    .values({ principalId, externalId: input.externalId, givenName: input.givenName, familyName: input.familyName, version: 1, updatedAt: now, deletedAt })
    .onConflictDoUpdate({
      target: scimUsers.principalId,
      set: { externalId: input.externalId, givenName: input.givenName, familyName: input.familyName, version: sql`${scimUsers.version} + 1`, updatedAt: now, deletedAt },
    });
}

const duplicate = (email: string) => new ScimError(409, `A user with userName ${email} already exists: look it up with filter=userName eq "${email}".`, "uniqueness");

/**
 * POST /Users. A person already here with that email (signed in, or added by an
 * admin) is a 409 uniqueness error, as RFC 7644 3.3 says, so the IdP's lookup
 * by userName finds them; one that SCIM DELETEd comes back instead.
 */
export async function createUser(db: Database, input: UserInput, actor: AuditActor, now: Date): Promise<string> {
  try {
    return await db.transaction(async (tx) => {
      const [existing] = await tx
        .select({ id: users.principalId, deletedAt: scimUsers.deletedAt, disabledAt: principals.disabledAt })
        .from(users)
        .innerJoin(principals, eq(principals.id, users.principalId))
        .leftJoin(scimUsers, eq(scimUsers.principalId, users.principalId))
        .where(eq(users.email, input.email));
      if (existing && existing.deletedAt === null) throw duplicate(input.email);
      let id: string;
      if (existing) {
        id = existing.id;
        await tx.update(principals).set({ displayName: input.displayName }).where(eq(principals.id, id));
        await writeScimAttributes(tx, id, input, now);
        await recordAudit(tx, { actor, at: now, tenantId: null, action: "scim.user.restored", target: { type: "principal", id }, after: auditedFields({ ...input, active: input.active }) });
        if (input.active !== (existing.disabledAt === null)) await setActive(tx, id, input.active, actor, now);
        return id;
      }
      const [principal] = await tx
        .insert(principals)
        .values({ kind: "user", displayName: input.displayName, createdAt: now, disabledAt: input.active ? null : now })
        .returning({ id: principals.id });
      id = principal!.id;
      await tx.insert(users).values({ principalId: id, email: input.email });
      await writeScimAttributes(tx, id, input, now);
      await recordAudit(tx, { actor, at: now, tenantId: null, action: "scim.user.created", target: { type: "principal", id }, after: auditedFields(input) });
      return id;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicate(input.email);
    throw error;
  }
}

/** PUT /Users/{id}: the person becomes what the body says (attributes we keep). */
export async function replaceUser(db: Database, id: string, input: UserInput, ifMatch: string | null, actor: AuditActor, now: Date): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      const current = await userById(tx, id);
      checkIfMatch(ifMatch, current.version);
      const before = auditedFields(current);
      if (input.email !== current.email) await tx.update(users).set({ email: input.email }).where(eq(users.principalId, id));
      if (input.displayName !== current.displayName) await tx.update(principals).set({ displayName: input.displayName }).where(eq(principals.id, id));
      await writeScimAttributes(tx, id, input, now);
      const after = auditedFields(input);
      if (JSON.stringify({ ...before, active: null }) !== JSON.stringify({ ...after, active: null })) {
        await recordAudit(tx, { actor, at: now, tenantId: null, action: "scim.user.updated", target: { type: "principal", id }, before, after });
      }
      if (input.active !== current.active) await setActive(tx, id, input.active, actor, now);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicate(input.email);
    throw error;
  }
}

/** PATCH /Users/{id}: the operations applied to the current representation, then written as a PUT of the result. */
export async function patchUser(db: Database, id: string, operations: PatchOperation[], ifMatch: string | null, actor: AuditActor, now: Date, baseUrl: string): Promise<void> {
  const current = await userById(db, id);
  checkIfMatch(ifMatch, current.version);
  const patched = applyPatch(userResource(current, baseUrl), operations);
  // The version is checked again inside the write, so a change in between is a 412, not lost.
  await replaceUser(db, id, parseUserInput(patched), ifMatch ?? `W/"${current.version}"`, actor, now);
}

/**
 * DELETE /Users/{id}: the principal is disabled and hidden from SCIM, not
 * removed: its audit history and its tenants' service accounts stay.
 */
export async function deleteUser(db: Database, id: string, ifMatch: string | null, actor: AuditActor, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await userById(tx, id);
    checkIfMatch(ifMatch, current.version);
    if (current.active) await setActive(tx, id, false, actor, now);
    await writeScimAttributes(tx, id, { ...current, active: false }, now, now);
    await tx.delete(scimGroupMembers).where(eq(scimGroupMembers.principalId, id));
    await recordAudit(tx, { actor, at: now, tenantId: null, action: "scim.user.deleted", target: { type: "principal", id }, before: auditedFields(current) });
  });
}
