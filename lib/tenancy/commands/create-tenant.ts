import "server-only";
import { z } from "zod";
import { memberships, tenants } from "@/db/schema";
import type { Database } from "@/db/client";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { findOrCreateUserByEmail } from "@/lib/auth/users";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { emailInput, nameInput } from "../inputs";
import { tenantSlug } from "../slugs";
import { enqueuePlatformFlavorsChange, enqueueTenantChange } from "@/lib/cluster/outbox";
import { atMostChars, atMostItems, oneOf } from "@/lib/input/messages";

/** "a@x.io, b@y.io" from a form, or an array from the API. */
const emailList = z.preprocess(
  (v) => (typeof v === "string" ? v.split(/[\s,;]+/).filter(Boolean) : v),
  z.array(emailInput).max(10, atMostItems(10, "email addresses")),
);

export const createTenantInput = z.object({
  name: nameInput,
  slug: tenantSlug,
  costCentre: z.string().trim().max(64, atMostChars(64)).default(""),
  isolationTier: z.enum(["shared", "dedicated"], { message: oneOf(["shared", "dedicated"]) }).default("shared"),
  firstAdmins: emailList.default([]),
});

/**
 * Platform admins onboard a tenant directly, with its first tenant admins
 * (users are created by email if they have never signed in).
 */
/**
 * The tenant row, its first admins (users created by email if they never
 * signed in), their audit events and the cluster change, in the caller's
 * transaction. Shared by direct onboarding and approved tenant requests.
 */
export async function insertTenant(tx: Database, input: z.output<typeof createTenantInput>, actor: AuditActor, now: Date) {
  const { firstAdmins, ...values } = input;
  const [tenant] = await tx.insert(tenants).values({ ...values, createdAt: now }).returning();
  await recordAudit(tx, { actor, at: now, tenantId: tenant!.id, action: "tenant.created", target: { type: "tenant", id: tenant!.id }, after: values });
  for (const email of new Set(firstAdmins)) {
    const { principalId } = await findOrCreateUserByEmail(tx, email, actor, now);
    await tx.insert(memberships).values({ tenantId: tenant!.id, principalId, role: "tenant_admin", createdAt: now });
    await recordAudit(tx, { actor, at: now, tenantId: tenant!.id, action: "membership.created", target: { type: "principal", id: principalId }, after: { email, role: "tenant_admin" } });
  }
  await enqueueTenantChange(tx, { tenantId: tenant!.id, reason: "tenant created", at: now });
  // A dedicated tenant's nodes are a pool of their own: the platform renders its ResourceFlavors.
  if (tenant!.isolationTier === "dedicated") await enqueuePlatformFlavorsChange(tx, { reason: `dedicated tenant ${tenant!.slug} created`, at: now });
  return tenant!;
}

export const createTenant = defineCommand({
  name: "createTenant",
  input: createTenantInput,
  target: () => Promise.resolve({ action: "tenant.create", resource: { kind: "platform" } }),
  async run(ctx, input) {
    try {
      return await ctx.db.transaction((tx) => insertTenant(tx, input, auditActorOf(ctx.actor), ctx.now));
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError("conflict", "A tenant with this slug already exists.", { slug: ["Choose another slug: this one is taken."] });
      throw error;
    }
  },
});
