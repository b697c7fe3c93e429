import { AppError } from "@/lib/errors";
import { firstUnsafeString } from "./text";

/**
 * Throws a validation error naming the first string, in any of the parts of a
 * request ({ path, query, body } or a form's fields), that must not reach a
 * command or the database (lib/input/text.ts). The field is keyed as the
 * schemas key theirs: by its path inside its part ("resources.gpu").
 */
export function refuseUnsafeText(parts: Record<string, unknown>): void {
  for (const [part, value] of Object.entries(parts)) {
    const bad = firstUnsafeString(value);
    if (!bad) continue;
    const field = bad.path || part;
    throw new AppError("validation", `Invalid ${part}: ${field} ${bad.message}.`, { [field]: [`This ${bad.message}.`] });
  }
}
