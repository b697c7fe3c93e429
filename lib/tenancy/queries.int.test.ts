import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { memberships, principals, projectGrants, projects, tenants, users } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import type { CommandContext } from "@/lib/auth/context";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { contextOf, personaEmail, type PersonaKey } from "@/test/fixtures";
import { allTenantsForAdmin, projectDetail, reachableTenants, tenantDetail } from "./queries";

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const CLEO_EXPIRES = new Date(SEEDED_AT.getTime() + 60 * 86_400_000);

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  await seedDemoData(db, SEEDED_AT);
});
afterAll(async () => {
  await handle?.close();
});

const as = (key: PersonaKey, now: Date = NOW): Promise<CommandContext> => contextOf(db, key, now);

/** The home page reduced to "tenant: project, project". */
async function homeOf(ctx: CommandContext) {
  return (await reachableTenants(ctx)).map((t) => ({ tenant: t.slug, projects: t.projects.map((p) => p.slug) }));
}

async function addUser(name: string, email: string): Promise<string> {
  const [p] = await db.insert(principals).values({ kind: "user", displayName: name }).returning({ id: principals.id });
  await db.insert(users).values({ principalId: p!.id, email });
  return p!.id;
}

describe(`allTenantsForAdmin (${databaseLabel()})`, () => {
  it("is null for anyone but a platform admin", async () => {
    for (const key of ["vision-admin", "language-admin", "data-scientist", "viewer", "collaborator"] as const) {
      expect(await allTenantsForAdmin(await as(key)), key).toBeNull();
    }
  });

  it("lists every tenant with its project and member counts for Priya", async () => {
    const rows = await allTenantsForAdmin(await as("platform-admin"));
    expect(rows?.map((t) => ({ slug: t.slug, projectCount: t.projectCount, memberCount: t.memberCount }))).toEqual([
      { slug: "language-models", projectCount: 2, memberCount: 2 },
      { slug: "robotics", projectCount: 0, memberCount: 0 },
      { slug: "vision-lab", projectCount: 2, memberCount: 2 },
    ]);
  });
});

describe(`reachableTenants (${databaseLabel()})`, () => {
  it("shows Dana her tenant and only the project she holds a grant on", async () => {
    const [vision] = await reachableTenants(await as("data-scientist"));
    expect(vision).toMatchObject({ slug: "vision-lab", roles: ["tenant_member"] });
    expect(vision!.projects).toEqual([
      expect.objectContaining({ slug: "detector-training", namespace: "vision-lab--detector-training", roles: ["project_member"] }),
    ]);
    expect(await homeOf(await as("data-scientist"))).toEqual([{ tenant: "vision-lab", projects: ["detector-training"] }]);
  });

  it("shows Cleo only chat-eval, with no role on the tenant itself", async () => {
    const home = await reachableTenants(await as("collaborator"));
    expect(home).toEqual([expect.objectContaining({ slug: "language-models", roles: [], projects: [expect.objectContaining({ slug: "chat-eval", roles: ["project_member"] })] })]);
  });

  it("shows Cleo nothing once her grant has expired", async () => {
    expect(await homeOf(await as("collaborator", new Date(CLEO_EXPIRES.getTime() - 1)))).toEqual([{ tenant: "language-models", projects: ["chat-eval"] }]);
    expect(await homeOf(await as("collaborator", CLEO_EXPIRES))).toEqual([]);
  });

  it("shows tenant admins and viewers every project of their tenant, and nothing of others", async () => {
    expect(await homeOf(await as("vision-admin"))).toEqual([{ tenant: "vision-lab", projects: ["detector-training", "segmentation-research"] }]);
    expect(await homeOf(await as("language-admin"))).toEqual([{ tenant: "language-models", projects: ["chat-eval", "pretraining"] }]);
    expect(await homeOf(await as("viewer"))).toEqual([{ tenant: "language-models", projects: ["chat-eval", "pretraining"] }]);
  });

  it("shows Priya none: the admin area, not the home page, lists every tenant", async () => {
    expect(await reachableTenants(await as("platform-admin"))).toEqual([]);
  });
});

describe(`tenantDetail (${databaseLabel()})`, () => {
  it("is null for a tenant of someone else, for a collaborator, and for an unknown slug", async () => {
    expect(await tenantDetail(await as("vision-admin"), "language-models")).toBeNull();
    expect(await tenantDetail(await as("language-admin"), "vision-lab")).toBeNull();
    expect(await tenantDetail(await as("data-scientist"), "language-models")).toBeNull();
    expect(await tenantDetail(await as("collaborator"), "language-models")).toBeNull();
    expect(await tenantDetail(await as("platform-admin"), "no-such-tenant")).toBeNull();
  });

  it("shows a member the tenant, which projects she may open, and no create button", async () => {
    const detail = await tenantDetail(await as("data-scientist"), "vision-lab");
    expect(detail).toMatchObject({ roles: ["tenant_member"], canCreateProject: false });
    expect(detail!.projects.map((p) => [p.slug, p.canOpen])).toEqual([
      ["detector-training", true],
      ["segmentation-research", false],
    ]);
    expect(detail!.members.map((m) => [m.email, m.role]).sort()).toEqual([
      [personaEmail("vision-admin"), "tenant_admin"],
      [personaEmail("data-scientist"), "member"],
    ]);
  });

  it("lets the tenant's admin and a platform admin create projects", async () => {
    expect((await tenantDetail(await as("vision-admin"), "vision-lab"))?.canCreateProject).toBe(true);
    expect((await tenantDetail(await as("platform-admin"), "robotics"))?.canCreateProject).toBe(true);
    expect((await tenantDetail(await as("viewer"), "language-models"))?.canCreateProject).toBe(false);
  });
});

describe(`projectDetail (${databaseLabel()})`, () => {
  it("is null for Dana outside her grant: another tenant's project, or her own tenant's other project", async () => {
    expect(await projectDetail(await as("data-scientist"), "language-models", "chat-eval")).toBeNull();
    expect(await projectDetail(await as("data-scientist"), "vision-lab", "segmentation-research")).toBeNull();
    expect(await projectDetail(await as("data-scientist"), "vision-lab", "detector-training")).not.toBeNull();
  });

  it("does not find a project under another tenant's slug", async () => {
    expect(await projectDetail(await as("language-admin"), "vision-lab", "chat-eval")).toBeNull();
    expect(await projectDetail(await as("platform-admin"), "vision-lab", "chat-eval")).toBeNull();
  });

  it("is null for Cleo from the instant her grant expires", async () => {
    expect(await projectDetail(await as("collaborator"), "language-models", "chat-eval")).toMatchObject({ roles: ["project_member"] });
    expect(await projectDetail(await as("collaborator", new Date(CLEO_EXPIRES.getTime() - 1)), "language-models", "chat-eval")).not.toBeNull();
    expect(await projectDetail(await as("collaborator", CLEO_EXPIRES), "language-models", "chat-eval")).toBeNull();
  });

  it("lists who has access to chat-eval: admins, viewers and grants, not members without a grant", async () => {
    const [lm] = await db.select().from(tenants).where(eq(tenants.slug, "language-models"));
    const [pretraining] = await db.select().from(projects).where(eq(projects.slug, "pretraining"));
    // Two members of the tenant: one with no grant at all, one with a grant on the other project.
    const mo = await addUser("Mo Member", "mo@language.allot.demo");
    const pat = await addUser("Pat Pretrainer", "pat@language.allot.demo");
    await db.insert(memberships).values([
      { tenantId: lm!.id, principalId: mo, role: "member" },
      { tenantId: lm!.id, principalId: pat, role: "member" },
    ]);
    await db.insert(projectGrants).values({ projectId: pretraining!.id, principalId: pat, role: "member" });

    const detail = await projectDetail(await as("language-admin"), "language-models", "chat-eval");
    expect(detail?.access).toEqual([
      {
        grantId: null,
        principalId: expect.any(String) as unknown,
        displayName: "Bo Larsen",
        email: personaEmail("language-admin"),
        kind: "user",
        role: "tenant admin",
        via: "tenant membership",
        group: null,
        collaborator: false,
        expiresAt: null,
        grantedBy: null,
      },
      {
        grantId: expect.any(String) as unknown,
        principalId: expect.any(String) as unknown,
        displayName: "Cleo Park",
        email: personaEmail("collaborator"),
        kind: "user",
        role: "member",
        via: "project grant",
        group: null,
        collaborator: true,
        expiresAt: CLEO_EXPIRES,
        grantedBy: "Bo Larsen",
      },
      expect.objectContaining({ displayName: "Vic Moreau", role: "viewer", via: "tenant membership", collaborator: false }),
    ]);

    // Pat shows on the project his grant is for, as a member rather than a collaborator.
    const onPretraining = await projectDetail(await as("language-admin"), "language-models", "pretraining");
    expect(onPretraining?.access.map((a) => [a.displayName, a.via, a.collaborator])).toEqual([
      ["Bo Larsen", "tenant membership", false],
      ["Pat Pretrainer", "project grant", false],
      ["Vic Moreau", "tenant membership", false],
    ]);
  });

  it("drops an expired grant from the access list", async () => {
    const detail = await projectDetail(await as("language-admin", CLEO_EXPIRES), "language-models", "chat-eval");
    expect(detail?.access.map((a) => a.displayName)).toEqual(["Bo Larsen", "Vic Moreau"]);
  });

  it("shows Dana's grant on detector-training as a member's, not a collaborator's", async () => {
    const detail = await projectDetail(await as("vision-admin"), "vision-lab", "detector-training");
    expect(detail?.access.map((a) => [a.displayName, a.role, a.via, a.collaborator, a.grantedBy])).toEqual([
      ["Alex Chen", "tenant admin", "tenant membership", false, null],
      ["Dana Okafor", "member", "project grant", false, "Alex Chen"],
    ]);
  });
});
