import "server-only";
import { and, asc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Database } from "@/db/client";
import { principals, scimGroupMembers, scimGroups, scimUsers, users } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { isUniqueViolation } from "@/lib/errors";
import { badRequest, ScimError } from "./errors";
import { checkIfMatch } from "./etag";
import { requiredEquality, type Filter } from "./filter";
import { applyPatch, type PatchOperation } from "./patch";
import { groupResource, parseGroupInput, type GroupInput, type ScimGroupRow } from "./resources";
import { isUuid, notFound } from "./users";

/**
 * SCIM Groups as the IdP keeps them, with their members (person principals).
 * A role mapping reads them; membership changes take effect on the next
 * request, since the actor is loaded from the database on every request.
 */
async function loadGroupRows(db: Database, where: SQL | undefined): Promise<ScimGroupRow[]> {
  const groups = await db.select().from(scimGroups).where(where).orderBy(asc(scimGroups.createdAt), asc(scimGroups.id));
  const ids = groups.map((g) => g.id);
  const members = ids.length
    ? await db
        .select({ groupId: scimGroupMembers.groupId, id: principals.id, display: principals.displayName })
        .from(scimGroupMembers)
        .innerJoin(principals, eq(principals.id, scimGroupMembers.principalId))
        .where(inArray(scimGroupMembers.groupId, ids))
        .orderBy(asc(scimGroupMembers.addedAt), asc(principals.id))
    : [];
  return groups.map((g) => ({
    id: g.id,
    displayName: g.displayName,
    externalId: g.externalId,
    version: g.version,
    created: g.createdAt,
    lastModified: g.updatedAt,
    members: members.filter((m) => m.groupId === g.id).map((m) => ({ id: m.id, display: m.display })),
  }));
}

export function groupsForFilter(db: Database, filter: Filter | null): Promise<ScimGroupRow[]> {
  const displayName = filter ? requiredEquality(filter, "displayName") : null;
  // displayName is case-insensitive in SCIM; the filter evaluated afterwards keeps exactly the matches.
  if (displayName !== null) return loadGroupRows(db, sql`lower(${scimGroups.displayName}) = ${displayName.toLowerCase()}`);
  const externalId = filter ? requiredEquality(filter, "externalId") : null;
  if (externalId !== null) return loadGroupRows(db, eq(scimGroups.externalId, externalId));
  return loadGroupRows(db, undefined);
}

export async function groupById(db: Database, id: string): Promise<ScimGroupRow> {
  const [row] = isUuid(id) ? await loadGroupRows(db, eq(scimGroups.id, id)) : [];
  if (!row) throw notFound("Group", id);
  return row;
}

/** Members must be people SCIM can see; an id that is not one is refused, naming it. */
async function checkMembers(tx: Database, ids: string[]) {
  const wellFormed = ids.filter(isUuid);
  const found = wellFormed.length
    ? await tx
        .select({ id: principals.id })
        .from(principals)
        .innerJoin(users, eq(users.principalId, principals.id))
        .leftJoin(scimUsers, eq(scimUsers.principalId, principals.id))
        .where(and(inArray(principals.id, wellFormed), isNull(scimUsers.deletedAt)))
    : [];
  const known = new Set(found.map((f) => f.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length) throw badRequest("invalidValue", `members: no User with id ${unknown.slice(0, 5).join(", ")}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ""}.`);
}

const duplicate = (name: string) => new ScimError(409, `A group named ${name} already exists.`, "uniqueness");

async function writeMembers(tx: Database, groupId: string, before: string[], after: string[], now: Date) {
  const removed = before.filter((id) => !after.includes(id));
  const added = after.filter((id) => !before.includes(id));
  if (removed.length) await tx.delete(scimGroupMembers).where(and(eq(scimGroupMembers.groupId, groupId), inArray(scimGroupMembers.principalId, removed)));
  if (added.length) await tx.insert(scimGroupMembers).values(added.map((principalId) => ({ groupId, principalId, addedAt: now })));
  return { added, removed };
}

export async function createGroup(db: Database, input: GroupInput, actor: AuditActor, now: Date): Promise<string> {
  try {
    return await db.transaction(async (tx) => {
      await checkMembers(tx, input.memberIds);
      const [group] = await tx.insert(scimGroups).values({ displayName: input.displayName, externalId: input.externalId, createdAt: now, updatedAt: now }).returning({ id: scimGroups.id });
      await writeMembers(tx, group!.id, [], input.memberIds, now);
      await recordAudit(tx, { actor, at: now, tenantId: null, action: "scim.group.created", target: { type: "scim_group", id: group!.id }, after: { displayName: input.displayName, externalId: input.externalId, members: input.memberIds } });
      return group!.id;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicate(input.displayName);
    throw error;
  }
}

export async function replaceGroup(db: Database, id: string, input: GroupInput, ifMatch: string | null, actor: AuditActor, now: Date): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      const current = await groupById(tx, id);
      checkIfMatch(ifMatch, current.version);
      await checkMembers(tx, input.memberIds);
      await tx.update(scimGroups).set({ displayName: input.displayName, externalId: input.externalId, version: current.version + 1, updatedAt: now }).where(eq(scimGroups.id, id));
      const { added, removed } = await writeMembers(tx, id, current.members.map((m) => m.id), input.memberIds, now);
      await recordAudit(tx, {
        actor,
        at: now,
        tenantId: null,
        action: "scim.group.updated",
        target: { type: "scim_group", id },
        before: { displayName: current.displayName, externalId: current.externalId },
        after: { displayName: input.displayName, externalId: input.externalId, membersAdded: added, membersRemoved: removed },
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicate(input.displayName);
    throw error;
  }
}

export async function patchGroup(db: Database, id: string, operations: PatchOperation[], ifMatch: string | null, actor: AuditActor, now: Date, baseUrl: string): Promise<void> {
  const current = await groupById(db, id);
  checkIfMatch(ifMatch, current.version);
  const patched = applyPatch(groupResource(current, baseUrl), operations);
  await replaceGroup(db, id, parseGroupInput(patched), ifMatch ?? `W/"${current.version}"`, actor, now);
}

/** DELETE /Groups/{id}: the group and its memberships go (they are the IdP's record, not our people). */
export async function deleteGroup(db: Database, id: string, ifMatch: string | null, actor: AuditActor, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await groupById(tx, id);
    checkIfMatch(ifMatch, current.version);
    await tx.delete(scimGroups).where(eq(scimGroups.id, id));
    await recordAudit(tx, { actor, at: now, tenantId: null, action: "scim.group.deleted", target: { type: "scim_group", id }, before: { displayName: current.displayName, externalId: current.externalId, members: current.members.map((m) => m.id) } });
  });
}
