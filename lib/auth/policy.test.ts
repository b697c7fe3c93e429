import { describe, expect, it } from "vitest";
import type { Actor, Resource } from "./actor";
import { ACTIONS, decide, decisionConflict, isCollaboratorOn, mayDiscussRequest, mayEditRequest, maySetRoleWhileMinting, rolesOn, scimClientActor, type Action } from "./policy";

const NOW = new Date("2026-12-02T12:00:00Z");
const LATER = new Date("2026-12-20T00:00:00Z");
const EARLIER = new Date("2026-11-01T00:00:00Z");

const T_A = "tenant-a";
const T_B = "tenant-b";
const T_OFF = "tenant-disabled";
const resources = {
  platform: { kind: "platform" },
  tenantA: { kind: "tenant", tenantId: T_A },
  tenantB: { kind: "tenant", tenantId: T_B },
  tenantOff: { kind: "tenant", tenantId: T_OFF },
  projectA1: { kind: "project", tenantId: T_A, projectId: "a1" },
  projectA2: { kind: "project", tenantId: T_A, projectId: "a2" },
  projectB1: { kind: "project", tenantId: T_B, projectId: "b1" },
  // A's project id presented as if it lived in tenant B: must not borrow A's grant.
  projectA1InB: { kind: "project", tenantId: T_B, projectId: "a1" },
  projectOff: { kind: "project", tenantId: T_OFF, projectId: "off1" },
  // Access review items: for the tenant's admins, assigned by name, and the platform's own.
  itemAForAdmins: { kind: "review_item", tenantId: T_A, reviewerId: null },
  itemAForSponsor: { kind: "review_item", tenantId: T_A, reviewerId: "sponsor-a" },
  // Assignments that the opening never makes, which must still give nothing: to an outsider, to a machine.
  itemAForCollaborator: { kind: "review_item", tenantId: T_A, reviewerId: "collaborator-a1" },
  itemAForServiceAccount: { kind: "review_item", tenantId: T_A, reviewerId: "service-account-a" },
  itemBForAdmins: { kind: "review_item", tenantId: T_B, reviewerId: null },
  itemOffForItsAdmin: { kind: "review_item", tenantId: T_OFF, reviewerId: "admin-off" },
  itemPlatform: { kind: "review_item", tenantId: null, reviewerId: null },
} satisfies Record<string, Resource>;
type ResourceName = keyof typeof resources;

function actor(partial: Partial<Actor>): Actor {
  return { principalId: "p", kind: "user", displayName: "x", email: null, isPlatformAdmin: false, memberships: [], projectGrants: [], ...partial };
}
const grant = (projectId: string, tenantId: string, role: "member" | "viewer" | "meter", expiresAt: Date | null, tenantStatus: "active" | "disabled" = "active") => ({
  projectId,
  tenantId,
  role,
  expiresAt,
  tenantStatus,
});
/** Bindings that come through an identity provider's group (lib/groups/derived.ts) rather than a row of their own. */
const viaGroup = { via: { group: "vision-admins" } };

const subjects = {
  platformAdmin: actor({ isPlatformAdmin: true }),
  tenantAdminA: actor({ memberships: [{ tenantId: T_A, tenantStatus: "active", role: "tenant_admin" }] }),
  memberAWithGrantOnA1: actor({
    memberships: [{ tenantId: T_A, tenantStatus: "active", role: "member" }],
    projectGrants: [grant("a1", T_A, "member", null)],
  }),
  viewerA: actor({ memberships: [{ tenantId: T_A, tenantStatus: "active", role: "viewer" }] }),
  collaboratorOnA1: actor({ principalId: "collaborator-a1", projectGrants: [grant("a1", T_A, "member", LATER)] }),
  expiredCollaboratorOnA1: actor({ principalId: "collaborator-a1", projectGrants: [grant("a1", T_A, "member", EARLIER)] }),
  /** A member of A who once sponsored a collaborator: reviews that item by name, nothing else of the review. */
  sponsorA: actor({ principalId: "sponsor-a", memberships: [{ tenantId: T_A, tenantStatus: "active", role: "member" }] }),
  /** A service account named as reviewer (never done by the opening): machines do not review. */
  serviceAccountA: actor({
    principalId: "service-account-a",
    kind: "service_account",
    memberships: [{ tenantId: T_A, tenantStatus: "active", role: "member" }],
  }),
  collaboratorExpiringNow: actor({ projectGrants: [grant("a1", T_A, "member", NOW)] }),
  tenantAdminB: actor({ memberships: [{ tenantId: T_B, tenantStatus: "active", role: "tenant_admin" }] }),
  adminOfDisabledTenant: actor({
    principalId: "admin-off",
    memberships: [{ tenantId: T_OFF, tenantStatus: "disabled", role: "tenant_admin" }],
    projectGrants: [grant("off1", T_OFF, "member", null, "disabled")],
  }),
  meterOnA1: actor({ kind: "service_account", projectGrants: [grant("a1", T_A, "meter", null)] }),
  /** A service account (its token) holding a time-bound member grant: it works there, but has no one to ask for an extension. */
  serviceAccountMemberOnA1: actor({ kind: "service_account", projectGrants: [grant("a1", T_A, "member", LATER)] }),
  viewerCollaboratorOnA1: actor({ projectGrants: [grant("a1", T_A, "viewer", LATER)] }),
  expiredMeterOnA1: actor({ kind: "service_account", projectGrants: [grant("a1", T_A, "meter", EARLIER)] }),
  nobody: actor({}),
  /** A tenant admin only because an IdP group is mapped to that role. */
  groupTenantAdminA: actor({ memberships: [{ tenantId: T_A, tenantStatus: "active", role: "tenant_admin", ...viaGroup }] }),
  /** A plain member directly, and tenant admin through a group: every binding counts, not the first found. */
  memberAAndGroupAdminA: actor({
    memberships: [
      { tenantId: T_A, tenantStatus: "active", role: "member", via: null },
      { tenantId: T_A, tenantStatus: "active", role: "tenant_admin", ...viaGroup },
    ],
  }),
  /** A project role through a group, without any tenant membership. */
  groupMemberOnA1: actor({ projectGrants: [{ ...grant("a1", T_A, "member", null), ...viaGroup }] }),
  groupViewerA: actor({ memberships: [{ tenantId: T_A, tenantStatus: "active", role: "viewer", ...viaGroup }] }),
  /** A collaborator on A1 who is tenant admin of B through a group: each tenant sees only its own binding. */
  collaboratorOnA1GroupAdminB: actor({
    memberships: [{ tenantId: T_B, tenantStatus: "active", role: "tenant_admin", ...viaGroup }],
    projectGrants: [grant("a1", T_A, "member", LATER)],
  }),
  groupAdminOfDisabledTenant: actor({ memberships: [{ tenantId: T_OFF, tenantStatus: "disabled", role: "tenant_admin", ...viaGroup }] }),
  /** An identity provider with a SCIM token: provisions, and nothing else. */
  scimClient: scimClientActor("abcdefabcdef"),
} satisfies Record<string, Actor>;
type SubjectName = keyof typeof subjects;

/** The expected matrix, written out by hand: everything not listed must be refused. */
const ALL_TENANTS: ResourceName[] = ["tenantA", "tenantB", "tenantOff"];
const ALL_PROJECTS: ResourceName[] = ["projectA1", "projectA2", "projectB1", "projectA1InB", "projectOff"];
const ALL_ITEMS: ResourceName[] = ["itemAForAdmins", "itemAForSponsor", "itemAForCollaborator", "itemAForServiceAccount", "itemBForAdmins", "itemOffForItsAdmin", "itemPlatform"];
const ITEMS_OF_A: ResourceName[] = ["itemAForAdmins", "itemAForSponsor", "itemAForCollaborator", "itemAForServiceAccount"];
/** Any signed-in principal may try to accept an invitation; the command then checks it is addressed to them. */
const ACCEPT = { "invitation.accept": ["platform"], "notification.own": ["platform"], "capacity.view": ["platform"], "tenant_request.create": ["platform"] } satisfies Partial<Record<Action, ResourceName[]>>;

/** People, not tokens, may also search the portal (the command palette); what it finds is each page's own decision. */
const PEOPLE = { ...ACCEPT, "portal.search": ["platform"] } satisfies Partial<Record<Action, ResourceName[]>>;

type Expected = Partial<Record<Action, ResourceName[]>>;

/** The expected matrix, written out by hand: everything not listed must be refused. */
const allowed: Record<SubjectName, Expected> = {
  platformAdmin: {
    ...PEOPLE,
    "platform.view": ["platform"],
    "tenant.create": ["platform"],
    "audit.view_all": ["platform"],
    "audit.verify": ["platform"],
    "audit.checkpoint": ["platform"],
    "cluster.view": ["platform"],
    "cluster.manage": ["platform"],
    "capacity.manage": ["platform"],
    "platform.cohorts.view": ["platform"],
    "quota.decide": ["platform"],
    "webhooks.manage": ["platform"],
    "tenant_request.decide": ["platform"],
    "platform.spend.view": ["platform"],
    "platform.idle_cost.manage": ["platform"],
    "usage.manage": ["platform"],
    "tenant.spend.view": ALL_TENANTS,
    "project.spend.view": ALL_PROJECTS,
    "project.budget.manage": ALL_PROJECTS,
    "project.sharing.manage": ALL_PROJECTS,
    "tenant.view": ALL_TENANTS,
    "tenant.quota.view": ALL_TENANTS,
    "tenant.envelope.manage": ALL_TENANTS,
    "tenant.quota.move": ALL_TENANTS,
    "tenant.disable": ALL_TENANTS,
    "tenant.cluster.manage": ALL_TENANTS,
    "tenant.members.manage": ALL_TENANTS,
    "tenant.groups.manage": ALL_TENANTS,
    "tenant.audit.view": ALL_TENANTS,
    "service_account.view": ALL_TENANTS,
    "service_account.manage": ALL_TENANTS,
    "service_account.trust.manage": ALL_TENANTS,
    "project.create": ALL_TENANTS,
    "project.view": ALL_PROJECTS,
    "project.edit": ALL_PROJECTS,
    "project.access.manage": ALL_PROJECTS,
    "project.extension.decide": ALL_PROJECTS,
    "project.cluster.view": ALL_PROJECTS,
    "project.quota.view": ALL_PROJECTS,
    "quota_request.discuss": ALL_PROJECTS,
    "project.quota.request": ALL_PROJECTS,
    "project.quota.extend": ALL_PROJECTS,
    "quota_request.edit": ALL_PROJECTS,
    "access_review.platform": ["platform"],
    "access_review.manage": ALL_TENANTS,
    "access_review.close": ALL_TENANTS,
    "access_review.item.decide": ALL_ITEMS,
  },
  tenantAdminA: {
    ...PEOPLE,
    "access_review.manage": ["tenantA"],
    "access_review.close": ["tenantA"],
    "access_review.item.decide": ITEMS_OF_A,
    "tenant.view": ["tenantA"],
    "tenant.members.manage": ["tenantA"],
    "tenant.groups.manage": ["tenantA"],
    "tenant.audit.view": ["tenantA"],
    "service_account.view": ["tenantA"],
    "service_account.manage": ["tenantA"],
    "service_account.trust.manage": ["tenantA"],
    "project.create": ["tenantA"],
    "project.view": ["projectA1", "projectA2"],
    "project.edit": ["projectA1", "projectA2"],
    "project.access.manage": ["projectA1", "projectA2"],
    "project.extension.decide": ["projectA1", "projectA2"],
    "project.cluster.view": ["projectA1", "projectA2"],
    "project.quota.view": ["projectA1", "projectA2"],
    "quota_request.discuss": ["projectA1", "projectA2"],
    "project.quota.request": ["projectA1", "projectA2"],
    "project.quota.extend": ["projectA1", "projectA2"],
    "quota_request.edit": ["projectA1", "projectA2"],
    "tenant.quota.view": ["tenantA"],
    "tenant.quota.move": ["tenantA"],
    "tenant.spend.view": ["tenantA"],
    "project.spend.view": ["projectA1", "projectA2"],
    "project.budget.manage": ["projectA1", "projectA2"],
    "project.sharing.manage": ["projectA1", "projectA2"],
  },
  memberAWithGrantOnA1: {
    ...PEOPLE,
    "tenant.view": ["tenantA"],
    "service_account.view": ["tenantA"],
    "project.view": ["projectA1"],
    "project.cluster.view": ["projectA1"],
    "project.quota.view": ["projectA1"],
    "quota_request.discuss": ["projectA1"],
    "project.quota.request": ["projectA1"],
    "project.quota.extend": ["projectA1"],
    "quota_request.edit": ["projectA1"],
    "tenant.quota.view": ["tenantA"],
    "project.spend.view": ["projectA1"],
    // The policy lets a grant holder ask; the command then refuses a grant that does not expire.
    "project.extension.request": ["projectA1"],
  },
  viewerA: {
    ...PEOPLE,
    "tenant.view": ["tenantA"],
    "service_account.view": ["tenantA"],
    "project.view": ["projectA1", "projectA2"],
    "project.cluster.view": ["projectA1", "projectA2"],
    "project.quota.view": ["projectA1", "projectA2"],
    "quota_request.discuss": ["projectA1", "projectA2"],
    "tenant.quota.view": ["tenantA"],
    "tenant.spend.view": ["tenantA"],
    "project.spend.view": ["projectA1", "projectA2"],
  },
  collaboratorOnA1: {
    ...PEOPLE,
    "project.view": ["projectA1"],
    "project.cluster.view": ["projectA1"],
    "project.quota.view": ["projectA1"],
    "quota_request.discuss": ["projectA1"],
    "project.quota.request": ["projectA1"],
    "project.quota.extend": ["projectA1"],
    "quota_request.edit": ["projectA1"],
    "project.spend.view": ["projectA1"],
    "project.extension.request": ["projectA1"],
  },
  viewerCollaboratorOnA1: {
    ...PEOPLE,
    "project.view": ["projectA1"],
    "project.cluster.view": ["projectA1"],
    "project.quota.view": ["projectA1"],
    "quota_request.discuss": ["projectA1"],
    "project.spend.view": ["projectA1"],
    "project.extension.request": ["projectA1"],
  },
  /** Once expired (or at the instant), a collaborator can no longer ask: the sponsor invites again. */
  expiredCollaboratorOnA1: { ...PEOPLE },
  sponsorA: {
    ...PEOPLE,
    "tenant.view": ["tenantA"],
    "service_account.view": ["tenantA"],
    "tenant.quota.view": ["tenantA"],
    "access_review.item.decide": ["itemAForSponsor"],
  },
  serviceAccountA: {
    ...ACCEPT,
    "tenant.view": ["tenantA"],
    "service_account.view": ["tenantA"],
    "tenant.quota.view": ["tenantA"],
  },
  collaboratorExpiringNow: { ...PEOPLE },
  tenantAdminB: {
    ...PEOPLE,
    "access_review.manage": ["tenantB"],
    "access_review.close": ["tenantB"],
    "access_review.item.decide": ["itemBForAdmins"],
    "tenant.view": ["tenantB"],
    "tenant.members.manage": ["tenantB"],
    "tenant.groups.manage": ["tenantB"],
    "tenant.audit.view": ["tenantB"],
    "service_account.view": ["tenantB"],
    "service_account.manage": ["tenantB"],
    "service_account.trust.manage": ["tenantB"],
    "project.create": ["tenantB"],
    "project.view": ["projectB1", "projectA1InB"],
    "project.edit": ["projectB1", "projectA1InB"],
    "project.access.manage": ["projectB1", "projectA1InB"],
    "project.extension.decide": ["projectB1", "projectA1InB"],
    "project.cluster.view": ["projectB1", "projectA1InB"],
    "project.quota.view": ["projectB1", "projectA1InB"],
    "quota_request.discuss": ["projectB1", "projectA1InB"],
    "project.quota.request": ["projectB1", "projectA1InB"],
    "project.quota.extend": ["projectB1", "projectA1InB"],
    "quota_request.edit": ["projectB1", "projectA1InB"],
    "tenant.quota.view": ["tenantB"],
    "tenant.quota.move": ["tenantB"],
    "tenant.spend.view": ["tenantB"],
    "project.spend.view": ["projectB1", "projectA1InB"],
    "project.budget.manage": ["projectB1", "projectA1InB"],
    "project.sharing.manage": ["projectB1", "projectA1InB"],
  },
  adminOfDisabledTenant: { ...PEOPLE },
  /** A meter pushes usage for its project and reads nothing, not even that project. */
  meterOnA1: { ...ACCEPT, "usage.push": ["projectA1"] },
  serviceAccountMemberOnA1: {
    ...ACCEPT,
    "project.view": ["projectA1"],
    "project.cluster.view": ["projectA1"],
    "project.quota.view": ["projectA1"],
    "quota_request.discuss": ["projectA1"],
    "project.quota.request": ["projectA1"],
    "project.quota.extend": ["projectA1"],
    "quota_request.edit": ["projectA1"],
    "project.spend.view": ["projectA1"],
  },
  expiredMeterOnA1: { ...ACCEPT },
  nobody: { ...PEOPLE },
  // Group-derived roles allow exactly what the same role held directly allows (filled in below from those rows).
  groupTenantAdminA: {},
  memberAAndGroupAdminA: {},
  groupMemberOnA1: {},
  groupViewerA: {},
  collaboratorOnA1GroupAdminB: {},
  groupAdminOfDisabledTenant: { ...PEOPLE },
  /** Not a person: none of what any signed-in principal may do, and nothing but provisioning. */
  scimClient: { "scim.provision": ["platform"] },
};

/** Everything either expectation allows. */
function union(...all: Expected[]): Expected {
  const merged: Expected = {};
  for (const expected of all) {
    for (const [action, names] of Object.entries(expected) as [Action, ResourceName[]][]) merged[action] = [...new Set([...(merged[action] ?? []), ...names])];
  }
  return merged;
}
allowed.groupTenantAdminA = allowed.tenantAdminA;
allowed.memberAAndGroupAdminA = allowed.tenantAdminA;
allowed.groupMemberOnA1 = allowed.collaboratorOnA1;
allowed.groupViewerA = allowed.viewerA;
allowed.collaboratorOnA1GroupAdminB = union(allowed.collaboratorOnA1, allowed.tenantAdminB);

describe("authorization policy matrix", () => {
  for (const [subjectName, subject] of Object.entries(subjects) as [SubjectName, Actor][]) {
    for (const action of ACTIONS) {
      for (const [resourceName, resource] of Object.entries(resources) as [ResourceName, Resource][]) {
        const expected = allowed[subjectName][action]?.includes(resourceName) ?? false;
        it(`${subjectName} ${expected ? "may" : "may not"} ${action} on ${resourceName}`, () => {
          expect(decide(subject, action, resource, NOW).allowed).toBe(expected);
        });
      }
    }
  }

  it("refuses an unknown action even to a platform admin", () => {
    expect(decide(subjects.platformAdmin, "tenant.delete_everything", resources.platform, NOW)).toEqual({ allowed: false, reason: "unknown_action" });
  });

  it("refuses an action aimed at the wrong kind of resource", () => {
    expect(decide(subjects.platformAdmin, "project.view", resources.tenantA, NOW)).toEqual({ allowed: false, reason: "wrong_resource" });
  });

  it("ends a collaborator's access at the expiry instant", () => {
    const c = subjects.collaboratorOnA1;
    expect(decide(c, "project.view", resources.projectA1, new Date(LATER.getTime() - 1)).allowed).toBe(true);
    expect(decide(c, "project.view", resources.projectA1, LATER).allowed).toBe(false);
  });

  it("reports every role held, strongest first", () => {
    const both = actor({
      isPlatformAdmin: true,
      memberships: [{ tenantId: T_A, tenantStatus: "active", role: "viewer" }],
      projectGrants: [grant("a1", T_A, "member", null)],
    });
    expect(rolesOn(both, resources.projectA1, NOW)).toEqual(["platform_admin", "project_member", "tenant_viewer"]);
  });

  it("does not report plain tenant membership on a project, where it grants nothing", () => {
    expect(rolesOn(subjects.memberAWithGrantOnA1, resources.projectA1, NOW)).toEqual(["project_member"]);
    expect(rolesOn(subjects.memberAWithGrantOnA1, resources.projectA2, NOW)).toEqual([]);
    expect(rolesOn(subjects.memberAWithGrantOnA1, resources.tenantA, NOW)).toEqual(["tenant_member"]);
  });
});

describe("roles through groups", () => {
  it("count beside direct ones and are reported with them", () => {
    expect(rolesOn(subjects.memberAAndGroupAdminA, resources.tenantA, NOW)).toEqual(["tenant_admin", "tenant_member"]);
    expect(rolesOn(subjects.groupMemberOnA1, resources.projectA1, NOW)).toEqual(["project_member"]);
  });

  it("end with the group: the same person without the group's binding is refused", () => {
    const removed = { ...subjects.memberAAndGroupAdminA, memberships: subjects.memberAAndGroupAdminA.memberships.filter((m) => !m.via) };
    expect(decide(subjects.memberAAndGroupAdminA, "tenant.members.manage", resources.tenantA, NOW).allowed).toBe(true);
    expect(decide(removed, "tenant.members.manage", resources.tenantA, NOW)).toEqual({ allowed: false, reason: "no_role" });
    expect(decide(removed, "tenant.view", resources.tenantA, NOW).allowed).toBe(true);
  });

  it("do not make a group's project member an outside collaborator", () => {
    expect(isCollaboratorOn(subjects.groupMemberOnA1, T_A)).toBe(false);
    expect(isCollaboratorOn(subjects.collaboratorOnA1, T_A)).toBe(true);
    expect(isCollaboratorOn(subjects.collaboratorOnA1GroupAdminB, T_A)).toBe(true);
  });

  it("make a SCIM client nothing but a provisioner, and no person one", () => {
    expect(rolesOn(subjects.scimClient, resources.tenantA, NOW)).toEqual([]);
    expect(decide(subjects.scimClient, "invitation.accept", resources.platform, NOW)).toEqual({ allowed: false, reason: "no_role" });
    expect(decide(subjects.platformAdmin, "scim.provision", resources.platform, NOW)).toEqual({ allowed: false, reason: "no_role" });
  });
});

describe("separation of duties on requests", () => {
  const admin = { ...subjects.platformAdmin, principalId: "admin" };
  const adminAlsoTenantAdminA = { ...subjects.tenantAdminA, principalId: "admin-a", isPlatformAdmin: true };
  it("refuses a decision on one's own request, on a tenant one administers, and on nothing else", () => {
    expect(decisionConflict(admin, { requestedBy: "admin", tenantId: T_A }, NOW)).toMatch(/^You made this request/);
    expect(decisionConflict(adminAlsoTenantAdminA, { requestedBy: "someone", tenantId: T_A }, NOW)).toMatch(/^You are a tenant admin of this tenant/);
    expect(decisionConflict(adminAlsoTenantAdminA, { requestedBy: "someone", tenantId: T_B }, NOW)).toBeNull();
    expect(decisionConflict(admin, { requestedBy: null, tenantId: T_A }, NOW)).toBeNull();
  });

  it("judges a request for a tenant that does not exist yet by its requester alone", () => {
    expect(decisionConflict(admin, { requestedBy: "admin", tenantId: null }, NOW)).toMatch(/^You made this request/);
    expect(decisionConflict(adminAlsoTenantAdminA, { requestedBy: "someone", tenantId: null }, NOW)).toBeNull();
  });
});

describe("the two sides of a quota request", () => {
  const onA1 = (requestedBy: string | null) => ({ tenantId: T_A, projectId: "a1", requestedBy });
  const requester = { ...subjects.memberAWithGrantOnA1, principalId: "requester" };
  const cases: [string, Actor, { discuss: boolean; edit: boolean }][] = [
    ["its requester", requester, { discuss: true, edit: true }],
    ["another member of the project", subjects.memberAWithGrantOnA1, { discuss: false, edit: false }],
    ["a viewer of the tenant", subjects.viewerA, { discuss: false, edit: false }],
    ["the tenant's admin", subjects.tenantAdminA, { discuss: true, edit: false }],
    ["the tenant's admin through a group", subjects.groupTenantAdminA, { discuss: true, edit: false }],
    ["a platform admin", subjects.platformAdmin, { discuss: true, edit: false }],
    ["another tenant's admin", subjects.tenantAdminB, { discuss: false, edit: false }],
    ["its requester, a collaborator whose grant expired", { ...subjects.expiredCollaboratorOnA1, principalId: "requester" }, { discuss: false, edit: false }],
    ["its requester, a viewer collaborator now (may read the project, not ask)", { ...subjects.viewerCollaboratorOnA1, principalId: "requester" }, { discuss: true, edit: false }],
    ["its requester, admin of a disabled tenant", { ...subjects.adminOfDisabledTenant, principalId: "requester" }, { discuss: false, edit: false }],
    ["a metering token with the requester's id", { ...subjects.meterOnA1, principalId: "requester" }, { discuss: false, edit: false }],
    ["a SCIM client", subjects.scimClient, { discuss: false, edit: false }],
  ];
  for (const [who, subject, expected] of cases) {
    it(`${who} ${expected.discuss ? "takes" : "takes no"} part in the conversation and ${expected.edit ? "may" : "may not"} edit`, () => {
      expect(mayDiscussRequest(subject, onA1("requester"), NOW)).toBe(expected.discuss);
      expect(mayEditRequest(subject, onA1("requester"), NOW)).toBe(expected.edit);
    });
  }

  it("leaves a request whose requester was deleted to the admins", () => {
    expect(mayDiscussRequest(subjects.tenantAdminA, onA1(null), NOW)).toBe(true);
    expect(mayEditRequest({ ...requester, principalId: "" }, onA1(null), NOW)).toBe(false);
  });
});

describe("setting a role while minting a token", () => {
  // Every subject of the matrix on every project: both rights of the two steps apart, or neither (a foreign tenant, an expired collaborator, a meter).
  const projects = (Object.entries(resources) as [ResourceName, Resource][]).filter((e): e is [ResourceName, Extract<Resource, { kind: "project" }>] => e[1].kind === "project");
  for (const [subjectName, subject] of Object.entries(subjects) as [SubjectName, Actor][]) {
    for (const [projectName, project] of projects) {
      const tenantName = (Object.entries(resources) as [ResourceName, Resource][]).find(([, r]) => r.kind === "tenant" && r.tenantId === project.tenantId)?.[0];
      const expected = Boolean(tenantName && allowed[subjectName]["service_account.manage"]?.includes(tenantName) && allowed[subjectName]["project.access.manage"]?.includes(projectName));
      it(`${subjectName} ${expected ? "may" : "may not"} set a role on ${projectName} while minting`, () => {
        expect(maySetRoleWhileMinting(subject, project, NOW)).toBe(expected);
      });
    }
  }

  it("is refused to the admin of the tenant the project only claims to be in", () => {
    expect(maySetRoleWhileMinting(subjects.tenantAdminB, resources.projectA1InB, NOW)).toBe(true);
    expect(maySetRoleWhileMinting(subjects.tenantAdminA, resources.projectA1InB, NOW)).toBe(false);
    expect(maySetRoleWhileMinting(subjects.adminOfDisabledTenant, resources.projectOff, NOW)).toBe(false);
    expect(maySetRoleWhileMinting(subjects.expiredCollaboratorOnA1, resources.projectA1, NOW)).toBe(false);
  });
});
