import { randomBytes } from "node:crypto";
import { log } from "@/lib/observability/log";

/**
 * Expected failures carry a code from this table and reach the user as its
 * message. Anything else is unexpected: it is logged with a reference id and
 * the user sees only that id (never a database or framework message).
 */
export const ERROR_MESSAGES = {
  unauthenticated: "Your session has ended. Sign in again.",
  forbidden: "You do not have permission to do that.",
  not_found: "Not found, or you do not have access to it.",
  conflict: "That conflicts with something that already exists or was changed meanwhile.",
  validation: "Some fields need attention.",
} as const;

export type ErrorCode = keyof typeof ERROR_MESSAGES;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message?: string,
    /** Problems by field name, shown beside the field. */
    readonly fields?: Record<string, string[]>,
  ) {
    super(message ?? ERROR_MESSAGES[code]);
    this.name = "AppError";
  }
}

export function newReferenceId(): string {
  return randomBytes(6).toString("hex");
}

/** Log an unexpected error on the server and return the reference id to show instead. */
export function reportUnexpectedError(error: unknown, where: string): string {
  const ref = newReferenceId();
  log().error({ err: error, ref, where }, "unexpected error");
  return ref;
}

/** Postgres unique violation (23505), on either driver. */
export function isUniqueViolation(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === "object" && depth < 4; depth++) {
    if ((e as { code?: unknown }).code === "23505") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
