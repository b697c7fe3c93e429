import "server-only";
import { z } from "zod";
import { tenants } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { tenantSlug } from "../slugs";

export const createTenantInput = z.object({
  name: z.string({ message: "is required" }).trim().min(2, "must be at least 2 characters").max(80, "must be at most 80 characters"),
  slug: tenantSlug,
  costCentre: z.string().trim().max(64, "must be at most 64 characters").default(""),
  isolationTier: z.enum(["shared", "dedicated"], { message: "must be shared or dedicated" }).default("shared"),
});

/** Platform admins onboard a tenant directly (first tenant admins come with membership management). */
export const createTenant = defineCommand({
  name: "createTenant",
  input: createTenantInput,
  target: () => Promise.resolve({ action: "tenant.create", resource: { kind: "platform" } }),
  async run(ctx, input) {
    try {
      return await ctx.db.transaction(async (tx) => {
        const [tenant] = await tx.insert(tenants).values({ ...input, createdAt: ctx.now }).returning();
        await recordAudit(tx, {
          actor: auditActorOf(ctx.actor),
          at: ctx.now,
          tenantId: tenant!.id,
          action: "tenant.created",
          target: { type: "tenant", id: tenant!.id },
          after: input,
        });
        return tenant!;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError("conflict", "A tenant with this slug already exists.", { slug: ["is already taken"] });
      throw error;
    }
  },
});
