import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyAuditChain } from "@/lib/audit/verify";
import { DEMO_PERSONAS } from "@/lib/demo/personas";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { auditLog, countOf, personaEmail, principalIdOf, type PersonaKey } from "@/test/fixtures";
import type { Database } from "./client";
import { memberships, platformAdmins, principals, projectGrants, projects, tenants, users } from "./schema";
import { seedDemoData } from "./seed";

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const DAY = 86_400_000;

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
});
afterAll(async () => {
  await handle?.close();
});

const id = (key: PersonaKey) => principalIdOf(db, personaEmail(key));

async function tableCounts() {
  const names = ["tenants", "projects", "principals", "users", "memberships", "project_grants", "platform_admins", "audit_events", "instance_settings"];
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await countOf(db, n)] as const)));
}

/** Tenant slug -> role, and project slug -> grant, for one principal. */
async function bindingsOf(principalId: string) {
  const ms = await db
    .select({ tenant: tenants.slug, role: memberships.role })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(eq(memberships.principalId, principalId));
  const gs = await db
    .select({ project: projects.slug, role: projectGrants.role, expiresAt: projectGrants.expiresAt, grantedBy: projectGrants.grantedBy })
    .from(projectGrants)
    .innerJoin(projects, eq(projects.id, projectGrants.projectId))
    .where(eq(projectGrants.principalId, principalId));
  return { memberships: Object.fromEntries(ms.map((m) => [m.tenant, m.role])), grants: gs };
}

describe(`seedDemoData (${databaseLabel()})`, () => {
  it("seeds an empty database and says so", async () => {
    expect(await seedDemoData(db, SEEDED_AT)).toBe(true);
  });

  it("creates the three tenants and four projects with namespaces from their slugs", async () => {
    const rows = await db
      .select({ tenant: tenants.slug, tier: tenants.isolationTier, status: tenants.status, project: projects.slug, namespace: projects.namespace })
      .from(projects)
      .innerJoin(tenants, eq(tenants.id, projects.tenantId));
    expect(rows.map((r) => `${r.tenant}/${r.project} ${r.namespace}`).sort()).toEqual([
      "language-models/chat-eval language-models--chat-eval",
      "language-models/pretraining language-models--pretraining",
      "vision-lab/detector-training vision-lab--detector-training",
      "vision-lab/segmentation-research vision-lab--segmentation-research",
    ]);
    const all = await db.select({ slug: tenants.slug, status: tenants.status, tier: tenants.isolationTier }).from(tenants);
    expect(all.map((t) => t.slug).sort()).toEqual(["language-models", "robotics", "vision-lab"]);
    expect(all.every((t) => t.status === "active")).toBe(true);
    expect(all.find((t) => t.slug === "language-models")?.tier).toBe("dedicated");
  });

  it("creates every persona as a user with its email", async () => {
    const rows = await db.select({ email: users.email, name: principals.displayName, kind: principals.kind, disabledAt: principals.disabledAt }).from(users).innerJoin(principals, eq(principals.id, users.principalId));
    expect(rows.map((r) => r.email).sort()).toEqual(DEMO_PERSONAS.map((p) => p.email).sort());
    for (const persona of DEMO_PERSONAS) {
      expect(rows.find((r) => r.email === persona.email)).toMatchObject({ name: persona.name, kind: "user", disabledAt: null });
    }
  });

  it("gives each persona exactly its bindings", async () => {
    expect(await bindingsOf(await id("vision-admin"))).toEqual({ memberships: { "vision-lab": "tenant_admin" }, grants: [] });
    expect(await bindingsOf(await id("language-admin"))).toEqual({ memberships: { "language-models": "tenant_admin" }, grants: [] });
    expect(await bindingsOf(await id("viewer"))).toEqual({ memberships: { "language-models": "viewer" }, grants: [] });
    expect(await bindingsOf(await id("platform-admin"))).toEqual({ memberships: {}, grants: [] });

    expect(await bindingsOf(await id("data-scientist"))).toEqual({
      memberships: { "vision-lab": "member" },
      grants: [{ project: "detector-training", role: "member", expiresAt: null, grantedBy: await id("vision-admin") }],
    });

    // The external collaborator: a grant that expires, and no membership anywhere.
    expect(await bindingsOf(await id("collaborator"))).toEqual({
      memberships: {},
      grants: [{ project: "chat-eval", role: "member", expiresAt: new Date(SEEDED_AT.getTime() + 60 * DAY), grantedBy: await id("language-admin") }],
    });
  });

  it("makes Priya, and only Priya, a platform admin", async () => {
    const admins = await db.select().from(platformAdmins);
    expect(admins).toEqual([{ principalId: await id("platform-admin"), source: "seed", grantedAt: SEEDED_AT }]);
  });

  it("records one demo.seeded event and leaves an intact chain", async () => {
    const log = await auditLog(db);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ seq: 1, action: "demo.seeded", actorPrincipalId: null, actorLabel: "system:seed", tenantId: null, at: SEEDED_AT });
    expect(log[0]!.after).toMatchObject({ tenants: expect.arrayContaining(["vision-lab", "language-models", "robotics"]) as unknown });
    expect(await verifyAuditChain(db)).toEqual({ intact: true, events: 1 });
  });

  it("runs only once: a second call returns false and writes nothing", async () => {
    const before = await tableCounts();
    expect(before).toMatchObject({ tenants: 3, projects: 4, users: 6, memberships: 4, project_grants: 2, platform_admins: 1, audit_events: 1 });

    expect(await seedDemoData(db, new Date(SEEDED_AT.getTime() + DAY))).toBe(false);

    expect(await tableCounts()).toEqual(before);
    const [cleo] = await db
      .select({ expiresAt: projectGrants.expiresAt })
      .from(projectGrants)
      .where(eq(projectGrants.principalId, await id("collaborator")));
    expect(cleo?.expiresAt).toEqual(new Date(SEEDED_AT.getTime() + 60 * DAY));
  });
});
