"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { currentContext } from "@/lib/auth/current-actor";
import { formAction } from "@/lib/auth/form-action";
import type { FormState } from "@/lib/form-state";
import { createTrustFromForm, revokeTrust } from "@/lib/federation/commands";
import { formatDateTime } from "@/lib/format";
import { mapGroup, unmapGroup } from "@/lib/groups/commands";
import { moveQuota, setTenantEnvelope } from "@/lib/quota/commands/envelopes";
import { absoluteUrl } from "@/lib/server/request-url";
import { viewerTimeZone } from "@/lib/server/time-zone";
import { extendCollaborator, inviteCollaborator } from "@/lib/tenancy/commands/collaborators";
import { createProject } from "@/lib/tenancy/commands/create-project";
import { declineExtension, grantExtension } from "@/lib/tenancy/commands/extensions";
import { changeMemberRole, inviteMember, removeMember, revokeInvitation } from "@/lib/tenancy/commands/members";
import { grantProjectRole, revokeProjectGrant } from "@/lib/tenancy/commands/project-access";
import { archiveProject, updateProject } from "@/lib/tenancy/commands/projects";
import { setTenantClusterSettings } from "@/lib/tenancy/commands/tenant-cluster-settings";
import { serviceAccountDetail } from "@/lib/tenancy/service-account-queries";
import { mintTokenWithRole } from "@/lib/tenancy/commands/mint-token-with-role";
import { rolesInForce, tokenExample } from "@/lib/tenancy/token-example";
import {
  createServiceAccount,
  deleteServiceAccount,
  revokeToken,
  rotateToken,
  setServiceAccountDisabled,
  updateServiceAccount,
} from "@/lib/tenancy/commands/service-accounts";

/** Server actions of the tenant area: each one is a command behind the shared wrapper. */

const refresh = () => revalidatePath("/", "layout");

async function invitationReveal(result: { path: string; expiresAt: Date; mailed: boolean; email: string }) {
  refresh();
  const zone = await viewerTimeZone();
  return {
    message: result.mailed ? `Invitation mailed to ${result.email}.` : `Invitation created for ${result.email}.`,
    reveal: {
      label: "Invitation link (single use)",
      value: await absoluteUrl(result.path),
      note: `Pass it to ${result.email}; it works once, for that email address only, until ${formatDateTime(result.expiresAt, zone)}. It is not shown again.`,
    },
  };
}

/** The one-time view of a new token: the token, what it may do, and a ready curl command using it. */
function tokenReveal(formData: FormData) {
  return async (result: { token: string; expiresAt: Date | null; previous?: { prefix: string; validUntil: Date }; role?: { projectName: string; role: string } | null }) => {
    refresh();
    const ctx = await currentContext();
    const zone = await viewerTimeZone();
    const tenant = textField(formData, "tenant");
    // Read after the command's commit, so a role set with the token is in the example.
    const account = ctx ? (await serviceAccountDetail(ctx, tenant, textField(formData, "serviceAccount")).catch(() => null))?.account : undefined;
    const example = tokenExample(await absoluteUrl("/"), account ? rolesInForce(tenant, account.projectRoles, new Date()) : [], new Date(), result.token);
    const made = result.role ? `Role ${result.role.role} on ${result.role.projectName} set and token created.` : "Token created.";
    return {
      message: result.previous ? `Token rotated; the old token ${result.previous.prefix} works until ${formatDateTime(result.previous.validUntil, zone)}.` : made,
      reveal: {
        label: "Service account token",
        value: result.token,
        note: `Copy it now: it is stored only as a hash and cannot be shown again. ${result.expiresAt ? `Expires ${formatDateTime(result.expiresAt, zone)}.` : "It never expires; revoke it when no longer needed."} ${example.reach}`,
        example: example.command,
      },
    };
  };
}

/** A form field as text (the command has checked what it names). */
function textField(formData: FormData, name: string): string {
  const v = formData.get(name);
  return typeof v === "string" ? v : "";
}

export const createProjectAction = formAction(createProject, (project) => {
  refresh();
  redirect(`/tenants/${project.tenantSlug}/projects/${project.slug}`);
});
export const updateProjectAction = formAction(updateProject, refresh);
export const moveQuotaAction = formAction(moveQuota, refresh);
export const setTenantEnvelopeAction = formAction(setTenantEnvelope, refresh);
export const archiveProjectAction = formAction(archiveProject, refresh);

export const inviteMemberAction = formAction(inviteMember, invitationReveal);
export const revokeInvitationAction = formAction(revokeInvitation, refresh);
export const changeMemberRoleAction = formAction(changeMemberRole, refresh);
export const removeMemberAction = formAction(removeMember, refresh);

export const inviteCollaboratorAction = formAction(inviteCollaborator, invitationReveal);
export const extendCollaboratorAction = formAction(extendCollaborator, refresh);
export const grantExtensionAction = formAction(grantExtension, refresh);
export const declineExtensionAction = formAction(declineExtension, refresh);
export const grantProjectRoleAction = formAction(grantProjectRole, refresh);
export const revokeProjectGrantAction = formAction(revokeProjectGrant, refresh);

export const createServiceAccountAction = formAction(createServiceAccount, refresh);
export const updateServiceAccountAction = formAction(updateServiceAccount, refresh);
export const setServiceAccountDisabledAction = formAction(setServiceAccountDisabled, refresh);
/** The account page's Mint token: optionally with a project role for an account that holds none, in the same transaction. */
export async function mintTokenWithRoleAction(previous: FormState, formData: FormData): Promise<FormState> {
  return formAction(mintTokenWithRole, tokenReveal(formData))(previous, formData);
}
/** Deleting from the account's own page leaves for the list: the page is gone with the account. */
export async function deleteServiceAccountFromPageAction(previous: FormState, formData: FormData): Promise<FormState> {
  return formAction(deleteServiceAccount, () => {
    refresh();
    redirect(`/tenants/${textField(formData, "tenant")}/service-accounts`);
  })(previous, formData);
}
export async function rotateTokenAction(previous: FormState, formData: FormData): Promise<FormState> {
  return formAction(rotateToken, tokenReveal(formData))(previous, formData);
}
export const revokeTokenAction = formAction(revokeToken, refresh);
export const createTrustAction = formAction(createTrustFromForm, refresh);
export const revokeTrustAction = formAction(revokeTrust, refresh);

export const mapGroupAction = formAction(mapGroup, refresh);
export const unmapGroupAction = formAction(unmapGroup, refresh);

export const setTenantClusterSettingsAction = formAction(setTenantClusterSettings, () => refresh());
