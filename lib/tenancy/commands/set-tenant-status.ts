import "server-only";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { tenants } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { tenantBySlug } from "../lookup";
import { onTenant, tenantAddress } from "../targets";
import { enqueueTenantChange } from "@/lib/cluster/outbox";
import { oneOf } from "@/lib/input/messages";

/**
 * Disable or re-enable a tenant. Disabling deletes nothing: the policy simply
 * stops counting memberships and grants in a disabled tenant.
 */
export const setTenantStatus = defineCommand({
  name: "setTenantStatus",
  input: tenantAddress.extend({ status: z.enum(["active", "disabled"], { message: oneOf(["active", "disabled"]) }) }),
  target: onTenant("tenant.disable"),
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      const tenant = await tenantBySlug(tx, input.tenant);
      if (tenant.status === input.status) return tenant;
      const [updated] = await tx
        .update(tenants)
        .set({ status: input.status, version: tenant.version + 1 })
        .where(eq(tenants.id, tenantId))
        .returning();
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: input.status === "disabled" ? "tenant.disabled" : "tenant.enabled",
        target: { type: "tenant", id: tenantId },
        before: { status: tenant.status },
        after: { status: input.status },
      });
      await enqueueTenantChange(tx, { tenantId, reason: `tenant ${input.status === "disabled" ? "disabled" : "enabled"}`, at: ctx.now });
      return updated!;
    });
  },
});
