import { formatDateTime } from "@/lib/format";
import type { GrantCandidate, ReminderCandidate, TokenCandidate } from "./candidates";
import { extensionRequestPath, projectPath, serviceAccountPath, tenantCollaboratorsPath } from "./places";
import { timeLeftWords } from "./thresholds";

/**
 * The words of a reminder: one notice for the person whose access ends (with
 * the way to ask for more time) and one for those who can extend it (the
 * sponsor and the tenant admins, or the token's maker and the admins).
 */
export type ReminderWords = {
  holder: { title: string; body: string; link: string } | null;
  others: { title: string; body: string; link: string };
  /** The webhook's `text`, without the link. */
  text: string;
};

function grantWords(c: GrantCandidate, now: Date): ReminderWords {
  const when = timeLeftWords(c.expiresAt, now);
  const at = formatDateTime(c.expiresAt);
  const who = c.holderEmail ? `${c.holderName} (${c.holderEmail})` : c.holderName;
  const what = c.collaborator ? "external collaborator" : "time-bound project grant";
  return {
    holder: c.holderEmail
      ? {
          title: `Your access to ${c.projectName} ends ${when}`,
          body: `Your access to ${c.projectName} ends at ${at}. To keep working there, ask for an extension: give the date you need and why.`,
          link: extensionRequestPath(c.tenantSlug, c.projectSlug),
        }
      : null,
    others: {
      title: `${c.holderName}'s access to ${c.projectName} ends ${when}`,
      body: `${who}, ${what} on ${c.projectName}, loses access at ${at} unless it is extended.`,
      link: c.collaborator ? tenantCollaboratorsPath(c.tenantSlug) : projectPath(c.tenantSlug, c.projectSlug),
    },
    text: `${who}'s access to ${c.tenantSlug}/${c.projectSlug} (${what}) ends ${when}, at ${at}.`,
  };
}

function tokenWords(c: TokenCandidate, now: Date): ReminderWords {
  const when = timeLeftWords(c.expiresAt, now);
  const at = formatDateTime(c.expiresAt);
  const place = c.tenantSlug ? `${c.tenantSlug}/${c.serviceAccountName}` : c.serviceAccountName;
  return {
    holder: null,
    others: {
      title: `Token ${c.prefix} of ${c.serviceAccountName} expires ${when}`,
      body: `The service account ${place} has no other token that lasts longer: automation using it stops at ${at}. Rotate the token or mint a new one before then.`,
      link: serviceAccountPath(c.tenantSlug, c.serviceAccountName),
    },
    text: `Token ${c.prefix} of the service account ${place} expires ${when}, at ${at}, and the account has no token that lasts longer.`,
  };
}

export function reminderWords(c: ReminderCandidate, now: Date): ReminderWords {
  return c.kind === "project_grant" ? grantWords(c, now) : tokenWords(c, now);
}
