import { createHash, randomBytes } from "node:crypto";

/** Invitation links carry a random single-use token; the database keeps only its hash. */
export function newInvitationToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashInvitationToken(token) };
}

export function hashInvitationToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function invitationPath(token: string): string {
  return `/invite/${token}`;
}
