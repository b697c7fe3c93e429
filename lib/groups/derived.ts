import "server-only";
import { sql, type SQL } from "drizzle-orm";
import type { Database } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { groupMappings, memberships, principalClaimGroups, principals, scimGroupMembers, scimGroups, tenants, users } from "@/db/schema";
import type { Actor, ProjectRole, TenantRole, TenantStatus } from "@/lib/auth/actor";
import { groupKeySql } from "./group-key";

/**
 * Access that comes from groups, computed here and nowhere else. A person is
 * in a group when SCIM lists them as a member of it, or when the groups claim
 * of their latest sign-in names it (principal_claim_groups); a mapping of that
 * group grants its role. Nothing is cached: the actor is loaded from the
 * database on every request (lib/auth/load-actor.ts), so a SCIM removal ends
 * the access on the next request.
 */

/** (principal, group key, source) for every way a person is in a group. */
function groupMemberships(principalId: string | null): SQL {
  const only = (column: SQL) => (principalId === null ? sql`true` : sql`${column} = ${principalId}`);
  return sql`(
    select ${principalClaimGroups.principalId} as principal_id, ${principalClaimGroups.groupKey} as group_key, 'claim' as source
      from ${principalClaimGroups} where ${only(sql`${principalClaimGroups.principalId}`)}
    union
    select ${scimGroupMembers.principalId}, ${groupKeySql(scimGroups.displayName)}, 'scim'
      from ${scimGroupMembers} join ${scimGroups} on ${scimGroups.id} = ${scimGroupMembers.groupId}
      where ${only(sql`${scimGroupMembers.principalId}`)}
    union
    select ${scimGroupMembers.principalId}, ${groupKeySql(scimGroups.externalId)}, 'scim'
      from ${scimGroupMembers} join ${scimGroups} on ${scimGroups.id} = ${scimGroupMembers.groupId}
      where ${scimGroups.externalId} is not null and ${only(sql`${scimGroupMembers.principalId}`)}
  )`;
}

type DerivedRow = {
  tenant_id: string;
  tenant_status: TenantStatus;
  project_id: string | null;
  tenant_role: TenantRole | null;
  project_role: ProjectRole | null;
  group_name: string;
};

/** The memberships and project grants a principal holds through its groups, each naming the group. */
export async function groupBindingsOf(db: Database, principalId: string): Promise<Pick<Actor, "memberships" | "projectGrants">> {
  const rows = await rowsOf<DerivedRow>(
    db,
    sql`select distinct m.tenant_id, t.status as tenant_status, m.project_id, m.tenant_role, m.project_role, m.group_name
          from ${groupMappings} m
          join ${tenants} t on t.id = m.tenant_id
          join ${groupMemberships(principalId)} gm on gm.group_key = m.group_key
         order by m.group_name`,
  );
  const memberships: Actor["memberships"] = [];
  const projectGrants: Actor["projectGrants"] = [];
  for (const r of rows) {
    const via = { group: r.group_name };
    if (r.project_id === null && r.tenant_role) memberships.push({ tenantId: r.tenant_id, tenantStatus: r.tenant_status, role: r.tenant_role, via });
    else if (r.project_id !== null && r.project_role) projectGrants.push({ projectId: r.project_id, tenantId: r.tenant_id, tenantStatus: r.tenant_status, role: r.project_role, expiresAt: null, via });
  }
  return { memberships, projectGrants };
}

export type GroupAccessRow = {
  principalId: string;
  displayName: string;
  email: string | null;
  groupName: string;
  /** "tenant_admin" | "viewer" for a tenant mapping, "member" | "viewer" for a project mapping. */
  role: string;
  scope: "tenant" | "project";
  /** How the person is in the group: SCIM, the groups claim of their latest sign-in, or both. */
  sources: ("scim" | "claim")[];
};

/**
 * Everyone who reaches a project through a group: the tenant's mappings that
 * give something on every project (tenant admin, viewer; a plain member
 * works only where granted) and the project's own mappings. Disabled people
 * are left out: they cannot act, whatever their groups.
 */
export async function groupAccessToProject(db: Database, tenantId: string, projectId: string): Promise<GroupAccessRow[]> {
  const rows = await rowsOf<{ principal_id: string; display_name: string; email: string | null; group_name: string; role: string; scope: "tenant" | "project"; sources: string }>(
    db,
    sql`select p.id as principal_id, p.display_name, u.email, m.group_name,
               coalesce(m.tenant_role::text, m.project_role::text) as role,
               case when m.project_id is null then 'tenant' else 'project' end as scope,
               string_agg(distinct gm.source, ',' order by gm.source) as sources
          from ${groupMappings} m
          join ${groupMemberships(null)} gm on gm.group_key = m.group_key
          join ${principals} p on p.id = gm.principal_id and p.disabled_at is null
          left join ${users} u on u.principal_id = p.id
         where (m.tenant_id = ${tenantId} and m.project_id is null and m.tenant_role in ('tenant_admin', 'viewer'))
            or (m.tenant_id = ${tenantId} and m.project_id = ${projectId})
         group by p.id, p.display_name, u.email, m.group_name, m.tenant_role, m.project_role, m.project_id
         order by p.display_name, m.group_name`,
  );
  return rows.map((r) => ({
    principalId: r.principal_id,
    displayName: r.display_name,
    email: r.email,
    groupName: r.group_name,
    role: r.role,
    scope: r.scope,
    sources: r.sources.split(",") as ("scim" | "claim")[],
  }));
}

/** How many people each of the tenant's mappings reaches now (for the mappings table). */
export async function peopleByMapping(db: Database, tenantId: string): Promise<Map<string, number>> {
  const rows = await rowsOf<{ id: string; n: number | string }>(
    db,
    sql`select m.id, count(distinct gm.principal_id)::int as n
          from ${groupMappings} m
          join ${groupMemberships(null)} gm on gm.group_key = m.group_key
          join ${principals} p on p.id = gm.principal_id and p.disabled_at is null
         where m.tenant_id = ${tenantId}
         group by m.id`,
  );
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}

/** People who are tenant admins of a tenant through a group now (disabled people left out), for notices to a tenant's admins. */
export async function groupTenantAdminIds(db: Database, tenantId: string): Promise<string[]> {
  const rows = await rowsOf<{ principal_id: string }>(
    db,
    sql`select distinct gm.principal_id
          from ${groupMappings} m
          join ${groupMemberships(null)} gm on gm.group_key = m.group_key
          join ${principals} p on p.id = gm.principal_id and p.disabled_at is null
         where m.tenant_id = ${tenantId} and m.project_id is null and m.tenant_role = 'tenant_admin'`,
  );
  return rows.map((r) => r.principal_id);
}

export type GroupTenantMemberRow = { principalId: string; displayName: string; email: string | null; groupName: string; role: TenantRole; mappedAt: Date };

/** People who are in a tenant only or also through a tenant-wide group mapping (disabled people left out), one row per person and group. */
export async function groupTenantMembers(db: Database, tenantId: string): Promise<GroupTenantMemberRow[]> {
  const rows = await rowsOf<{ principal_id: string; display_name: string; email: string | null; group_name: string; role: TenantRole; created_at: Date | string }>(
    db,
    sql`select distinct p.id as principal_id, p.display_name, u.email, m.group_name, m.tenant_role as role, m.created_at
          from ${groupMappings} m
          join ${groupMemberships(null)} gm on gm.group_key = m.group_key
          join ${principals} p on p.id = gm.principal_id and p.disabled_at is null
          left join ${users} u on u.principal_id = p.id
         where m.tenant_id = ${tenantId} and m.project_id is null
         order by p.display_name, m.group_name`,
  );
  return rows.map((r) => ({ principalId: r.principal_id, displayName: r.display_name, email: r.email, groupName: r.group_name, role: r.role, mappedAt: new Date(r.created_at) }));
}

/** How many people belong to each tenant, directly or through a tenant-wide group mapping, each counted once. */
export async function tenantMemberCounts(db: Database): Promise<Map<string, number>> {
  const rows = await rowsOf<{ tenant_id: string; n: number | string }>(
    db,
    sql`select tenant_id, count(distinct principal_id)::int as n from (
          select ${memberships.tenantId} as tenant_id, ${memberships.principalId} as principal_id from ${memberships}
          union
          select m.tenant_id, gm.principal_id
            from ${groupMappings} m
            join ${groupMemberships(null)} gm on gm.group_key = m.group_key
            join ${principals} p on p.id = gm.principal_id and p.disabled_at is null
           where m.project_id is null
        ) everyone group by tenant_id`,
  );
  return new Map(rows.map((r) => [r.tenant_id, Number(r.n)]));
}

export type MappingPersonRow = { mappingId: string; principalId: string; displayName: string; email: string | null };

/** Who each of the tenant's mappings reaches now (disabled people left out), one row per mapping and person, for access reviews. */
export async function peopleOfMappings(db: Database, tenantId: string): Promise<MappingPersonRow[]> {
  const rows = await rowsOf<{ mapping_id: string; principal_id: string; display_name: string; email: string | null }>(
    db,
    sql`select distinct m.id as mapping_id, p.id as principal_id, p.display_name, u.email
          from ${groupMappings} m
          join ${groupMemberships(null)} gm on gm.group_key = m.group_key
          join ${principals} p on p.id = gm.principal_id and p.disabled_at is null
          left join ${users} u on u.principal_id = p.id
         where m.tenant_id = ${tenantId}
         order by p.display_name`,
  );
  return rows.map((r) => ({ mappingId: r.mapping_id, principalId: r.principal_id, displayName: r.display_name, email: r.email }));
}
