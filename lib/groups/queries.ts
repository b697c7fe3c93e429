import "server-only";
import { and, asc, eq } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { groupMappings, principals, projects } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { peopleByMapping } from "./derived";

export type GroupMappingRow = {
  id: string;
  groupName: string;
  /** Null: the whole tenant. */
  project: { slug: string; name: string } | null;
  role: "tenant_admin" | "member" | "viewer";
  createdBy: string | null;
  createdAt: Date;
  /** People who hold the role through this group now (SCIM members and latest sign-in claims, disabled people left out). */
  people: number;
};

/** The group mappings of a tenant the caller has already loaded, for those who may manage them; null otherwise. */
export async function tenantGroupMappings(ctx: CommandContext, tenant: { id: string }): Promise<GroupMappingRow[] | null> {
  if (!can(ctx.actor, "tenant.groups.manage", { kind: "tenant", tenantId: tenant.id }, ctx.now)) return null;
  const creator = alias(principals, "creator");
  const [rows, counts] = await Promise.all([
    ctx.db
      .select({ mapping: groupMappings, projectSlug: projects.slug, projectName: projects.name, createdBy: creator.displayName })
      .from(groupMappings)
      .leftJoin(projects, and(eq(projects.id, groupMappings.projectId), eq(projects.tenantId, tenant.id)))
      .leftJoin(creator, eq(creator.id, groupMappings.createdBy))
      .where(eq(groupMappings.tenantId, tenant.id))
      .orderBy(asc(groupMappings.groupKey), asc(projects.name)),
    peopleByMapping(ctx.db, tenant.id),
  ]);
  return rows.map(({ mapping: m, projectSlug, projectName, createdBy }) => ({
    id: m.id,
    groupName: m.groupName,
    project: m.projectId !== null && projectSlug !== null && projectName !== null ? { slug: projectSlug, name: projectName } : null,
    role: (m.tenantRole ?? m.projectRole) as GroupMappingRow["role"],
    createdBy,
    createdAt: m.createdAt,
    people: counts.get(m.id) ?? 0,
  }));
}
