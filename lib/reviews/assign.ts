/**
 * Who reviews what, decided on the snapshot taken when a review opens (pure).
 *
 * - A collaborator (a person's project grant without a membership of the
 *   tenant) goes to their sponsor, the admin who invited them, while the
 *   sponsor is still a member of the tenant; otherwise to the tenant admins.
 * - Everything else of a tenant (memberships, members' and service accounts'
 *   project grants, service accounts with their tokens) goes to the tenant admins.
 * - A platform review (platform admins, platform service accounts) goes to the platform admins.
 */

export type ItemKind = "membership" | "project_grant" | "collaborator" | "service_account" | "platform_admin" | "group_mapping";
export type ReviewerKind = "tenant_admins" | "sponsor" | "platform_admins";

export type TenantSnapshot = {
  memberships: { membershipId: string; principalId: string; label: string; role: "tenant_admin" | "member" | "viewer" }[];
  grants: {
    grantId: string;
    projectId: string;
    projectLabel: string;
    principalId: string;
    principalKind: "user" | "service_account";
    label: string;
    role: string;
    expiresAt: Date | null;
    grantedBy: string | null;
  }[];
  serviceAccounts: ServiceAccountSnapshot[];
  /** Labels of the tenant's members, by principal id: who can still be a sponsor, and how they read. */
  memberLabels: ReadonlyMap<string, string>;
  groupMappings: GroupMappingSnapshot[];
};

/** An identity provider group's role in the tenant or on a project, with the people it reaches when the review opens. */
export type GroupMappingSnapshot = {
  mappingId: string;
  groupName: string;
  projectId: string | null;
  projectLabel: string | null;
  role: string;
  people: GroupMember[];
};
type GroupMember = { principalId: string; label: string; email: string | null };

export type PlatformSnapshot = {
  admins: { principalId: string; label: string; source: string }[];
  /**
   * People named in ALLOT_PLATFORM_ADMINS: a principal when they have signed
   * in (or were made) already, else only the email. Configuration, not rows.
   */
  environmentAdmins: { email: string; principalId: string | null; label: string }[];
  serviceAccounts: ServiceAccountSnapshot[];
};

/** Marks an item whose access the deployment's environment grants: the portal cannot revoke it. */
export const CONFIGURED_BY_ENVIRONMENT = "configured by environment: change it in the deployment";
export type ItemDetail = { tokens: TokenSnapshot[] } | { configuredBy: "environment"; email: string } | { group: string; people: GroupMember[] };

export type TokenSnapshot = { prefix: string; expiresAt: Date | null; lastUsedAt: Date | null };
/** A service account with its live tokens and the names of its federation trusts in force (keyless access is access too). */
export type ServiceAccountSnapshot = { principalId: string; name: string; tokens: TokenSnapshot[]; trusts: string[] };

export type PlannedItem = {
  kind: ItemKind;
  subjectId: string;
  /** Null for an environment admin who has never signed in: no principal exists for them. */
  principalId: string | null;
  principalLabel: string;
  projectId: string | null;
  projectLabel: string | null;
  access: string;
  expiresAt: Date | null;
  detail: ItemDetail | null;
  reviewer: ReviewerKind;
  reviewerPrincipalId: string | null;
  reviewerLabel: string;
};

export const TENANT_ADMINS_LABEL = "Tenant admins";
export const PLATFORM_ADMINS_LABEL = "Platform admins";
const ROLE_WORDS = { tenant_admin: "tenant admin", member: "member", viewer: "viewer" } as const;

export function tokensAccess(tokens: readonly TokenSnapshot[], trusts: readonly string[] = []): string {
  const tokenText = tokens.length === 0 ? "service account, no live tokens" : `service account, ${tokens.length} live token${tokens.length === 1 ? "" : "s"}: ${tokens.map((t) => t.prefix).join(", ")}`;
  return trusts.length === 0 ? tokenText : `${tokenText}; trusts ${trusts.join(", ")}`;
}

const toAdmins = { reviewer: "tenant_admins", reviewerPrincipalId: null, reviewerLabel: TENANT_ADMINS_LABEL } as const;

export function planTenantItems(s: TenantSnapshot): PlannedItem[] {
  const members = new Set(s.memberships.map((m) => m.principalId));
  const items: PlannedItem[] = s.memberships.map((m) => ({
    kind: "membership",
    subjectId: m.membershipId,
    principalId: m.principalId,
    principalLabel: m.label,
    projectId: null,
    projectLabel: null,
    access: `${ROLE_WORDS[m.role]} of the tenant`,
    expiresAt: null,
    detail: null,
    ...toAdmins,
  }));
  for (const g of s.grants) {
    const collaborator = g.principalKind === "user" && !members.has(g.principalId);
    const sponsorLabel = g.grantedBy ? s.memberLabels.get(g.grantedBy) : undefined;
    items.push({
      kind: collaborator ? "collaborator" : "project_grant",
      subjectId: g.grantId,
      principalId: g.principalId,
      principalLabel: g.label,
      projectId: g.projectId,
      projectLabel: g.projectLabel,
      access: `${g.role} on ${g.projectLabel}`,
      expiresAt: g.expiresAt,
      detail: null,
      ...(collaborator && g.grantedBy && sponsorLabel !== undefined
        ? { reviewer: "sponsor" as const, reviewerPrincipalId: g.grantedBy, reviewerLabel: `Sponsor: ${sponsorLabel}` }
        : toAdmins),
    });
  }
  for (const a of s.serviceAccounts) items.push(serviceAccountItem(a, toAdmins));
  for (const m of s.groupMappings) items.push(groupMappingItem(m));
  return items;
}

/**
 * `newSubjectId` names an environment admin who never signed in: there is no
 * row to point to, and an item needs a subject, so it gets an id of its own.
 */
/**
 * One item per mapping, not per person: a reviewer cannot take a person out of
 * an identity provider's group, only remove the mapping, which ends the access
 * of everyone the group reaches. The item says so and lists them.
 */
function groupMappingItem(m: GroupMappingSnapshot): PlannedItem {
  const role = m.projectId === null ? `${ROLE_WORDS[m.role as keyof typeof ROLE_WORDS] ?? m.role} of the tenant` : `${m.role} on ${m.projectLabel}`;
  const reach = m.people.length === 0 ? "reaches nobody now" : `reaches ${m.people.length} ${m.people.length === 1 ? "person" : "people"}: ${m.people.map((p) => p.label).join(", ")}`;
  return {
    kind: "group_mapping",
    subjectId: m.mappingId,
    principalId: null,
    principalLabel: `group ${m.groupName}`,
    projectId: m.projectId,
    projectLabel: m.projectLabel,
    access: `${role} via group ${m.groupName}; ${reach}. Revoking removes the group mapping for everyone in the group`,
    expiresAt: null,
    detail: { group: m.groupName, people: m.people },
    ...toAdmins,
  };
}

export function planPlatformItems(s: PlatformSnapshot, newSubjectId: () => string): PlannedItem[] {
  const toPlatform = { reviewer: "platform_admins", reviewerPrincipalId: null, reviewerLabel: PLATFORM_ADMINS_LABEL } as const;
  const fromEnvironment = new Set(s.environmentAdmins.flatMap((e) => (e.principalId ? [e.principalId] : [])));
  const withRow = new Set(s.admins.map((a) => a.principalId));
  return [
    ...s.admins.map(
      (a): PlannedItem => ({
        kind: "platform_admin",
        subjectId: a.principalId,
        principalId: a.principalId,
        principalLabel: a.label,
        projectId: null,
        projectLabel: null,
        // Revoking removes the role the database holds; the environment's stays, and the text says so.
        access: `platform admin (${a.source === "oidc_group" ? "from the admin group" : a.source === "cli" ? "granted by the CLI" : "demo seed"})${fromEnvironment.has(a.principalId) ? `; also ${CONFIGURED_BY_ENVIRONMENT}` : ""}`,
        expiresAt: null,
        detail: null,
        ...toPlatform,
      }),
    ),
    ...s.environmentAdmins
      .filter((e) => e.principalId === null || !withRow.has(e.principalId))
      .map(
        (e): PlannedItem => ({
          kind: "platform_admin",
          subjectId: e.principalId ?? newSubjectId(),
          principalId: e.principalId,
          principalLabel: e.label,
          projectId: null,
          projectLabel: null,
          access: `platform admin (${CONFIGURED_BY_ENVIRONMENT}${e.principalId ? "" : "; has not signed in yet"})`,
          expiresAt: null,
          detail: { configuredBy: "environment", email: e.email },
          ...toPlatform,
        }),
      ),
    ...s.serviceAccounts.map((a) => serviceAccountItem(a, toPlatform)),
  ];
}

function serviceAccountItem(
  a: ServiceAccountSnapshot,
  to: Pick<PlannedItem, "reviewer" | "reviewerPrincipalId" | "reviewerLabel">,
): PlannedItem {
  return {
    kind: "service_account",
    subjectId: a.principalId,
    principalId: a.principalId,
    principalLabel: a.name,
    projectId: null,
    projectLabel: null,
    access: tokensAccess(a.tokens, a.trusts),
    expiresAt: null,
    detail: { tokens: a.tokens },
    ...to,
  };
}

export const KIND_LABELS: Record<ItemKind, string> = {
  membership: "membership",
  project_grant: "project grant",
  collaborator: "external collaborator",
  service_account: "service account",
  platform_admin: "platform admin",
  group_mapping: "group mapping",
};

/** An item is one's own when it is one's access, or a group mapping that reaches one (its detail lists the people). */
export function isOwnItem(item: { principalId: string | null; detail: unknown }, principalId: string): boolean {
  if (item.principalId === principalId) return true;
  const people = (item.detail as { people?: { principalId: string }[] } | null)?.people;
  return people?.some((p) => p.principalId === principalId) ?? false;
}
