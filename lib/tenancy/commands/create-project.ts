import "server-only";
import { projects } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { descriptionInput, nameInput } from "../inputs";
import { assertTenantActive, tenantBySlug } from "../lookup";
import { namespaceFor, projectSlug } from "../slugs";
import { onTenant, tenantAddress } from "../targets";
import { enqueueProjectChange } from "@/lib/cluster/outbox";

export const createProjectInput = tenantAddress.extend({ name: nameInput, slug: projectSlug, description: descriptionInput });

export const createProject = defineCommand({
  name: "createProject",
  input: createProjectInput,
  target: onTenant("project.create"),
  async run(ctx, input, resource) {
    try {
      return await ctx.db.transaction(async (tx) => {
        const tenant = await tenantBySlug(tx, input.tenant);
        assertTenantActive(tenant);
        const values = {
          tenantId: resource.tenantId,
          slug: input.slug,
          name: input.name,
          description: input.description,
          namespace: namespaceFor(tenant.slug, input.slug),
          createdAt: ctx.now,
        };
        const [project] = await tx.insert(projects).values(values).returning();
        await enqueueProjectChange(tx, { tenantId: resource.tenantId, projectId: project!.id, reason: "project created", at: ctx.now });
        await recordAudit(tx, {
          actor: auditActorOf(ctx.actor),
          at: ctx.now,
          tenantId: resource.tenantId,
          action: "project.created",
          target: { type: "project", id: project!.id },
          after: values,
        });
        return { ...project!, tenantSlug: tenant.slug };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError("conflict", "This tenant already has a project with this slug.", { slug: ["is already taken"] });
      throw error;
    }
  },
});
