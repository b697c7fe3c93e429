import { FUTURE_DATE } from "@/lib/input/messages";

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

const DAY = 86_400_000;

/**
 * The term of a collaborator's access (and of any time-bound project grant):
 * it must end in the future and at most `maxDays` (ALLOT_MAX_COLLABORATOR_DAYS)
 * from now. One rule for inviting, changing an expiry, and asking for and
 * granting an extension. Returns what is wrong, or null.
 */
export function collaboratorExpiryProblem(expiresAt: Date, now: Date, maxDays: number): string | null {
  if (expiresAt.getTime() <= now.getTime()) return FUTURE_DATE;
  if (expiresAt.getTime() > now.getTime() + maxDays * DAY) return `Enter a date at most ${maxDays} days from now.`;
  return null;
}
