import "server-only";
import { unstable_rethrow } from "next/navigation";
import type { z } from "zod";
import type { Resource } from "./actor";
import { executeCommand, type Command } from "./command";
import { currentContext } from "./current-actor";
import { AppError, ERROR_MESSAGES, reportUnexpectedError } from "@/lib/errors";
import type { FormState } from "@/lib/form-state";
import { refuseUnsafeText } from "@/lib/input/refuse";


/**
 * The one wrapper for every server action: session -> parse -> policy ->
 * command (the last three inside executeCommand). `after` runs on success, for
 * revalidation and redirects, and may add to what the form shows (a message, a
 * one-time secret).
 */
export function formAction<Schema extends z.ZodType, Target extends Resource, Result>(
  command: Command<Schema, Target, Result>,
  after?: (result: Result) => void | Partial<FormState> | Promise<void | Partial<FormState>>,
): (previous: FormState, formData: FormData) => Promise<FormState> {
  return async (_previous, formData) => {
    let result: Result;
    try {
      const ctx = await currentContext();
      if (!ctx) return { status: "error", message: ERROR_MESSAGES.unauthenticated };
      const fields = Object.fromEntries(formData);
      // A NUL or a lone surrogate typed or pasted into any field is named beside it, never a 500.
      refuseUnsafeText({ form: fields });
      result = await executeCommand(command, ctx, fields);
    } catch (error) {
      unstable_rethrow(error); // redirect() and notFound() work by throwing: let them through
      if (error instanceof AppError) return { status: "error", message: error.message, fieldErrors: error.fields };
      const ref = reportUnexpectedError(error, `action ${command.name}`);
      return { status: "error", message: `Something went wrong. Reference ${ref}.` };
    }
    // Outside the try: redirect() works by throwing.
    const extra = await after?.(result);
    return { status: "ok", ...(extra ?? {}) };
  };
}
