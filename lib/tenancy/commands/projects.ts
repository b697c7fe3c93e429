import "server-only";
import { and, eq } from "drizzle-orm";
import { projects } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { AppError } from "@/lib/errors";
import { descriptionInput, nameInput, versionInput } from "../inputs";
import { assertProjectOpen, projectBySlugs } from "../lookup";
import { onProject, projectAddress } from "../targets";
import { enqueueProjectChange } from "@/lib/cluster/outbox";


/** Rename or re-describe a project. The slug and namespace never change. */
export const updateProject = defineCommand({
  name: "updateProject",
  input: projectAddress.extend({ name: nameInput, description: descriptionInput, version: versionInput }),
  target: onProject("project.edit"),
  async run(ctx, input, { tenantId, projectId }) {
    return ctx.db.transaction(async (tx) => {
      const { project } = await projectBySlugs(tx, input.tenant, input.project);
      assertProjectOpen(project);
      const [updated] = await tx
        .update(projects)
        .set({ name: input.name, description: input.description, version: project.version + 1 })
        .where(and(eq(projects.id, projectId), eq(projects.version, input.version)))
        .returning();
      if (!updated) throw new AppError("conflict", "Someone changed this project meanwhile. Reload and try again.");
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "project.updated",
        target: { type: "project", id: projectId },
        before: { name: project.name, description: project.description },
        after: { name: input.name, description: input.description },
      });
      return updated;
    });
  },
});

/** Archive a project: it stays readable, takes no new access or changes. */
export const archiveProject = defineCommand({
  name: "archiveProject",
  input: projectAddress,
  target: onProject("project.edit"),
  async run(ctx, input, { tenantId, projectId }) {
    return ctx.db.transaction(async (tx) => {
      const { project } = await projectBySlugs(tx, input.tenant, input.project);
      assertProjectOpen(project);
      const [archived] = await tx
        .update(projects)
        .set({ archivedAt: ctx.now, version: project.version + 1 })
        .where(eq(projects.id, projectId))
        .returning();
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "project.archived",
        target: { type: "project", id: projectId },
        after: { archivedAt: ctx.now },
      });
      await enqueueProjectChange(tx, { tenantId, projectId, reason: "project archived", at: ctx.now });
      return archived!;
    });
  },
});
