import "server-only";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { wholeNumber } from "@/lib/input/numbers";
import { tenants } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { enqueueTenantChange } from "@/lib/cluster/outbox";
import { AppError } from "@/lib/errors";
import { tenantBySlug } from "../lookup";
import { onTenant, tenantAddress } from "../targets";
import { atMostChars } from "@/lib/input/messages";

const PLACEHOLDERS = new Set(["tenant", "project", "namespace", "serviceAccount"]);
const ANNOTATION_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * "key=value" lines, e.g. `eks.amazonaws.com/role-arn=arn:aws:iam::123456789012:role/{tenant}-{serviceAccount}`.
 * Values may use {tenant}, {project}, {namespace} and {serviceAccount}. An
 * annotation names a cloud identity to federate with, never a credential.
 */
export const workloadIdentityInput = z
  .string()
  .max(4000, atMostChars(4000))
  .transform((text, ctx) => {
    const annotations: Record<string, string> = {};
    for (const [i, raw] of text.split(/\r?\n/).entries()) {
      const line = raw.trim();
      if (!line) continue;
      const eq = line.indexOf("=");
      const key = eq > 0 ? line.slice(0, eq).trim() : "";
      const value = eq > 0 ? line.slice(eq + 1).trim() : "";
      if (!ANNOTATION_KEY.test(key) || !value) {
        ctx.addIssue({ code: "custom", message: `Write line ${i + 1} as annotation-key=value.` });
        return z.NEVER;
      }
      const unknown = [...value.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!).filter((p) => !PLACEHOLDERS.has(p));
      if (unknown.length > 0) {
        ctx.addIssue({ code: "custom", message: `Use {tenant}, {project}, {namespace} or {serviceAccount} on line ${i + 1}: {${unknown[0]}} is not a placeholder.` });
        return z.NEVER;
      }
      annotations[key] = value;
    }
    return annotations;
  });

const runtimeClassInput = z
  .string()
  .trim()
  .max(253, atMostChars(253))
  .refine((v) => v === "" || /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(v), "Enter a RuntimeClass name (lower-case letters, digits, - and .).");

/** Platform admins set how a tenant's namespaces run: a sandbox RuntimeClass and workload identity for its service accounts. */
export const setTenantClusterSettings = defineCommand({
  name: "setTenantClusterSettings",
  input: tenantAddress.extend({ runtimeClass: runtimeClassInput.default(""), workloadIdentity: workloadIdentityInput.default({}), version: wholeNumber("Version") }),
  target: onTenant("tenant.cluster.manage"),
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      const tenant = await tenantBySlug(tx, input.tenant);
      if (tenant.version !== input.version) throw new AppError("conflict", "Someone changed this tenant meanwhile. Reload and try again.");
      const after = { runtimeClass: input.runtimeClass || null, workloadIdentity: Object.keys(input.workloadIdentity).length > 0 ? input.workloadIdentity : null };
      const [updated] = await tx
        .update(tenants)
        .set({ ...after, version: tenant.version + 1 })
        .where(eq(tenants.id, tenantId))
        .returning();
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "tenant.cluster_settings_changed",
        target: { type: "tenant", id: tenantId },
        before: { runtimeClass: tenant.runtimeClass, workloadIdentity: tenant.workloadIdentity },
        after,
      });
      await enqueueTenantChange(tx, { tenantId, reason: "tenant cluster settings changed", at: ctx.now }, { includeArchived: false });
      return updated!;
    });
  },
});
