import { z } from "zod";

/**
 * An instant as a person or a client writes it: an ISO date ("2027-01-31") or
 * date-time ("2027-01-31T12:00", "2027-01-31T12:00:00Z", with an offset),
 * years 0000 to 9999. `z.coerce.date` and `new Date(text)` also read numbers,
 * `true`, `null` (1970), " 4 " (2001-04-01) and "-1" (year -1), and a year past
 * 9999 that the database cannot store; none of those is a date anyone meant.
 */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** How an instant is documented in OpenAPI (a coerced date has no JSON Schema of its own). */
export const INSTANT_DOC = { format: "date-time", description: "An ISO date (2027-01-31) or date-time (2027-01-31T12:00:00Z)" } as const;

/** ISO text, or a valid Date from an in-process caller (the CLI, the seed), as a Date. */
export function instantInput(message: string) {
  return z
    .preprocess((v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString() : v), z.string({ message }).regex(ISO_INSTANT, message).pipe(z.coerce.date({ message })))
    .meta(INSTANT_DOC);
}
