import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { wholeNumber } from "@/lib/input/numbers";
import type { Database } from "@/db/client";
import { apiTokens, principals, serviceAccounts } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { newApiToken } from "@/lib/auth/api-token";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf, type CommandContext } from "@/lib/auth/context";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { checkbox, descriptionInput } from "../inputs";
import { assertTenantActive, serviceAccountByName, tenantBySlug } from "../lookup";
import { onTenant, tenantAddress } from "../targets";
import { enqueueGrantedProjectChanges } from "@/lib/cluster/outbox";
import { FILL_IN, SLUG_RULE, atLeastChars, atMostChars } from "@/lib/input/messages";

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Service account names become Kubernetes ServiceAccount names: DNS-1123 labels. */
export const serviceAccountName = z
  .string({ message: FILL_IN })
  .trim()
  .min(2, atLeastChars(2))
  .max(40, atMostChars(40))
  .regex(/^[a-z][a-z0-9-]*[a-z0-9]$/, SLUG_RULE);

/** Create the principal and its service account row, audited. Shared by the command and the operator CLI. */
export async function insertServiceAccount(
  tx: Database,
  account: { tenantId: string | null; name: string; description: string },
  actor: AuditActor,
  now: Date,
) {
  const [principal] = await tx.insert(principals).values({ kind: "service_account", displayName: account.name, createdAt: now }).returning();
  const [row] = await tx
    .insert(serviceAccounts)
    .values({ principalId: principal!.id, ...account, createdBy: actor.principalId })
    .returning()
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw new AppError("conflict", "A service account with this name already exists here.", { name: ["Choose another name: this one is taken."] });
      throw error;
    });
  await recordAudit(tx, {
    actor,
    at: now,
    tenantId: account.tenantId,
    action: "service_account.created",
    target: { type: "principal", id: principal!.id },
    after: { name: account.name, description: account.description, scope: account.tenantId ? "tenant" : "platform" },
  });
  return row!;
}

export const accountTarget = tenantAddress.extend({ serviceAccount: serviceAccountName });

export const manageTenant = onTenant("service_account.manage");

/** A service account belongs to the tenant, not to the admin who made it (created_by is a record only). */
export const createServiceAccount = defineCommand({
  name: "createServiceAccount",
  input: tenantAddress.extend({ name: serviceAccountName, description: descriptionInput }),
  target: manageTenant,
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      assertTenantActive(await tenantBySlug(tx, input.tenant));
      return insertServiceAccount(tx, { tenantId, name: input.name, description: input.description }, auditActorOf(ctx.actor), ctx.now);
    });
  },
});

type AccountRow = Awaited<ReturnType<typeof serviceAccountByName>>;

/** Set the description, audited; inside the caller's transaction. */
async function writeDescription(tx: Database, ctx: CommandContext, tenantId: string, account: AccountRow, description: string) {
  const [updated] = await tx.update(serviceAccounts).set({ description }).where(eq(serviceAccounts.principalId, account.principalId)).returning();
  await recordAudit(tx, {
    actor: auditActorOf(ctx.actor),
    at: ctx.now,
    tenantId,
    action: "service_account.updated",
    target: { type: "principal", id: account.principalId },
    before: { description: account.description },
    after: { description },
  });
  return updated!;
}

/** Disable or re-enable, audited, and reconcile the projects it holds roles on; inside the caller's transaction. */
async function writeDisabled(tx: Database, ctx: CommandContext, tenantId: string, account: AccountRow, disabled: boolean) {
  const [principal] = await tx
    .update(principals)
    .set({ disabledAt: disabled ? ctx.now : null })
    .where(eq(principals.id, account.principalId))
    .returning();
  await recordAudit(tx, {
    actor: auditActorOf(ctx.actor),
    at: ctx.now,
    tenantId,
    action: disabled ? "service_account.disabled" : "service_account.enabled",
    target: { type: "principal", id: account.principalId },
  });
  await enqueueGrantedProjectChanges(tx, { tenantId, principalId: account.principalId, reason: `service account ${disabled ? "disabled" : "enabled"}`, at: ctx.now });
  return { name: account.name, disabled: principal!.disabledAt !== null };
}

export const updateServiceAccount = defineCommand({
  name: "updateServiceAccount",
  input: accountTarget.extend({ description: descriptionInput }),
  target: manageTenant,
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => writeDescription(tx, ctx, tenantId, await serviceAccountByName(tx, tenantId, input.serviceAccount), input.description));
  },
});

/** A disabled service account keeps its roles and tokens but every request with them is refused. */
export const setServiceAccountDisabled = defineCommand({
  name: "setServiceAccountDisabled",
  input: accountTarget.extend({ disabled: checkbox }),
  target: manageTenant,
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => writeDisabled(tx, ctx, tenantId, await serviceAccountByName(tx, tenantId, input.serviceAccount), input.disabled));
  },
});

/**
 * Change any of the description and the disabled state at once (the API's
 * PATCH): at least one must be sent, and both are written in one transaction,
 * so a failure in either leaves the account as it was.
 */
export const changeServiceAccount = defineCommand({
  name: "changeServiceAccount",
  input: accountTarget
    .extend({ description: descriptionInput.unwrap().optional(), disabled: z.boolean().optional() })
    .refine((v) => v.description !== undefined || v.disabled !== undefined, { message: "Send description and/or disabled.", path: ["_form"] })
    .meta({ anyOf: [{ required: ["description"] }, { required: ["disabled"] }] }),
  target: manageTenant,
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      const account = await serviceAccountByName(tx, tenantId, input.serviceAccount);
      const description = input.description === undefined ? account.description : (await writeDescription(tx, ctx, tenantId, account, input.description)).description;
      const disabled = input.disabled === undefined ? null : (await writeDisabled(tx, ctx, tenantId, account, input.disabled)).disabled;
      return { name: account.name, description, disabled };
    });
  },
});

/** Delete a service account with its tokens and project roles; its audit history stays. */
export const deleteServiceAccount = defineCommand({
  name: "deleteServiceAccount",
  input: accountTarget,
  target: manageTenant,
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      const account = await serviceAccountByName(tx, tenantId, input.serviceAccount);
      // Before the delete, which takes the grants with it: these projects drop the account's objects.
      await enqueueGrantedProjectChanges(tx, { tenantId, principalId: account.principalId, reason: "service account deleted", at: ctx.now });
      await tx.delete(principals).where(eq(principals.id, account.principalId)); // cascades to tokens and grants
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "service_account.deleted",
        target: { type: "principal", id: account.principalId },
        before: { name: account.name, description: account.description },
      });
      return { deleted: true };
    });
  },
});

/** Expiry of a new token: a number of days, or none when the admin explicitly confirmed it. */
export const tokenExpiry = z
  .object({
    expiresInDays: wholeNumber("Expires in (days)", { min: 1, max: 365, empty: undefined }),
    noExpiry: checkbox,
  })
  .refine((v) => v.expiresInDays !== undefined || v.noExpiry, { message: "Enter a number of days, or confirm a token that never expires.", path: ["expiresInDays"] })
  .refine((v) => !(v.expiresInDays !== undefined && v.noExpiry), { message: "Choose either an expiry or no expiry, not both.", path: ["noExpiry"] });

/** The OpenAPI statement of the first rule above, on the whole input (where the document's object is). */
export const EXPIRY_DOC = { anyOf: [{ required: ["expiresInDays"] }, { required: ["noExpiry"] }] };

export function expiryFrom(now: Date, input: { expiresInDays?: number; noExpiry: boolean }): Date | null {
  return input.expiresInDays === undefined ? null : new Date(now.getTime() + input.expiresInDays * DAY);
}

/** Store a new token for a service account and return it, the only time it is ever visible. */
export async function issueToken(tx: Database, serviceAccountId: string, expiresAt: Date | null, actor: AuditActor, tenantId: string | null, now: Date) {
  const { token, prefix, hash } = newApiToken();
  const [row] = await tx.insert(apiTokens).values({ serviceAccountId, prefix, hash, expiresAt, createdAt: now, createdBy: actor.principalId }).returning();
  await recordAudit(tx, {
    actor,
    at: now,
    tenantId,
    action: "api_token.created",
    target: { type: "api_token", id: prefix },
    after: { serviceAccountId, expiresAt },
  });
  return { token, prefix, expiresAt: row!.expiresAt, createdAt: row!.createdAt };
}

export const mintToken = defineCommand({
  name: "mintToken",
  input: z.intersection(accountTarget, tokenExpiry).meta(EXPIRY_DOC),
  target: manageTenant,
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      const account = await serviceAccountByName(tx, tenantId, input.serviceAccount);
      return issueToken(tx, account.principalId, expiryFrom(ctx.now, input), auditActorOf(ctx.actor), tenantId, ctx.now);
    });
  },
});

async function openToken(tx: Database, serviceAccountId: string, prefix: string) {
  const [token] = await tx
    .select()
    .from(apiTokens)
    .where(and(eq(apiTokens.serviceAccountId, serviceAccountId), eq(apiTokens.prefix, prefix), isNull(apiTokens.revokedAt)));
  if (!token) throw new AppError("not_found", "No active token with this prefix on this service account.");
  return token;
}

const tokenTarget = accountTarget.extend({ prefix: z.string().regex(/^[a-z0-9]{12}$/, "Enter the token's 12-character prefix.") });

export const revokeToken = defineCommand({
  name: "revokeToken",
  input: tokenTarget,
  target: manageTenant,
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      const account = await serviceAccountByName(tx, tenantId, input.serviceAccount);
      const token = await openToken(tx, account.principalId, input.prefix);
      await revokeTokenWithin(tx, { actor: auditActorOf(ctx.actor), now: ctx.now }, tenantId, token);
      return { revoked: true };
    });
  },
});

/**
 * The revocation of one open token, inside the caller's transaction (the
 * command above, and an access review's decision on a service account, which
 * also reaches platform-scoped accounts: tenantId null).
 */
export async function revokeTokenWithin(tx: Database, by: { actor: AuditActor; now: Date }, tenantId: string | null, token: { id: string; prefix: string }) {
  await tx.update(apiTokens).set({ revokedAt: by.now }).where(eq(apiTokens.id, token.id));
  await recordAudit(tx, { actor: by.actor, at: by.now, tenantId, action: "api_token.revoked", target: { type: "api_token", id: token.prefix } });
}

/**
 * Replace a token: a new one is minted, and the old one keeps working for the
 * grace period the admin picks (0 ends it at once), so automation can switch over.
 */
export const rotateToken = defineCommand({
  name: "rotateToken",
  input: z.intersection(
    tokenTarget.extend({ graceHours: wholeNumber("Grace period (hours)", { max: 720, empty: 24 }) }),
    tokenExpiry,
  ).meta(EXPIRY_DOC),
  target: manageTenant,
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      const account = await serviceAccountByName(tx, tenantId, input.serviceAccount);
      const old = await openToken(tx, account.principalId, input.prefix);
      // A token from token exchange lives minutes and is replaced by exchanging again; rotating it
      // would turn a keyless trust into a long-lived stored secret, which the trust exists to avoid.
      if (old.federationTrustId) {
        throw new AppError("validation", "This token was issued by token exchange: it expires on its own within minutes. Exchange a new one, or mint a token if a stored one is really needed.", { prefix: ["was issued by token exchange and cannot be rotated"] });
      }
      const graceEnd = new Date(ctx.now.getTime() + input.graceHours * HOUR);
      const oldEnd = old.expiresAt && old.expiresAt < graceEnd ? old.expiresAt : graceEnd;
      await tx
        .update(apiTokens)
        .set(input.graceHours === 0 ? { revokedAt: ctx.now } : { expiresAt: oldEnd })
        .where(eq(apiTokens.id, old.id));
      const actor = auditActorOf(ctx.actor);
      await recordAudit(tx, {
        actor,
        at: ctx.now,
        tenantId,
        action: "api_token.rotated",
        target: { type: "api_token", id: old.prefix },
        before: { expiresAt: old.expiresAt },
        after: input.graceHours === 0 ? { revokedAt: ctx.now } : { expiresAt: oldEnd },
      });
      const fresh = await issueToken(tx, account.principalId, expiryFrom(ctx.now, input), actor, tenantId, ctx.now);
      return { ...fresh, previous: { prefix: old.prefix, validUntil: input.graceHours === 0 ? ctx.now : oldEnd } };
    });
  },
});
