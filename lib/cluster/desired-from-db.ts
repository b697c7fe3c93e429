import { and, asc, eq, inArray, isNull, or } from "drizzle-orm";
import type { Database } from "@/db/client";
import { groupMappings, memberships, principals, projectGrants, projects, serviceAccounts, tenants, users } from "@/db/schema";
import { inForce } from "@/lib/auth/policy";
import type { ClusterSettings } from "@/lib/config";
import { effectiveQuotaAt } from "@/lib/quota/effective";
import { lendLimitsOf } from "@/lib/quota/grant-store";
import { grantsOfProjects } from "@/lib/quota/store";
import { loadPoolFacts, type PoolFacts } from "@/lib/quota/pool-flavors";
import type { TenantRole, ProjectRole } from "@/lib/auth/actor";
import type { BindingRole, DesiredBinding, DesiredProject, DesiredTenant, NodePool, PoolFlavor } from "./desired-state";

/** A project as rendered, with the row it came from. */
export interface LoadedProject extends DesiredProject {
  id: string;
  /** Archived, or its tenant disabled: fenced and emptied of access, no Kueue queues (see closedProject). */
  closed: boolean;
}

export interface LoadedTenant {
  id: string;
  tenant: DesiredTenant;
  projects: LoadedProject[];
  /** The flavours the node pools offer (platform facts, read in the same snapshot): Kueue flavours carry their labels and taints. */
  flavors: PoolFlavor[];
}

/** The platform target's desired state: the pools' flavours and the dedicated tenants, whose pools are flavours of their own. */
export interface LoadedPlatform {
  dedicated: DesiredTenant[];
  flavors: PoolFlavor[];
}

/** Tenant and project roles as bound in a namespace (render-access.ts maps them to cluster roles). */
const TENANT_BINDING_ROLE = { tenant_admin: "tenant_admin", member: "tenant_member", viewer: "tenant_viewer" } as const satisfies Record<TenantRole, BindingRole>;
const PROJECT_BINDING_ROLE = { member: "project_member", viewer: "project_viewer" } as const satisfies Record<Exclude<ProjectRole, "meter">, BindingRole>;

/**
 * Dedicated tenants' nodes carry this label and taint (value: the tenant slug),
 * set when the platform team builds the pool; the namespace pins pods to them.
 */
export function dedicatedNodePool(settings: ClusterSettings, slug: string): NodePool {
  const key = `${settings.render.labelPrefix}/dedicated-tenant`;
  return { name: `${slug}-dedicated`, nodeSelector: { [key]: slug }, tolerations: [{ key, operator: "Equal", value: slug, effect: "NoSchedule" }] };
}


/**
 * An archived project, or any project of a disabled tenant, keeps its
 * namespace (workloads and data are not destroyed by a click) but takes no new
 * work: its quota admits nothing and nobody is bound into it.
 */
function closedProject(project: DesiredProject, settings: ClusterSettings): DesiredProject {
  const zeroCounts = Object.fromEntries(Object.keys(settings.render.objectCounts).map((k) => [k, 0]));
  return {
    ...project,
    quota: {
      cpuCores: 0,
      memoryBytes: 0,
      gpus: Object.fromEntries(Object.keys(project.quota.gpus).map((r) => [r, 0])),
      storageBytes: 0,
      pvcCount: 0,
      objectCounts: { ...zeroCounts, pods: 0 },
      burst: { cpuCores: 0, memoryBytes: 0, gpus: Object.fromEntries(Object.keys(project.quota.gpus).map((r) => [r, 0])) },
      // No flavour lines: its queues admit nothing and lend nothing.
      flavors: [],
    },
    allowedPriorityClasses: [],
    bindings: [],
    serviceAccounts: [],
  };
}

/** What narrows or feeds a tenant's load. */
export interface TenantLoadOptions {
  /**
   * Only this project (a project target's change): its namespace renders from the tenant's own
   * fields, its members and group mappings and the project's grants alone, so the other projects'
   * rows are not read. `projects` then holds that project, or nothing when it is gone.
   */
  projectId?: string;
  /** The node pools' facts when the caller has read them already (the worker, once per batch of changes). */
  pools?: PoolFacts;
}

/**
 * Read one tenant's desired state from the database (inside the caller's
 * transaction, so it is one consistent snapshot). Expired grants and disabled
 * principals are left out, so rendering needs no clock.
 */
export async function loadDesiredTenant(db: Database, tenantId: string, settings: ClusterSettings, now: Date, options: TenantLoadOptions = {}): Promise<LoadedTenant | null> {
  const { projectId } = options;
  // What hangs off the tenant and these projects: members, grants, quota, pools, lending, group mappings.
  const related = (projectIds: readonly string[]) =>
    Promise.all([
      db
        .select({ role: memberships.role, email: users.email, subject: users.oidcSubject })
        .from(memberships)
        .innerJoin(principals, eq(principals.id, memberships.principalId))
        .innerJoin(users, eq(users.principalId, memberships.principalId))
        .where(and(eq(memberships.tenantId, tenantId), isNull(principals.disabledAt))),
      projectIds.length === 0
        ? Promise.resolve([])
        : db
            .select({
              projectId: projectGrants.projectId,
              role: projectGrants.role,
              expiresAt: projectGrants.expiresAt,
              kind: principals.kind,
              email: users.email,
              subject: users.oidcSubject,
              accountName: serviceAccounts.name,
            })
            .from(projectGrants)
            .innerJoin(principals, eq(principals.id, projectGrants.principalId))
            .leftJoin(users, eq(users.principalId, projectGrants.principalId))
            .leftJoin(serviceAccounts, eq(serviceAccounts.principalId, projectGrants.principalId))
            .where(and(inArray(projectGrants.projectId, projectIds), isNull(principals.disabledAt))),
      grantsOfProjects(db, projectIds),
      options.pools ?? loadPoolFacts(db),
      lendLimitsOf(db, projectIds),
      db
        .select({ projectId: groupMappings.projectId, groupName: groupMappings.groupName, tenantRole: groupMappings.tenantRole, projectRole: groupMappings.projectRole })
        .from(groupMappings)
        // One project's: the tenant's mappings (bound in every namespace) and that project's own.
        .where(and(eq(groupMappings.tenantId, tenantId), projectId === undefined ? undefined : or(isNull(groupMappings.projectId), eq(groupMappings.projectId, projectId))))
        .orderBy(asc(groupMappings.groupKey)),
    ]);
  const tenantRow = db.select().from(tenants).where(eq(tenants.id, tenantId));
  const projectRowsRead = db
    .select()
    .from(projects)
    .where(projectId === undefined ? eq(projects.tenantId, tenantId) : and(eq(projects.tenantId, tenantId), eq(projects.id, projectId)))
    .orderBy(asc(projects.namespace));
  // A tenant's load needs its projects' ids to read their grants; one project's knows its id, so
  // everything is read at once (a project not of this tenant, or gone, renders nothing anyway).
  const [[row], projectRows, [memberRows, grantRows, quotaGrantsByProject, pools, lendLimits, mappingRows]] =
    projectId === undefined
      ? await Promise.all([tenantRow, projectRowsRead]).then(async ([t, p]) => [t, p, await related(p.map((r) => r.id))] as const)
      : await Promise.all([tenantRow, projectRowsRead, related([projectId])]);
  if (!row) return null;
  const tenantActive = row.status === "active";
  const tenant: DesiredTenant = {
    slug: row.slug,
    name: row.name,
    costCentre: row.costCentre,
    isolationTier: row.isolationTier,
    ...(row.isolationTier === "dedicated" ? { nodePool: dedicatedNodePool(settings, row.slug) } : {}),
    ...(row.runtimeClass ? { runtimeClass: row.runtimeClass } : {}),
    ...(row.workloadIdentity && Object.keys(row.workloadIdentity).length > 0 ? { workloadIdentityTemplate: row.workloadIdentity } : {}),
  };
  const { gpuResources } = pools;

  const clusterUser = (u: { email: string | null; subject: string | null }): string | null => {
    const id = settings.userIdentity === "subject" ? u.subject : u.email;
    return id ? `${settings.userPrefix}${id}` : null;
  };

  const tenantBindings: DesiredBinding[] = [];
  for (const m of memberRows) {
    const subject = clusterUser(m);
    if (!subject) continue; // never signed in through OIDC: the cluster cannot know them by subject yet
    tenantBindings.push({ principalKind: "user", subject, role: TENANT_BINDING_ROLE[m.role] });
  }

  // A group mapping is bound to the group itself, not to the people the portal
  // knows in it: the API server reads the groups claim of each request's token,
  // so someone removed from the group in the IdP loses cluster access with
  // their next token, without the portal re-rendering anything (docs/identity.md).
  const groupSubject = (name: string) => `${settings.groupPrefix}${name}`;
  for (const m of mappingRows) {
    if (m.projectId !== null || !m.tenantRole) continue;
    tenantBindings.push({ principalKind: "group", subject: groupSubject(m.groupName), role: TENANT_BINDING_ROLE[m.tenantRole] });
  }

  const loaded = projectRows.map((p): LoadedProject => {
    const bindings: DesiredBinding[] = [...tenantBindings];
    for (const m of mappingRows) {
      if (m.projectId === p.id && m.projectRole && m.projectRole !== "meter") bindings.push({ principalKind: "group", subject: groupSubject(m.groupName), role: PROJECT_BINDING_ROLE[m.projectRole] });
    }
    const accounts = new Set<string>();
    for (const g of grantRows) {
      if (g.projectId !== p.id || !inForce(g.expiresAt, now)) continue;
      // A meter pushes usage to the portal's API; it needs nothing in the cluster.
      if (g.role === "meter") continue;
      const role = PROJECT_BINDING_ROLE[g.role];
      if (g.kind === "service_account" && g.accountName) {
        accounts.add(g.accountName);
        bindings.push({ principalKind: "service_account", subject: g.accountName, role });
      } else if (g.kind === "user") {
        const subject = clusterUser(g);
        if (subject) bindings.push({ principalKind: "user", subject, role });
      }
    }
    // The starting quota plus quota grants in force (their boundaries are scheduled changes: schedule.ts).
    const quotaSpans = quotaGrantsByProject.get(p.id) ?? [];
    const desired: DesiredProject = {
      slug: p.slug,
      namespace: p.namespace,
      quota: effectiveQuotaAt(settings.defaultProjectQuota, quotaSpans, now, gpuResources, lendLimits.get(p.id)),
      allowedPriorityClasses: [],
      fairShareWeight: Number(p.fairShareWeight),
      bindings,
      serviceAccounts: [...accounts].sort().map((name) => ({ name })),
    };
    const closed = !tenantActive || p.archivedAt !== null;
    return { ...(closed ? closedProject(desired, settings) : desired), id: p.id, closed };
  });

  return { id: row.id, tenant, projects: loaded, flavors: pools.flavors };
}

/**
 * Read what the platform's Kueue ResourceFlavors are rendered from: every
 * pool flavour, and every dedicated tenant (disabled ones too, so a tenant
 * switched off and on again finds its flavours where they were).
 */
export async function loadDesiredPlatform(db: Database, settings: ClusterSettings, pools?: PoolFacts): Promise<LoadedPlatform> {
  const [rows, { flavors }] = await Promise.all([
    db
      .select({ slug: tenants.slug, name: tenants.name, costCentre: tenants.costCentre })
      .from(tenants)
      .where(eq(tenants.isolationTier, "dedicated"))
      .orderBy(asc(tenants.slug)),
    pools ?? loadPoolFacts(db),
  ]);
  const dedicated = rows.map((r): DesiredTenant => ({ ...r, isolationTier: "dedicated", nodePool: dedicatedNodePool(settings, r.slug) }));
  return { dedicated, flavors };
}
