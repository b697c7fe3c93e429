import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installDatabase, type Database } from "@/db/client";
import { auditEvents, authSessions, groupMappings } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import type { Actor } from "@/lib/auth/actor";
import { executeCommand } from "@/lib/auth/command";
import { loadActor, loadActorForSession } from "@/lib/auth/load-actor";
import { can, rolesOn } from "@/lib/auth/policy";
import { provisionOidcUser, startSession, type OidcIdentity } from "@/lib/auth/sign-in";
import { tenantAdminIds } from "@/lib/notify/in-app";
import { mintScimToken } from "@/lib/scim/token";
import { accessThrough, ACCESS_CSV_COLUMNS } from "@/lib/tenancy/access-csv";
import { inviteMember } from "@/lib/tenancy/commands/members";
import { projectDetail, reachableTenants } from "@/lib/tenancy/queries";
import { toCsv } from "@/lib/csv";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { personaEmail, principalIdOf } from "@/test/fixtures";
import { callScim, SCIM_GROUP, SCIM_USER, scimPatch } from "@/test/scim-client";
import { fingerprint, HOUR, outcomeOf, projectIdOf, tenantIdsBySlug, uniqueEmail } from "@/test/tenancy";
import { allTenantsForAdmin, tenantDetail } from "@/lib/tenancy/queries";
import { mapGroup, unmapGroup } from "./commands";
import { tenantGroupMappings } from "./queries";

/**
 * Groups end to end: mappings managed under the policy, roles derived from
 * SCIM groups (through the SCIM handlers an IdP calls) and from the groups
 * claim at sign-in, removal through either path, and "Who has access".
 */
const SEEDED_AT = new Date(Date.now() - 2 * HOUR);
const ISSUER = "https://idp.test";

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;
let token = "";
let tenantId: Record<string, string> = {};

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  installDatabase(handle);
  await seedDemoData(db, SEEDED_AT);
  tenantId = await tenantIdsBySlug(db);
  token = (await mintScimToken(db, 30, new Date())).token;
});
afterAll(async () => {
  await handle.close();
});

const now = () => new Date();
const ctxOf = async (principalId: string) => ({ actor: (await loadActor(db, principalId, []))!, db, now: now() });
const persona = async (key: Parameters<typeof personaEmail>[0]) => ctxOf(await principalIdOf(db, personaEmail(key)));
const visionLab = () => ({ kind: "tenant" as const, tenantId: tenantId["vision-lab"]! });

async function mapped(group: string, role: "tenant_admin" | "member" | "viewer", project: string | null = null, tenant = "vision-lab") {
  return executeCommand(mapGroup, await persona("platform-admin"), { tenant, group, project: project ?? "", role });
}

/** A person as SCIM makes them: through POST /Users. */
async function scimPerson(): Promise<string> {
  const email = uniqueEmail("scim-person");
  const created = await callScim(token, "POST", "/Users", { schemas: [SCIM_USER], userName: email, name: { givenName: "Sam", familyName: "Ple" }, active: true });
  expect(created.status).toBe(201);
  return String(created.body.id);
}

async function actor(principalId: string): Promise<Actor> {
  const loaded = await loadActor(db, principalId, []);
  if (!loaded) throw new Error("no actor");
  return loaded;
}

describe(`group mappings under the policy (${databaseLabel()})`, () => {
  it("lets a tenant admin map a group in their tenant, audited, and shows it with how many people it reaches", async () => {
    const admin = await persona("vision-admin");
    const row = await executeCommand(mapGroup, admin, { tenant: "vision-lab", group: "  Vision-Readers ", project: "", role: "viewer" });
    expect(row).toMatchObject({ groupName: "Vision-Readers", groupKey: "vision-readers", tenantRole: "viewer", projectRole: null, projectId: null });
    const [audit] = await db.select().from(auditEvents).where(and(eq(auditEvents.action, "group_mapping.created"), eq(auditEvents.targetId, row.id)));
    expect(audit).toMatchObject({ tenantId: tenantId["vision-lab"], actorLabel: personaEmail("vision-admin") });
    expect(audit!.after).toMatchObject({ group: "Vision-Readers", project: null, role: "viewer" });

    const onProject = await executeCommand(mapGroup, admin, { tenant: "vision-lab", group: "detector-team", project: "detector-training", role: "member" });
    expect(onProject).toMatchObject({ projectId: await projectIdOf(db, "vision-lab", "detector-training"), projectRole: "member", tenantRole: null });
    const listed = await tenantGroupMappings(admin, { id: tenantId["vision-lab"]! });
    expect(listed!.map((m) => [m.groupName, m.project?.slug ?? null, m.role, m.people])).toEqual([
      ["detector-team", "detector-training", "member", 0],
      ["Vision-Readers", null, "viewer", 0],
    ]);
  });

  it("refuses other tenants' admins, members, viewers and collaborators, writing nothing", async () => {
    const before = await fingerprint(db, ["group_mappings", "audit_events"]);
    const input = { tenant: "vision-lab", group: "intruders", project: "", role: "tenant_admin" };
    expect(await outcomeOf(executeCommand(mapGroup, await persona("language-admin"), input))).toBe("not_found");
    expect(await outcomeOf(executeCommand(mapGroup, await persona("collaborator"), input))).toBe("not_found");
    expect(await outcomeOf(executeCommand(mapGroup, await persona("viewer"), input))).toBe("not_found");
    expect(await outcomeOf(executeCommand(mapGroup, await persona("data-scientist"), input))).toBe("forbidden");
    const [visionMapping] = await db.select().from(groupMappings).where(eq(groupMappings.tenantId, tenantId["vision-lab"]!));
    // Another tenant's admin naming their own tenant with vision-lab's mapping id finds nothing.
    expect(await outcomeOf(executeCommand(unmapGroup, await persona("language-admin"), { tenant: "language-models", mappingId: visionMapping!.id }))).toBe("not_found");
    expect(await tenantGroupMappings(await persona("language-admin"), { id: tenantId["vision-lab"]! })).toBeNull();
    expect(await tenantGroupMappings(await persona("data-scientist"), { id: tenantId["vision-lab"]! })).toBeNull();
    expect(await fingerprint(db, ["group_mappings", "audit_events"])).toEqual(before);
  });

  it("names the field that is wrong", async () => {
    const admin = await persona("vision-admin");
    const fieldsOf = async (input: Record<string, string>) => {
      try {
        await executeCommand(mapGroup, admin, { tenant: "vision-lab", ...input });
        return null;
      } catch (error) {
        return (error as { fields?: Record<string, string[]> }).fields;
      }
    };
    expect(await fieldsOf({ group: "x", project: "detector-training", role: "tenant_admin" })).toEqual({ role: [expect.stringMatching(/Choose member or viewer for a project/)] });
    expect(await fieldsOf({ group: "x", project: "chat-eval", role: "member" })).toEqual({ project: ["Choose a project of this tenant."] });
    expect(await fieldsOf({ group: " ", project: "", role: "member" })).toEqual({ group: ["Fill in this field."] });
    expect(await fieldsOf({ group: "x", project: "", role: "owner" })).toEqual({ role: ["Choose one of: tenant_admin, member, viewer."] });
    expect(await fieldsOf({ group: "VISION-READERS", project: "", role: "member" })).toEqual({ group: ["Choose another group: this one is already mapped here."] });
  });

  it("lets a platform admin map in any tenant and a tenant admin remove, audited", async () => {
    const row = await mapped("lm-readers", "viewer", null, "language-models");
    const removed = await executeCommand(unmapGroup, await persona("language-admin"), { tenant: "language-models", mappingId: row.id });
    expect(removed).toEqual({ removed: true });
    const [audit] = await db.select().from(auditEvents).where(and(eq(auditEvents.action, "group_mapping.deleted"), eq(auditEvents.targetId, row.id)));
    expect(audit!.before).toMatchObject({ group: "lm-readers", role: "viewer" });
  });
});

describe(`access through SCIM groups (${databaseLabel()})`, () => {
  it("makes a SCIM group's member a tenant admin, everywhere the actor is used, until a PATCH removes them", async () => {
    await mapped("Vision Admins", "tenant_admin");
    const sam = await scimPerson();
    expect(can(await actor(sam), "tenant.view", visionLab(), now())).toBe(false);

    const group = await callScim(token, "POST", "/Groups", { schemas: [SCIM_GROUP], displayName: "vision admins", members: [{ value: sam }] });
    expect(group.status).toBe(201);
    const groupId = String(group.body.id);
    const asMember = await actor(sam);
    expect(asMember.memberships).toEqual([{ tenantId: tenantId["vision-lab"], tenantStatus: "active", role: "tenant_admin", via: { group: "Vision Admins" } }]);
    expect(rolesOn(asMember, visionLab(), now())).toEqual(["tenant_admin"]);
    // What a tenant admin does, done by a tenant admin only through the group.
    const invited = await executeCommand(inviteMember, await ctxOf(sam), { tenant: "vision-lab", email: uniqueEmail("invitee"), role: "member" });
    expect(invited.role).toBe("member");
    expect((await reachableTenants(await ctxOf(sam))).map((t) => t.slug)).toEqual(["vision-lab"]);
    // Notices to the tenant's admins reach them too.
    expect(await tenantAdminIds(db, tenantId["vision-lab"]!)).toEqual(expect.arrayContaining([sam, await principalIdOf(db, personaEmail("vision-admin"))]));
    // The Members list shows them, marked as through the group, and the tenant's member count counts them once.
    const membersNow = async () => (await tenantDetail(await persona("vision-admin"), "vision-lab"))!.members;
    const directCount = (await membersNow()).filter((m) => m.via === null).length;
    expect((await membersNow()).filter((m) => m.principalId === sam)).toEqual([expect.objectContaining({ role: "tenant_admin", via: { group: "Vision Admins" } })]);
    const countNow = async () => (await allTenantsForAdmin(await persona("platform-admin")))!.find((t) => t.slug === "vision-lab")!.memberCount;
    expect(await countNow()).toBe(directCount + 1);

    // Entra ID's removal: a filtered path.
    const removed = await callScim(token, "PATCH", `/Groups/${groupId}`, scimPatch([{ op: "Remove", path: `members[value eq "${sam}"]` }]));
    expect(removed.status).toBe(200);
    expect((await actor(sam)).memberships).toEqual([]);
    expect(await tenantAdminIds(db, tenantId["vision-lab"]!)).not.toContain(sam);
    expect((await membersNow()).map((m) => m.principalId)).not.toContain(sam);
    expect(await countNow()).toBe(directCount);
    expect(await outcomeOf(executeCommand(inviteMember, await ctxOf(sam), { tenant: "vision-lab", email: uniqueEmail("invitee"), role: "member" }))).toBe("not_found");
  });

  it("ends the access when the group is deleted, and matches a group by its externalId too", async () => {
    await mapped("00000000-aaaa-4bbb-8ccc-000000000001", "viewer");
    const sam = await scimPerson();
    const group = await callScim(token, "POST", "/Groups", { schemas: [SCIM_GROUP], displayName: "Vision auditors", externalId: "00000000-AAAA-4BBB-8CCC-000000000001", members: [{ value: sam }] });
    expect(rolesOn(await actor(sam), visionLab(), now())).toEqual(["tenant_viewer"]);
    expect((await callScim(token, "DELETE", `/Groups/${String(group.body.id)}`)).status).toBe(204);
    expect(rolesOn(await actor(sam), visionLab(), now())).toEqual([]);
  });

  it("gives a project role through a group, beside a direct one, and shows both in Who has access and its CSV", async () => {
    const ds = await principalIdOf(db, personaEmail("data-scientist"));
    const sam = await scimPerson();
    const group = await callScim(token, "POST", "/Groups", { schemas: [SCIM_GROUP], displayName: "detector-team", members: [{ value: sam }, { value: ds }] });
    expect(group.status).toBe(201);
    const detector = { kind: "project" as const, tenantId: tenantId["vision-lab"]!, projectId: await projectIdOf(db, "vision-lab", "detector-training") };
    expect(rolesOn(await actor(sam), detector, now())).toEqual(["project_member"]);
    expect(rolesOn(await actor(sam), { ...detector, projectId: await projectIdOf(db, "vision-lab", "segmentation-research") }, now())).toEqual([]);

    const detail = await projectDetail(await persona("vision-admin"), "vision-lab", "detector-training");
    const dana = detail!.access.filter((a) => a.principalId === ds).map((a) => [a.role, accessThrough(a), a.grantedBy]);
    expect(dana).toEqual([
      ["member", "project grant", "Alex Chen"],
      ["member", "via group detector-team", "identity provider (SCIM)"],
    ]);
    const csv = toCsv(detail!.access, ACCESS_CSV_COLUMNS);
    expect(csv).toContain(`,member,via group detector-team,,identity provider (SCIM)`);
    expect(csv).toContain(`,member,project grant,,Alex Chen`);
    // The tenant mapping that gives viewers every project is listed on the project too, once SCIM puts someone in it.
    const reader = await scimPerson();
    await callScim(token, "POST", "/Groups", { schemas: [SCIM_GROUP], displayName: "VISION-READERS", members: [{ value: reader }] });
    const after = await projectDetail(await persona("vision-admin"), "vision-lab", "segmentation-research");
    expect(after!.access.filter((a) => a.principalId === reader).map((a) => [a.role, accessThrough(a)])).toEqual([["viewer", "via group Vision-Readers"]]);
    const listed = await tenantGroupMappings(await persona("vision-admin"), { id: tenantId["vision-lab"]! });
    expect(listed!.find((m) => m.groupName === "detector-team")!.people).toBe(2);
  });
});

describe(`access through the groups claim at sign-in (${databaseLabel()})`, () => {
  const identity = (subject: string, email: string, groups: string[]): OidcIdentity => ({ issuer: ISSUER, subject, email, name: null, inAdminGroup: null, groups });
  const RECHECK_MINUTES = 60;

  it("derives roles from the claim of the latest sign-in and drops them when the claim no longer names the group", async () => {
    await mapped("lm-admins", "tenant_admin", null, "language-models");
    const email = uniqueEmail("claim-person");
    const lm = { kind: "tenant" as const, tenantId: tenantId["language-models"]! };
    const signedInAt = now();
    const principalId = await provisionOidcUser(db, identity("sub-claim-1", email, ["LM-Admins", "unrelated"]), signedInAt);
    const sid = await startSession(db, principalId, "oidc", signedInAt, 12);
    const loaded = await loadActorForSession(db, sid, now(), [], RECHECK_MINUTES);
    expect(loaded!.memberships).toEqual([{ tenantId: tenantId["language-models"], tenantStatus: "active", role: "tenant_admin", via: { group: "lm-admins" } }]);
    expect(can(loaded!, "tenant.members.manage", lm, now())).toBe(true);
    const [changed] = await db.select().from(auditEvents).where(and(eq(auditEvents.action, "user.claim_groups.changed"), eq(auditEvents.targetId, principalId)));
    expect(changed!.after).toMatchObject({ groups: ["LM-Admins", "unrelated"], added: ["LM-Admins", "unrelated"], removed: [] });

    // Signing in again (the session was re-checked) with the group gone from the claim.
    const later = new Date(signedInAt.getTime() + 1000);
    await provisionOidcUser(db, identity("sub-claim-1", email, ["unrelated"]), later);
    const sid2 = await startSession(db, principalId, "oidc", later, 12);
    const reloaded = await loadActorForSession(db, sid2, now(), [], RECHECK_MINUTES);
    expect(reloaded!.memberships).toEqual([]);
    expect(can(reloaded!, "tenant.view", lm, now())).toBe(false);
    // The other session of the same person reads the same, latest claim: no role outlives the sign-in that dropped it.
    expect((await loadActorForSession(db, sid, now(), [], RECHECK_MINUTES))!.memberships).toEqual([]);
  });

  it("sends a session from the identity provider to sign in again once it is older than the re-check age", async () => {
    await mapped("lm-viewers", "viewer", null, "language-models");
    const email = uniqueEmail("claim-person");
    const signedInAt = new Date(Date.now() - 59 * 60_000);
    const principalId = await provisionOidcUser(db, identity("sub-claim-2", email, ["lm-viewers"]), signedInAt);
    const sid = await startSession(db, principalId, "oidc", signedInAt, 12);
    const at = (minutes: number) => new Date(signedInAt.getTime() + minutes * 60_000);
    expect(rolesOn((await loadActorForSession(db, sid, at(59), [], RECHECK_MINUTES))!, { kind: "tenant", tenantId: tenantId["language-models"]! }, at(59))).toEqual(["tenant_viewer"]);
    // At the re-check age the session no longer counts, although it has hours left: the claim must be read again.
    expect(await loadActorForSession(db, sid, at(60), [], RECHECK_MINUTES)).toBeNull();
    const [session] = await db.select().from(authSessions).where(eq(authSessions.id, sid));
    expect(session!.expiresAt.getTime()).toBeGreaterThan(at(60).getTime());
    // A demo persona's session carries no claim and is not re-checked.
    const demo = await startSession(db, await principalIdOf(db, personaEmail("viewer")), "demo", signedInAt, 12);
    expect(await loadActorForSession(db, demo, at(61), [], RECHECK_MINUTES)).not.toBeNull();
  });

  it("lists a claim member in Who has access, and one in the group through SCIM and the claim once", async () => {
    await mapped("chat-reviewers", "viewer", "chat-eval", "language-models");
    const email = uniqueEmail("claim-person");
    const principalId = await provisionOidcUser(db, identity("sub-claim-3", email, ["chat-reviewers"]), now());
    await callScim(token, "POST", "/Groups", { schemas: [SCIM_GROUP], displayName: "Chat-Reviewers", members: [{ value: principalId }] });
    const detail = await projectDetail(await persona("language-admin"), "language-models", "chat-eval");
    expect(detail!.access.filter((a) => a.principalId === principalId).map((a) => [a.role, accessThrough(a), a.grantedBy])).toEqual([
      ["viewer", "via group chat-reviewers", "identity provider (SCIM, sign-in claim)"],
    ]);
  });
});
