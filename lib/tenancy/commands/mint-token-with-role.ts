import "server-only";
import { z } from "zod";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { maySetRoleWhileMinting } from "@/lib/auth/policy";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { projectGrantRoleInput } from "../inputs";
import { assertProjectOpen, assertTenantActive, projectBySlugs, serviceAccountByName, tenantBySlug } from "../lookup";
import { projectSlug } from "../slugs";
import { setProjectRoleWithin } from "./project-access";
import { accountTarget, EXPIRY_DOC, expiryFrom, issueToken, manageTenant, tokenExpiry } from "./service-accounts";

/** A form's "no project" choice is the empty string: the same as leaving the field out. */
const emptyAsNone = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === "" ? undefined : v), schema.optional());

/**
 * The project role a new token's account gets with it, if any. The role is
 * read only with a project; a form always sends one, the API may leave both out.
 */
const optionalProjectRole = z
  .object({
    project: emptyAsNone(projectSlug),
    role: emptyAsNone(projectGrantRoleInput),
  })
  .refine((v) => v.project === undefined || v.role !== undefined, { message: "Choose the role it gets on that project.", path: ["role"] });

/**
 * Mint a token for a service account and, when a project is chosen, set the
 * account's role there first, in one transaction: if the role cannot be set
 * (an archived project, a disabled tenant, a refusal), no token exists either,
 * and the other way round. Both writes are audited. Setting the role takes the
 * rights of both steps (maySetRoleWhileMinting).
 */
export const mintTokenWithRole = defineCommand({
  name: "mintTokenWithRole",
  input: z.intersection(z.intersection(accountTarget, tokenExpiry), optionalProjectRole).meta(EXPIRY_DOC),
  target: manageTenant,
  async run(ctx, input, { tenantId }) {
    try {
      return await ctx.db.transaction(async (tx) => {
        assertTenantActive(await tenantBySlug(tx, input.tenant));
        const account = await serviceAccountByName(tx, tenantId, input.serviceAccount);
        let role: { projectSlug: string; projectName: string; role: "member" | "viewer" | "meter" } | null = null;
        if (input.project !== undefined && input.role !== undefined) {
          const { project } = await projectBySlugs(tx, input.tenant, input.project).catch((error: unknown) => {
            if (error instanceof AppError && error.code === "not_found") throw new AppError("validation", undefined, { project: ["Choose a project of this tenant."] });
            throw error;
          });
          if (!maySetRoleWhileMinting(ctx.actor, { tenantId, projectId: project.id }, ctx.now)) throw new AppError("forbidden");
          assertProjectOpen(project);
          await setProjectRoleWithin(tx, ctx, { tenantId, projectId: project.id }, account.principalId, input.role, null);
          role = { projectSlug: project.slug, projectName: project.name, role: input.role };
        }
        const token = await issueToken(tx, account.principalId, expiryFrom(ctx.now, input), auditActorOf(ctx.actor), tenantId, ctx.now);
        return { ...token, role };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError("conflict", "This account was given a role on that project meanwhile. Reload and try again.");
      throw error;
    }
  },
});
