/**
 * Whether a person may accept an invitation now. One rule for the accept page
 * and the accept command, so the page never promises what the command refuses.
 * The addressee is checked first: a forwarded link tells its holder neither
 * who it was for nor whether it was used, withdrawn or expired.
 */
export type InvitationState = { email: string; acceptedAt: Date | null; revokedAt: Date | null; expiresAt: Date; tenantStatus: "active" | "disabled" };

export type InvitationProblem = { code: "forbidden" | "conflict"; message: string };

export function invitationProblem(invitation: InvitationState, actorEmail: string | null, now: Date): InvitationProblem | null {
  if (actorEmail?.toLowerCase() !== invitation.email) {
    return { code: "forbidden", message: `This invitation is for another email address; you are signed in as ${actorEmail ?? "a service account"}.` };
  }
  if (invitation.acceptedAt) return { code: "conflict", message: "This invitation has already been used." };
  if (invitation.revokedAt) return { code: "conflict", message: "This invitation was withdrawn by a tenant admin." };
  if (invitation.expiresAt.getTime() <= now.getTime()) return { code: "conflict", message: "This invitation has expired. Ask the tenant admin for a new one." };
  if (invitation.tenantStatus !== "active") return { code: "conflict", message: "This tenant is disabled." };
  return null;
}
