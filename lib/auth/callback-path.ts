import { z } from "zod";

/**
 * Where to go after signing in: only a path on this site. Anything else
 * ("//evil.example", "https://…", "/\\evil") becomes "/", so a crafted sign-in
 * link can never send someone to another origin.
 */
export const callbackPath = z
  .string()
  .regex(/^\/(?![/\\])/)
  .catch("/");

export function safeCallbackPath(raw: unknown): string {
  return callbackPath.parse(raw ?? "/");
}
