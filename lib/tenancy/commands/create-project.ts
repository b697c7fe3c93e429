import "server-only";
import { projects } from "@/db/schema";
import type { Database } from "@/db/client";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { descriptionInput, nameInput } from "../inputs";
import { assertTenantActive, tenantBySlug } from "../lookup";
import { namespaceFor, projectSlug } from "../slugs";
import { onTenant, tenantAddress } from "../targets";
import { enqueueProjectChange } from "@/lib/cluster/outbox";

export const createProjectInput = tenantAddress.extend({ name: nameInput, slug: projectSlug, description: descriptionInput });

/** The project row, its audit event and its cluster change, in the caller's transaction. */
export async function insertProject(tx: Database, tenant: { id: string; slug: string }, input: { slug: string; name: string; description: string }, actor: AuditActor, now: Date) {
  const values = { tenantId: tenant.id, slug: input.slug, name: input.name, description: input.description, namespace: namespaceFor(tenant.slug, input.slug), createdAt: now };
  const [project] = await tx.insert(projects).values(values).returning();
  await enqueueProjectChange(tx, { tenantId: tenant.id, projectId: project!.id, reason: "project created", at: now });
  await recordAudit(tx, { actor, at: now, tenantId: tenant.id, action: "project.created", target: { type: "project", id: project!.id }, after: values });
  return project!;
}

export const createProject = defineCommand({
  name: "createProject",
  input: createProjectInput,
  target: onTenant("project.create"),
  async run(ctx, input) {
    try {
      return await ctx.db.transaction(async (tx) => {
        const tenant = await tenantBySlug(tx, input.tenant);
        assertTenantActive(tenant);
        const project = await insertProject(tx, tenant, input, auditActorOf(ctx.actor), ctx.now);
        return { ...project, tenantSlug: tenant.slug };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError("conflict", "This tenant already has a project with this slug.", { slug: ["Choose another slug: this one is taken."] });
      throw error;
    }
  },
});
