import { sql, type AnyColumn, type SQL } from "drizzle-orm";
import { z } from "zod";

/**
 * Keyset pagination over (created_at, id): a page is "the rows after this one"
 * in the list's order, never "skip N rows", so a late page costs what the first
 * costs, and a row added or decided meanwhile neither repeats nor hides another.
 *
 * The cursor is opaque to clients: base64url of the last row's instant, to the
 * microsecond as PostgreSQL stores it, and its id. A JavaScript Date keeps
 * milliseconds only: a cursor rounded to them would sort before its own row and
 * show it again, so the instant travels as exact text (exactInstant). Rows with
 * the same instant are ordered by id, so ties are neither repeated nor skipped.
 */
export interface TimeIdCursor {
  /** ISO instant in UTC with up to six decimals ("2026-12-07T10:00:00.123456Z"). */
  at: string;
  id: string;
}

export const CURSOR_MESSAGE = "Pass the `next` value of the previous page, as it was given.";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?Z$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,200}$/;

/** A column's instant as exact UTC text, microseconds included (the cursor's `at`). */
export const exactInstant = (column: AnyColumn): SQL<string> => sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The cursor after a row: its exact instant (exactInstant) and its id. */
export function encodeCursor(cursor: TimeIdCursor): string {
  return Buffer.from(`${cursor.at} ${cursor.id}`, "utf8").toString("base64url");
}

/** The cursor a `next` value holds, or null for anything that is not one. */
export function decodeCursor(text: string): TimeIdCursor | null {
  if (!BASE64URL.test(text)) return null;
  const parts = Buffer.from(text, "base64url").toString("utf8").split(" ");
  if (parts.length !== 2) return null;
  const [at, id] = parts as [string, string];
  const m = INSTANT.exec(at);
  if (!m || !UUID.test(id)) return null;
  // A calendar date and time that exist (no 2026-02-31, no 25:00), in the years the database stores.
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (year < 1 || probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return null;
  // Re-encoding must give the same text: one cursor, one spelling.
  if (encodeCursor({ at, id }) !== text) return null;
  return { at, id };
}

/**
 * An optional `after` query field: the `next` cursor of the previous page.
 * Absent or empty is the first page; anything else that is not a cursor is a
 * validation error keyed by the field's name (a 400 naming it, never a 500).
 */
export const cursorInput = z
  .string({ message: CURSOR_MESSAGE })
  .regex(/^[A-Za-z0-9_-]{0,200}$/, CURSOR_MESSAGE)
  .optional()
  .transform((text, ctx): TimeIdCursor | undefined => {
    if (text === undefined || text === "") return undefined;
    const cursor = decodeCursor(text);
    if (!cursor) {
      ctx.addIssue({ code: "custom", message: CURSOR_MESSAGE });
      return z.NEVER;
    }
    return cursor;
  })
  .describe("The `next` cursor of the previous page; omit it for the first page");

/** Rows after the cursor in ascending (created_at, id) order, or after it in descending order. */
export function pastCursor(createdAt: AnyColumn, id: AnyColumn, cursor: TimeIdCursor, order: "asc" | "desc"): SQL {
  return order === "asc" ? sql`(${createdAt}, ${id}) > (${cursor.at}::timestamptz, ${cursor.id}::uuid)` : sql`(${createdAt}, ${id}) < (${cursor.at}::timestamptz, ${cursor.id}::uuid)`;
}
