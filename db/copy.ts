import type { Database } from "./client";

/** A value for COPY or an array literal: written as PostgreSQL's text input of its column type. */
export type BulkValue = string | number | boolean | null | undefined;

const COPY_ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** One field of COPY's text format: \N for null, backslash, tab and line breaks escaped. */
export function copyField(value: BulkValue): string {
  if (value === null || value === undefined) return "\\N";
  return String(value).replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!);
}

/** Rows in COPY's text format, one line each. */
export function copyText(rows: readonly (readonly BulkValue[])[]): string {
  let text = "";
  for (const row of rows) text += row.map(copyField).join("\t") + "\n";
  return text;
}

/**
 * A one-dimensional array literal ('{"a","b",NULL}') to pass as a single text
 * parameter and cast (`${literal}::text::uuid[]`): the same on both drivers, and
 * one parameter however long the array, where drizzle would expand a JS array
 * into one parameter per element.
 */
export function arrayLiteral(values: readonly BulkValue[]): string {
  return `{${values.map((v) => (v === null || v === undefined ? "NULL" : `"${String(v).replace(/[\\"]/g, (c) => `\\${c}`)}"`)).join(",")}}`;
}

/** The driver's own client behind a drizzle database or transaction (drizzle keeps it on its session). */
type CopyQuery = Promise<unknown> & { writable: () => Promise<NodeJS.WritableStream>; reject: (error: unknown) => void };
type PostgresJsClient = { unsafe: (query: string) => CopyQuery };
type PgliteClient = { query: (query: string, params: unknown[], options: { blob: Blob }) => Promise<unknown> };

function driverClient(db: Database): PostgresJsClient | PgliteClient {
  const client = (db as unknown as { session?: { client?: unknown } }).session?.client;
  if (client && (typeof client === "function" || typeof client === "object")) {
    if (typeof (client as Partial<PostgresJsClient>).unsafe === "function") return client as PostgresJsClient;
    if (typeof (client as Partial<PgliteClient>).query === "function") return client as PgliteClient;
  }
  throw new Error("copyRows: no postgres.js or PGlite client behind this database");
}

/**
 * COPY rows into a table, inside the caller's transaction: through COPY FROM
 * STDIN on PostgreSQL (postgres.js), and COPY FROM '/dev/blob' on PGlite, which
 * has no COPY over the wire but reads the same text from a blob. `table` and
 * `columns` are identifiers from code, never from input.
 */
export async function copyRows(db: Database, table: string, columns: readonly string[], rows: readonly (readonly BulkValue[])[]): Promise<void> {
  if (rows.length === 0) return;
  const identifier = /^[a-z_][a-z0-9_]*$/;
  if (!identifier.test(table) || !columns.every((c) => identifier.test(c))) throw new Error(`copyRows: ${table} (${columns.join(", ")}) is not a plain table and column list`);
  const text = copyText(rows);
  const client = driverClient(db);
  if ("unsafe" in client) {
    const query = client.unsafe(`copy ${table} (${columns.join(", ")}) from stdin`);
    // postgres.js (3.4) resolves the query with the stream when COPY starts and calls the stream's
    // final callback when the server answers; an error that arrives after the last row was sent
    // (a duplicate key, a check constraint) goes to the already settled query and would leave the
    // COPY waiting forever. Catch it where postgres.js reports it.
    let fail: (error: unknown) => void = () => {};
    const failed = new Promise<never>((_, reject) => (fail = reject));
    failed.catch(() => {}); // an error before the COPY starts rejects the query itself, below
    const reportTo = query.reject;
    query.reject = (error) => {
      fail(error);
      reportTo(error);
    };
    const stream = await query.writable();
    const finished = new Promise<void>((resolve, reject) => {
      stream.on("error", reject);
      stream.on("finish", resolve);
      stream.end(text);
    });
    await Promise.race([finished, failed]);
    return;
  }
  await client.query(`copy ${table} (${columns.join(", ")}) from '/dev/blob'`, [], { blob: new Blob([text]) });
}
