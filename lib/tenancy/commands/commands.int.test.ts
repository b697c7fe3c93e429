import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { projects, tenants } from "@/db/schema";
import { verifyAuditChain } from "@/lib/audit/verify";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { databaseLabel } from "@/test/database";
import { appErrorOf, auditLog, contextOf, countOf, errorText, rejectionOf, type PersonaKey } from "@/test/fixtures";
import { seededDatabase } from "@/test/tenancy";
import { createProject } from "./create-project";
import { createTenant } from "./create-tenant";

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let tenantId: Record<string, string>;

beforeAll(() => {
  ({ db, tenantId } = seeded);
});

const as = (key: PersonaKey): Promise<CommandContext> => contextOf(db, key, NOW);

/** Row counts that a refused command must leave as they were. */
async function snapshot() {
  return { tenants: await countOf(db, "tenants"), projects: await countOf(db, "projects"), audit: await countOf(db, "audit_events") };
}

async function lastAudit() {
  return (await auditLog(db)).at(-1)!;
}

describe(`createTenant (${databaseLabel()})`, () => {
  it("lets a platform admin onboard a tenant, audited with the same instant", async () => {
    const priya = await as("platform-admin");
    const before = await snapshot();
    const input = { name: "Perception", slug: "perception", costCentre: "CC-4400", isolationTier: "dedicated" };

    const tenant = await executeCommand(createTenant, priya, input);

    expect(tenant).toMatchObject({ ...input, status: "active", createdAt: NOW });
    expect(await snapshot()).toEqual({ ...before, tenants: before.tenants + 1, audit: before.audit + 1 });
    expect(await lastAudit()).toMatchObject({
      action: "tenant.created",
      at: NOW,
      tenantId: tenant.id,
      actorPrincipalId: priya.actor.principalId,
      actorLabel: priya.actor.email,
      targetType: "tenant",
      targetId: tenant.id,
      before: null,
      after: input,
    });
    expect(await verifyAuditChain(db)).toMatchObject({ intact: true });
  });

  it("writes the tenant and its audit event in one transaction: no event, no tenant", async () => {
    // A database-side failure of the audit insert, for this one slug only.
    await db.execute(sql`create function test_refuse_audit() returns trigger as $$
      begin
        if new.after->>'slug' = 'audit-fails' then raise exception 'audit insert refused by test'; end if;
        return new;
      end; $$ language plpgsql`);
    await db.execute(sql`create trigger test_refuse_audit before insert on audit_events for each row execute function test_refuse_audit()`);
    try {
      const before = await snapshot();
      const error = await rejectionOf(executeCommand(createTenant, await as("platform-admin"), { name: "Audit fails", slug: "audit-fails" }));
      expect(errorText(error)).toContain("audit insert refused by test");
      expect(await snapshot()).toEqual(before);
      expect(await db.select().from(tenants).where(eq(tenants.slug, "audit-fails"))).toEqual([]);
    } finally {
      await db.execute(sql`drop trigger test_refuse_audit on audit_events`);
      await db.execute(sql`drop function test_refuse_audit()`);
    }
  });

  it("refuses a tenant admin with forbidden and writes nothing", async () => {
    const before = await snapshot();
    const error = await appErrorOf(executeCommand(createTenant, await as("vision-admin"), { name: "Sneaky", slug: "sneaky" }));
    expect(error.code).toBe("forbidden");
    expect(await snapshot()).toEqual(before);
  });

  it("rejects an invalid or reserved slug as validation, naming the field", async () => {
    const priya = await as("platform-admin");
    for (const slug of ["Bad Slug", "a", "two--hyphens", "kube", "-leading"]) {
      const error = await appErrorOf(executeCommand(createTenant, priya, { name: "Whatever", slug }));
      expect(error.code, slug).toBe("validation");
      expect(Object.keys(error.fields ?? {}), slug).toEqual(["slug"]);
    }
    const missingName = await appErrorOf(executeCommand(createTenant, priya, { slug: "fine-slug" }));
    expect(missingName.fields).toHaveProperty("name");
  });

  it("answers a taken slug with conflict on the slug field and no extra audit event", async () => {
    const before = await snapshot();
    const error = await appErrorOf(executeCommand(createTenant, await as("platform-admin"), { name: "Vision Lab again", slug: "vision-lab" }));
    expect(error.code).toBe("conflict");
    expect(error.fields).toEqual({ slug: ["Choose another slug: this one is taken."] });
    expect(await snapshot()).toEqual(before);
    expect(await verifyAuditChain(db)).toEqual({ intact: true, events: before.audit });
  });
});

describe(`createProject (${databaseLabel()})`, () => {
  it("lets the tenant's admin create a project with its namespace, audited under the tenant", async () => {
    const alex = await as("vision-admin");
    const before = await snapshot();

    const project = await executeCommand(createProject, alex, { tenant: "vision-lab", name: "Tracking", slug: "tracking", description: "Multi-object tracking." });

    expect(project).toMatchObject({ tenantId: tenantId["vision-lab"], tenantSlug: "vision-lab", slug: "tracking", namespace: "vision-lab--tracking", createdAt: NOW });
    const [stored] = await db.select().from(projects).where(eq(projects.id, project.id));
    expect(stored).toMatchObject({ tenantId: tenantId["vision-lab"], namespace: "vision-lab--tracking", description: "Multi-object tracking." });
    expect(await snapshot()).toEqual({ ...before, projects: before.projects + 1, audit: before.audit + 1 });
    expect(await lastAudit()).toMatchObject({
      action: "project.created",
      tenantId: tenantId["vision-lab"],
      actorPrincipalId: alex.actor.principalId,
      targetType: "project",
      targetId: project.id,
      after: { slug: "tracking", namespace: "vision-lab--tracking", tenantId: tenantId["vision-lab"] },
    });
  });

  it("lets a platform admin create a project in any tenant", async () => {
    const project = await executeCommand(createProject, await as("platform-admin"), { tenant: "robotics", name: "Grasping", slug: "grasping" });
    expect(project).toMatchObject({ tenantId: tenantId.robotics, namespace: "robotics--grasping" });
  });

  it("answers another tenant's admin with not_found and writes nothing", async () => {
    const before = await snapshot();
    const error = await appErrorOf(executeCommand(createProject, await as("language-admin"), { tenant: "vision-lab", name: "Intrusion", slug: "intrusion" }));
    expect(error.code).toBe("not_found");
    expect(await snapshot()).toEqual(before);
  });

  it("answers a member of the tenant with forbidden: it may see the tenant, not add to it", async () => {
    const before = await snapshot();
    const error = await appErrorOf(executeCommand(createProject, await as("data-scientist"), { tenant: "vision-lab", name: "Side project", slug: "side-project" }));
    expect(error.code).toBe("forbidden");
    expect(await snapshot()).toEqual(before);
  });

  it("answers an external collaborator with not_found for the tenant of her project", async () => {
    const before = await snapshot();
    const error = await appErrorOf(executeCommand(createProject, await as("collaborator"), { tenant: "language-models", name: "Mine", slug: "mine" }));
    expect(error.code).toBe("not_found");
    expect(await snapshot()).toEqual(before);
  });

  it("answers a tenant that does not exist with not_found", async () => {
    const error = await appErrorOf(executeCommand(createProject, await as("platform-admin"), { tenant: "no-such-tenant", name: "Ghost", slug: "ghost" }));
    expect(error.code).toBe("not_found");
  });

  it("ignores a tenant id sent by the client: the tenant comes from the slug and the actor's rights there", async () => {
    const smuggled = { tenantId: tenantId["language-models"], namespace: "language-models--smuggled" };

    const project = await executeCommand(createProject, await as("vision-admin"), { tenant: "vision-lab", name: "Smuggled", slug: "smuggled", ...smuggled });
    expect(project).toMatchObject({ tenantId: tenantId["vision-lab"], namespace: "vision-lab--smuggled" });
    expect(await db.select().from(projects).where(eq(projects.tenantId, tenantId["language-models"]!))).not.toContainEqual(
      expect.objectContaining({ slug: "smuggled" }),
    );

    // Bo administers language-models; pointing the id there does not let him into vision-lab.
    const before = await snapshot();
    const error = await appErrorOf(executeCommand(createProject, await as("language-admin"), { tenant: "vision-lab", name: "Smuggled 2", slug: "smuggled-2", ...smuggled }));
    expect(error.code).toBe("not_found");
    expect(await snapshot()).toEqual(before);
  });

  it("rejects a bad project slug as validation and a taken one as conflict, without audit", async () => {
    const alex = await as("vision-admin");
    const invalid = await appErrorOf(executeCommand(createProject, alex, { tenant: "vision-lab", name: "Bad", slug: "Bad_Slug" }));
    expect(invalid.code).toBe("validation");
    expect(Object.keys(invalid.fields ?? {})).toEqual(["slug"]);

    const before = await snapshot();
    const taken = await appErrorOf(executeCommand(createProject, alex, { tenant: "vision-lab", name: "Detector again", slug: "detector-training" }));
    expect(taken.code).toBe("conflict");
    expect(taken.fields).toEqual({ slug: ["Choose another slug: this one is taken."] });
    expect(await snapshot()).toEqual(before);

    // The same slug in another tenant is a different project.
    const other = await executeCommand(createProject, await as("language-admin"), { tenant: "language-models", name: "Detector", slug: "detector-training" });
    expect(other.namespace).toBe("language-models--detector-training");
  });

  it("refuses to add a project to a disabled tenant, whoever asks", async () => {
    const staleAlex = await as("vision-admin");
    await db.update(tenants).set({ status: "disabled" }).where(eq(tenants.id, tenantId["vision-lab"]!));
    const before = await snapshot();
    const input = { tenant: "vision-lab", name: "After disable", slug: "after-disable" };

    // Loaded now, the admin's membership is in a disabled tenant and counts for nothing.
    const alex = await as("vision-admin");
    expect(alex.actor.memberships).toEqual([{ tenantId: tenantId["vision-lab"], tenantStatus: "disabled", role: "tenant_admin", via: null }]);
    expect((await appErrorOf(executeCommand(createProject, alex, input))).code).toBe("not_found");

    // A platform admin passes the policy, and the command itself still refuses.
    expect((await appErrorOf(executeCommand(createProject, await as("platform-admin"), input))).code).toBe("conflict");

    // An actor loaded before the tenant was disabled is refused by the same re-check.
    expect((await appErrorOf(executeCommand(createProject, staleAlex, input))).code).toBe("conflict");

    expect(await snapshot()).toEqual(before);
  });
});
