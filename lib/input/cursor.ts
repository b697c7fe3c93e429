import { sql, type AnyColumn, type SQL } from "drizzle-orm";
import { z } from "zod";

/**
 * Keyset pagination over (created_at, id): a page is "the rows after this one"
 * in the list's order, never "skip N rows", so a late page costs what the first
 * costs, and a row added or decided meanwhile neither repeats nor hides another.
 *
 * The cursor is the last row's instant in microseconds since 1970 (as
 * PostgreSQL stores it) and its id: `1796661611851123_0b6c2a1e-…`. A
 * JavaScript Date keeps milliseconds only; a cursor rounded to them would sort
 * before its own row and show it again, so the instant travels as exact digits
 * (exactMicros). Rows of the same instant are ordered by id: ties are neither
 * repeated nor skipped. Every text the pattern admits is a cursor, so the
 * OpenAPI document describes the field exactly.
 */
export interface TimeIdCursor {
  /** Microseconds since 1970-01-01T00:00:00Z, as decimal digits. */
  micros: string;
  id: string;
}

export const CURSOR_MESSAGE = "Pass the `next` value of the previous page, as it was given.";
const CURSOR = /^(0|[1-9]\d{0,15})_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
/** The pattern documented for the query field (empty: the first page). */
const FIELD_PATTERN = /^(?:(?:0|[1-9]\d{0,15})_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?$/;

/** A timestamptz column as exact microseconds since 1970, as text (the cursor's `micros`). */
export const exactMicros = (column: AnyColumn): SQL<string> => sql<string>`(extract(epoch from ${column}) * 1000000)::bigint::text`;

export function encodeCursor(cursor: TimeIdCursor): string {
  return `${cursor.micros}_${cursor.id}`;
}

/** The cursor a `next` value holds, or null for anything that is not one. */
export function decodeCursor(text: string): TimeIdCursor | null {
  const m = CURSOR.exec(text);
  return m ? { micros: m[1]!, id: m[2]! } : null;
}

/**
 * An optional `after` query field: the `next` cursor of the previous page.
 * Absent or empty is the first page; anything else that is not a cursor is a
 * validation error keyed by the field's name (a 400 naming it, never a 500).
 */
export const cursorInput = z
  .string({ message: CURSOR_MESSAGE })
  .regex(FIELD_PATTERN, CURSOR_MESSAGE)
  .optional()
  .transform((text): TimeIdCursor | undefined => (text ? decodeCursor(text)! : undefined))
  .describe("The `next` value of the previous page; omit it for the first page");

/** The cursor's instant as a timestamptz, exact: whole seconds and the microseconds apart (each exact in a double). */
function instantOf(cursor: TimeIdCursor): SQL {
  const micros = BigInt(cursor.micros);
  const seconds = (micros / 1_000_000n).toString();
  const rest = (micros % 1_000_000n).toString();
  return sql`(timestamptz '1970-01-01 00:00:00+00' + ${seconds}::bigint * interval '1 second' + ${rest}::int * interval '1 microsecond')`;
}

/** Rows after the cursor in ascending (created_at, id) order, or after it in descending order. */
export function pastCursor(createdAt: AnyColumn, id: AnyColumn, cursor: TimeIdCursor, order: "asc" | "desc"): SQL {
  return order === "asc" ? sql`(${createdAt}, ${id}) > (${instantOf(cursor)}, ${cursor.id}::uuid)` : sql`(${createdAt}, ${id}) < (${instantOf(cursor)}, ${cursor.id}::uuid)`;
}
