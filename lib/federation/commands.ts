import "server-only";
import { z } from "zod";
import { federationTrusts } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { config } from "@/lib/config";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { assertTenantActive, serviceAccountByName, tenantBySlug } from "@/lib/tenancy/lookup";
import { serviceAccountName } from "@/lib/tenancy/commands/service-accounts";
import { onTenant, tenantAddress } from "@/lib/tenancy/targets";
import { revokeTrustsWithin } from "./revoke";
import { claimConditionsInput, conditionsFromText, issuerProblem, trustInput, trustName } from "./inputs";

const DAY = 86_400_000;
const accountTarget = tenantAddress.extend({ serviceAccount: serviceAccountName });
const manageTrusts = onTenant("service_account.trust.manage");

/** Trust an external issuer for a service account. Nothing secret is stored: the issuer's keys are fetched when a token arrives. */
export const createTrust = defineCommand({
  name: "createTrust",
  input: accountTarget.extend(trustInput.shape),
  target: manageTrusts,
  async run(ctx, input, { tenantId }) {
    const problem = issuerProblem(input.issuer, config().federation.httpLoopback);
    if (problem) throw new AppError("validation", undefined, { issuer: [problem] });
    return ctx.db.transaction(async (tx) => {
      assertTenantActive(await tenantBySlug(tx, input.tenant));
      const account = await serviceAccountByName(tx, tenantId, input.serviceAccount);
      const expiresAt = input.expiresInDays === undefined ? null : new Date(ctx.now.getTime() + input.expiresInDays * DAY);
      const values = {
        serviceAccountId: account.principalId,
        name: input.name,
        issuer: input.issuer,
        audience: input.audience,
        subjectPattern: input.subjectPattern,
        claimConditions: input.claimConditions,
        expiresAt,
        createdAt: ctx.now,
        createdBy: ctx.actor.principalId,
      };
      const [row] = await tx
        .insert(federationTrusts)
        .values(values)
        .returning()
        .catch((error: unknown) => {
          if (isUniqueViolation(error)) throw new AppError("conflict", "This service account already has a trust with this name.", { name: ["Choose another name: this one is taken."] });
          throw error;
        });
      const { createdAt: _c, createdBy: _b, serviceAccountId: _s, ...recorded } = values;
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "federation.trust_created",
        target: { type: "principal", id: account.principalId },
        after: recorded,
      });
      return row!;
    });
  },
});

/** Revoke a trust and every token exchanged under it that is still live: automation relying on it stops at once. */
export const revokeTrust = defineCommand({
  name: "revokeTrust",
  input: accountTarget.extend({ trust: trustName }),
  target: manageTrusts,
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      const account = await serviceAccountByName(tx, tenantId, input.serviceAccount);
      const [revoked] = await revokeTrustsWithin(tx, { actor: auditActorOf(ctx.actor), now: ctx.now }, tenantId, account.principalId, input.trust);
      if (!revoked) throw new AppError("not_found", "No trust in force with this name on this service account.");
      return { revoked: true, revokedTokens: revoked.revokedTokens };
    });
  },
});

/** Issuers people pick from a list in the portal; a Kubernetes cluster's issuer is its own URL, typed under "other". */
export const ISSUER_PRESETS = [
  { value: "https://token.actions.githubusercontent.com", label: "GitHub Actions" },
  { value: "https://gitlab.com", label: "GitLab.com" },
] as const;

/**
 * The portal form's variant of createTrust: the issuer is a preset or typed,
 * and the claim conditions come as JSON text. Same target, same run.
 */
export const createTrustFromForm = defineCommand({
  ...createTrust,
  name: "createTrustFromForm",
  input: accountTarget
    .extend({
      ...trustInput.shape,
      issuerPreset: z.enum([...ISSUER_PRESETS.map((p) => p.value), "other"], { message: "Pick an issuer, or other." }),
      issuer: z.string().default(""),
      claimConditions: z.string().default("").transform(conditionsFromText).pipe(claimConditionsInput),
    })
    // An empty "other" issuer is then refused by issuerProblem, under the issuer field.
    .transform(({ issuerPreset, ...rest }) => ({ ...rest, issuer: issuerPreset === "other" ? rest.issuer.trim() : issuerPreset })),
});
