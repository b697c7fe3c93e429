import { describe, expect, it } from "vitest";
import { planPlatformItems, planTenantItems, tokensAccess, type TenantSnapshot } from "./assign";

const grant = (over: Partial<TenantSnapshot["grants"][number]>): TenantSnapshot["grants"][number] => ({
  grantId: "g",
  projectId: "p1",
  projectLabel: "Detector training",
  principalId: "x",
  principalKind: "user",
  label: "X",
  role: "member",
  expiresAt: null,
  grantedBy: null,
  ...over,
});

const snapshot: TenantSnapshot = {
  memberships: [
    { membershipId: "m-alex", principalId: "alex", label: "Alex", role: "tenant_admin" },
    { membershipId: "m-dana", principalId: "dana", label: "Dana", role: "member" },
  ],
  grants: [
    grant({ grantId: "g-dana", principalId: "dana", label: "Dana", grantedBy: "alex" }),
    grant({ grantId: "g-cleo", principalId: "cleo", label: "Cleo", grantedBy: "dana", expiresAt: new Date("2027-01-01T00:00:00Z") }),
    // The sponsor has left the tenant: nobody named can review it, so the admins do.
    grant({ grantId: "g-gone", principalId: "guest", label: "Guest", grantedBy: "departed", expiresAt: new Date("2027-01-01T00:00:00Z") }),
    grant({ grantId: "g-nosponsor", principalId: "orphan", label: "Orphan", grantedBy: null, expiresAt: new Date("2027-01-01T00:00:00Z") }),
    grant({ grantId: "g-bot", principalId: "bot", principalKind: "service_account", label: "ci-bot", grantedBy: "dana" }),
  ],
  serviceAccounts: [{ principalId: "bot", name: "ci-bot", tokens: [{ prefix: "abcdefabcdef", expiresAt: null, lastUsedAt: null }], trusts: [] }],
  memberLabels: new Map([
    ["alex", "Alex"],
    ["dana", "Dana"],
  ]),
  groupMappings: [
    { mappingId: "map-ml", groupName: "ml-admins", projectId: null, projectLabel: null, role: "tenant_admin", people: [{ principalId: "gus", label: "Gus", email: null }, { principalId: "hana", label: "Hana", email: null }] },
    { mappingId: "map-empty", groupName: "interns", projectId: "p1", projectLabel: "Detector", role: "viewer", people: [] },
  ],
};

describe("planTenantItems", () => {
  const items = planTenantItems(snapshot);
  const bySubject = Object.fromEntries(items.map((i) => [i.subjectId, i]));

  it("lists every membership, grant, service account and group mapping once", () => {
    expect(items.map((i) => `${i.kind}:${i.subjectId}`).sort()).toEqual(
      ["membership:m-alex", "membership:m-dana", "project_grant:g-dana", "collaborator:g-cleo", "collaborator:g-gone", "collaborator:g-nosponsor", "project_grant:g-bot", "service_account:bot", "group_mapping:map-ml", "group_mapping:map-empty"].sort(),
    );
  });

  it("gives a collaborator to their sponsor while the sponsor is a member, else to the tenant admins", () => {
    expect(bySubject["g-cleo"]).toMatchObject({ reviewer: "sponsor", reviewerPrincipalId: "dana", reviewerLabel: "Sponsor: Dana" });
    expect(bySubject["g-gone"]).toMatchObject({ reviewer: "tenant_admins", reviewerPrincipalId: null });
    expect(bySubject["g-nosponsor"]).toMatchObject({ reviewer: "tenant_admins", reviewerPrincipalId: null });
  });

  it("gives members' and service accounts' grants, memberships and accounts to the tenant admins, whoever granted them", () => {
    for (const id of ["m-alex", "m-dana", "g-dana", "g-bot", "bot"]) expect(bySubject[id]!.reviewer, id).toBe("tenant_admins");
  });

  it("states a service account's live tokens", () => {
    expect(bySubject.bot!.access).toBe("service account, 1 live token: abcdefabcdef");
    expect(tokensAccess([])).toBe("service account, no live tokens");
    expect(tokensAccess([], ["github-ci", "gitlab"])).toBe("service account, no live tokens; trusts github-ci, gitlab");
  });
});

describe("planPlatformItems", () => {
  it("gives platform admins and platform service accounts to the platform admins", () => {
    const items = planPlatformItems({
      admins: [{ principalId: "priya", label: "Priya", source: "seed" }],
      environmentAdmins: [],
      serviceAccounts: [{ principalId: "ops", name: "ops-bot", tokens: [], trusts: [] }],
    }, () => "unused");
    expect(items.map((i) => [i.kind, i.subjectId, i.reviewer])).toEqual([
      ["platform_admin", "priya", "platform_admins"],
      ["service_account", "ops", "platform_admins"],
    ]);
  });
});

describe("planPlatformItems with ALLOT_PLATFORM_ADMINS", () => {
  it("lists environment admins as not revocable here: by principal when they signed in, by email alone when not, once when they also hold a row", () => {
    const items = planPlatformItems(
      {
        admins: [{ principalId: "priya", label: "Priya", source: "cli" }],
        environmentAdmins: [
          { email: "priya@example.com", principalId: "priya", label: "Priya" },
          { email: "ops@example.com", principalId: "olu", label: "Olu" },
          { email: "new@example.com", principalId: null, label: "new@example.com" },
        ],
        serviceAccounts: [],
      },
      () => "fresh-id",
    );
    expect(items.map((i) => [i.subjectId, i.principalId, i.access, i.detail])).toEqual([
      ["priya", "priya", "platform admin (granted by the CLI); also configured by environment: change it in the deployment", null],
      ["olu", "olu", "platform admin (configured by environment: change it in the deployment)", { configuredBy: "environment", email: "ops@example.com" }],
      ["fresh-id", null, "platform admin (configured by environment: change it in the deployment; has not signed in yet)", { configuredBy: "environment", email: "new@example.com" }],
    ]);
  });
});

describe("group mappings in a tenant review", () => {
  it("gives one item per mapping to the tenant admins, naming the people it reaches and that revoking removes the mapping for all of them", () => {
    const items = planTenantItems(snapshot).filter((i) => i.kind === "group_mapping");
    expect(items.map((i) => [i.subjectId, i.principalId, i.principalLabel, i.reviewer, i.access])).toEqual([
      ["map-ml", null, "group ml-admins", "tenant_admins", "tenant admin of the tenant via group ml-admins; reaches 2 people: Gus, Hana. Revoking removes the group mapping for everyone in the group"],
      ["map-empty", null, "group interns", "tenant_admins", "viewer on Detector via group interns; reaches nobody now. Revoking removes the group mapping for everyone in the group"],
    ]);
  });
});
