import "server-only";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { projects, tenants } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { namespaceFor, projectSlug } from "../slugs";
import { onTenant, tenantAddress } from "../targets";

export const createProjectInput = tenantAddress.extend({
  name: z.string({ message: "is required" }).trim().min(2, "must be at least 2 characters").max(80, "must be at most 80 characters"),
  slug: projectSlug,
  description: z.string().trim().max(500, "must be at most 500 characters").default(""),
});

export const createProject = defineCommand({
  name: "createProject",
  input: createProjectInput,
  target: onTenant("project.create"),
  async run(ctx, input, resource) {
    try {
      return await ctx.db.transaction(async (tx) => {
        const [tenant] = await tx.select({ slug: tenants.slug, status: tenants.status }).from(tenants).where(eq(tenants.id, resource.tenantId));
        if (tenant?.status !== "active") throw new AppError("conflict", "This tenant is disabled; projects cannot be added to it.");
        const values = {
          tenantId: resource.tenantId,
          slug: input.slug,
          name: input.name,
          description: input.description,
          namespace: namespaceFor(tenant.slug, input.slug),
          createdAt: ctx.now,
        };
        const [project] = await tx.insert(projects).values(values).returning();
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
